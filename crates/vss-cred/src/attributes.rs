//! Attribute types and values, and how each value becomes a BBS message: a string is hashed
//! (MapMessageToScalarAsHash), a date counts days since 0001-01-01 and an integer is itself,
//! so that dates and integers can be compared in range predicates and opened by an inspector.

use crate::bbs::message_to_scalar;
use crate::group::Scalar;
use serde::{Deserialize, Serialize};

/// The longest string attribute, in bytes.
pub const MAX_STRING_LEN: usize = 1024;
/// The earliest year of a date accepted: dates count days from 0001-01-01.
pub const MIN_YEAR: i64 = 1;
/// Days from 0001-01-01 to 1970-01-01 (proleptic Gregorian).
const UNIX_EPOCH_DAY: i64 = 719_162;
/// The latest year of a date accepted.
pub const MAX_YEAR: i64 = 9999;

/// The type of an attribute, as P2ABCE's credential specification names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttributeType {
    /// UTF-8 text, at most [`MAX_STRING_LEN`] bytes.
    String,
    /// A calendar date written `YYYY-MM-DDZ` (xs:date in UTC, as the seed writes them).
    Date,
    /// An unsigned 64-bit integer.
    Integer,
}

/// Why a value is not an attribute of its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttributeError {
    /// A string over [`MAX_STRING_LEN`] bytes.
    #[error("string attribute is longer than {MAX_STRING_LEN} bytes")]
    TooLong,
    /// Not a date `YYYY-MM-DDZ` between [`MIN_YEAR`] and [`MAX_YEAR`].
    #[error("{0:?} is not a date YYYY-MM-DDZ")]
    Date(String),
    /// Not an unsigned 64-bit integer.
    #[error("{0:?} is not an unsigned 64-bit integer")]
    Integer(String),
}

impl AttributeType {
    /// Checks `text` as a value of this type and returns its message.
    pub fn encode(self, text: &str) -> crate::Result<Scalar> {
        match self {
            AttributeType::String => {
                if text.len() > MAX_STRING_LEN {
                    return Err(AttributeError::TooLong.into());
                }
                Ok(message_to_scalar(text.as_bytes()))
            }
            AttributeType::Date => Ok(Scalar::from(date(text)?)),
            AttributeType::Integer => Ok(Scalar::from(parse_integer(text)?)),
        }
    }

    /// The value as the integer that range predicates compare (dates as days since
    /// 0001-01-01); `None` for strings.
    pub fn ordinal(self, text: &str) -> crate::Result<Option<u64>> {
        Ok(match self {
            AttributeType::String => None,
            AttributeType::Date => Some(date(text)?),
            AttributeType::Integer => Some(parse_integer(text)?),
        })
    }

    /// The value written back from its ordinal (the inspector's answer).
    pub fn from_ordinal(self, ordinal: u64) -> Option<String> {
        match self {
            AttributeType::String => None,
            AttributeType::Date => Some(format_date(ordinal)),
            AttributeType::Integer => Some(ordinal.to_string()),
        }
    }
}

fn parse_integer(text: &str) -> Result<u64, AttributeError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AttributeError::Integer(text.to_string()));
    }
    text.parse()
        .map_err(|_| AttributeError::Integer(text.to_string()))
}

/// Days since 0001-01-01 of a date `YYYY-MM-DDZ`.
pub fn parse_date(text: &str) -> crate::Result<u64> {
    Ok(date(text)?)
}

/// [`parse_date`] with the attribute's own error.
fn date(text: &str) -> Result<u64, AttributeError> {
    let bad = || AttributeError::Date(text.to_string());
    let b = text.as_bytes();
    if b.len() != 11 || b[4] != b'-' || b[7] != b'-' || b[10] != b'Z' {
        return Err(bad());
    }
    let digits = |range: std::ops::Range<usize>| -> Result<i64, AttributeError> {
        let part = &text[range];
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        part.parse().map_err(|_| bad())
    };
    let (y, m, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if !(MIN_YEAR..=MAX_YEAR).contains(&y)
        || !(1..=12).contains(&m)
        || d < 1
        || d > days_in_month(y, m)
    {
        return Err(bad());
    }
    Ok((days_from_civil(y, m, d) + UNIX_EPOCH_DAY) as u64)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `YYYY-MM-DDZ` of a day count since 0001-01-01.
pub fn format_date(days: u64) -> String {
    let z = days as i64 - UNIX_EPOCH_DAY + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_days_since_year_one_and_round_trip() {
        assert_eq!(date("0001-01-01Z"), Ok(0));
        assert_eq!(date("1970-01-01Z"), Ok(719_162));
        assert_eq!(date("2013-08-07Z"), Ok(719_162 + 15_924));
        assert_eq!(date("1985-05-05Z"), Ok(719_162 + 5_603));
        assert_eq!(date("2000-02-29Z"), Ok(719_162 + 11_016));
        assert_eq!(date("1900-03-01Z"), Ok(719_162 - 25_508));
        for days in [0, 365, 719_162, 724_765, 730_178, 735_086, 3_652_058] {
            assert_eq!(parse_date(&format_date(days)).ok(), Some(days));
        }
        for bad in [
            "2013-08-07",
            "2013-02-29Z",
            "0000-12-31Z",
            "1900-02-29Z",
            "2013-13-01Z",
            "2013-8-07Z",
            "+013-08-07Z",
            "2013-08-00Z",
        ] {
            assert!(parse_date(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_are_checked_against_their_type() {
        assert!(AttributeType::Integer.encode("23784638726").is_ok());
        assert_eq!(
            AttributeType::Integer.ordinal("23784638726").ok(),
            Some(Some(23_784_638_726))
        );
        for bad in ["", "-1", "1e3", "18446744073709551616", " 1"] {
            assert!(AttributeType::Integer.encode(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            AttributeType::String.encode(&"x".repeat(MAX_STRING_LEN + 1)),
            Err(crate::Error::Value(AttributeError::TooLong))
        ));
        assert_ne!(
            AttributeType::String.encode("John").ok(),
            AttributeType::String.encode("Dow").ok()
        );
        assert_eq!(
            AttributeType::Date.from_ordinal(735_086).as_deref(),
            Some("2013-08-07Z")
        );
    }
}

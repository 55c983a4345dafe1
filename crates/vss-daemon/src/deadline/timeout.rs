//! The `grpc-timeout` request header of gRPC over HTTP/2: `TimeoutValue TimeoutUnit`, at
//! most 8 ASCII digits and one unit of `H` (hours), `M` (minutes), `S` (seconds), `m`
//! (milliseconds), `u` (microseconds), `n` (nanoseconds), e.g. `100m` or `5S`.

use std::fmt;
use std::time::Duration;

use tonic::Status;

/// The most digits of a `TimeoutValue`.
pub const MAX_DIGITS: usize = 8;

/// A `TimeoutUnit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `H`.
    Hours,
    /// `M`.
    Minutes,
    /// `S`.
    Seconds,
    /// `m`.
    Millis,
    /// `u`.
    Micros,
    /// `n`.
    Nanos,
}

impl Unit {
    fn of(byte: u8) -> Option<Unit> {
        Some(match byte {
            b'H' => Unit::Hours,
            b'M' => Unit::Minutes,
            b'S' => Unit::Seconds,
            b'm' => Unit::Millis,
            b'u' => Unit::Micros,
            b'n' => Unit::Nanos,
            _ => return None,
        })
    }

    fn letter(self) -> char {
        match self {
            Unit::Hours => 'H',
            Unit::Minutes => 'M',
            Unit::Seconds => 'S',
            Unit::Millis => 'm',
            Unit::Micros => 'u',
            Unit::Nanos => 'n',
        }
    }
}

/// Why a `grpc-timeout` value is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadTimeout {
    /// No digit before the unit (or nothing at all).
    #[error("no digits")]
    NoDigits,
    /// More than [`MAX_DIGITS`] digits.
    #[error("more than {MAX_DIGITS} digits")]
    TooManyDigits,
    /// Something else than an ASCII digit before the unit.
    #[error("not a decimal number")]
    NotDigits,
    /// A unit other than `H`, `M`, `S`, `m`, `u`, `n`.
    #[error("unknown unit")]
    Unit,
}

/// A client's deadline as its `grpc-timeout` header gave it: how long from the request's
/// arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrpcTimeout {
    value: u32,
    unit: Unit,
}

impl GrpcTimeout {
    /// Parses a header value (bytes, as a header may hold any).
    pub fn parse(text: &[u8]) -> Result<GrpcTimeout, BadTimeout> {
        let (&last, digits) = text.split_last().ok_or(BadTimeout::NoDigits)?;
        let unit = Unit::of(last).ok_or(BadTimeout::Unit)?;
        if digits.is_empty() {
            return Err(BadTimeout::NoDigits);
        }
        if digits.len() > MAX_DIGITS {
            return Err(BadTimeout::TooManyDigits);
        }
        let value = digits.iter().try_fold(0u32, |value, &digit| {
            digit
                .is_ascii_digit()
                .then(|| value * 10 + u32::from(digit - b'0'))
                .ok_or(BadTimeout::NotDigits)
        })?;
        Ok(GrpcTimeout { value, unit })
    }

    /// The time it gives (at most 99,999,999 hours: no overflow).
    pub fn duration(self) -> Duration {
        let value = u64::from(self.value);
        match self.unit {
            Unit::Hours => Duration::from_secs(value * 3600),
            Unit::Minutes => Duration::from_secs(value * 60),
            Unit::Seconds => Duration::from_secs(value),
            Unit::Millis => Duration::from_millis(value),
            Unit::Micros => Duration::from_micros(value),
            Unit::Nanos => Duration::from_nanos(value),
        }
    }

    /// The status of a call still running at this deadline.
    pub fn expired(self) -> Status {
        Status::deadline_exceeded(format!(
            "the client's deadline passed (grpc-timeout {self})"
        ))
    }
}

impl fmt::Display for GrpcTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.value, self.unit.letter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Duration, BadTimeout> {
        GrpcTimeout::parse(text.as_bytes()).map(GrpcTimeout::duration)
    }

    #[test]
    fn every_unit() {
        assert_eq!(parse("3H"), Ok(Duration::from_secs(3 * 3600)));
        assert_eq!(parse("2M"), Ok(Duration::from_secs(120)));
        assert_eq!(parse("5S"), Ok(Duration::from_secs(5)));
        assert_eq!(parse("100m"), Ok(Duration::from_millis(100)));
        assert_eq!(parse("7u"), Ok(Duration::from_micros(7)));
        assert_eq!(parse("82n"), Ok(Duration::from_nanos(82)));
    }

    #[test]
    fn zero_and_leading_zeros() {
        assert_eq!(parse("0S"), Ok(Duration::ZERO));
        assert_eq!(parse("0n"), Ok(Duration::ZERO));
        assert_eq!(parse("00000200m"), Ok(Duration::from_millis(200)));
    }

    #[test]
    fn eight_digits_at_most() {
        assert_eq!(
            parse("99999999H"),
            Ok(Duration::from_secs(99_999_999 * 3600))
        );
        assert_eq!(parse("12345678n"), Ok(Duration::from_nanos(12_345_678)));
        assert_eq!(parse("123456789n"), Err(BadTimeout::TooManyDigits));
        assert_eq!(parse("000000001S"), Err(BadTimeout::TooManyDigits));
    }

    #[test]
    fn garbage_is_refused() {
        assert_eq!(parse(""), Err(BadTimeout::NoDigits));
        assert_eq!(parse("S"), Err(BadTimeout::NoDigits));
        assert_eq!(parse("100"), Err(BadTimeout::Unit));
        assert_eq!(parse("82f"), Err(BadTimeout::Unit));
        assert_eq!(parse("5s"), Err(BadTimeout::Unit));
        assert_eq!(parse("5SS"), Err(BadTimeout::NotDigits));
        assert_eq!(parse("oneH"), Err(BadTimeout::NotDigits));
        assert_eq!(parse("+5S"), Err(BadTimeout::NotDigits));
        assert_eq!(parse("-5S"), Err(BadTimeout::NotDigits));
        assert_eq!(parse(" 5S"), Err(BadTimeout::NotDigits));
        assert_eq!(parse("1.5S"), Err(BadTimeout::NotDigits));
        assert_eq!(parse("5\u{e9}S"), Err(BadTimeout::NotDigits));
        assert_eq!(GrpcTimeout::parse(b"5\xff"), Err(BadTimeout::Unit));
    }

    #[test]
    fn shown_as_sent() {
        let shown = |text: &str| GrpcTimeout::parse(text.as_bytes()).map(|t| t.to_string());
        assert_eq!(shown("200m"), Ok("200m".to_owned()));
        assert_eq!(shown("007S"), Ok("7S".to_owned()));
    }
}

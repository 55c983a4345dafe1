//! The text forms of ITS values that command lines and configuration take: a permission
//! (`PSID[:SSP-HEX]`), a 1609.2 `Duration` (`5y`, `7d`, `90s`), a 3D location
//! (`LAT,LON[,ELEVATION]`). A refused text is [`Error::InvalidRequest`], saying why.

use crate::asn::{Duration, ThreeDLocation};
use crate::{Error, Permission, Result};

/// A permission: `PSID` or `PSID:SSP-HEX` (an opaque SSP).
pub fn permission(text: &str) -> Result<Permission> {
    parse_permission(text).map_err(Error::InvalidRequest)
}

/// A 1609.2 `Duration`: `5y`, `7d`, `168h`, `30m`, `90s`, held exactly by one of its choices.
pub fn duration(text: &str) -> Result<Duration> {
    parse_duration(text).map_err(Error::InvalidRequest)
}

/// A location, `LAT,LON[,ELEVATION]` in degrees and metres (elevation 0 m when left out).
pub fn location(text: &str) -> Result<ThreeDLocation> {
    parse_location(text).map_err(Error::InvalidRequest)
}

/// `PSID` or `PSID:SSP-HEX`.
fn parse_permission(s: &str) -> Result<Permission, String> {
    let (psid, ssp) = match s.split_once(':') {
        Some((p, ssp)) => (
            p,
            Some(hex::decode(ssp).map_err(|e| format!("SSP is not hex: {e}"))?),
        ),
        None => (s, None),
    };
    let psid = psid
        .parse()
        .map_err(|_| format!("'{psid}' is not a PSID number"))?;
    Ok(Permission::opaque(psid, ssp))
}

/// `5y`, `7d`, `168h`, `30m`, `90s`: a length that one of 1609.2's `Duration` choices holds
/// (16 bits of years, sixty hours, hours, minutes or seconds). Whether it ends by the end of
/// `Time32` depends on the start, and is checked when the certificate is built.
fn parse_duration(s: &str) -> Result<Duration, String> {
    const UNITS: [(&str, u64); 4] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)];
    let number = |n: &str| {
        n.parse::<u64>()
            .map_err(|_| format!("'{s}': expected a number and a unit (y d h m s)"))
    };
    if let Some(years) = s.strip_suffix('y') {
        return u16::try_from(number(years)?)
            .map(Duration::Years)
            .map_err(|_| format!("'{s}': a 1609.2 Duration holds at most 65535 years"));
    }
    let Some((n, unit)) = UNITS
        .iter()
        .find_map(|&(suffix, unit)| s.strip_suffix(suffix).map(|n| (n, unit)))
    else {
        return Err(format!("'{s}': the unit is y, d, h, m or s"));
    };
    number(n)?
        .checked_mul(unit)
        .and_then(crate::duration_from_seconds)
        .ok_or_else(|| {
            format!(
                "'{s}' fits no 1609.2 Duration (at most 65535 of seconds, minutes, hours or \
                 sixty hours, or 65535 years)"
            )
        })
}

/// `LAT,LON[,ELEVATION]`.
fn parse_location(s: &str) -> Result<ThreeDLocation, String> {
    let parts: Vec<&str> = s.split(',').collect();
    let number = |t: &str| {
        t.trim()
            .parse::<f64>()
            .map_err(|_| format!("'{t}' is not a number"))
    };
    if !(2..=3).contains(&parts.len()) {
        return Err("expected LAT,LON or LAT,LON,ELEVATION".into());
    }
    let at = crate::region::location(number(parts[0])?, number(parts[1])?)?;
    let metres = parts.get(2).map(|e| number(e)).transpose()?.unwrap_or(0.0);
    Ok(ThreeDLocation {
        latitude: at.latitude,
        longitude: at.longitude,
        elevation: crate::asn::Elevation(elevation(metres)?),
    })
}

/// 1609.2's `Elevation`: decimetres above −409.5 m, so −409.5 m to 6143.9 m.
fn elevation(metres: f64) -> Result<u16, String> {
    let decimetres = ((metres + 409.5) * 10.0).round();
    if (0.0..=65535.0).contains(&decimetres) {
        Ok(decimetres as u16)
    } else {
        Err(format!(
            "elevation {metres} m is outside -409.5 m to 6143.9 m"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elevation_is_decimetres_above_minus_409_5_metres() {
        assert_eq!(elevation(0.0), Ok(4095));
        assert_eq!(elevation(-409.5), Ok(0));
        assert_eq!(elevation(6143.9), Ok(65534));
        assert_eq!(elevation(12.34), Ok(4218));
        assert!(elevation(-409.6).is_err());
        assert!(elevation(6200.0).is_err());
        let at = parse_location("50.85,4.35,100").expect("location");
        assert_eq!(at.elevation.0, 5095);
        assert_eq!(
            parse_location("50.85,4.35").expect("location").elevation.0,
            4095
        );
        assert!(parse_location("50.85").is_err());
    }

    #[test]
    fn durations_are_checked_against_the_1609_2_choices() {
        assert_eq!(parse_duration("5y"), Ok(Duration::Years(5)));
        assert_eq!(parse_duration("7974y"), Ok(Duration::Years(7974)));
        assert_eq!(parse_duration("65535y"), Ok(Duration::Years(65535)));
        assert_eq!(parse_duration("7d"), Ok(Duration::Hours(168)));
        assert_eq!(parse_duration("90s"), Ok(Duration::Seconds(90)));
        assert_eq!(parse_duration("65535s"), Ok(Duration::Seconds(65535)));
        // 65536 s is 1092 minutes and 16 s: no choice holds it exactly.
        assert!(parse_duration("65536s").is_err_and(|e| e.contains("fits no 1609.2 Duration")));
        assert_eq!(parse_duration("65580s"), Ok(Duration::Minutes(1093)));
        // Longer than 65535 hours: in sixty-hour periods when they divide it.
        assert_eq!(parse_duration("163835d"), Ok(Duration::SixtyHours(65534)));
        for too_long in [
            "65536y",
            "18446744073709551615y",
            "163838d",
            "18446744073709551615d",
        ] {
            assert!(parse_duration(too_long).is_err(), "{too_long}");
        }
        for malformed in ["", "y", "7", "-1d", "5w", "1.5y", "5é", "é", "5 y"] {
            let err = parse_duration(malformed).expect_err(malformed);
            assert!(err.contains(malformed), "{err}");
        }
    }
}

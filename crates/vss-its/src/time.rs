//! Time in 1609.2: TAI since 2004-01-01 00:00:00 UTC (`Time32` in seconds, `Time64` in
//! microseconds), validity periods and their durations.

use std::fmt;
use std::time::{Duration as StdDuration, SystemTime, UNIX_EPOCH};

use crate::asn::{Duration, Time32, Time64, ValidityPeriod};

/// 2004-01-01 00:00:00 UTC in Unix seconds: the 1609.2 epoch.
const EPOCH_UNIX: u64 = 1_072_915_200;

/// The Unix times (UTC) at which a leap second had just been inserted, since the epoch.
/// TAI − UTC was 32 s at the epoch and is 37 s since 2017.
const LEAP_SECONDS_UNIX: [u64; 5] = [
    1_136_073_600, // 2006-01-01
    1_230_768_000, // 2009-01-01
    1_341_100_800, // 2012-07-01
    1_435_708_800, // 2015-07-01
    1_483_228_800, // 2017-01-01
];

/// Seconds in a 1609.2 "year" (365.2425 days).
const YEAR_SECONDS: u64 = 31_556_952;

/// A point in time as 1609.2 counts it: TAI microseconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItsTime(u64);

impl ItsTime {
    /// The time of a `Time64` value.
    pub fn from_time64(t: &Time64) -> Self {
        ItsTime(t.0)
    }

    /// The time of a `Time32` value.
    pub fn from_time32(t: &Time32) -> Self {
        ItsTime(u64::from(t.0) * 1_000_000)
    }

    /// Microseconds since the epoch (TAI).
    pub fn micros(self) -> u64 {
        self.0
    }

    /// From a wall-clock (UTC) time; times before 2004 are the epoch.
    pub fn from_system_time(t: SystemTime) -> Self {
        let since_unix = t.duration_since(UNIX_EPOCH).unwrap_or_default();
        let unix = since_unix.as_secs();
        let Some(seconds) = unix.checked_sub(EPOCH_UNIX) else {
            return ItsTime(0);
        };
        let tai = seconds + leaps_before(unix);
        ItsTime(tai * 1_000_000 + u64::from(since_unix.subsec_micros()))
    }

    /// Now, by the system clock.
    pub fn now() -> Self {
        Self::from_system_time(SystemTime::now())
    }

    /// The wall-clock (UTC) time.
    pub fn to_system_time(self) -> SystemTime {
        let tai = self.0 / 1_000_000;
        // The UTC second whose leap-second count k satisfies utc + k = tai.
        let unix = (0..=LEAP_SECONDS_UNIX.len() as u64)
            .rev()
            .filter(|&k| k <= tai)
            .map(|k| (k, EPOCH_UNIX + tai - k))
            // Inside a leap second no UTC second matches: it reads as the next second.
            .find(|&(k, unix)| leaps_before(unix) >= k)
            .map_or(EPOCH_UNIX + tai, |(_, unix)| unix);
        UNIX_EPOCH + StdDuration::from_secs(unix) + StdDuration::from_micros(self.0 % 1_000_000)
    }

    /// As a `Time64`.
    pub fn to_time64(self) -> Time64 {
        Time64(self.0)
    }

    /// As a `Time32` (whole seconds, rounded down; saturates after 2140).
    pub fn to_time32(self) -> Time32 {
        Time32(u32::try_from(self.0 / 1_000_000).unwrap_or(u32::MAX))
    }

    /// This time plus `micros` microseconds (saturating).
    pub fn plus_micros(self, micros: u64) -> Self {
        ItsTime(self.0.saturating_add(micros))
    }
}

impl fmt::Display for ItsTime {
    /// RFC 3339 in UTC, to the second.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}",
            humantime::format_rfc3339_seconds(self.to_system_time())
        )
    }
}

/// How many leap seconds were inserted between the epoch and `unix`.
fn leaps_before(unix: u64) -> u64 {
    LEAP_SECONDS_UNIX.iter().filter(|&&l| l <= unix).count() as u64
}

/// The length of a 1609.2 `Duration` in microseconds.
pub fn duration_micros(duration: &Duration) -> u64 {
    match *duration {
        Duration::Microseconds(n) => u64::from(n),
        Duration::Milliseconds(n) => u64::from(n) * 1_000,
        Duration::Seconds(n) => u64::from(n) * 1_000_000,
        Duration::Minutes(n) => u64::from(n) * 60_000_000,
        Duration::Hours(n) => u64::from(n) * 3_600_000_000,
        Duration::SixtyHours(n) => u64::from(n) * 216_000_000_000,
        Duration::Years(n) => u64::from(n) * YEAR_SECONDS * 1_000_000,
    }
}

/// A validity period as the half-open interval `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validity {
    /// The first instant of validity.
    pub start: ItsTime,
    /// The first instant after validity.
    pub end: ItsTime,
}

impl Validity {
    /// The interval of a certificate's `ValidityPeriod`.
    pub fn of(period: &ValidityPeriod) -> Self {
        let start = ItsTime::from_time32(&period.start);
        Validity {
            start,
            end: start.plus_micros(duration_micros(&period.duration)),
        }
    }

    /// Whether `t` lies inside.
    pub fn contains(&self, t: ItsTime) -> bool {
        self.start <= t && t < self.end
    }

    /// Whether `other` lies wholly inside.
    pub fn covers(&self, other: &Validity) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// The shortest exact `Duration` for a number of seconds: hours or years when they divide
/// it, else minutes or seconds, as a validity period is usually written.
pub fn duration_from_seconds(seconds: u64) -> Option<Duration> {
    let fits = |n: u64| u16::try_from(n).ok();
    if seconds.is_multiple_of(YEAR_SECONDS) {
        if let Some(n) = fits(seconds / YEAR_SECONDS) {
            return Some(Duration::Years(n));
        }
    }
    [
        (216_000, Duration::SixtyHours as fn(u16) -> Duration),
        (3_600, Duration::Hours),
        (60, Duration::Minutes),
        (1, Duration::Seconds),
    ]
    .into_iter()
    .find_map(|(unit, make)| {
        seconds
            .is_multiple_of(unit)
            .then(|| fits(seconds / unit).map(make))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unix(secs: u64) -> SystemTime {
        UNIX_EPOCH + StdDuration::from_secs(secs)
    }

    #[test]
    fn the_epoch_is_zero_and_leap_seconds_count() {
        assert_eq!(ItsTime::from_system_time(unix(EPOCH_UNIX)).micros(), 0);
        // 2020-01-01T00:00:00Z: 16 years of UTC seconds plus 5 leap seconds.
        let t = ItsTime::from_system_time(unix(1_577_836_800));
        assert_eq!(t.micros() / 1_000_000, 1_577_836_800 - EPOCH_UNIX + 5);
        assert_eq!(t.to_system_time(), unix(1_577_836_800));
        assert_eq!(t.to_string(), "2020-01-01T00:00:00Z");
    }

    #[test]
    fn round_trips_across_each_leap_second() {
        for &leap in &LEAP_SECONDS_UNIX {
            for u in [leap - 2, leap - 1, leap, leap + 1] {
                let t = ItsTime::from_system_time(unix(u));
                assert_eq!(t.to_system_time(), unix(u), "unix {u}");
            }
        }
    }

    #[test]
    fn an_instant_inside_a_leap_second_reads_as_the_next_second() {
        for &leap in &LEAP_SECONDS_UNIX {
            let before = ItsTime::from_system_time(unix(leap - 1));
            let inside = before.plus_micros(1_000_000);
            assert_eq!(inside.to_system_time(), unix(leap));
        }
    }

    #[test]
    fn durations_use_the_standards_units() {
        assert_eq!(duration_micros(&Duration::Years(1)), 31_556_952_000_000);
        assert_eq!(duration_micros(&Duration::SixtyHours(1)), 216_000_000_000);
        assert_eq!(
            duration_from_seconds(7 * 24 * 3600),
            Some(Duration::Hours(168))
        );
        assert_eq!(
            duration_from_seconds(2 * YEAR_SECONDS),
            Some(Duration::Years(2))
        );
        assert_eq!(duration_from_seconds(90), Some(Duration::Seconds(90)));
        assert_eq!(duration_from_seconds(u64::MAX), None);
    }

    #[test]
    fn validity_is_half_open() {
        let v = Validity::of(&ValidityPeriod {
            start: Time32(100),
            duration: Duration::Seconds(10),
        });
        assert!(v.contains(ItsTime(100_000_000)));
        assert!(v.contains(ItsTime(109_999_999)));
        assert!(!v.contains(ItsTime(110_000_000)));
        assert!(!v.contains(ItsTime(99_999_999)));
    }
}

//! Time in 1609.2: TAI since 2004-01-01 00:00:00 UTC (`Time32` in seconds, `Time64` in
//! microseconds), validity periods and their durations.
//!
//! Every conversion is checked: a time that a type cannot hold is a [`TimeError`] (or, for a
//! received message, a verdict), never an overflow or a panic. The times VSS reads from a
//! clock or from RFC 3339 text, and the validity periods it issues, stay inside
//! [`ItsTime::EPOCH`] ..= [`ItsTime::LAST`]; a received `Time64` may lie beyond, and is
//! printed as its raw value then.

use std::fmt;
use std::time::{Duration as StdDuration, SystemTime, UNIX_EPOCH};

use crate::asn::{Duration, Time32, Time64, ValidityPeriod};

/// 2004-01-01 00:00:00 UTC in Unix seconds: the 1609.2 epoch.
const EPOCH_UNIX: u64 = 1_072_915_200;

/// 9999-12-31T23:59:59Z in Unix seconds: the last second RFC 3339 can write.
const LAST_UNIX: u64 = 253_402_300_799;

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

/// The longest `Duration` (65,535 years) from the last `Time32` start fits a `u64` of
/// microseconds, so a validity period's end cannot overflow.
const _: () = assert!(
    match (u16::MAX as u64).checked_mul(YEAR_SECONDS * 1_000_000) {
        Some(longest) => longest.checked_add(u32::MAX as u64 * 1_000_000).is_some(),
        None => false,
    }
);

/// A time, or a validity period, that 1609.2's types or RFC 3339 cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimeError {
    /// Before 2004-01-01T00:00:00Z, where 1609.2 time begins.
    #[error("before the 1609.2 epoch (2004-01-01T00:00:00Z)")]
    BeforeEpoch,
    /// After 9999-12-31T23:59:59Z, the last time RFC 3339 can write.
    #[error("after 9999-12-31T23:59:59Z, the last time RFC 3339 can write")]
    AfterLast,
    /// A start of validity after the last `Time32` second.
    #[error("{0} is past the end of Time32 ({end})", end = ItsTime::TIME32_END)]
    AfterTime32(ItsTime),
    /// A validity period that ends after the end of `Time32` (2004-01-01 + 2^32 s).
    #[error(
        "the validity period would end at {0}, past the end of Time32 ({end})",
        end = ItsTime::TIME32_END
    )]
    ValidityAfterTime32(ItsTime),
}

/// A point in time as 1609.2 counts it: TAI microseconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItsTime(u64);

impl ItsTime {
    /// The 1609.2 epoch, 2004-01-01T00:00:00Z.
    pub const EPOCH: ItsTime = ItsTime(0);

    /// The end of `Time32`: 2^32 seconds after the epoch. No validity period VSS issues
    /// ends later.
    pub const TIME32_END: ItsTime = ItsTime((1 << 32) * 1_000_000);

    /// The last instant RFC 3339 can write, 9999-12-31T23:59:59.999999Z (with the leap
    /// seconds known today). A generation or expiry time beyond is no real time.
    pub const LAST: ItsTime =
        ItsTime((LAST_UNIX - EPOCH_UNIX + LEAP_SECONDS_UNIX.len() as u64) * 1_000_000 + 999_999);

    /// The time of a `Time64` value (any value: it may lie after [`ItsTime::LAST`]).
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

    /// From a wall-clock (UTC) time between the epoch and [`ItsTime::LAST`].
    pub fn from_system_time(t: SystemTime) -> Result<Self, TimeError> {
        let since_unix = t
            .duration_since(UNIX_EPOCH)
            .map_err(|_| TimeError::BeforeEpoch)?;
        let unix = since_unix.as_secs();
        if unix > LAST_UNIX {
            return Err(TimeError::AfterLast);
        }
        let seconds = unix.checked_sub(EPOCH_UNIX).ok_or(TimeError::BeforeEpoch)?;
        // Below LAST_UNIX, neither the sum nor the product can overflow.
        let tai = seconds + leaps_before(unix);
        Ok(ItsTime(
            tai * 1_000_000 + u64::from(since_unix.subsec_micros()),
        ))
    }

    /// Now, by the system clock (a clock before 2004 reads as the epoch, one after 9999 as
    /// [`ItsTime::LAST`]).
    pub fn now() -> Self {
        match Self::from_system_time(SystemTime::now()) {
            Ok(now) => now,
            Err(TimeError::BeforeEpoch) => ItsTime::EPOCH,
            Err(_) => ItsTime::LAST,
        }
    }

    /// The wall-clock (UTC) time; `None` after [`ItsTime::LAST`].
    pub fn to_system_time(self) -> Option<SystemTime> {
        if self > ItsTime::LAST {
            return None;
        }
        let tai = self.0 / 1_000_000;
        // The UTC second whose leap-second count k satisfies utc + k = tai.
        let unix = (0..=LEAP_SECONDS_UNIX.len() as u64)
            .rev()
            .filter(|&k| k <= tai)
            .map(|k| (k, EPOCH_UNIX + tai - k))
            // Inside a leap second no UTC second matches: it reads as the next second.
            .find(|&(k, unix)| leaps_before(unix) >= k)
            .map_or(EPOCH_UNIX + tai, |(_, unix)| unix);
        UNIX_EPOCH
            .checked_add(StdDuration::from_secs(unix))?
            .checked_add(StdDuration::from_micros(self.0 % 1_000_000))
    }

    /// As a `Time64`.
    pub fn to_time64(self) -> Time64 {
        Time64(self.0)
    }

    /// As a `Time32` (whole seconds, rounded down).
    pub fn to_time32(self) -> Result<Time32, TimeError> {
        u32::try_from(self.0 / 1_000_000)
            .map(Time32)
            .map_err(|_| TimeError::AfterTime32(self))
    }

    /// This time plus `micros` microseconds (saturating).
    pub fn plus_micros(self, micros: u64) -> Self {
        ItsTime(self.0.saturating_add(micros))
    }
}

impl fmt::Display for ItsTime {
    /// RFC 3339 in UTC, to the second; a time after [`ItsTime::LAST`] as its raw `Time64`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_system_time() {
            Some(t) => write!(f, "{}", humantime::format_rfc3339_seconds(t)),
            None => write!(f, "Time64 {} (after 9999-12-31T23:59:59Z)", self.0),
        }
    }
}

/// How many leap seconds were inserted between the epoch and `unix`.
fn leaps_before(unix: u64) -> u64 {
    LEAP_SECONDS_UNIX.iter().filter(|&&l| l <= unix).count() as u64
}

/// The length of a 1609.2 `Duration` in microseconds (every choice fits a `u64`).
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
    /// The interval of a certificate's `ValidityPeriod`, however far it reaches.
    pub fn of(period: &ValidityPeriod) -> Self {
        let start = ItsTime::from_time32(&period.start);
        Validity {
            start,
            end: start.plus_micros(duration_micros(&period.duration)),
        }
    }

    /// The interval of a period to issue: it must end by [`ItsTime::TIME32_END`].
    pub fn checked(period: &ValidityPeriod) -> Result<Self, TimeError> {
        let validity = Validity::of(period);
        if validity.end > ItsTime::TIME32_END {
            return Err(TimeError::ValidityAfterTime32(validity.end));
        }
        Ok(validity)
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
    use proptest::prelude::*;

    use super::*;

    fn unix(secs: u64) -> SystemTime {
        UNIX_EPOCH + StdDuration::from_secs(secs)
    }

    fn its(secs: u64) -> ItsTime {
        ItsTime::from_system_time(unix(secs)).expect("a time in range")
    }

    #[test]
    fn the_epoch_is_zero_and_leap_seconds_count() {
        assert_eq!(its(EPOCH_UNIX), ItsTime::EPOCH);
        // 2020-01-01T00:00:00Z: 16 years of UTC seconds plus 5 leap seconds.
        let t = its(1_577_836_800);
        assert_eq!(t.micros() / 1_000_000, 1_577_836_800 - EPOCH_UNIX + 5);
        assert_eq!(t.to_system_time(), Some(unix(1_577_836_800)));
        assert_eq!(t.to_string(), "2020-01-01T00:00:00Z");
    }

    #[test]
    fn round_trips_across_each_leap_second() {
        for &leap in &LEAP_SECONDS_UNIX {
            for u in [leap - 2, leap - 1, leap, leap + 1] {
                assert_eq!(its(u).to_system_time(), Some(unix(u)), "unix {u}");
            }
        }
    }

    #[test]
    fn an_instant_inside_a_leap_second_reads_as_the_next_second() {
        for &leap in &LEAP_SECONDS_UNIX {
            let inside = its(leap - 1).plus_micros(1_000_000);
            assert_eq!(inside.to_system_time(), Some(unix(leap)));
        }
    }

    #[test]
    fn clock_times_outside_the_epoch_and_rfc_3339_are_errors() {
        assert_eq!(
            ItsTime::from_system_time(unix(EPOCH_UNIX - 1)),
            Err(TimeError::BeforeEpoch)
        );
        assert_eq!(
            ItsTime::from_system_time(UNIX_EPOCH - StdDuration::from_secs(1)),
            Err(TimeError::BeforeEpoch)
        );
        assert_eq!(
            ItsTime::from_system_time(unix(LAST_UNIX + 1)),
            Err(TimeError::AfterLast)
        );
        let last = ItsTime::from_system_time(unix(LAST_UNIX) + StdDuration::from_micros(999_999));
        assert_eq!(last, Ok(ItsTime::LAST));
        assert_eq!(ItsTime::LAST.to_string(), "9999-12-31T23:59:59Z");
    }

    #[test]
    fn a_time64_after_the_last_rfc_3339_time_prints_as_its_value() {
        // The forged generation time of issue 18: top byte 0xFF.
        let forged = ItsTime::from_time64(&Time64(0xFF00_0000_0000_0000));
        assert_eq!(forged.to_system_time(), None);
        assert_eq!(
            forged.to_string(),
            "Time64 18374686479671623680 (after 9999-12-31T23:59:59Z)"
        );
        let next = ItsTime::LAST.plus_micros(1);
        assert_eq!(next.to_system_time(), None);
        assert!(next.to_string().starts_with("Time64 "));
        assert!(ItsTime(u64::MAX).to_string().starts_with("Time64 "));
    }

    #[test]
    fn time32_holds_starts_up_to_its_last_second() {
        let last = ItsTime::from_time32(&Time32(u32::MAX));
        assert_eq!(last.to_time32(), Ok(Time32(u32::MAX)));
        assert_eq!(
            ItsTime::TIME32_END.to_time32(),
            Err(TimeError::AfterTime32(ItsTime::TIME32_END))
        );
        assert_eq!(ItsTime::TIME32_END.to_string(), "2140-02-07T06:28:11Z");
    }

    #[test]
    fn durations_use_the_standards_units() {
        assert_eq!(duration_micros(&Duration::Years(1)), 31_556_952_000_000);
        assert_eq!(duration_micros(&Duration::SixtyHours(1)), 216_000_000_000);
        assert_eq!(
            duration_micros(&Duration::Years(u16::MAX)),
            65_535 * 31_556_952_000_000
        );
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
    fn an_issued_validity_ends_by_the_end_of_time32() {
        let period = |start: u32, duration| ValidityPeriod {
            start: Time32(start),
            duration,
        };
        // 2026-01-01 + 7974 years: issue 18's `--duration 7974y`.
        let start = its(1_767_225_600).to_time32().expect("2026");
        let far = period(start.0, Duration::Years(7974));
        let end = Validity::of(&far).end;
        assert_eq!(
            Validity::checked(&far),
            Err(TimeError::ValidityAfterTime32(end))
        );
        assert_eq!(
            TimeError::ValidityAfterTime32(end).to_string(),
            format!(
                "the validity period would end at {end}, past the end of Time32 \
                 (2140-02-07T06:28:11Z)"
            )
        );
        // Ending exactly at the end of Time32 is allowed, a microsecond later is not.
        let exact = period(u32::MAX - 9, Duration::Seconds(10));
        assert_eq!(
            Validity::checked(&exact).map(|v| v.end),
            Ok(ItsTime::TIME32_END)
        );
        let over = period(u32::MAX - 9, Duration::Seconds(11));
        assert!(matches!(
            Validity::checked(&over),
            Err(TimeError::ValidityAfterTime32(_))
        ));
        let longest = period(u32::MAX, Duration::Years(u16::MAX));
        assert_eq!(
            Validity::of(&longest).end.micros(),
            u64::from(u32::MAX) * 1_000_000 + 65_535 * 31_556_952_000_000
        );
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

    fn any_duration() -> impl Strategy<Value = Duration> {
        prop_oneof![
            any::<u16>().prop_map(Duration::Microseconds),
            any::<u16>().prop_map(Duration::Milliseconds),
            any::<u16>().prop_map(Duration::Seconds),
            any::<u16>().prop_map(Duration::Minutes),
            any::<u16>().prop_map(Duration::Hours),
            any::<u16>().prop_map(Duration::SixtyHours),
            any::<u16>().prop_map(Duration::Years),
        ]
    }

    proptest! {
        /// Every Time64 prints (RFC 3339 up to the last time it can write, its value
        /// beyond), and what prints as RFC 3339 reads back to the same second.
        #[test]
        fn every_time64_prints_and_rfc_3339_round_trips(
            micros in prop_oneof![0..=ItsTime::LAST.0, any::<u64>()]
        ) {
            let t = ItsTime::from_time64(&Time64(micros));
            let text = t.to_string();
            if t <= ItsTime::LAST {
                let read = humantime::parse_rfc3339(&text).expect("RFC 3339");
                let back = ItsTime::from_system_time(read).expect("in range");
                // Whole seconds; inside a leap second, the next one.
                prop_assert!(back.micros() / 1_000_000 >= micros / 1_000_000);
                prop_assert!(back.micros() / 1_000_000 <= micros / 1_000_000 + 1);
            } else {
                prop_assert_eq!(text, format!("Time64 {micros} (after 9999-12-31T23:59:59Z)"));
            }
        }

        /// Every Time32 start with every Duration gives a validity that prints, and one
        /// that is issuable exactly when it ends by the end of Time32.
        #[test]
        fn every_validity_period_is_checked(start in any::<u32>(), duration in any_duration()) {
            let period = ValidityPeriod { start: Time32(start), duration: duration.clone() };
            let validity = Validity::of(&period);
            prop_assert!(validity.start <= validity.end);
            prop_assert_eq!(
                validity.end.micros() - validity.start.micros(),
                duration_micros(&duration)
            );
            let _ = (validity.start.to_string(), validity.end.to_string());
            match Validity::checked(&period) {
                Ok(v) => prop_assert!(v == validity && v.end <= ItsTime::TIME32_END),
                Err(e) => {
                    prop_assert_eq!(e, TimeError::ValidityAfterTime32(validity.end));
                    prop_assert!(validity.end > ItsTime::TIME32_END);
                }
            }
        }

        /// Any wall-clock time converts or is an error, never a panic; a converted one
        /// comes back as the same second.
        #[test]
        fn every_clock_time_converts_or_is_refused(
            secs in prop_oneof![0..=LAST_UNIX + 1, any::<u64>()],
            micros in 0u32..1_000_000,
        ) {
            let Some(t) = UNIX_EPOCH.checked_add(StdDuration::from_secs(secs)) else {
                return Ok(());
            };
            let t = t + StdDuration::from_micros(u64::from(micros));
            match ItsTime::from_system_time(t) {
                Ok(its) => {
                    prop_assert!((EPOCH_UNIX..=LAST_UNIX).contains(&secs));
                    prop_assert_eq!(its.to_system_time(), Some(t));
                }
                Err(TimeError::BeforeEpoch) => prop_assert!(secs < EPOCH_UNIX),
                Err(TimeError::AfterLast) => prop_assert!(secs > LAST_UNIX),
                Err(e) => prop_assert!(false, "unexpected {e}"),
            }
        }
    }
}

//! Replay protection for received signed data (IEEE 1609.2's replay detection): a message
//! is accepted once. Its key is its generation time and the digest its signature covers
//! (which binds the data and the signer), so a copy with a re-encoded signature is still a
//! copy. Messages whose generation time lies outside a window around now are refused, which
//! bounds how long a key must be remembered; the remembered keys are bounded too.

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

use vss_its::{ItsTime, Verdict};

/// The window and the memory of a [`ReplayWindow`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayConfig {
    /// How old a generation time may be (default 10 s).
    pub max_age: Duration,
    /// How far ahead of the receiver's clock a generation time may be (default 1 s, for
    /// clocks that differ a little).
    pub max_lead: Duration,
    /// Accepted messages remembered at most (default 65,536); the oldest is forgotten first.
    pub capacity: usize,
}

impl std::fmt::Display for ReplayConfig {
    /// What the window lets through, in words.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "each message once, generated at most {} ms before and {} ms after now",
            self.max_age.as_millis(),
            self.max_lead.as_millis()
        )
    }
}

/// The longest `max_age` a window takes: one hour (the window only bounds how long a key is
/// remembered; the capacity bounds how many).
pub const MAX_AGE_LIMIT: Duration = Duration::from_secs(3600);

/// The longest `max_lead` a window takes: one minute.
pub const MAX_LEAD_LIMIT: Duration = Duration::from_secs(60);

/// The largest `capacity` a window takes: 16,777,216 messages (some 1.5 GiB of keys).
pub const MAX_CAPACITY: usize = 1 << 24;

/// A [`ReplayConfig`] value out of its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayConfigError {
    /// `max_age` is zero or above [`MAX_AGE_LIMIT`].
    MaxAge,
    /// `max_lead` is above [`MAX_LEAD_LIMIT`].
    MaxLead,
    /// `capacity` is zero or above [`MAX_CAPACITY`].
    Capacity,
}

impl std::fmt::Display for ReplayConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayConfigError::MaxAge => write!(
                f,
                "max_age: more than 0 and at most {} s",
                MAX_AGE_LIMIT.as_secs()
            ),
            ReplayConfigError::MaxLead => {
                write!(f, "max_lead: at most {} s", MAX_LEAD_LIMIT.as_secs())
            }
            ReplayConfigError::Capacity => {
                write!(f, "capacity: from 1 to {MAX_CAPACITY} messages")
            }
        }
    }
}

impl std::error::Error for ReplayConfigError {}

impl ReplayConfig {
    /// Whether every value is inside its range.
    pub fn check(&self) -> Result<(), ReplayConfigError> {
        if self.max_age.is_zero() || self.max_age > MAX_AGE_LIMIT {
            return Err(ReplayConfigError::MaxAge);
        }
        if self.max_lead > MAX_LEAD_LIMIT {
            return Err(ReplayConfigError::MaxLead);
        }
        if self.capacity == 0 || self.capacity > MAX_CAPACITY {
            return Err(ReplayConfigError::Capacity);
        }
        Ok(())
    }
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            max_age: Duration::from_secs(10),
            max_lead: Duration::from_secs(1),
            capacity: 65_536,
        }
    }
}

/// Why a message was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayRefusal {
    /// It carries no generation time, so it cannot be told from a replay.
    NoGenerationTime,
    /// Its generation time is outside the window (how far, in microseconds; negative is
    /// in the past).
    OutsideWindow {
        /// Generation time minus now, in microseconds.
        offset_micros: i128,
    },
    /// A message with the same key was accepted before.
    Duplicate,
}

impl ReplayRefusal {
    /// The verdict it gives: a duplicate message, or an invalid timestamp.
    pub fn verdict(&self) -> Verdict {
        match self {
            ReplayRefusal::Duplicate => Verdict::DuplicateMessage,
            ReplayRefusal::NoGenerationTime | ReplayRefusal::OutsideWindow { .. } => {
                Verdict::InvalidTimestamp
            }
        }
    }
}

impl std::fmt::Display for ReplayRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayRefusal::NoGenerationTime => {
                f.write_str("no generation time: cannot be told from a replay")
            }
            ReplayRefusal::OutsideWindow { offset_micros } => write!(
                f,
                "generated {:.3} s {} now, outside the replay window",
                offset_micros.unsigned_abs() as f64 / 1e6,
                if *offset_micros < 0 {
                    "before"
                } else {
                    "after"
                }
            ),
            ReplayRefusal::Duplicate => f.write_str("a copy of a message already accepted"),
        }
    }
}

/// Keys of accepted messages within the window.
#[derive(Debug)]
pub struct ReplayWindow {
    config: ReplayConfig,
    seen: HashSet<(u64, Vec<u8>)>,
    order: VecDeque<(u64, Vec<u8>)>,
}

impl ReplayWindow {
    /// An empty window.
    pub fn new(config: ReplayConfig) -> Self {
        ReplayWindow {
            config,
            seen: HashSet::new(),
            order: VecDeque::new(),
        }
    }

    /// The window's configuration.
    pub fn config(&self) -> ReplayConfig {
        self.config
    }

    /// Accepts the message generated at `generated` whose signature covers `digest`, once;
    /// refuses it when it has no generation time, lies outside the window, or was accepted
    /// before. Call it only for messages whose signature verified, so that a forged copy
    /// cannot take the place of the real one.
    pub fn accept(
        &mut self,
        generated: Option<ItsTime>,
        digest: &[u8],
        now: ItsTime,
    ) -> Result<(), ReplayRefusal> {
        let generated = generated.ok_or(ReplayRefusal::NoGenerationTime)?;
        let offset_micros = i128::from(generated.micros()) - i128::from(now.micros());
        let too_old = -offset_micros > self.config.max_age.as_micros() as i128;
        let too_new = offset_micros > self.config.max_lead.as_micros() as i128;
        if too_old || too_new {
            return Err(ReplayRefusal::OutsideWindow { offset_micros });
        }
        self.forget_before(now);
        let key = (generated.micros(), digest.to_vec());
        if self.seen.contains(&key) {
            return Err(ReplayRefusal::Duplicate);
        }
        if self.order.len() >= self.config.capacity.max(1) {
            if let Some(oldest) = self.order.pop_front() {
                self.seen.remove(&oldest);
            }
        }
        self.seen.insert(key.clone());
        self.order.push_back(key);
        Ok(())
    }

    /// How many accepted messages are remembered.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Forgets, from the oldest accepted on, messages generated before the window's start
    /// (they are refused as too old anyway): amortised constant time per message. One
    /// accepted out of order stays until those before it go, within the capacity.
    fn forget_before(&mut self, now: ItsTime) {
        let start = now
            .micros()
            .saturating_sub(self.config.max_age.as_micros() as u64);
        while self.order.front().is_some_and(|key| key.0 < start) {
            if let Some(old) = self.order.pop_front() {
                self.seen.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: u64) -> ItsTime {
        ItsTime::EPOCH.plus_micros(seconds * 1_000_000)
    }

    #[test]
    fn a_message_is_accepted_once_within_the_window() {
        let mut window = ReplayWindow::new(ReplayConfig::default());
        let now = at(1_000);
        assert_eq!(window.accept(Some(now), b"d1", now), Ok(()));
        assert_eq!(
            window.accept(Some(now), b"d1", now),
            Err(ReplayRefusal::Duplicate)
        );
        // Another digest or another generation time is another message.
        assert_eq!(window.accept(Some(now), b"d2", now), Ok(()));
        assert_eq!(window.accept(Some(at(999)), b"d1", now), Ok(()));
        assert_eq!(window.len(), 3);
        assert_eq!(
            window.accept(None, b"d3", now),
            Err(ReplayRefusal::NoGenerationTime)
        );
    }

    #[test]
    fn generation_times_outside_the_window_are_refused() {
        let mut window = ReplayWindow::new(ReplayConfig::default());
        let now = at(1_000);
        assert_eq!(window.accept(Some(at(990)), b"edge", now), Ok(()));
        assert_eq!(window.accept(Some(at(1_001)), b"lead", now), Ok(()));
        assert_eq!(
            window.accept(Some(at(989)), b"old", now),
            Err(ReplayRefusal::OutsideWindow {
                offset_micros: -11_000_000
            })
        );
        assert!(matches!(
            window.accept(Some(at(1_002)), b"new", now),
            Err(ReplayRefusal::OutsideWindow {
                offset_micros: 2_000_000
            })
        ));
        assert!(matches!(
            window.accept(
                Some(ItsTime::from_time64(&vss_its::asn::Time64(u64::MAX))),
                b"far",
                now
            ),
            Err(ReplayRefusal::OutsideWindow { .. })
        ));
        let old = ReplayRefusal::OutsideWindow {
            offset_micros: -11_000_000,
        };
        assert_eq!(old.verdict(), Verdict::InvalidTimestamp);
        assert!(
            old.to_string().contains("outside the replay window"),
            "{old}"
        );
        assert_eq!(
            ReplayRefusal::Duplicate.verdict(),
            Verdict::DuplicateMessage
        );
    }

    #[test]
    fn every_value_is_checked_against_its_range() {
        let default = ReplayConfig::default();
        assert_eq!(default.check(), Ok(()));
        let with = |change: fn(&mut ReplayConfig)| {
            let mut config = default;
            change(&mut config);
            config.check()
        };
        assert_eq!(
            with(|c| c.max_age = Duration::ZERO),
            Err(ReplayConfigError::MaxAge)
        );
        assert_eq!(
            with(|c| c.max_age = MAX_AGE_LIMIT + Duration::from_micros(1)),
            Err(ReplayConfigError::MaxAge)
        );
        assert_eq!(with(|c| c.max_age = MAX_AGE_LIMIT), Ok(()));
        assert_eq!(with(|c| c.max_lead = Duration::ZERO), Ok(()));
        assert_eq!(
            with(|c| c.max_lead = Duration::from_secs(61)),
            Err(ReplayConfigError::MaxLead)
        );
        assert_eq!(with(|c| c.capacity = 0), Err(ReplayConfigError::Capacity));
        assert_eq!(
            with(|c| c.capacity = MAX_CAPACITY + 1),
            Err(ReplayConfigError::Capacity)
        );
    }

    #[test]
    fn memory_is_bounded_by_the_window_and_the_capacity() {
        let mut window = ReplayWindow::new(ReplayConfig {
            capacity: 3,
            ..ReplayConfig::default()
        });
        let now = at(1_000);
        for digest in [b"a", b"b", b"c", b"d"] {
            window.accept(Some(now), digest, now).expect("accepted");
        }
        assert_eq!(window.len(), 3);
        // Eleven seconds on, everything remembered has left the window.
        let later = at(1_011);
        window.accept(Some(later), b"e", later).expect("accepted");
        assert_eq!(window.len(), 1);
    }
}

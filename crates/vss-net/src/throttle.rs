//! [`Throttle`]: at most one log line per interval for an event an attacker can repeat
//! (a refused connection, a timed-out client), with the count of events it stands for.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The interval of a server's rate-limited warnings: one line in 10 s at most per kind.
pub const WARN_INTERVAL: Duration = Duration::from_secs(10);

/// Counts events and says when one is due to be logged: the first at once, then at most one
/// per interval, each with the number of events since the last line (itself included).
///
/// ```
/// let refused = vss_net::Throttle::new(vss_net::WARN_INTERVAL);
/// if let Some(count) = refused.hit() {
///     eprintln!("{count} connections refused: max_connections reached");
/// }
/// ```
#[derive(Debug)]
pub struct Throttle {
    interval: Duration,
    /// Events since the last line, and when that line was: one lock, no 64-bit atomics
    /// (32-bit MIPS, seed 003's card board, has none).
    state: Mutex<(u64, Option<Instant>)>,
}

impl Throttle {
    /// A throttle letting one line through per `interval`.
    pub fn new(interval: Duration) -> Self {
        Throttle {
            interval,
            state: Mutex::new((0, None)),
        }
    }

    /// Counts one event; `Some(events since the last line)` when a line is due now.
    pub fn hit(&self) -> Option<u64> {
        let now = Instant::now();
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (unlogged, last) = &mut *state;
        *unlogged += 1;
        if last.is_some_and(|at| now.duration_since(at) < self.interval) {
            return None;
        }
        *last = Some(now);
        Some(std::mem::take(unlogged))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_one_line_then_the_next_line_counts_the_rest() {
        let throttle = Throttle::new(Duration::from_millis(100));
        assert_eq!(throttle.hit(), Some(1));
        for _ in 0..1743 {
            assert_eq!(throttle.hit(), None);
        }
        std::thread::sleep(Duration::from_millis(120));
        assert_eq!(throttle.hit(), Some(1744));
        assert_eq!(throttle.hit(), None);
    }
}

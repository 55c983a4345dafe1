//! Which received messages are verified (seed 000 §2.2.2, added there because its hardware
//! was too slow to check everything): `always`; `sampling`, one message in N per sender
//! certificate and always the first of a new certificate; `on_demand`, nothing until the
//! caller asks. What was skipped is counted, so a caller can see what it did not check.

use std::collections::HashMap;

use vss_its::HashedId8;

use crate::config::{PolicyKind, VerificationConfig};

/// Sender certificates whose message count is kept; past this the counts start afresh
/// (every sender's next message is then verified: the safe direction).
const TRACKED_SENDERS: usize = 65_536;

/// What to do with one received message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Verify it now.
    Verify,
    /// Do not verify it (its payload is not released as verified).
    Skip,
}

/// Messages decided so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PolicyCounts {
    /// Messages sent to verification.
    pub verified: u64,
    /// Messages skipped.
    pub skipped: u64,
}

/// The verification policy and its per-sender counts.
#[derive(Debug)]
pub struct VerificationPolicy {
    kind: PolicyKind,
    sample_every: u64,
    seen: HashMap<HashedId8, u64>,
    counts: PolicyCounts,
}

impl VerificationPolicy {
    /// The policy `config` names.
    pub fn new(config: &VerificationConfig) -> Self {
        VerificationPolicy {
            kind: config.policy,
            sample_every: config.sample_every.max(1),
            seen: HashMap::new(),
            counts: PolicyCounts::default(),
        }
    }

    /// The policy's name.
    pub fn kind(&self) -> PolicyKind {
        self.kind
    }

    /// Decides for a message, and counts it. `sender` names the signing certificate; it is
    /// asked only by `sampling` (an unnamed sender is verified).
    pub fn decide(&mut self, sender: impl FnOnce() -> Option<HashedId8>) -> Decision {
        let decision = match self.kind {
            PolicyKind::Always => Decision::Verify,
            PolicyKind::OnDemand => Decision::Skip,
            PolicyKind::Sampling => match sender() {
                Some(sender) => self.sample(sender),
                None => Decision::Verify,
            },
        };
        match decision {
            Decision::Verify => self.counts.verified += 1,
            Decision::Skip => self.counts.skipped += 1,
        }
        decision
    }

    /// Messages decided so far.
    pub fn counts(&self) -> PolicyCounts {
        self.counts
    }

    /// One in `sample_every` messages of `sender`, starting with its first.
    fn sample(&mut self, sender: HashedId8) -> Decision {
        if self.seen.len() >= TRACKED_SENDERS && !self.seen.contains_key(&sender) {
            self.seen.clear();
        }
        let n = self.seen.entry(sender).or_insert(0);
        let first_of_n = n.is_multiple_of(self.sample_every);
        *n += 1;
        if first_of_n {
            Decision::Verify
        } else {
            Decision::Skip
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(kind: PolicyKind, sample_every: u64) -> VerificationPolicy {
        VerificationPolicy::new(&VerificationConfig {
            policy: kind,
            sample_every,
            ..VerificationConfig::default()
        })
    }

    const A: HashedId8 = HashedId8([1; 8]);
    const B: HashedId8 = HashedId8([2; 8]);

    #[test]
    fn always_verifies_everything() {
        let mut p = policy(PolicyKind::Always, 10);
        assert!((0..25).all(|_| p.decide(|| Some(A)) == Decision::Verify));
        assert_eq!(
            p.counts(),
            PolicyCounts {
                verified: 25,
                skipped: 0
            }
        );
    }

    #[test]
    fn sampling_verifies_one_in_n_per_sender_starting_with_the_first() {
        let mut p = policy(PolicyKind::Sampling, 4);
        let a: Vec<Decision> = (0..9).map(|_| p.decide(|| Some(A))).collect();
        let verified: Vec<usize> = a
            .iter()
            .enumerate()
            .filter(|(_, d)| **d == Decision::Verify)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(verified, [0, 4, 8]);
        // A new certificate (a pseudonym change) is verified at once.
        assert_eq!(p.decide(|| Some(B)), Decision::Verify);
        assert_eq!(p.decide(|| Some(B)), Decision::Skip);
        assert_eq!(
            p.counts(),
            PolicyCounts {
                verified: 4,
                skipped: 7
            }
        );
    }

    #[test]
    fn on_demand_skips_everything_and_counts_it() {
        let mut p = policy(PolicyKind::OnDemand, 1);
        assert!((0..7).all(|_| p.decide(|| Some(A)) == Decision::Skip));
        assert_eq!(p.counts().skipped, 7);
        assert_eq!(p.counts().verified, 0);
    }

    #[test]
    fn sampling_forgets_senders_past_its_bound_and_verifies_again() {
        let mut p = policy(PolicyKind::Sampling, 1000);
        assert_eq!(p.decide(|| Some(A)), Decision::Verify);
        assert_eq!(p.decide(|| Some(A)), Decision::Skip);
        for i in 0..TRACKED_SENDERS as u64 {
            p.decide(|| Some(HashedId8(i.wrapping_add(1 << 40).to_be_bytes())));
        }
        assert_eq!(p.decide(|| Some(A)), Decision::Verify);
    }
}

//! The [`VerifyService`] (seed 000's verifySignature, and verification on demand, §2.2.2):
//! each received message gets a verdict, and its payload only when it is valid. The
//! [`VerificationPolicy`] decides which messages are verified when they arrive; a skipped
//! message is kept (a bounded number of them) so the caller can ask for it later.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use vss_its::asn::SignerIdentifier;
use vss_its::{Cert, HashedId8, SignedMessage, Validator, Verdict};

use crate::policy::{Decision, PolicyCounts, VerificationPolicy};
use crate::pseudonym::Clock;
use crate::{Error, Result};

/// Skipped messages kept for verification on demand; older ones are dropped (and counted).
pub const PENDING_CAPACITY: usize = 4096;

/// What became of a received message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The signature and the signer's chain check out: the payload is released.
    Valid {
        /// The payload.
        payload: Vec<u8>,
        /// The PSID.
        psid: u64,
        /// The signer's HashedId8.
        signer: HashedId8,
    },
    /// The message was verified and refused.
    Invalid {
        /// The verdict.
        verdict: Verdict,
        /// Why.
        reason: String,
    },
    /// The policy skipped it; [`VerifyService::verify_on_demand`] with this id verifies it.
    Skipped {
        /// The id to ask for it by.
        id: u64,
    },
}

/// What the service has seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VerifyCounts {
    /// The policy's decisions.
    pub policy: PolicyCounts,
    /// Verified and valid.
    pub valid: u64,
    /// Verified and refused.
    pub invalid: u64,
    /// Verified later, on demand.
    pub on_demand: u64,
    /// Skipped messages dropped from the pending queue unverified.
    pub dropped: u64,
}

/// Verifies received messages under a policy.
pub struct VerifyService {
    validator: Mutex<Validator>,
    policy: Mutex<VerificationPolicy>,
    pending: Mutex<VecDeque<(u64, SignedMessage)>>,
    next_id: AtomicU64,
    counts: Mutex<VerifyCounts>,
    clock: Arc<dyn Clock>,
}

/// The HashedId8 of a message's signer, when it names one.
fn sender(message: &SignedMessage) -> Option<HashedId8> {
    match &message.signed().signer {
        SignerIdentifier::Digest(_) => message.signer_digest(),
        SignerIdentifier::Certificate(certs) => certs
            .0
            .first()
            .and_then(|c| Cert::from_asn(c.clone()).ok())
            .map(|c| c.hashed_id8()),
        _ => None,
    }
}

impl VerifyService {
    /// Verifies with `validator` (trust anchors and certificate cache) under `policy`.
    pub fn new(validator: Validator, policy: VerificationPolicy, clock: Arc<dyn Clock>) -> Self {
        VerifyService {
            validator: Mutex::new(validator),
            policy: Mutex::new(policy),
            pending: Mutex::new(VecDeque::new()),
            next_id: AtomicU64::new(1),
            counts: Mutex::new(VerifyCounts::default()),
            clock,
        }
    }

    /// Receives `bytes` (`Ieee1609Dot2Data`, COER).
    pub fn receive(&self, bytes: &[u8]) -> Outcome {
        let message = match SignedMessage::from_bytes(bytes) {
            Ok(m) => m,
            Err(e) => {
                self.count(|c| c.invalid += 1);
                return Outcome::Invalid {
                    verdict: Verdict::Malformed,
                    reason: e.to_string(),
                };
            }
        };
        let decision = self.lock_policy().decide(|| sender(&message));
        match decision {
            Decision::Verify => self.verify(&message),
            Decision::Skip => {
                let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
                if pending.len() >= PENDING_CAPACITY {
                    pending.pop_front();
                    self.count(|c| c.dropped += 1);
                }
                pending.push_back((id, message));
                Outcome::Skipped { id }
            }
        }
    }

    /// Verifies a message the policy skipped.
    pub fn verify_on_demand(&self, id: u64) -> Result<Outcome> {
        let message = {
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            let index = pending
                .iter()
                .position(|(i, _)| *i == id)
                .ok_or(Error::UnknownMessage(id))?;
            pending.remove(index).map(|(_, m)| m)
        }
        .ok_or(Error::UnknownMessage(id))?;
        self.count(|c| c.on_demand += 1);
        Ok(self.verify(&message))
    }

    /// What the service has seen.
    pub fn counts(&self) -> VerifyCounts {
        let mut counts = *self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.policy = self.lock_policy().counts();
        counts
    }

    /// What the certificate cache did (hits are signers resolved without a chain check).
    pub fn cache_stats(&self) -> vss_its::CacheStats {
        self.validator
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .cache_stats()
    }

    fn verify(&self, message: &SignedMessage) -> Outcome {
        let now = self.clock.now();
        let report = self
            .validator
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .verify_message(message, &[], now);
        match (
            report.verdict,
            message.payload(),
            report.psid,
            report.signer,
        ) {
            (Verdict::Valid, Some(payload), Some(psid), Some(signer)) => {
                self.count(|c| c.valid += 1);
                Outcome::Valid {
                    payload: payload.to_vec(),
                    psid,
                    signer,
                }
            }
            (Verdict::Valid, ..) => {
                self.count(|c| c.invalid += 1);
                Outcome::Invalid {
                    verdict: Verdict::UnsupportedAlgorithm,
                    reason: "valid, but without an inline payload, PSID or signer".into(),
                }
            }
            (verdict, ..) => {
                self.count(|c| c.invalid += 1);
                Outcome::Invalid {
                    verdict,
                    reason: report.reason,
                }
            }
        }
    }

    fn lock_policy(&self) -> std::sync::MutexGuard<'_, VerificationPolicy> {
        self.policy.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn count(&self, change: impl FnOnce(&mut VerifyCounts)) {
        change(&mut self.counts.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

//! The [`VerifyService`] (seed 000's verifySignature, and verification on demand, §2.2.2):
//! each received message gets a verdict, and its payload only when it is valid. The
//! [`VerificationPolicy`] decides which messages are verified when they arrive; a skipped
//! message is kept (a bounded number of them) so the caller can ask for it later.
//!
//! Messages are verified in two phases ([`vss_its::Validator::prepare_message`]): every
//! check but the message's own signature, then the signatures of a whole batch at once
//! through the service's [`VerifyEngine`] ([`VerifyService::receive_batch`]). A lone
//! signature is checked in place with the signer's parsed key, so one message at a time
//! ([`VerifyService::receive`]) costs what it did before engines. A signer heard again and
//! again has its key prepared in the validator's cache (`[verification] prepared_keys_mb`,
//! `prepare_after`); its signatures are checked with that key in place rather than on an
//! engine that would use the library ([`VerifyEngine::prefers_prepared_keys`]).
//!
//! With a replay window ([`VerifyService::with_replay_window`]) a valid message is accepted
//! once.
//!
//! The service has two locks, never held together: the validator's (held while a chain is
//! checked) and its bookkeeping's ([`State`]: the policy, the pending queue, the counts and
//! the replay window, each held only for a few operations).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use vss_engine::{VerifyEngine, VerifyJob};
use vss_its::{
    HashedId8, ItsTime, PendingSignature, Prepared, Psid, Report, SignedMessage, Validator, Verdict,
};

use crate::policy::{Decision, PolicyCounts, VerificationPolicy};
use crate::pseudonym::Clock;
use crate::replay::{ReplayConfig, ReplayRefusal, ReplayWindow};
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
        psid: Psid,
        /// The signer's HashedId8.
        signer: HashedId8,
    },
    /// The message was verified and refused: the verdict says why.
    Invalid {
        /// The verdict (never [`Verdict::Valid`]).
        verdict: Verdict,
    },
    /// The policy skipped it; [`VerifyService::verify_on_demand`] with this id verifies it.
    Skipped {
        /// The id to ask for it by.
        id: u64,
    },
}

/// The report code of a message the verification policy skipped (`SKIPPED` of
/// `vss.v1.ReportCode`, `vss_verdict` and `vss.Verdict`): 14, the code no [`Verdict`] has.
pub const SKIPPED_CODE: u8 = 14;

impl Outcome {
    /// The report code on the wire: the verdict's ([`Verdict::code`]), or [`SKIPPED_CODE`].
    pub fn code(&self) -> u8 {
        match self {
            Outcome::Valid { .. } => Verdict::Valid.code(),
            Outcome::Invalid { verdict } => verdict.code(),
            Outcome::Skipped { .. } => SKIPPED_CODE,
        }
    }

    /// The name, as statistics and summaries print it: the verdict's, or `Skipped`.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Valid { .. } => Verdict::Valid.name(),
            Outcome::Invalid { verdict } => verdict.name(),
            Outcome::Skipped { .. } => "Skipped",
        }
    }
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
    engine: Arc<dyn VerifyEngine>,
    state: Mutex<State>,
    next_id: AtomicU64,
    clock: Arc<dyn Clock>,
}

/// The service's bookkeeping, under one lock.
struct State {
    policy: VerificationPolicy,
    pending: VecDeque<(u64, SignedMessage)>,
    counts: VerifyCounts,
    /// Accepted messages, when replays are refused ([`VerifyService::with_replay_window`]).
    replay: Option<ReplayWindow>,
}

/// A received message once the policy has decided on it.
enum Admitted {
    /// Its outcome is known (malformed, or skipped).
    Done(Outcome),
    /// It is to be verified.
    Verify(SignedMessage),
}

/// A message after the first phase of validation.
enum Step {
    /// Its outcome is known, or only its counting is left.
    Settled(Settled),
    /// Its signature is to be checked.
    Pending(SignedMessage, PendingSignature),
}

/// A message whose validation is over.
enum Settled {
    /// Its outcome is known.
    Done(Outcome),
    /// Its report is to be counted (and, when valid, passed through the replay window).
    Judged(Judged),
}

/// A validated message and its report.
struct Judged {
    message: SignedMessage,
    report: Report,
    /// The digest its signature was checked over (none: refused before the signature).
    digest: Option<Vec<u8>>,
}

impl VerifyService {
    /// Verifies with `validator` (trust anchors and certificate cache) under `policy`,
    /// checking batches of signatures on `engine`.
    pub fn new(
        validator: Validator,
        policy: VerificationPolicy,
        clock: Arc<dyn Clock>,
        engine: Arc<dyn VerifyEngine>,
    ) -> Self {
        VerifyService {
            validator: Mutex::new(validator),
            engine,
            state: Mutex::new(State {
                policy,
                pending: VecDeque::new(),
                counts: VerifyCounts::default(),
                replay: None,
            }),
            next_id: AtomicU64::new(1),
            clock,
        }
    }

    /// The service refusing replays: a message whose signature verified is accepted once,
    /// and only when generated inside the window of `config` around the service's clock
    /// (else [`Verdict::DuplicateMessage`] or [`Verdict::InvalidTimestamp`]); `None` accepts
    /// copies. The filter and the entity turn this on by default.
    pub fn with_replay_window(self, config: Option<ReplayConfig>) -> Self {
        self.lock_state().replay = config.map(ReplayWindow::new);
        self
    }

    /// Receives `bytes` (`Ieee1609Dot2Data`, COER).
    pub fn receive(&self, bytes: &[u8]) -> Outcome {
        // One outcome per message.
        self.receive_batch(&[bytes]).swap_remove(0)
    }

    /// Receives `messages` in order, as [`VerifyService::receive`] would one after the
    /// other (the same policy decisions, pending queue and counts), with the signatures of
    /// all verified messages checked in one batch on the engine. Each lock is taken once
    /// per batch, not once per message.
    pub fn receive_batch(&self, messages: &[&[u8]]) -> Vec<Outcome> {
        self.complete(self.prepare(self.admit(messages)))
    }

    /// Verifies a message the policy skipped.
    pub fn verify_on_demand(&self, id: u64) -> Result<Outcome> {
        let message = {
            let mut state = self.lock_state();
            let index = state
                .pending
                .iter()
                .position(|(i, _)| *i == id)
                .ok_or(Error::UnknownMessage(id))?;
            state.counts.on_demand += 1;
            state.pending.remove(index).map(|(_, m)| m)
        }
        .ok_or(Error::UnknownMessage(id))?;
        let steps = self.prepare(vec![Admitted::Verify(message)]);
        // One outcome per message.
        Ok(self.complete(steps).swap_remove(0))
    }

    /// Verifies from now on with `validator` (new trust anchors, an empty certificate cache)
    /// under `policy` (its counts start again); messages skipped before stay pending, and the
    /// replay window and the other counts are kept.
    pub fn reload(&self, validator: Validator, policy: VerificationPolicy) {
        *self.lock_validator() = validator;
        self.lock_state().policy = policy;
    }

    /// Verifies from now on with `validator` (trust updated from its lists); the policy,
    /// its counts, pending messages and the replay window are kept.
    pub fn replace_validator(&self, validator: Validator) {
        *self.lock_validator() = validator;
    }

    /// What the service has seen.
    pub fn counts(&self) -> VerifyCounts {
        let state = self.lock_state();
        VerifyCounts {
            policy: state.policy.counts(),
            ..state.counts
        }
    }

    /// What the certificate cache did (hits are signers resolved without a chain check).
    pub fn cache_stats(&self) -> vss_its::CacheStats {
        self.lock_validator().cache_stats()
    }

    /// Parses received messages and asks the policy about each (one hold of the
    /// bookkeeping's lock): malformed and skipped ones get their outcome.
    fn admit(&self, messages: &[&[u8]]) -> Vec<Admitted> {
        let parsed: Vec<_> = messages
            .iter()
            .map(|bytes| SignedMessage::from_bytes(bytes))
            .collect();
        let mut state = self.lock_state();
        parsed
            .into_iter()
            .map(|parsed| match parsed {
                Err(_) => {
                    state.counts.invalid += 1;
                    Admitted::Done(Outcome::Invalid {
                        verdict: Verdict::Malformed,
                    })
                }
                Ok(message) => match state.policy.decide(|| message.signer_id()) {
                    Decision::Verify => Admitted::Verify(message),
                    Decision::Skip => {
                        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
                        state.keep(id, message);
                        Admitted::Done(Outcome::Skipped { id })
                    }
                },
            })
            .collect()
    }

    /// The first phase of validation, every check but the messages' signatures (one hold
    /// of the validator's lock).
    fn prepare(&self, admitted: Vec<Admitted>) -> Vec<Step> {
        let now = self.clock.now();
        let mut validator = self.lock_validator();
        admitted
            .into_iter()
            .map(|admitted| match admitted {
                Admitted::Done(outcome) => Step::Settled(Settled::Done(outcome)),
                Admitted::Verify(message) => match validator.prepare_message(&message, &[], now) {
                    Prepared::Refused(report) => Step::Settled(Settled::Judged(Judged {
                        message,
                        report,
                        digest: None,
                    })),
                    Prepared::Pending(signature) => Step::Pending(message, signature),
                },
            })
            .collect()
    }

    /// Checks the pending signatures of `steps` together, then counts every outcome (one
    /// hold of the bookkeeping's lock) and gives them in order.
    fn complete(&self, steps: Vec<Step>) -> Vec<Outcome> {
        let pending: Vec<&PendingSignature> = steps
            .iter()
            .filter_map(|step| match step {
                Step::Pending(_, signature) => Some(signature),
                Step::Settled(_) => None,
            })
            .collect();
        let mut verdicts = self.check(&pending).into_iter();
        let settled: Vec<Settled> = steps
            .into_iter()
            .map(|step| match step {
                Step::Settled(settled) => settled,
                Step::Pending(message, signature) => {
                    let valid = verdicts.next().unwrap_or(false);
                    let digest = Some(signature.digest().to_vec());
                    Settled::Judged(Judged {
                        message,
                        report: signature.finish(valid),
                        digest,
                    })
                }
            })
            .collect();
        let now = self.clock.now();
        let mut state = self.lock_state();
        settled
            .into_iter()
            .map(|settled| match settled {
                Settled::Done(outcome) => outcome,
                Settled::Judged(judged) => state.count(judged, now),
            })
            .collect()
    }

    /// Whether each signature verifies: a lone one in place, more on the engine; those
    /// whose signer has a prepared key in place too when the engine would check them with
    /// the library.
    fn check(&self, pending: &[&PendingSignature]) -> Vec<bool> {
        if let [one] = pending {
            return vec![one.verify()];
        }
        let in_place = self.engine.prefers_prepared_keys();
        let mut verdicts = vec![false; pending.len()];
        let mut sent = Vec::with_capacity(pending.len());
        for (i, p) in pending.iter().enumerate() {
            if in_place && p.prepared_key().is_some() {
                verdicts[i] = p.verify();
            } else {
                sent.push(i);
            }
        }
        match sent[..] {
            [] => {}
            [i] => verdicts[i] = pending[i].verify(),
            _ => {
                let jobs: Vec<VerifyJob<'_>> = sent
                    .iter()
                    .map(|&i| VerifyJob {
                        curve: pending[i].curve(),
                        public_key: pending[i].public_key(),
                        digest: pending[i].digest(),
                        signature: pending[i].signature(),
                    })
                    .collect();
                // An engine that answers too few verdicts leaves the rest refused.
                for (i, valid) in sent.iter().zip(self.engine.verify_batch(&jobs)) {
                    verdicts[*i] = valid;
                }
            }
        }
        verdicts
    }

    fn lock_validator(&self) -> std::sync::MutexGuard<'_, Validator> {
        self.validator.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl State {
    /// Keeps a skipped message for verification on demand (the oldest dropped when full).
    fn keep(&mut self, id: u64, message: SignedMessage) {
        if self.pending.len() >= PENDING_CAPACITY {
            self.pending.pop_front();
            self.counts.dropped += 1;
        }
        self.pending.push_back((id, message));
    }

    /// The outcome of a validated message, counted; a valid one the replay window does not
    /// accept (at `now`) is refused.
    fn count(&mut self, judged: Judged, now: ItsTime) -> Outcome {
        let Judged {
            message,
            report,
            digest,
        } = judged;
        if let (Verdict::Valid, Some(digest)) = (report.verdict, &digest) {
            if let Some(refusal) = self.refusal(&message, digest, now) {
                self.counts.invalid += 1;
                return Outcome::Invalid {
                    verdict: refusal.verdict(),
                };
            }
        }
        match (
            report.verdict,
            message.payload(),
            report.psid,
            report.signer,
        ) {
            (Verdict::Valid, Some(payload), Some(psid), Some(signer)) => {
                self.counts.valid += 1;
                Outcome::Valid {
                    payload: payload.to_vec(),
                    psid,
                    signer,
                }
            }
            (Verdict::Valid, ..) => {
                self.counts.invalid += 1;
                // Valid, but without an inline payload, PSID or signer.
                Outcome::Invalid {
                    verdict: Verdict::UnsupportedAlgorithm,
                }
            }
            (verdict, ..) => {
                self.counts.invalid += 1;
                Outcome::Invalid { verdict }
            }
        }
    }

    /// Why the replay window refuses a verified message; `None` when it accepts it (once)
    /// or there is no window.
    fn refusal(
        &mut self,
        message: &SignedMessage,
        digest: &[u8],
        now: ItsTime,
    ) -> Option<ReplayRefusal> {
        let generated = message
            .header()
            .generation_time
            .as_ref()
            .map(ItsTime::from_time64);
        self.replay.as_mut()?.accept(generated, digest, now).err()
    }
}

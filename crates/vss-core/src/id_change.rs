//! Identifier changes as events (ETSI TS 102 723-8's SN-IDCHANGE-SUBSCRIBE): a
//! [`ChangeListener`] that tells a subscriber PREPARE before the pseudonym changes, then
//! COMMIT once it has, or ABORT when the change is called off, so the stack changes its
//! station ID and MAC address in the same instant as the pseudonym.

use vss_its::HashedId8;

use crate::pseudonym::ChangeListener;

/// The phase of an identifier change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdChangePhase {
    /// The pseudonym is about to change: prepare the new identity.
    Prepare,
    /// It changed: switch now.
    Commit,
    /// It did not change: keep the old identity.
    Abort,
}

/// One event of an identifier change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdChangeEvent {
    /// Which phase.
    pub phase: IdChangePhase,
    /// The pseudonym before (none at the first).
    pub from: Option<HashedId8>,
    /// The pseudonym after.
    pub to: HashedId8,
}

/// A listener that never postpones a change and hands each phase to `notify`, which must
/// return quickly and must not call back into the pseudonym manager.
pub struct IdChangeEvents<F>(pub F);

impl<F: Fn(IdChangeEvent) + Send + Sync> IdChangeEvents<F> {
    fn send(&self, phase: IdChangePhase, from: Option<HashedId8>, to: HashedId8) {
        (self.0)(IdChangeEvent { phase, from, to });
    }
}

impl<F: Fn(IdChangeEvent) + Send + Sync> ChangeListener for IdChangeEvents<F> {
    fn before_change(&self, from: Option<HashedId8>, to: HashedId8) -> bool {
        self.send(IdChangePhase::Prepare, from, to);
        true
    }

    fn after_change(&self, from: Option<HashedId8>, to: HashedId8) {
        self.send(IdChangePhase::Commit, from, to);
    }

    fn change_aborted(&self, from: Option<HashedId8>, to: HashedId8) {
        self.send(IdChangePhase::Abort, from, to);
    }
}

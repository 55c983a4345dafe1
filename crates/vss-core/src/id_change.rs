//! Identifier changes as events (ETSI TS 102 723-8's SN-IDCHANGE-SUBSCRIBE): a
//! [`ChangeListener`] that tells a subscriber PREPARE before the pseudonym changes, then
//! COMMIT once it has, or ABORT when the change is called off, so the stack changes its
//! station ID and MAC address in the same instant as the pseudonym; and an [`IdAnnouncer`]
//! that tells the clients of an events socket of each change.

use std::sync::Arc;

use prometheus_client::metrics::counter::Counter;
use vss_its::HashedId8;

use crate::events::{Event, EventHub};
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

/// A front end's id-change listener (the GeoNetworking bridge, the UDP filter): it never
/// postpones a change (the next message is signed by the new pseudonym) and announces each
/// one on the events socket, where there is one.
pub struct IdAnnouncer {
    events: Option<Arc<EventHub>>,
    changes: Counter,
    /// The radio-side MAC that goes with a pseudonym, where the front end has one.
    mac_of: Option<fn(HashedId8) -> String>,
}

impl IdAnnouncer {
    /// Announces changes on `events`, where there is a socket, counting them in `changes`.
    pub fn new(events: Option<Arc<EventHub>>, changes: Counter) -> Self {
        IdAnnouncer {
            events,
            changes,
            mac_of: None,
        }
    }

    /// The announcer, naming in each announcement the MAC `mac_of` gives the new pseudonym.
    pub fn with_mac(mut self, mac_of: fn(HashedId8) -> String) -> Self {
        self.mac_of = Some(mac_of);
        self
    }

    /// The changes announced so far.
    pub fn changes(&self) -> u64 {
        self.changes.get()
    }
}

impl ChangeListener for IdAnnouncer {
    fn before_change(&self, _: Option<HashedId8>, _: HashedId8) -> bool {
        true
    }

    fn after_change(&self, from: Option<HashedId8>, to: HashedId8) {
        self.changes.inc();
        if let Some(events) = &self.events {
            events.publish(&Event::IdChange {
                from: from.map(|id| id.to_string()),
                signer: to.to_string(),
                mac: self.mac_of.map(|mac_of| mac_of(to)),
            });
        }
    }
}

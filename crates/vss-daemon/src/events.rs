//! SN-IDCHANGE-SUBSCRIBE: one listener registered with the entity at start turns each
//! pseudonym change into PREPARE, then COMMIT or ABORT, broadcast to every subscriber through
//! a bounded buffer ([`EVENT_BUFFER`]); a subscriber that falls that far behind is dropped
//! (its stream ends with RESOURCE_EXHAUSTED), never the daemon.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::broadcast;
use vss_core::id_change::{IdChangeEvent, IdChangeEvents, IdChangePhase};
use vss_core::Vss;
use vss_proto::proto;

/// Events kept for a subscriber that has not read them yet.
pub const EVENT_BUFFER: usize = 64;

/// The identifier-change events of one entity.
#[derive(Clone)]
pub struct IdChanges {
    sender: broadcast::Sender<proto::IdChangeEvent>,
}

impl IdChanges {
    /// Registers the listener with `vss`; call once.
    pub fn register(vss: &Vss) -> IdChanges {
        let (sender, _) = broadcast::channel(EVENT_BUFFER);
        let events = sender.clone();
        let sequence = AtomicU64::new(0);
        vss.register_network_id_listener(Arc::new(IdChangeEvents(move |event: IdChangeEvent| {
            let number = match event.phase {
                IdChangePhase::Prepare => sequence.fetch_add(1, Ordering::SeqCst) + 1,
                IdChangePhase::Commit | IdChangePhase::Abort => sequence.load(Ordering::SeqCst),
            };
            // No subscriber: nothing to tell.
            let _ = events.send(message(event, number));
        })));
        IdChanges { sender }
    }

    /// A new subscriber, told of the changes from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<proto::IdChangeEvent> {
        self.sender.subscribe()
    }
}

/// The API's message for `event`, the change numbered `sequence`.
fn message(event: IdChangeEvent, sequence: u64) -> proto::IdChangeEvent {
    let phase = match event.phase {
        IdChangePhase::Prepare => proto::IdChangePhase::Prepare,
        IdChangePhase::Commit => proto::IdChangePhase::Commit,
        IdChangePhase::Abort => proto::IdChangePhase::Abort,
    };
    proto::IdChangeEvent {
        phase: phase.into(),
        old_pseudonym: event.from.map(|id| id.0.to_vec()).unwrap_or_default(),
        new_pseudonym: event.to.0.to_vec(),
        sequence,
    }
}

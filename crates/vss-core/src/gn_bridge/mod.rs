//! Seed 001's transparent security on the GeoNetworking wire (ETSI EN 302 636-4-1): a
//! [`Bridge`] between an unsecured ITS stack and the radio, independent of how frames move
//! ([`link`] moves them over AF_PACKET sockets, [`run`] runs both directions).
//!
//! - *stack → radio* ([`Bridge::to_radio`]): the stack's unsecured packet is signed by the
//!   entity under the ITS-AID of its BTP port ([`profile`]), after its source GN address's
//!   MID is rewritten to the current pseudonym's MAC ([`identity`]), and goes out as a
//!   secured packet (Basic Header next header 2) from that MAC;
//! - *radio → stack* ([`Bridge::to_stack`]): secured packets are verified in one batch; a
//!   valid one is passed on unsecured (its signed Common Header, extended header and
//!   payload after the Basic Header) from the bridge's stack-side MAC, anything else is
//!   dropped and announced on the events socket ([`Refusal`]).

mod ethernet;
pub mod identity;
mod incoming;
pub mod link;
pub mod metrics;
pub mod neighbours;
mod outgoing;
mod refusal;
pub mod run;

use std::sync::{Arc, Mutex};

use vss_gn::Limits;

pub use ethernet::{frame, Frame, Mac, HEADER_LEN};
pub use identity::pseudonym_mac;
pub use metrics::BridgeMetrics;
pub use neighbours::Neighbours;
pub use outgoing::{profile, GN_MGMT_AID};
pub use refusal::Refusal;

use crate::events::EventHub;
use crate::id_change::IdAnnouncer;
use crate::Vss;

/// How a bridge treats what it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BridgeConfig {
    /// Decoding bounds, both directions (default: [`Limits::default`]).
    pub limits: Limits,
    /// Pass unsecured packets from the radio on to the stack (default `false`: dropped).
    pub allow_unsecured: bool,
    /// The source MAC of the frames the bridge hands the stack: its own stack-side MAC,
    /// never the stack's (which the stack would drop as its own).
    pub stack_side_mac: Mac,
}

/// The bridge of one station: its entity signs and verifies.
pub struct Bridge {
    vss: Arc<Vss>,
    config: BridgeConfig,
    events: Option<Arc<EventHub>>,
    announcer: Arc<IdAnnouncer>,
    /// The stack's MAC, learnt from its frames: where unicast frames from the radio go.
    stack_mac: Mutex<Option<Mac>>,
    /// The signers heard lately (a new one has the next CAM carry the certificate).
    neighbours: Mutex<Neighbours>,
    metrics: BridgeMetrics,
}

impl Bridge {
    /// A bridge signing and verifying with `vss`, announcing drops and pseudonym changes on
    /// `events` where given; it registers itself as the entity's id-change listener.
    pub fn new(vss: Arc<Vss>, config: BridgeConfig, events: Option<Arc<EventHub>>) -> Self {
        Self::with_metrics(vss, config, events, BridgeMetrics::default())
    }

    /// [`Bridge::new`], counting in `metrics`.
    pub fn with_metrics(
        vss: Arc<Vss>,
        config: BridgeConfig,
        events: Option<Arc<EventHub>>,
        metrics: BridgeMetrics,
    ) -> Self {
        let announcer = Arc::new(
            IdAnnouncer::new(events.clone(), metrics.id_changes())
                .with_mac(|id| pseudonym_mac(id).to_string()),
        );
        vss.register_network_id_listener(announcer.clone());
        Bridge {
            vss,
            config,
            events,
            announcer,
            stack_mac: Mutex::new(None),
            neighbours: Mutex::new(Neighbours::default()),
            metrics,
        }
    }

    /// The counters.
    pub fn metrics(&self) -> &BridgeMetrics {
        &self.metrics
    }

    /// The entity.
    pub fn entity(&self) -> &Arc<Vss> {
        &self.vss
    }

    /// The pseudonym changes announced so far.
    pub fn id_changes(&self) -> u64 {
        self.announcer.changes()
    }

    /// The stack's MAC as learnt from its frames.
    fn stack_mac(&self) -> Option<Mac> {
        *self.stack_mac.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Notes the stack's MAC.
    fn learn_stack_mac(&self, mac: Mac) {
        *self.stack_mac.lock().unwrap_or_else(|p| p.into_inner()) = Some(mac);
    }
}

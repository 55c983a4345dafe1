//! The radio-side identity that goes with a pseudonym: a MAC address derived from the
//! pseudonym's certificate, which is also the MID of the GN address the bridge writes as
//! the packet's source, and the announcement of each change on the events socket.
//!
//! The derivation: the first six bytes of the certificate's HashedId8 (the low-order eight
//! bytes of its SHA-256), with the first byte's I/G bit cleared (an individual address) and
//! its U/L bit set (locally administered, IEEE 802 §8.4), so it is stable for a pseudonym,
//! changes with it, tells nothing the certificate does not, and is never a vendor's address.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use vss_its::HashedId8;

use super::ethernet::Mac;
use super::metrics::BridgeMetrics;
use crate::events::{Event, EventHub};
use crate::pseudonym::ChangeListener;

/// The radio-side MAC address of the pseudonym `id`.
pub fn pseudonym_mac(id: HashedId8) -> Mac {
    let mut mac = [0u8; 6];
    mac.copy_from_slice(&id.0[..6]);
    mac[0] = (mac[0] & 0xfc) | 0x02;
    Mac(mac)
}

/// The bridge as the entity's id-change listener: it never postpones a change (the next
/// packet is rewritten for the new pseudonym as it is signed) and announces each one.
pub struct IdAnnouncer {
    events: Option<Arc<EventHub>>,
    metrics: BridgeMetrics,
    changes: AtomicU64,
}

impl IdAnnouncer {
    /// Announces changes on `events`, where there is a socket, and counts them in
    /// `metrics`.
    pub fn new(events: Option<Arc<EventHub>>, metrics: BridgeMetrics) -> Self {
        IdAnnouncer {
            events,
            metrics,
            changes: AtomicU64::new(0),
        }
    }

    /// The changes announced so far.
    pub fn changes(&self) -> u64 {
        self.changes.load(Ordering::Relaxed)
    }
}

impl ChangeListener for IdAnnouncer {
    fn before_change(&self, _: Option<HashedId8>, _: HashedId8) -> bool {
        true
    }

    fn after_change(&self, from: Option<HashedId8>, to: HashedId8) {
        self.changes.fetch_add(1, Ordering::Relaxed);
        self.metrics.id_change();
        if let Some(events) = &self.events {
            events.publish(&Event::IdChange {
                from: from.map(|id| id.to_string()),
                signer: to.to_string(),
                mac: pseudonym_mac(to).to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pseudonym_mac_is_individual_local_and_its_own() {
        let a = pseudonym_mac(HashedId8([0xff, 1, 2, 3, 4, 5, 6, 7]));
        assert_eq!(a, Mac([0xfe, 1, 2, 3, 4, 5]));
        let b = pseudonym_mac(HashedId8([0x00, 1, 2, 3, 4, 6, 6, 7]));
        assert_eq!(b, Mac([0x02, 1, 2, 3, 4, 6]));
        assert!(!a.is_group() && a.0[0] & 0x02 != 0);
    }
}

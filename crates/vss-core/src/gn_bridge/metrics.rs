//! The bridge's Prometheus metrics (served by the front end, e.g. `vss gn bridge --metrics`):
//!
//! - `vss_gn_frames_total{direction,result}`: frames by direction (`to_radio`, `to_stack`)
//!   and what became of them: `passed`, `send_error`, or the reason they were dropped
//!   (`Refusal::name`: the verification report's name, `Unsecured`, `Forwarded`, …);
//! - `vss_gn_id_changes_total`: pseudonym changes (each one a new radio-side MAC).

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

type Labels = [(&'static str, &'static str); 2];

/// The counters (cheap to clone: the clones share their values).
#[derive(Clone, Default)]
pub struct BridgeMetrics {
    frames: Family<Labels, Counter>,
    id_changes: Counter,
}

impl BridgeMetrics {
    /// New counters, registered in the returned registry.
    pub fn new() -> (BridgeMetrics, Registry) {
        let metrics = BridgeMetrics::default();
        let mut registry = Registry::default();
        registry.register(
            "vss_gn_frames",
            "GeoNetworking frames by direction and result",
            metrics.frames.clone(),
        );
        registry.register(
            "vss_gn_id_changes",
            "Pseudonym changes (each a new radio-side MAC and GN address)",
            metrics.id_changes.clone(),
        );
        (metrics, registry)
    }

    /// Counts a frame of `direction` with `result`.
    pub fn frame(&self, direction: &'static str, result: &'static str) {
        self.frames
            .get_or_create(&[("direction", direction), ("result", result)])
            .inc();
    }

    /// The pseudonym changes' counter (shared with its clones).
    pub fn id_changes(&self) -> Counter {
        self.id_changes.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_render_with_their_labels() {
        let (metrics, registry) = BridgeMetrics::new();
        metrics.frame("to_stack", "FalseSignature");
        metrics.frame("to_stack", "FalseSignature");
        metrics.id_changes().inc();
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).expect("encode");
        assert!(
            text.contains(
                "vss_gn_frames_total{direction=\"to_stack\",result=\"FalseSignature\"} 2"
            ),
            "{text}"
        );
        assert!(text.contains("vss_gn_id_changes_total 1"), "{text}");
    }
}

//! The metrics of `vssd`, served by [`vss_net::metrics`] at `[daemon] metrics`:
//!
//! - `vssd_verifications_total{report}`: verifications by report code;
//! - `vssd_sign_latency_seconds`, `vssd_verify_latency_seconds`: histograms of one signature
//!   and of one verification (a batch's time shared by its messages);
//! - `vssd_verify_batch_size`: messages per engine batch of `VerifyStream`;
//! - `vssd_pool_level`: unused tickets valid now;
//! - `vssd_hsm_operations_total{operation}`: key-store operations (`sign`, `ecdh`);
//! - `vssd_requests_total{method,code}`: calls by RPC and gRPC status code, counted when
//!   their handler ends (not one that [`crate::deadline`] cut off before).

use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use tonic::Code;
use vss_proto::codes::{code_name, report_name};
use vss_proto::proto::ReportCode;

type Labels<const N: usize> = [(&'static str, &'static str); N];

/// The daemon's counters, gauges and histograms (cheap to clone: they share their values).
#[derive(Clone)]
pub struct Metrics {
    verifications: Family<Labels<1>, Counter>,
    sign_latency: Histogram,
    verify_latency: Histogram,
    batch_size: Histogram,
    pool_level: Gauge,
    hsm_operations: Family<Labels<1>, Counter>,
    requests: Family<Labels<2>, Counter>,
}

impl Metrics {
    /// New metrics, registered in the returned registry.
    pub fn new() -> (Metrics, Registry) {
        let latency = || Histogram::new(exponential_buckets(0.000_05, 2.0, 16));
        let metrics = Metrics {
            verifications: Family::default(),
            sign_latency: latency(),
            verify_latency: latency(),
            batch_size: Histogram::new(exponential_buckets(1.0, 2.0, 13)),
            pool_level: Gauge::default(),
            hsm_operations: Family::default(),
            requests: Family::default(),
        };
        let mut registry = Registry::default();
        registry.register(
            "vssd_verifications",
            "Verifications by report code",
            metrics.verifications.clone(),
        );
        registry.register(
            "vssd_sign_latency_seconds",
            "Time of one signature",
            metrics.sign_latency.clone(),
        );
        registry.register(
            "vssd_verify_latency_seconds",
            "Time of one verification (a batch's time shared by its messages)",
            metrics.verify_latency.clone(),
        );
        registry.register(
            "vssd_verify_batch_size",
            "Messages per engine batch of VerifyStream",
            metrics.batch_size.clone(),
        );
        registry.register(
            "vssd_pool_level",
            "Unused pseudonym tickets valid now",
            metrics.pool_level.clone(),
        );
        registry.register(
            "vssd_hsm_operations",
            "Key-store operations",
            metrics.hsm_operations.clone(),
        );
        registry.register(
            "vssd_requests",
            "Calls by RPC and gRPC status code",
            metrics.requests.clone(),
        );
        (metrics, registry)
    }

    /// A verification with `report` that took `elapsed`.
    pub fn verified(&self, report: ReportCode, elapsed: Duration) {
        self.verifications
            .get_or_create(&[("report", report_name(report))])
            .inc();
        self.verify_latency.observe(elapsed.as_secs_f64());
    }

    /// A signature that took `elapsed`.
    pub fn signed(&self, elapsed: Duration) {
        self.sign_latency.observe(elapsed.as_secs_f64());
        self.hsm_operation("sign");
    }

    /// A key-store operation.
    pub fn hsm_operation(&self, operation: &'static str) {
        self.hsm_operations
            .get_or_create(&[("operation", operation)])
            .inc();
    }

    /// An engine batch of `size` messages.
    pub fn batch(&self, size: usize) {
        self.batch_size.observe(size as f64);
    }

    /// The pool holds `level` unused tickets.
    pub fn pool(&self, level: usize) {
        self.pool_level
            .set(i64::try_from(level).unwrap_or(i64::MAX));
    }

    /// A call of `method` that ended with `code`.
    pub fn request(&self, method: &'static str, code: Code) {
        self.requests
            .get_or_create(&[("method", method), ("code", code_name(code))])
            .inc();
    }
}

//! One measurement of the daemon bench: where its messages were verified, by how many
//! clients, in what wall and CPU time, with which latencies, and how many were valid.

use std::time::Duration;

use super::load::Seen;
use crate::bench::measure::percentile;

/// Where a measurement's messages were verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Path {
    /// `vss filter`'s loop in batches (the reference).
    Filter,
    /// The entity in this process, one call per message.
    InProcess,
    /// vssd, unary `Verify`.
    Unary,
    /// vssd, `VerifyStream`.
    Stream,
}

impl Path {
    /// Its name in the report.
    pub(super) fn name(self) -> &'static str {
        match self {
            Path::Filter => "filter",
            Path::InProcess => "in_process",
            Path::Unary => "grpc_unary",
            Path::Stream => "grpc_stream",
        }
    }
}

/// One measurement.
pub(super) struct Run {
    pub(super) path: Path,
    pub(super) clients: usize,
    pub(super) messages: usize,
    pub(super) wall: Duration,
    /// CPU time of the process that verified (this one, or vssd).
    pub(super) cpu: Duration,
    /// CPU time of this process when it was vssd's client (it shares the machine).
    pub(super) client_cpu: Option<Duration>,
    /// Sorted; empty for the filter (it answers batches, not messages).
    latencies: Vec<Duration>,
    pub(super) valid: usize,
}

impl Run {
    /// The measurement of what `seen` saw on `path` from `clients` clients.
    pub(super) fn new(
        path: Path,
        clients: usize,
        wall: Duration,
        cpu: Duration,
        mut seen: Seen,
    ) -> Run {
        seen.latencies.sort();
        Run {
            path,
            clients,
            messages: seen.messages,
            wall,
            cpu,
            client_cpu: None,
            latencies: seen.latencies,
            valid: seen.valid,
        }
    }

    /// The run, with the CPU time this process used as vssd's client.
    pub(super) fn with_client_cpu(self, client_cpu: Duration) -> Run {
        Run {
            client_cpu: Some(client_cpu),
            ..self
        }
    }

    /// Messages verified per second of wall time.
    pub(super) fn per_second(&self) -> f64 {
        self.messages as f64 / self.wall.as_secs_f64()
    }

    /// None when the run used less CPU than /proc can tell (one clock tick).
    pub(super) fn per_cpu_second(&self) -> Option<f64> {
        (!self.cpu.is_zero()).then(|| self.messages as f64 / self.cpu.as_secs_f64())
    }

    /// The `p`-quantile of its latencies in milliseconds; none for the filter.
    pub(super) fn latency_ms(&self, p: f64) -> Option<f64> {
        (!self.latencies.is_empty()).then(|| percentile(&self.latencies, p).as_secs_f64() * 1e3)
    }
}

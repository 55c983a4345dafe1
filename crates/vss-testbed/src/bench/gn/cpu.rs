//! Packets per second and per CPU-second in this process (its CPU time, to the nanosecond):
//! `vss filter`'s decision on batches as its loop makes them ([`Filter::inspect_batch`]),
//! the bridge's radio → stack direction on batches as its loop makes them
//! ([`Bridge::to_stack`], up to [`run::MAX_BATCH`]), and its stack → radio direction one
//! frame at a time ([`Bridge::to_radio`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use vss_core::filter::{BatchConfig, Filter};
use vss_core::gn_bridge::{run, Bridge};
use vss_core::replay::ReplayConfig;
use vss_engine::VerifyEngine;
use vss_pki::store::process_cpu_time;

use crate::bench::filter::{inspect, validator};
use crate::bench::ticket_pki::Pki;

/// What an in-process measurement did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Work {
    /// `vss filter`'s decision, in its batches.
    Filter,
    /// The bridge, radio → stack: decode, verify in batches, the frame for the stack.
    ToStack,
    /// The bridge, stack → radio: decode, rewrite, sign, the frame for the radio.
    ToRadio,
}

impl Work {
    /// Its name in the report.
    pub(super) fn name(self) -> &'static str {
        match self {
            Work::Filter => "filter",
            Work::ToStack => "bridge_to_stack",
            Work::ToRadio => "bridge_to_radio",
        }
    }
}

/// One in-process measurement.
pub(super) struct Throughput {
    pub(super) work: Work,
    pub(super) packets: usize,
    /// Packets passed on (valid, or signed).
    pub(super) passed: usize,
    pub(super) wall: Duration,
    pub(super) cpu: Duration,
}

impl Throughput {
    /// Packets per second of wall time.
    pub(super) fn per_second(&self) -> f64 {
        self.packets as f64 / self.wall.as_secs_f64()
    }

    /// Packets per CPU-second of this process.
    pub(super) fn per_cpu_second(&self) -> f64 {
        self.packets as f64 / self.cpu.as_secs_f64().max(f64::MIN_POSITIVE)
    }
}

/// Times `work` on `packets` packets; it returns how many it passed on.
fn timed(work: Work, packets: usize, f: impl FnOnce() -> usize) -> Throughput {
    let (cpu, started) = (process_cpu_time(), Instant::now());
    let passed = f();
    Throughput {
        work,
        packets,
        passed,
        wall: started.elapsed(),
        cpu: process_cpu_time() - cpu,
    }
}

/// A filter as `vss filter` builds it for `pki`, verifying on `engine` in `batch`es with
/// the `replay` window.
pub(super) fn new_filter(
    pki: &Pki,
    engine: &Arc<dyn VerifyEngine>,
    batch: BatchConfig,
    replay: Option<ReplayConfig>,
) -> Result<Filter> {
    Ok(Filter::new(validator(pki)?, engine.clone(), batch, replay))
}

/// `filter` deciding on `messages` in batches of `max_batch`.
pub(super) fn filter(filter: &Filter, max_batch: usize, messages: &[Vec<u8>]) -> Throughput {
    timed(Work::Filter, messages.len(), || {
        inspect(filter, max_batch, messages)
    })
}

/// `bridge` taking `frames` from the radio in batches of [`run::MAX_BATCH`].
pub(super) fn to_stack(bridge: &Bridge, frames: &[Vec<u8>]) -> Throughput {
    timed(Work::ToStack, frames.len(), || {
        frames
            .chunks(run::MAX_BATCH)
            .map(|chunk| {
                let chunk: Vec<&[u8]> = chunk.iter().map(Vec::as_slice).collect();
                bridge.to_stack(&chunk).iter().filter(|r| r.is_ok()).count()
            })
            .sum()
    })
}

/// `bridge` signing `frames` from the stack, one at a time.
pub(super) fn to_radio(bridge: &Bridge, frames: &[Vec<u8>]) -> Throughput {
    timed(Work::ToRadio, frames.len(), || {
        frames.iter().filter(|f| bridge.to_radio(f).is_ok()).count()
    })
}

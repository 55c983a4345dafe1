//! `vss bench throughput --op verify --engine …`: verification in batches through a
//! [`VerifyEngine`], with the latency of each batch.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use serde_json::{json, Value};
use vss_crypto::Curve;
use vss_engine::{SamplePool, VerifyEngine};

use super::measure::percentile;
use crate::report::progress;

/// Signers whose signatures a batch mixes.
const SIGNERS: usize = 16;

/// Distinct signatures at most: a larger batch cycles through them (signing four million
/// brainpool signatures would take longer than measuring them).
const DISTINCT: usize = 1 << 16;

/// Verifies batches of `size` on `engine` for `seconds`; the report as JSON.
pub fn measure(
    engine: &dyn VerifyEngine,
    curve: Curve,
    size: usize,
    seconds: f64,
) -> Result<Value> {
    let pool = SamplePool::new(curve, size.min(DISTINCT), SIGNERS)?;
    let jobs = pool.jobs(size);
    let duration = Duration::from_secs_f64(seconds);
    let bar = progress((seconds * 10.0).ceil() as u64, "verifying in batches");
    let mut latencies = Vec::new();
    let started = Instant::now();
    while started.elapsed() < duration || latencies.is_empty() {
        let one = Instant::now();
        let verdicts = engine.verify_batch(&jobs);
        latencies.push(one.elapsed());
        if verdicts.len() != size || verdicts.iter().any(|v| !v) {
            bail!("the {} engine refused a valid signature", engine.name());
        }
        bar.set_position((started.elapsed().as_secs_f64() * 10.0) as u64);
    }
    let elapsed = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    latencies.sort_unstable();
    let at = |q: f64| percentile(&latencies, q).as_secs_f64() * 1e3;
    let operations = (latencies.len() * size) as u64;
    Ok(json!({
        "benchmark": "throughput",
        "op": "verify",
        "engine": engine.name(),
        "device": engine.device(),
        "curve": curve.name(),
        "batch": size,
        "distinct_signatures": pool.distinct(),
        "batches": latencies.len(),
        "seconds": elapsed,
        "operations": operations,
        "ops_per_sec": operations as f64 / elapsed,
        "latency_ms_p50": at(0.5),
        "latency_ms_p99": at(0.99),
    }))
}

//! `vss bench throughput --op verify --engine …`: verification in batches through a
//! `VerifyEngine`, with the latency of each batch.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use serde_json::{json, Value};
use vss_crypto::{Curve, PrivateKey};
use vss_engine::{VerifyEngine, VerifyJob};

use crate::output::progress;

/// Signers whose signatures a batch mixes.
const SIGNERS: usize = 16;

/// Owned bytes of the jobs of one batch.
struct Batch {
    curve: Curve,
    keys: Vec<Vec<u8>>,
    digests: Vec<Vec<u8>>,
    signatures: Vec<Vec<u8>>,
}

impl Batch {
    /// `size` valid signatures over distinct digests from `SIGNERS` keys taking turns.
    fn new(curve: Curve, size: usize) -> Result<Self> {
        let signers = (0..SIGNERS)
            .map(|_| PrivateKey::generate(curve))
            .collect::<Result<Vec<_>, _>>()?;
        let hash = curve.default_hash();
        let mut batch = Batch {
            curve,
            keys: Vec::with_capacity(size),
            digests: Vec::with_capacity(size),
            signatures: Vec::with_capacity(size),
        };
        for i in 0..size {
            let key = &signers[i % SIGNERS];
            let digest = hash.digest(&(i as u64).to_be_bytes());
            batch
                .signatures
                .push(key.sign_digest(&digest)?.to_p1363().to_vec());
            batch.digests.push(digest);
            batch
                .keys
                .push(key.public_key().to_sec1_uncompressed().to_vec());
        }
        Ok(batch)
    }

    fn jobs(&self) -> Vec<VerifyJob<'_>> {
        (0..self.keys.len())
            .map(|i| VerifyJob {
                curve: self.curve,
                public_key: &self.keys[i],
                digest: &self.digests[i],
                signature: &self.signatures[i],
            })
            .collect()
    }
}

/// Verifies batches of `size` on `engine` for `seconds`; the report as JSON.
pub(super) fn measure(
    engine: &dyn VerifyEngine,
    curve: Curve,
    size: usize,
    seconds: f64,
) -> Result<Value> {
    let batch = Batch::new(curve, size)?;
    let jobs = batch.jobs();
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
    let at =
        |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    let operations = (latencies.len() * size) as u64;
    Ok(json!({
        "benchmark": "throughput",
        "op": "verify",
        "engine": engine.name(),
        "device": engine.device(),
        "curve": curve.name(),
        "batch": size,
        "batches": latencies.len(),
        "seconds": elapsed,
        "operations": operations,
        "ops_per_sec": operations as f64 / elapsed,
        "latency_ms_p50": at(0.5),
        "latency_ms_p99": at(0.99),
    }))
}

//! `vss bench throughput`: sustained operations per second over N threads, or verification
//! in batches through an engine ([`super::batch`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use serde_json::json;
use vss_crypto::{Curve, Signature, VerifyingKey};
use vss_engine::EngineKind;

use super::{BenchHsm, HsmOptions};
use crate::report::{progress, Report, Table};

/// Which operation to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Op {
    /// ECDSA signatures through the HSM (hash of a 100-byte message, then sign).
    Sign,
    /// ECDSA verifications (hash of a 100-byte message, then verify).
    Verify,
}

impl Op {
    /// The operation's name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Op::Sign => "sign",
            Op::Verify => "verify",
        }
    }
}

/// Options of the throughput benchmark.
#[derive(Debug, Clone)]
pub struct ThroughputOptions {
    /// Operation to measure.
    pub op: Op,
    /// The curve of the key.
    pub curve: Curve,
    /// Verify in batches through this engine (`Op::Verify` only).
    pub engine: Option<EngineKind>,
    /// Jobs per batch with an engine.
    pub batch: u32,
    /// Worker threads; one per core when `None`.
    pub threads: Option<u32>,
    /// Seconds to run (more than 0, at most 3600).
    pub seconds: f64,
    /// The HSM that signs.
    pub hsm: HsmOptions,
}

/// Messages that the workers cycle through, with their signatures for verification.
const POOL: usize = 64;
const MESSAGE_LEN: usize = 100;

/// Runs the benchmark: the rate as JSON and as a one-row table; it has no check to fail.
pub fn run(options: &ThroughputOptions) -> Result<Report> {
    if !(options.seconds.is_finite() && options.seconds > 0.0 && options.seconds <= 3600.0) {
        bail!("--seconds must be more than 0 and at most 3600");
    }
    let threads = match options.threads {
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
    };
    if let Some(engine) = options.engine {
        return run_engine(options, engine, threads);
    }
    let hash = options.curve.default_hash();
    let bench = BenchHsm::new(&options.hsm, options.curve)?;
    let verifier = bench.hsm().public_key(bench.key())?.verifying_key()?;
    let messages: Vec<Vec<u8>> = (0..POOL)
        .map(|i| (0..MESSAGE_LEN).map(|b| (i * 7 + b) as u8).collect())
        .collect();
    let signatures = messages
        .iter()
        .map(|m| bench.hsm().sign_digest(bench.key(), &hash.digest(m)))
        .collect::<Result<Vec<Signature>, _>>()?;
    let shared = Shared {
        op: options.op,
        bench: &bench,
        verifier: &verifier,
        messages: &messages,
        signatures: &signatures,
        stop: AtomicBool::new(false),
    };
    let (total, elapsed) = shared.run(threads, options.seconds)?;
    let ops_per_sec = total as f64 / elapsed;
    let op = options.op.name();
    let json = json!({
        "benchmark": "throughput",
        "op": op,
        "curve": options.curve.name(),
        "hash": hash.name(),
        "hsm": options.hsm.backend.name(),
        "threads": threads,
        "seconds": elapsed,
        "operations": total,
        "ops_per_sec": ops_per_sec,
        "ops_per_sec_per_thread": ops_per_sec / f64::from(threads),
    });
    let mut t = Table::new(&[
        "op",
        "curve",
        "threads",
        "seconds",
        "operations",
        "ops/s",
        "ops/s per thread",
    ]);
    t.row(vec![
        op.into(),
        options.curve.to_string(),
        threads.to_string(),
        format!("{elapsed:.2}"),
        total.to_string(),
        format!("{ops_per_sec:.0}"),
        format!("{:.0}", ops_per_sec / f64::from(threads)),
    ]);
    Ok(Report::checked(json, t.render(), true, ""))
}

/// Batches through an engine.
fn run_engine(options: &ThroughputOptions, engine: EngineKind, threads: u32) -> Result<Report> {
    if options.op != Op::Verify {
        bail!("--engine measures --op verify only");
    }
    let engine = engine.engine_on(Some(threads as usize))?;
    let report = super::batch::measure(
        engine.as_ref(),
        options.curve,
        options.batch as usize,
        options.seconds,
    )?;
    let columns = [
        "engine",
        "curve",
        "batch",
        "ops_per_sec",
        "latency_ms_p50",
        "latency_ms_p99",
        "device",
    ];
    let mut t = Table::new(&columns);
    t.row(
        columns
            .iter()
            .map(|c| match report[*c].as_f64() {
                Some(x) if !report[*c].is_u64() => format!("{x:.2}"),
                _ => report[*c]
                    .as_str()
                    .map_or_else(|| report[*c].to_string(), str::to_string),
            })
            .collect(),
    );
    Ok(Report::checked(report, t.render(), true, ""))
}

/// What the worker threads share: the key, the messages and their signatures, and the
/// signal to stop.
struct Shared<'a> {
    op: Op,
    bench: &'a BenchHsm,
    verifier: &'a VerifyingKey,
    messages: &'a [Vec<u8>],
    signatures: &'a [Signature],
    stop: AtomicBool,
}

impl Shared<'_> {
    /// Runs `threads` workers for `seconds`; the operations they completed and the seconds
    /// that took.
    fn run(&self, threads: u32, seconds: f64) -> Result<(u64, f64)> {
        let duration = Duration::from_secs_f64(seconds);
        let bar = progress((seconds * 10.0).ceil() as u64, "running");
        let started = Instant::now();
        let counts: Vec<Result<u64>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads as usize)
                .map(|t| scope.spawn(move || self.work(t)))
                .collect();
            while started.elapsed() < duration {
                std::thread::sleep(Duration::from_millis(100).min(duration));
                bar.set_position((started.elapsed().as_secs_f64() * 10.0) as u64);
            }
            self.stop.store(true, Ordering::Relaxed);
            workers
                .into_iter()
                .map(|w| {
                    w.join()
                        .unwrap_or_else(|_| Err(anyhow::anyhow!("worker panicked")))
                })
                .collect()
        });
        let elapsed = started.elapsed().as_secs_f64();
        bar.finish_and_clear();
        Ok((counts.into_iter().sum::<Result<u64>>()?, elapsed))
    }

    /// One worker: operates until told to stop; returns how many operations it completed.
    fn work(&self, thread: usize) -> Result<u64> {
        let hash = self.verifier.public_key().curve().default_hash();
        let mut count = 0u64;
        let mut i = thread;
        while !self.stop.load(Ordering::Relaxed) {
            let message = &self.messages[i % POOL];
            match self.op {
                Op::Sign => {
                    self.bench
                        .hsm()
                        .sign_digest(self.bench.key(), &hash.digest(message))?;
                }
                Op::Verify => {
                    if !self
                        .verifier
                        .verify(hash, message, &self.signatures[i % POOL])
                    {
                        bail!("a valid signature failed to verify");
                    }
                }
            }
            count += 1;
            i += 1;
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_hsm::Backend;

    fn options(op: Op, engine: Option<EngineKind>, seconds: f64) -> ThroughputOptions {
        ThroughputOptions {
            op,
            curve: Curve::P256,
            engine,
            batch: 8,
            threads: Some(1),
            seconds,
            hsm: HsmOptions {
                backend: Backend::Soft,
                module: Default::default(),
            },
        }
    }

    #[test]
    fn bad_durations_and_signing_through_an_engine_are_refused() {
        for seconds in [0.0, -1.0, f64::NAN, 3601.0] {
            let error = run(&options(Op::Verify, None, seconds)).expect_err("refused");
            assert!(error.to_string().contains("--seconds"), "{error}");
        }
        let error = run(&options(Op::Sign, Some(EngineKind::Cpu), 0.1)).expect_err("refused");
        assert_eq!(error.to_string(), "--engine measures --op verify only");
    }

    #[test]
    fn signatures_are_counted_over_the_threads() {
        let report = run(&options(Op::Sign, None, 0.1)).expect("benchmark");
        assert!(report.failure.is_none());
        assert_eq!(report.json["op"], "sign");
        assert_eq!(report.json["threads"], 1);
        assert!(
            report.json["operations"].as_u64() > Some(0),
            "{}",
            report.json
        );
        assert!(report.table.starts_with("op "), "{}", report.table);
    }
}

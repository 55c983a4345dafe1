//! Sustained operations per second over N threads.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use clap::Args;
use serde_json::json;
use vss_crypto::{Curve, Signature, VerifyingKey};

use super::HsmArgs;
use crate::output::progress;
use crate::output::{emit, print_json, Format, Table};
use vss_engine::EngineKind;
use vss_testbed::bench::BenchHsm;

/// Which operation to measure.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Op {
    /// ECDSA signatures through the HSM (hash of a 100-byte message, then sign).
    Sign,
    /// ECDSA verifications (hash of a 100-byte message, then verify).
    Verify,
}

/// Options of `vss bench throughput`.
#[derive(Args)]
pub struct ThroughputArgs {
    /// Operation to measure.
    #[arg(long, value_enum)]
    op: Op,
    /// Curve: p224 p256 p384 bp256 bp384.
    #[arg(long, default_value = "p256")]
    curve: Curve,
    /// Verify in batches through this engine (`--op verify` only).
    #[arg(long, value_enum)]
    engine: Option<EngineKind>,
    /// Jobs per batch with `--engine`.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=1 << 24))]
    batch: u32,
    /// Worker threads [default: one per core].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
    /// Seconds to run.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    #[command(flatten)]
    hsm: HsmArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Messages that the workers cycle through, with their signatures for verification.
const POOL: usize = 64;
const MESSAGE_LEN: usize = 100;

impl ThroughputArgs {
    /// Runs the benchmark and prints the rate.
    pub fn run(self) -> Result<ExitCode> {
        if !(self.seconds.is_finite() && self.seconds > 0.0 && self.seconds <= 3600.0) {
            bail!("--seconds must be more than 0 and at most 3600");
        }
        let threads = match self.threads {
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        };
        if let Some(engine) = self.engine {
            return self.run_engine(engine, threads);
        }
        let hash = self.curve.default_hash();
        let bench = BenchHsm::new(&self.hsm.options(), self.curve)?;
        let verifier = bench.hsm().public_key(bench.key())?.verifying_key()?;
        let messages: Vec<Vec<u8>> = (0..POOL)
            .map(|i| (0..MESSAGE_LEN).map(|b| (i * 7 + b) as u8).collect())
            .collect();
        let signatures = messages
            .iter()
            .map(|m| bench.hsm().sign_digest(bench.key(), &hash.digest(m)))
            .collect::<Result<Vec<Signature>, _>>()?;

        let stop = AtomicBool::new(false);
        let duration = Duration::from_secs_f64(self.seconds);
        let bar = progress((self.seconds * 10.0).ceil() as u64, "running");
        let started = Instant::now();
        let counts: Vec<Result<u64>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads as usize)
                .map(|t| {
                    let work = Worker {
                        op: self.op,
                        bench: &bench,
                        verifier: &verifier,
                        messages: &messages,
                        signatures: &signatures,
                        stop: &stop,
                    };
                    scope.spawn(move || work.run(t))
                })
                .collect();
            while started.elapsed() < duration {
                std::thread::sleep(Duration::from_millis(100).min(duration));
                bar.set_position((started.elapsed().as_secs_f64() * 10.0) as u64);
            }
            stop.store(true, Ordering::Relaxed);
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
        let total: u64 = counts.into_iter().sum::<Result<u64>>()?;
        let ops_per_sec = total as f64 / elapsed;
        let op = match self.op {
            Op::Sign => "sign",
            Op::Verify => "verify",
        };
        match self.format {
            Format::Json => print_json(&json!({
                "benchmark": "throughput",
                "op": op,
                "curve": self.curve.name(),
                "hash": hash.name(),
                "hsm": self.hsm.hsm.name(),
                "threads": threads,
                "seconds": elapsed,
                "operations": total,
                "ops_per_sec": ops_per_sec,
                "ops_per_sec_per_thread": ops_per_sec / f64::from(threads),
            }))?,
            Format::Table => {
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
                    self.curve.to_string(),
                    threads.to_string(),
                    format!("{elapsed:.2}"),
                    total.to_string(),
                    format!("{ops_per_sec:.0}"),
                    format!("{:.0}", ops_per_sec / f64::from(threads)),
                ]);
                emit(&t.render())?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

impl ThroughputArgs {
    /// Batches through an engine.
    fn run_engine(&self, engine: EngineKind, threads: u32) -> Result<ExitCode> {
        if !matches!(self.op, Op::Verify) {
            bail!("--engine measures --op verify only");
        }
        let engine = engine.engine_on(Some(threads as usize))?;
        let report = super::batch::measure(
            engine.as_ref(),
            self.curve,
            self.batch as usize,
            self.seconds,
        )?;
        match self.format {
            Format::Json => print_json(&report)?,
            Format::Table => {
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
                emit(&t.render())?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// One worker thread's view of the shared benchmark state.
struct Worker<'a> {
    op: Op,
    bench: &'a BenchHsm,
    verifier: &'a VerifyingKey,
    messages: &'a [Vec<u8>],
    signatures: &'a [Signature],
    stop: &'a AtomicBool,
}

impl Worker<'_> {
    /// Operates until told to stop; returns how many operations it completed.
    fn run(&self, thread: usize) -> Result<u64> {
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

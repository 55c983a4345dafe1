//! Measures the GPU engine under several configurations (chunk, prepared keys) on P-256 and
//! brainpoolP256r1 batches of several sizes, to choose `GpuConfig`'s defaults:
//! verifications per second, transfers and host staging included, each batch size verified
//! again and again for SECONDS. Each pool cycles through 65,536 distinct signatures: by 16
//! signers (whose keys get tables on the device unless the configuration has no slots) or by
//! 65,536 (one signature each: the generic path whatever the configuration).
//!
//!   cargo run --release -p vss-engine --features gpu --example gpu_sweep [SECONDS] [BATCH,...]
//!
//! Then the CPU engine (all threads) on the same pools, one round of 2^20 jobs, for the
//! ratio. Without a GPU it prints why and exits 0 (nothing was measured).

use std::time::{Duration, Instant};

use vss_crypto::Curve;
use vss_engine::{
    CpuEngine, GpuConfig, GpuEngine, GpuError, KeyTableConfig, SamplePool, VerifyEngine,
};

/// Distinct signatures in each pool.
const DISTINCT: usize = 1 << 16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().map_or(Ok(1.5), |a| a.parse())?;
    let batches: Vec<usize> = args
        .next()
        .unwrap_or_else(|| "4194304,1048576,131072,16384".into())
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let pools = [
        (SamplePool::new(Curve::P256, DISTINCT, 16)?, 16),
        (SamplePool::new(Curve::P256, DISTINCT, DISTINCT)?, DISTINCT),
        (SamplePool::new(Curve::Bp256, DISTINCT, 16)?, 16),
    ];
    let defaults = GpuConfig::default();
    let no_keys = KeyTableConfig {
        slots: 0,
        ..defaults.keys
    };
    let configs = [
        defaults,
        GpuConfig {
            keys: no_keys,
            ..defaults
        },
        GpuConfig {
            chunk: defaults.chunk * 2,
            ..defaults
        },
    ];
    println!(
        "| curve | signers | chunk | key slots | batch | verifications/s | batches | keys prepared |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let largest = batches.iter().copied().max().unwrap_or(1);
    for config in configs {
        let engine = match GpuEngine::with_config(config) {
            Ok(engine) => engine,
            Err(e @ (GpuError::NoDriver | GpuError::NoDevice | GpuError::NoCompiler)) => {
                println!("skipped: {e}");
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        for (pool, signers) in &pools {
            let all = pool.jobs(largest);
            // Warm-up: the kernel loaded, and the busy keys' tables built.
            engine.verify_batch(&all[..largest.min(1 << 18)]);
            for &batch in &batches {
                let jobs = &all[..batch];
                let started = Instant::now();
                let mut rounds = 0;
                while rounds == 0 || started.elapsed() < Duration::from_secs_f64(seconds) {
                    let verdicts = engine.try_verify_batch(jobs)?;
                    if verdicts.iter().any(|v| !v) {
                        return Err("a valid signature was refused".into());
                    }
                    rounds += 1;
                }
                let rate = (batch * rounds) as f64 / started.elapsed().as_secs_f64();
                println!(
                    "| {} | {signers} | {} | {} | {batch} | {rate:.0} | {rounds} | {} |",
                    jobs[0].curve.name(),
                    config.chunk,
                    config.keys.slots,
                    engine.prepared_keys(),
                );
            }
        }
    }
    let cpu = CpuEngine::default();
    for (pool, signers) in &pools {
        let jobs = pool.jobs(1 << 20);
        let started = Instant::now();
        if cpu.verify_batch(&jobs).iter().any(|v| !v) {
            return Err("the CPU engine refused a valid signature".into());
        }
        let rate = jobs.len() as f64 / started.elapsed().as_secs_f64();
        println!(
            "| {} | {signers} | {} | | {} | {rate:.0} | 1 | |",
            jobs[0].curve.name(),
            cpu.device(),
            jobs.len()
        );
    }
    Ok(())
}

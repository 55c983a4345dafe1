//! Measures the GPU engine under several configurations (threads per block, blocks per
//! multiprocessor, chunk, streams, prepared keys) on P-256 and brainpoolP256r1 batches, to
//! choose `GpuConfig`'s defaults: verifications per second, transfers and host staging
//! included. Each pool cycles through 65,536 distinct signatures: by 16 signers (whose keys
//! get tables on the device unless the configuration has no slots) or by 65,536 (one
//! signature each: the generic path whatever the configuration).
//!
//!   cargo run --release -p vss-engine --features gpu --example gpu_sweep [BATCH] [ROUNDS]
//!
//! Then the CPU engine (all threads) on the same pools, one round of at most 2^20 jobs, for
//! the ratio. Without a GPU it prints why and exits 0 (nothing was measured).

use std::time::Instant;

use vss_crypto::Curve;
use vss_engine::{
    CpuEngine, GpuConfig, GpuEngine, GpuError, KeyTableConfig, SamplePool, VerifyEngine,
};

/// Distinct signatures in each pool.
const DISTINCT: usize = 1 << 16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let batch: usize = args.next().map_or(Ok(1 << 22), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(3), |a| a.parse())?;
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
    let mut configs = vec![
        defaults,
        GpuConfig {
            keys: no_keys,
            ..defaults
        },
    ];
    for (block, min_blocks, chunk, streams) in [(128, 4, 1 << 17, 3), (256, 2, 1 << 18, 3)] {
        configs.push(GpuConfig {
            block,
            min_blocks,
            chunk,
            streams,
            ..defaults
        });
    }
    println!("| curve | signers | block | min_blocks | chunk | streams | key slots | batch | verifications/s | keys prepared |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
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
            let jobs = pool.jobs(batch);
            let curve = jobs[0].curve;
            // Warm-up: the kernel loaded, and the busy keys' tables built.
            engine.verify_batch(&jobs[..batch.min(1 << 18)]);
            let started = Instant::now();
            for _ in 0..rounds {
                let verdicts = engine.try_verify_batch(&jobs)?;
                if verdicts.iter().any(|v| !v) {
                    return Err("a valid signature was refused".into());
                }
            }
            let rate = (batch * rounds) as f64 / started.elapsed().as_secs_f64();
            println!(
                "| {} | {signers} | {} | {} | {} | {} | {} | {batch} | {rate:.0} | {} |",
                curve.name(),
                config.block,
                config.min_blocks,
                config.chunk,
                config.streams,
                config.keys.slots,
                engine.prepared_keys(),
            );
        }
    }
    let cpu = CpuEngine::default();
    for (pool, signers) in &pools {
        let jobs = pool.jobs(batch.min(1 << 20));
        let started = Instant::now();
        if cpu.verify_batch(&jobs).iter().any(|v| !v) {
            return Err("the CPU engine refused a valid signature".into());
        }
        let rate = jobs.len() as f64 / started.elapsed().as_secs_f64();
        println!(
            "| {} | {signers} | {} | | | | | {} | {rate:.0} | |",
            jobs[0].curve.name(),
            cpu.device(),
            jobs.len()
        );
    }
    Ok(())
}

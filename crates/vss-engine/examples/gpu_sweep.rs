//! Measures the GPU engine under several configurations (threads per block, blocks per
//! multiprocessor, chunk, streams) on P-256 and brainpoolP256r1 batches, to choose
//! `GpuConfig`'s defaults: verifications per second, transfers and host staging included.
//!
//!   cargo run --release -p vss-engine --features gpu --example gpu_sweep [BATCH] [ROUNDS]
//!
//! Without a GPU it prints why and exits 0 (nothing was measured).

use std::time::Instant;

use vss_crypto::Curve;
use vss_engine::{GpuConfig, GpuEngine, GpuError, SamplePool, VerifyEngine};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let batch: usize = args.next().map_or(Ok(1 << 21), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let pools = [
        SamplePool::new(Curve::P256, 1 << 16, 16)?,
        SamplePool::new(Curve::Bp256, 1 << 14, 16)?,
    ];
    let defaults = GpuConfig::default();
    let mut configs = vec![defaults];
    for (block, min_blocks, chunk, streams) in [
        (128, 8, 1 << 16, 3),
        (256, 1, 1 << 16, 3),
        (256, 2, 1 << 16, 3),
        (256, 2, 1 << 17, 2),
        (256, 2, 1 << 17, 3),
        (256, 2, 1 << 18, 2),
        (512, 1, 1 << 17, 3),
    ] {
        configs.push(GpuConfig {
            block,
            min_blocks,
            chunk,
            streams,
        });
    }
    println!("| curve | block | min_blocks | chunk | streams | batch | verifications/s |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for config in configs {
        let engine = match GpuEngine::with_config(config) {
            Ok(engine) => engine,
            Err(e @ (GpuError::NoDriver | GpuError::NoDevice | GpuError::NoCompiler)) => {
                println!("skipped: {e}");
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        for pool in &pools {
            let jobs = pool.jobs(batch);
            let curve = jobs[0].curve;
            engine.verify_batch(&jobs[..batch.min(1 << 16)]);
            let started = Instant::now();
            for _ in 0..rounds {
                let verdicts = engine.try_verify_batch(&jobs)?;
                if verdicts.iter().any(|v| !v) {
                    return Err("a valid signature was refused".into());
                }
            }
            let rate = (batch * rounds) as f64 / started.elapsed().as_secs_f64();
            println!(
                "| {} | {} | {} | {} | {} | {batch} | {rate:.0} |",
                curve.name(),
                config.block,
                config.min_blocks,
                config.chunk,
                config.streams
            );
        }
    }
    Ok(())
}

//! Measures each path of the CPU engine this CPU has on one thread beside `openssl speed`
//! in the same run: batches of 4,096 jobs cycling through 65,536 distinct valid signatures,
//! by 16 signers (warm: their keys are prepared on the prepared path) or by one signer each
//! (cold: every job a new signer), per curve. The ratio to OpenSSL's single-thread verify
//! rate is what `CpuPath::best` is chosen by.
//!
//!   cargo run --release -p vss-testbed --example cpu_paths [SECONDS]

use std::time::{Duration, Instant};

use vss_crypto::Curve;
use vss_engine::{CpuEngine, CpuPath, SamplePool, VerifyEngine};
use vss_testbed::bench::measure::openssl_speed_verify;

/// Jobs per batch.
const BATCH: usize = 4096;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: f64 = std::env::args().nth(1).map_or(Ok(2.0), |a| a.parse())?;
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_default();
    println!("CPU: {cpu}");
    println!("| curve | signers | path | verifications/s | x openssl speed |");
    println!("|---|---:|---|---:|---:|");
    for curve in [Curve::P256, Curve::Bp256, Curve::P384, Curve::Bp384] {
        let reference = openssl_speed_verify(curve, seconds.ceil() as u32);
        for signers in [16, 1 << 12] {
            let pool = SamplePool::new(curve, 1 << 12, signers)?;
            let jobs = pool.jobs(BATCH);
            for path in [CpuPath::Library, CpuPath::Prepared, CpuPath::Ifma] {
                let Some(engine) = CpuEngine::with_path(1, path) else {
                    continue;
                };
                engine.verify_batch(&jobs);
                let started = Instant::now();
                let mut done = 0;
                while started.elapsed() < Duration::from_secs_f64(seconds) {
                    if engine.verify_batch(&jobs).iter().any(|v| !v) {
                        return Err("a valid signature was refused".into());
                    }
                    done += jobs.len();
                }
                let rate = done as f64 / started.elapsed().as_secs_f64();
                let ratio = reference.map_or("-".into(), |r| format!("{:.2}", rate / r));
                println!(
                    "| {} | {signers} | {} | {rate:.0} | {ratio} |",
                    curve.name(),
                    path.name()
                );
            }
        }
        if let Some(r) = reference {
            println!("| {} | | openssl speed | {r:.0} | 1.00 |", curve.name());
        }
    }
    Ok(())
}

//! Sustained operations per second over N threads. The harness is
//! [`vss_testbed::bench::throughput`].

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_crypto::Curve;
use vss_engine::EngineKind;
use vss_testbed::bench::throughput::{self, Op, ThroughputOptions};

use super::HsmArgs;
use crate::output::Format;

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

impl ThroughputArgs {
    /// Runs the benchmark and prints the rate.
    pub fn run(self) -> Result<ExitCode> {
        let report = throughput::run(&ThroughputOptions {
            op: self.op,
            curve: self.curve,
            engine: self.engine,
            batch: self.batch,
            threads: self.threads,
            seconds: self.seconds,
            hsm: self.hsm.options(),
        })?;
        crate::output::finish(self.format, &report)
    }
}

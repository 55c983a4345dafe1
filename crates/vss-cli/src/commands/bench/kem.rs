//! The key-encapsulation benchmark of seed 004 (PSEC-KEM, table 3; FPGA figures of table 1):
//! encapsulation and decapsulation latency and throughput, and the check that every
//! decapsulated key equals the encapsulated one. The harness is
//! [`vss_testbed::bench::kem`].

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_crypto::kem::Scheme;
use vss_crypto::Curve;
use vss_testbed::bench::kem::{self, KemOptions};

use super::HsmArgs;
use crate::commands::kem::KemParams;
use crate::output::Format;

/// Options of `vss bench kem`.
#[derive(Args)]
pub struct KemArgs {
    /// Scheme: psec-kem, ecies-kem or ecies-1609.
    #[arg(long, default_value = "psec-kem")]
    scheme: Scheme,
    /// Curve: k283 b283 (the seed's), p256 p384 bp256 bp384 p224 p192.
    #[arg(long, default_value = "k283")]
    curve: Curve,
    /// Number of runs.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Encapsulations and decapsulations per run.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    ops: u32,
    #[command(flatten)]
    params: KemParams,
    #[command(flatten)]
    hsm: HsmArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl KemArgs {
    /// Runs the benchmark and prints its table; fails if any decapsulated key differed.
    pub fn run(self) -> Result<ExitCode> {
        let report = kem::run(&KemOptions {
            scheme: self.scheme,
            curve: self.curve,
            runs: self.runs,
            ops: self.ops,
            params: self.params.params(),
            hsm: self.hsm.options(),
        })?;
        crate::output::finish(self.format, &report)
    }
}

//! `vss bench its-verify`: 1609.2 signed-data verification with the certificate cache warm
//! and cold, as a ratio to the raw ECDSA verification rate measured in the same run.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_crypto::Curve;
use vss_testbed::bench::its_verify::{self, ItsVerifyOptions, SignerForm};

use crate::output::Format;

/// Options of `vss bench its-verify`.
#[derive(Args)]
pub struct ItsVerifyArgs {
    /// How messages name their signer.
    #[arg(long, value_enum, default_value = "digest")]
    signer: SignerForm,
    /// Curve of every key (the tickets' and the CAs').
    #[arg(long, default_value = "p256")]
    curve: Curve,
    /// Messages verified in each measurement.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    messages: u32,
    /// Distinct signers (authorization tickets), taking turns; with --traffic, neighbours.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    signers: u32,
    /// Seconds of seed 001's traffic (10 Hz CAMs, 65 s encounters, 60 s pseudonyms) to verify.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u32).range(1..=3600))]
    traffic: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl ItsVerifyArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let report = its_verify::run(&ItsVerifyOptions {
            signer: self.signer,
            curve: self.curve,
            messages: self.messages,
            signers: self.signers,
            traffic: self.traffic,
        })?;
        crate::output::finish(self.format, &report)
    }
}

//! The sign/verify benchmark of PRESERVE D3.1.1 (seed 000, section 4; Test_Sign_Verify_VB_01).
//! The harness is [`vss_testbed::bench::sign_verify`].

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_crypto::{Curve, HashAlg};
use vss_testbed::bench::sign_verify::{self, SignVerifyOptions};

use super::HsmArgs;
use crate::output::Format;

/// Options of `vss bench sign-verify`.
#[derive(Args)]
pub struct SignVerifyArgs {
    /// Curve: p224 p256 p384 bp256 bp384.
    #[arg(long, default_value = "p256")]
    curve: Curve,
    /// Hash [default: the curve's own: sha224 for p224, sha256 for p256/bp256, sha384 for p384/bp384].
    #[arg(long)]
    hash: Option<HashAlg>,
    /// Number of runs (the seed's tables have 10).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Signatures and verifications per run; message i of a run is i+1 bytes long.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    ops: u32,
    #[command(flatten)]
    hsm: HsmArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl SignVerifyArgs {
    /// Runs the benchmark and prints its table; fails if any run was not a success.
    pub fn run(self) -> Result<ExitCode> {
        let report = sign_verify::run(&SignVerifyOptions {
            curve: self.curve,
            hash: self.hash,
            runs: self.runs,
            ops: self.ops,
            hsm: self.hsm.options(),
        })?;
        crate::output::finish(self.format, &report)
    }
}

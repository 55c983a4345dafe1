//! Seed 003's table for this machine: the VIP-ticket scenario run N times (the seed's 20)
//! with the card in this process, as a process on TCP and behind pcscd, per step mean, p50
//! and p99, the card's APDUs and bytes and its peak RSS; and, measured in the same run as
//! the reference, a bare BBS proof of the same seven messages (generation and verification).
//! The harness is [`vss_testbed::bench::cred`].

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_testbed::bench::cred::{self, CredOptions};

use crate::output::Format;

/// Options of `vss bench cred`.
#[derive(Args)]
pub struct CredArgs {
    /// Runs per card (the seed's 20).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    runs: u32,
    /// The cards, comma-separated: soft (in this process), tcp (a card process), pcsc (a card
    /// process behind pcscd's vpcd reader; skipped with a note when pcscd is not running).
    #[arg(long, value_delimiter = ',', default_value = "soft,tcp,pcsc")]
    cards: Vec<String>,
    /// vpcd's port for the pcsc card (vsmartcard's default).
    #[arg(long, default_value = "127.0.0.1:35963")]
    vpcd: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl CredArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let report = cred::run(&CredOptions {
            runs: self.runs,
            cards: self.cards,
            vpcd: self.vpcd,
        })?;
        crate::output::finish(self.format, &report)
    }
}

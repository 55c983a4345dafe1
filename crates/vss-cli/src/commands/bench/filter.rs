//! `vss bench filter`: messages per second through `vss filter`'s loop, one at a time (one
//! core) and in batches on an engine, in process and over UDP on loopback, as a ratio to
//! the raw P-256 verify rate (one core) of the same run.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_testbed::bench::filter::{self, FilterOptions};

use crate::commands::filter::BulkArgs;
use crate::output::Format;

/// Options of `vss bench filter`.
#[derive(Args)]
pub struct FilterArgs {
    /// Messages through the filter.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(1..))]
    messages: u32,
    /// Distinct signers (tickets): each one's first message carries its certificate, the
    /// rest name it by digest.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    signers: u32,
    #[command(flatten)]
    bulk: BulkArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl FilterArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let report = filter::run(&FilterOptions {
            messages: self.messages,
            signers: self.signers,
            engine: self.bulk.engine_kind(),
            batch: self.bulk.batch(),
        })?;
        crate::output::finish(self.format, &report)
    }
}

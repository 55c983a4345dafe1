//! `vss bench gn`: the GeoNetworking bridge beside `vss filter` on the same messages in the
//! same run: packets per second and per CPU-second in process, then latency and loss at
//! fixed rates through the bridge's loop (both directions) and the filter's.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use vss_testbed::bench::gn::{self, GnOptions};

use crate::commands::filter::BulkArgs;
use crate::output::Format;

/// Options of `vss bench gn`.
#[derive(Args)]
pub struct GnArgs {
    /// Packets through each in-process measurement.
    #[arg(long, default_value_t = 20_000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    messages: u32,
    /// Distinct signers of the radio's packets (tickets): each one's first packet carries
    /// its certificate, the rest name it by digest.
    #[arg(long, default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    signers: u32,
    /// The rates of the paced measurements, packets per second, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    rates: Vec<u32>,
    /// How long each paced measurement sends, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 3000,
          value_parser = clap::value_parser!(u32).range(10..=600_000))]
    duration_ms: u32,
    #[command(flatten)]
    bulk: BulkArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl GnArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let report = gn::run(&GnOptions {
            messages: self.messages,
            signers: self.signers,
            rates: self.rates,
            seconds: f64::from(self.duration_ms) / 1000.0,
            batch: self.bulk.batch(),
            engine: self.bulk.engine_kind(),
        })?;
        crate::output::finish(self.format, &report)
    }
}

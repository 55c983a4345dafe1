//! `vss bench daemon`: verifications per second and per CPU-second, with p50/p99 latency,
//! of the entity in this process, of `vssd` through unary `Verify` and through
//! `VerifyStream`, from 1 to 64 concurrent clients, against `vss filter`'s loop on the same
//! kind of messages in the same run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use vss_core::config::DaemonConfig;
use vss_core::filter::BatchConfig;
use vss_engine::EngineKind;
use vss_testbed::bench::daemon::{self, DaemonOptions};

use crate::output::Format;

/// Options of `vss bench daemon`.
#[derive(Args)]
pub struct DaemonArgs {
    /// Messages verified in each measurement.
    #[arg(long, default_value_t = 20_000,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    messages: u32,
    /// Distinct signers (tickets), taking turns.
    #[arg(long, default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    signers: u32,
    /// Concurrent clients of each measurement, comma-separated (1 to 256 each).
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32,64",
          value_parser = clap::value_parser!(u32).range(1..=256))]
    clients: Vec<u32>,
    /// Messages each VerifyStream client keeps awaiting their answers.
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    window: u32,
    /// vssd's `[daemon] batch_max`, and the batch of the filter it is compared with.
    #[arg(long, default_value_t = DaemonConfig::default().batch_max as u32,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    batch: u32,
    /// vssd's `[daemon] batch_deadline` (and the filter's), in milliseconds.
    #[arg(long, value_name = "MS",
          default_value_t = DaemonConfig::default().batch_deadline.as_millis() as u32,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    deadline_ms: u32,
    /// The verification engine of vssd (`[engine] kind`), the entity and the filter.
    #[arg(long, value_enum, default_value_t = EngineKind::Cpu)]
    engine: EngineKind,
    /// The vssd binary [default: the one beside this vss, else vssd on PATH].
    #[arg(long, value_name = "PATH")]
    vssd: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl DaemonArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let report = daemon::run(&DaemonOptions {
            messages: self.messages,
            signers: self.signers,
            clients: self.clients.iter().map(|&c| c as usize).collect(),
            window: self.window as usize,
            batch: BatchConfig {
                max_batch: self.batch as usize,
                deadline: Duration::from_millis(self.deadline_ms.into()),
            },
            engine: self.engine,
            vssd: self.vssd,
        })?;
        crate::output::finish(self.format, &report)
    }
}

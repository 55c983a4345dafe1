//! `vss testbed up --dir DIR`: a playground for `vssd` and its clients. Two PKIs on
//! loopback, one station enrolled and provisioned, and `DIR/vss.toml` ready for
//! `vssd --config`; it prints where everything is, serves the PKIs (so the daemon can
//! refill its pool) until SIGTERM or SIGINT, then stops them and removes what it made.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;
use serde_json::json;
use tokio::signal::unix::{signal, SignalKind};
use vss_testbed::service::ServiceTestbed;

use crate::output::{emit, print_json, Format, Table};

/// `vss testbed …`.
#[derive(Subcommand)]
pub enum TestbedCommand {
    /// Start two PKIs and a provisioned station in DIR, write DIR/vss.toml for vssd, print
    /// where things are, and run until SIGTERM/SIGINT; then remove what was made.
    Up {
        /// An empty or new directory (its parent must exist); a non-empty one is refused.
        #[arg(long, value_name = "DIR")]
        dir: PathBuf,
        /// Tickets in the station's pool (1 to 10000, the station client's batch bound).
        #[arg(long, value_name = "COUNT", default_value_t = 10)]
        pseudonyms: usize,
        /// Output format of what was started.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
}

impl TestbedCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        let TestbedCommand::Up {
            dir,
            pseudonyms,
            format,
        } = self;
        // The handlers go in first: a signal that comes while the testbed starts still
        // ends it cleanly, once it is up.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("no runtime to wait for signals in")?;
        let (mut term, mut interrupt) = runtime
            .block_on(async {
                Ok::<_, std::io::Error>((
                    signal(SignalKind::terminate())?,
                    signal(SignalKind::interrupt())?,
                ))
            })
            .context("cannot handle SIGTERM and SIGINT")?;
        let up = ServiceTestbed::up(&dir, pseudonyms)
            .with_context(|| format!("testbed in {}", dir.display()))?;
        let pkis: serde_json::Map<String, serde_json::Value> = up
            .testbed
            .pkis
            .iter()
            .map(|p| (p.name.clone(), json!(p.url())))
            .collect();
        let started = json!({
            "dir": up.testbed.dir().display().to_string(),
            "config": up.config.display().to_string(),
            "socket": up.socket.display().to_string(),
            "station": up.station,
            "metrics": up.metrics.to_string(),
            "pseudonyms": up.pseudonyms,
            "pkis": pkis,
        });
        match format {
            Format::Json => print_json(&started)?,
            Format::Table => {
                let mut table = Table::new(&["field", "value"]);
                for (key, value) in started.as_object().into_iter().flatten() {
                    let text = value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_string);
                    table.row(vec![key.clone(), text]);
                }
                emit(&table.render())?;
            }
        }
        runtime.block_on(async {
            tokio::select! {
                _ = term.recv() => {}
                _ = interrupt.recv() => {}
            }
        });
        let dir = up.testbed.dir().to_path_buf();
        up.testbed
            .close()
            .with_context(|| format!("cannot remove the testbed in {}", dir.display()))?;
        eprintln!("vss: testbed stopped, {} cleared", dir.display());
        Ok(ExitCode::SUCCESS)
    }
}

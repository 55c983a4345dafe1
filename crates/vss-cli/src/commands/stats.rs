//! `vss stats report DIR`: the statistics files of a security entity (`stats.1` …
//! `stats.N`), summarised per function: calls, mean, median, 99th percentile and longest
//! time, how often each result occurred, and the largest resident memory seen.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Subcommand;
use serde_json::json;

use crate::output::{emit, print_json, Format, Table};

/// `vss stats …`.
#[derive(Subcommand)]
pub enum StatsCommand {
    /// Summarise the statistics files in a directory, per function.
    Report {
        /// The directory holding stats.1 … stats.N.
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

impl StatsCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        let StatsCommand::Report { dir, format } = self;
        let (summaries, skipped) = vss_core::stats::report(&dir)?;
        if summaries.is_empty() && skipped == 0 {
            bail!("{}: no statistics lines in stats.* files", dir.display());
        }
        match format {
            Format::Json => print_json(&json!({
                "functions": summaries.iter().map(|f| json!({
                    "function": f.function,
                    "calls": f.calls,
                    "mean_us": f.mean_us,
                    "p50_us": f.p50_us,
                    "p99_us": f.p99_us,
                    "max_us": f.max_us,
                    "results": f.results,
                    "max_resident_kib": f.max_resident_kib,
                })).collect::<Vec<_>>(),
                "skipped_lines": skipped,
            }))?,
            Format::Table => {
                let mut table = Table::new(&[
                    "function",
                    "calls",
                    "mean µs",
                    "p50 µs",
                    "p99 µs",
                    "max µs",
                    "results",
                    "max RSS KiB",
                ]);
                for f in &summaries {
                    let results: Vec<String> =
                        f.results.iter().map(|(r, n)| format!("{r}={n}")).collect();
                    table.row(vec![
                        f.function.clone(),
                        f.calls.to_string(),
                        format!("{:.1}", f.mean_us),
                        f.p50_us.to_string(),
                        f.p99_us.to_string(),
                        f.max_us.to_string(),
                        results.join(" "),
                        f.max_resident_kib.to_string(),
                    ]);
                }
                let mut text = table.render();
                if skipped > 0 {
                    text.push_str(&format!("{skipped} lines were not statistics lines\n"));
                }
                emit(&text)?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

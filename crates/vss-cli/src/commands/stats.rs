//! `vss stats report DIR`: the statistics files of a security entity (`stats.1` …
//! `stats.N`), summarised per function: calls, mean, median, 99th percentile and longest
//! time, how often each result occurred, and the largest resident memory seen.
//! `vss stats status --daemon SOCKET`: a running vssd's state (its Status call).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Subcommand;
use serde_json::json;
use vss_proto::proto::StatusRequest;

use crate::commands::call_daemon;
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
    /// The state of a running vssd: pool level, current pseudonym, counters.
    Status {
        /// The Unix socket vssd serves.
        #[arg(long, value_name = "SOCKET")]
        daemon: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

impl StatsCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            StatsCommand::Report { dir, format } => report(&dir, format),
            StatsCommand::Status { daemon, format } => status(&daemon, format),
        }
    }
}

/// Prints a running vssd's state.
fn status(socket: &Path, format: Format) -> Result<ExitCode> {
    let state = call_daemon(socket, |mut client| async move {
        client.status(StatusRequest {}).await
    })?;
    let pseudonym = match state.current_pseudonym.len() {
        0 => None,
        _ => Some(hex::encode_upper(&state.current_pseudonym)),
    };
    let fields = json!({
        "pool_level": state.pool_level,
        "current_pseudonym": pseudonym,
        "signed": state.signed,
        "verified_valid": state.verified_valid,
        "verified_invalid": state.verified_invalid,
        "skipped": state.skipped,
        "id_changes": state.id_changes,
        "id_changes_deferred": state.id_changes_deferred,
        "cache_hits": state.cache_hits,
        "cache_misses": state.cache_misses,
        "uptime_seconds": state.uptime_seconds,
    });
    match format {
        Format::Json => print_json(&fields)?,
        Format::Table => {
            let mut table = Table::new(&["field", "value"]);
            for (key, value) in fields.as_object().into_iter().flatten() {
                let text = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string);
                table.row(vec![key.clone(), text]);
            }
            emit(&table.render())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the summary of the statistics files in `dir`.
fn report(dir: &Path, format: Format) -> Result<ExitCode> {
    let (summaries, skipped) = vss_core::stats::report(dir)?;
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

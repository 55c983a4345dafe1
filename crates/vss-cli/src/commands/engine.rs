//! `vss engine info`: the verification engines this `vss` has and what they run on.

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use vss_engine::{CpuEngine, EngineKind, VerifyEngine};

use crate::output::{emit, print_json, Format, Table};

/// `vss engine …`.
#[derive(Subcommand)]
pub enum EngineCommand {
    /// List the verification engines and the devices they see.
    Info {
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

impl EngineCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        let EngineCommand::Info { format } = self;
        let cpu = CpuEngine::default();
        let engines = [
            json!({"engine": cpu.name(), "available": true, "device": cpu.device()}),
            gpu_info(),
        ];
        match format {
            Format::Json => print_json(&json!({ "engines": engines }))?,
            Format::Table => {
                let mut table = Table::new(&["engine", "available", "device"]);
                for e in &engines {
                    table.row(vec![
                        e["engine"].as_str().unwrap_or_default().to_string(),
                        e["available"].to_string(),
                        e["device"].as_str().unwrap_or_default().to_string(),
                    ]);
                }
                emit(&table.render())?;
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// The GPU engine's line: its device, or why there is none.
fn gpu_info() -> serde_json::Value {
    match EngineKind::Gpu.engine() {
        Ok(gpu) => json!({"engine": gpu.name(), "available": true, "device": gpu.device()}),
        Err(e) => json!({"engine": "gpu", "available": false, "device": format!("none: {e}")}),
    }
}

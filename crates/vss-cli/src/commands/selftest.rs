//! `vss selftest`: seed 000's validation suite (PRESERVE D3.1 §2.2) against two PKIs this
//! command serves on loopback, one line per case with PASS or FAIL and what was checked.
//! The seed's "with the FPGA" cases run on a PKCS#11 token; for SoftHSMv2 its token
//! directory is private to the run (`SOFTHSM2_CONF` is pointed there), so nothing is left
//! behind.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::json;
use vss_core::selftest::{run, CaseReport, SelftestOptions, CASES, DEFAULT_PKCS11_MODULE};
use vss_core::testbed::{softhsm_config, HsmKind};

use crate::output::{emit, print_json, progress, Format, Table};

/// Which HSM the software cases use.
#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
pub enum HsmChoice {
    /// The `vss` soft key store.
    #[default]
    Soft,
    /// A PKCS#11 token (`--module`).
    Pkcs11,
}

/// `vss selftest`.
#[derive(clap::Args)]
pub struct SelftestArgs {
    /// The HSM of the software cases (the PKCS#11 cases always use `--module`).
    #[arg(long, value_enum, default_value_t)]
    hsm: HsmChoice,
    /// The PKCS#11 module.
    #[arg(long, value_name = "PATH", default_value = DEFAULT_PKCS11_MODULE)]
    module: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl SelftestArgs {
    /// Runs the suite; success only when every case passed.
    pub fn run(self) -> Result<ExitCode> {
        let tokens = tempfile::Builder::new()
            .prefix("vss-selftest-tokens-")
            .tempdir()
            .context("cannot create a token directory")?;
        // Set before any thread of this process starts.
        std::env::set_var("SOFTHSM2_CONF", softhsm_config(tokens.path())?);
        let options = SelftestOptions {
            hsm: match self.hsm {
                HsmChoice::Soft => HsmKind::Soft,
                HsmChoice::Pkcs11 => HsmKind::Pkcs11(self.module.clone()),
            },
            pkcs11_module: self.module,
        };
        let bar = progress(CASES.len() as u64, "selftest");
        let reports = run(&options, &mut |r| {
            bar.set_message(r.name);
            bar.inc(1);
        })?;
        bar.finish_and_clear();
        let failed = reports.iter().filter(|r| !r.passed).count();
        match self.format {
            Format::Json => print_json(&json!({
                "hsm": options.hsm.name(),
                "cases": reports.iter().map(|r| json!({
                    "case": r.name,
                    "result": verdict(r),
                    "seconds": r.elapsed.as_secs_f64(),
                    "detail": r.detail,
                })).collect::<Vec<_>>(),
                "passed": reports.len() - failed,
                "failed": failed,
            }))?,
            Format::Table => {
                let mut table = Table::new(&["case", "result", "seconds", "checked"]);
                for r in &reports {
                    table.row(vec![
                        r.name.to_string(),
                        verdict(r).to_string(),
                        format!("{:.3}", r.elapsed.as_secs_f64()),
                        r.detail.clone(),
                    ]);
                }
                emit(&table.render())?;
            }
        }
        if failed == 0 {
            Ok(ExitCode::SUCCESS)
        } else {
            eprintln!("vss: {failed} of {} cases failed", reports.len());
            Ok(ExitCode::FAILURE)
        }
    }
}

fn verdict(report: &CaseReport) -> &'static str {
    if report.passed {
        "PASS"
    } else {
        "FAIL"
    }
}

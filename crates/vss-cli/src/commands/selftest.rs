//! `vss selftest`: seed 000's validation suite (`vss_testbed::selftest`) against two PKIs
//! served on loopback, one line per case; exit 0 only when every case passed.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use vss_hsm::Backend;
use vss_testbed::selftest::{suite, SelftestOptions, CASES};
use vss_testbed::HsmOptions;

use crate::output::{finish, progress, Format};

/// `vss selftest`.
#[derive(clap::Args)]
pub struct SelftestArgs {
    /// The HSM of the software cases (the PKCS#11 cases always use `--module`).
    #[arg(long, value_enum, default_value_t)]
    hsm: Backend,
    /// The PKCS#11 module.
    #[arg(long, value_name = "PATH", default_value = vss_hsm::DEFAULT_PKCS11_MODULE)]
    module: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl SelftestArgs {
    /// Runs the suite; success only when every case passed.
    pub fn run(self) -> Result<ExitCode> {
        let options = SelftestOptions {
            hsm: HsmOptions {
                backend: self.hsm,
                module: self.module.clone(),
            },
            pkcs11_module: self.module,
        };
        let bar = progress(CASES.len() as u64, "selftest");
        let report = suite(&options, &mut |r| {
            bar.set_message(r.name);
            bar.inc(1);
        })?;
        bar.finish_and_clear();
        finish(self.format, &report)
    }
}

//! `vss demo`: the whole system in a temporary directory, with no setup (the scenario is
//! `vss_testbed::demo`'s): two PKIs on loopback, two stations exchanging signed CAMs over
//! UDP with pseudonym changes; it prints what happened and removes what it made.

use std::process::ExitCode;

use anyhow::Result;
use vss_testbed::demo::DemoOptions;

use crate::output::{finish, Format};

/// `vss demo`.
#[derive(clap::Args)]
pub struct DemoArgs {
    /// Messages each station sends.
    #[arg(long, default_value_t = 3000)]
    messages: u64,
    /// Messages per second each station sends.
    #[arg(long, default_value_t = 1000)]
    rate: u64,
    /// Signatures per pseudonym before it changes.
    #[arg(long, default_value_t = 500)]
    max_uses: u64,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl DemoArgs {
    /// Runs the demo; success when every message received verified and (almost) none was
    /// lost on the way.
    pub fn run(self) -> Result<ExitCode> {
        let options = DemoOptions {
            messages: self.messages,
            rate: self.rate,
            max_uses: self.max_uses,
        };
        finish(self.format, &options.run()?)
    }
}

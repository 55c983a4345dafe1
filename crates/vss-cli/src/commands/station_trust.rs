//! `vss station trust-update` and `vss station trust-show`: a station's trust store from the
//! C-ITS trust lists (the ECTL under a pinned TLM, each root's CTL and CRL from its
//! distribution centre), kept in a directory that `vss its verify --trust-store` and the
//! entity's `[trust] store` read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::{json, Value};
use vss_its::{ItsTime, StaleCrlPolicy};
use vss_pki::station::{EctlSource, StationTrust};

use crate::files::read_cert;
use crate::output::{emit, print_json, Format, Table};

/// Options of `vss station trust-update`.
#[derive(Args)]
pub struct TrustUpdateArgs {
    /// The trust store's directory (created if absent).
    #[arg(long, value_name = "DIR")]
    trust_store: PathBuf,
    /// The TLM's certificate, pinned: the ECTL must be signed with its key.
    #[arg(long, value_name = "FILE")]
    tlm_cert: PathBuf,
    /// The ECTL: a distribution centre's URL for it (http://…/getectl/<TLM HashedId8>) or a
    /// file.
    #[arg(long, value_name = "URL|FILE")]
    ectl: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

impl TrustUpdateArgs {
    /// Fetches and verifies every list, then replaces the store; on any failure the store
    /// stays as it was and the exit code is 1.
    pub fn run(self) -> Result<ExitCode> {
        let tlm = read_cert(&self.tlm_cert)?;
        let now = ItsTime::now();
        let spinner =
            crate::output::spinner(&format!("fetching the trust lists from {}", self.ectl));
        let fetched = StationTrust::fetch(&tlm, &EctlSource::parse(&self.ectl), now);
        spinner.finish_and_clear();
        let trust = fetched.context("trust update failed: the trust store is unchanged")?;
        trust.save(&self.trust_store)?;
        show(&trust, &self.trust_store, now, self.format)?;
        Ok(ExitCode::SUCCESS)
    }
}

/// Options of `vss station trust-show`.
#[derive(Args)]
pub struct TrustShowArgs {
    /// The trust store's directory.
    #[arg(long, value_name = "DIR")]
    trust_store: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

impl TrustShowArgs {
    /// Loads and verifies the store and prints it.
    pub fn run(self) -> Result<ExitCode> {
        let now = ItsTime::now();
        let trust = StationTrust::load(&self.trust_store, now)?;
        show(&trust, &self.trust_store, now, self.format)?;
        Ok(ExitCode::SUCCESS)
    }
}

/// Loads the store in `dir` for validation at `now` with `policy`; warns on stderr of each
/// root whose CRL is past its next update.
pub fn load_trust_store(
    dir: &Path,
    now: ItsTime,
    policy: StaleCrlPolicy,
) -> Result<vss_its::TrustAnchors> {
    let store = StationTrust::load(dir, now)?.trust_store(policy)?;
    for root in store.stale_crls(now) {
        eprintln!("warning: the CRL of root CA {root} is past its next update ({policy:?})");
    }
    Ok(store)
}

/// The store as JSON: the TLM, the ECTL, and each root with its lists.
fn describe(trust: &StationTrust, dir: &Path, now: ItsTime) -> Value {
    let roots: Vec<Value> = trust
        .roots
        .iter()
        .map(|root| {
            let authorities: Vec<String> = root
                .authorities()
                .map(|c| c.hashed_id8().to_string())
                .collect();
            let revoked: Vec<String> = root
                .crl
                .list
                .revoked
                .iter()
                .map(ToString::to_string)
                .collect();
            json!({
                "name": root.cert.name(),
                "hashed_id8": root.cert.hashed_id8().to_string(),
                "dc_url": root.dc_url,
                "ctl_sequence": root.ctl.list.sequence,
                "ctl_delta": root.delta_ctl.is_some(),
                "ctl_next_update": root.ctl_in_force.next_update.to_string(),
                "crl_this_update": root.crl.list.this_update.to_string(),
                "crl_next_update": root.crl.list.next_update.to_string(),
                "crl_stale": root.crl.list.next_update <= now,
                "authorities": authorities,
                "revoked": revoked,
            })
        })
        .collect();
    json!({
        "trust_store": dir.display().to_string(),
        "tlm": trust.tlm.hashed_id8().to_string(),
        "ectl_sequence": trust.ectl.list.sequence,
        "ectl_next_update": trust.ectl.list.next_update.to_string(),
        "roots": roots,
    })
}

fn show(trust: &StationTrust, dir: &Path, now: ItsTime, format: Format) -> Result<()> {
    let described = describe(trust, dir, now);
    match format {
        Format::Json => print_json(&described),
        Format::Table => {
            let mut table = Table::new(&[
                "root",
                "hashed_id8",
                "dc_url",
                "authorities",
                "revoked",
                "crl_next_update",
            ]);
            for root in described["roots"].as_array().into_iter().flatten() {
                let text = |key: &str| root[key].as_str().unwrap_or("-").to_string();
                let count = |key: &str| root[key].as_array().map_or(0, Vec::len).to_string();
                table.row(vec![
                    text("name"),
                    text("hashed_id8"),
                    text("dc_url"),
                    count("authorities"),
                    count("revoked"),
                    text("crl_next_update"),
                ]);
            }
            emit(&table.render())
        }
    }
}

//! `vss its verify`: the validator on one file, with trust anchors and extra chain
//! certificates from files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use serde_json::json;
use vss_its::{HashedId8, ItsTime, Psid, Report, StaleCrlPolicy, TrustAnchors, Validator, Verdict};
use vss_proto::client::{self, Answer};
use vss_proto::proto::VerifyRequest;

use super::{parse_time, Kind};
use crate::commands::call_daemon;
use crate::commands::station_trust::load_trust_store;
use crate::files::{read, read_cert};
use crate::output::{emit, print_json, Format, Table};

/// Options of `vss its verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// The COER file: signed Ieee1609Dot2Data, or a certificate with `--as certificate`.
    file: PathBuf,
    /// What the file holds.
    #[arg(long = "as", value_enum, default_value = "data")]
    kind: Kind,
    /// A trust anchor: a certificate file, or a directory of them (*.oer *.cert *.coer).
    /// Repeatable.
    #[arg(long, value_name = "FILE|DIR")]
    trust: Vec<PathBuf>,
    /// A station trust store (`vss station trust-update`): its root CAs are anchors, a chain
    /// through an EA or AA must be on its root's CTL and not on its CRL, and the CTLs' EAs
    /// and AAs are offered as issuers.
    #[arg(long, value_name = "DIR")]
    trust_store: Option<PathBuf>,
    /// With --trust-store: what a chain through a root whose CRL is past its next update
    /// gets.
    #[arg(
        long,
        value_name = "refuse|warn",
        default_value = "refuse",
        requires = "trust_store"
    )]
    stale_crl: StaleCrlPolicy,
    /// An intermediate certificate (an issuer the message does not carry). Repeatable.
    #[arg(long, value_name = "FILE")]
    chain: Vec<PathBuf>,
    /// The time to validate at, RFC 3339 (e.g. 2026-11-22T10:00:00Z) [default: now].
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    at: Option<ItsTime>,
    /// Have the vssd serving this Unix socket verify the signed data, with its trust
    /// anchors, cache, policy and clock.
    #[arg(long, value_name = "SOCKET", conflicts_with_all = ["kind", "trust", "trust_store", "chain", "at"])]
    daemon: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

impl VerifyArgs {
    /// Validates and prints the verdict; exit 0 only for `Valid`.
    pub fn run(self) -> Result<ExitCode> {
        if let Some(socket) = &self.daemon {
            return self.run_on_daemon(socket);
        }
        let now = self.at.unwrap_or_else(ItsTime::now);
        let mut trust = match &self.trust_store {
            Some(dir) => load_trust_store(dir, now, self.stale_crl)?,
            None => TrustAnchors::new(),
        };
        for path in &self.trust {
            if path.is_dir() {
                trust.add_dir(path)?;
            } else {
                trust.add_file(path)?;
            }
        }
        let chain = self
            .chain
            .iter()
            .map(|p| read_cert(p))
            .collect::<Result<Vec<_>>>()?;
        let mut validator = Validator::new(trust, vss_its::DEFAULT_CAPACITY);
        let bytes = read(&self.file)?;
        let (report, key) = match self.kind {
            Kind::Data => (validator.verify_data(&bytes, &chain, now), "signer"),
            Kind::Certificate => {
                let report = match vss_its::Cert::from_bytes(&bytes) {
                    Ok(cert) => validator.verify_certificate(&cert, &chain, now),
                    Err(e) => Report::of_error(&e),
                };
                (report, "certificate")
            }
        };
        self.finish(&report, key, now)
    }

    /// Has the vssd at `socket` verify the file and prints its verdict as
    /// [`VerifyArgs::run`] does; a message the daemon's policy skipped is an error.
    fn run_on_daemon(&self, socket: &Path) -> Result<ExitCode> {
        let request = VerifyRequest {
            data: read(&self.file)?,
            tag: 0,
        };
        let answer = call_daemon(
            socket,
            |mut client| async move { client.verify(request).await },
        )?;
        let verdict = match client::answer(answer.report) {
            Some(Answer::Verdict(verdict)) => verdict,
            Some(Answer::Skipped) => bail!(
                "vssd's verification policy skipped {} (on-demand id {})",
                self.file.display(),
                answer.on_demand_id
            ),
            None => bail!("vssd answered the unknown report code {}", answer.report),
        };
        let signer = match answer.signer.len() {
            0 => None,
            _ => Some(HashedId8(
                <[u8; 8]>::try_from(answer.signer.as_slice()).map_err(|_| {
                    anyhow!(
                        "vssd named a signer of {} bytes, not 8",
                        answer.signer.len()
                    )
                })?,
            )),
        };
        let report = Report {
            verdict,
            reason: answer.reason,
            signer,
            psid: (verdict == Verdict::Valid).then_some(Psid::from(answer.psid)),
        };
        self.finish(&report, "signer", ItsTime::now())
    }

    /// Prints the report; exit 0 only for `Valid`.
    fn finish(&self, report: &Report, key: &str, now: ItsTime) -> Result<ExitCode> {
        self.print(report, key, now)
            .with_context(|| self.file.display().to_string())?;
        Ok(if report.is_valid() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }

    fn print(&self, report: &Report, key: &str, now: ItsTime) -> Result<()> {
        let signer = report.signer.map(|id| id.to_string());
        match self.format {
            Format::Json => {
                let mut out = json!({
                    "verdict": report.verdict.name(),
                    "sn_verify_report": report.verdict.sn_verify_report(),
                    key: signer,
                });
                if self.kind == Kind::Data {
                    out["psid"] = json!(report.psid);
                }
                if !report.is_valid() {
                    out["reason"] = json!(report.reason);
                }
                print_json(&out)
            }
            Format::Table => {
                let mut table = Table::new(&["field", "value"]);
                table.row(vec!["verdict".into(), report.verdict.name().into()]);
                table.row(vec![
                    "SN-VERIFY report".into(),
                    report.verdict.sn_verify_report().into(),
                ]);
                table.row(vec![key.into(), signer.unwrap_or_else(|| "-".into())]);
                if let Some(psid) = report.psid {
                    table.row(vec!["psid".into(), psid.to_string()]);
                }
                table.row(vec!["at".into(), now.to_string()]);
                if !report.is_valid() {
                    table.row(vec!["reason".into(), report.reason.clone()]);
                }
                emit(&table.render())
            }
        }
    }
}

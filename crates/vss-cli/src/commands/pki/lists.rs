//! `vss pki ctl …`, `vss pki crl …` and `vss pki dc …`: the lists of the C-ITS trust model
//! (TS 102 941 v2.1.1) — the TLM's ECTL and a root CA's CTL, a root CA's CRL — and the
//! distribution centre that serves them.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use serde_json::json;
use vss_its::ItsTime;
use vss_net::raise_open_file_limit;
use vss_pki::authority::{
    CtlRequest, EctlRequest, EctlRoot, PkiDir, TrustListOrder, MAX_LIST_VALIDITY,
};
use vss_pki::http::{serve as serve_http, DistributionCentre, Services};
use vss_pki::lists::{RevocationList, TrustList};

use super::args::{DatabaseArgs, LimitArgs, PkiArgs};
use super::show::show;
use crate::files::{read, read_cert};
use crate::output::Format;

/// How long a list stays current, e.g. `7d` (at most a year).
#[derive(clap::Args)]
pub struct ValidityArgs {
    /// How long until the next list is due (its nextUpdate), e.g. 7d or 12h.
    #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = parse_validity)]
    validity: Duration,
}

fn parse_validity(text: &str) -> Result<Duration, String> {
    let validity = humantime::parse_duration(text).map_err(|e| format!("'{text}': {e}"))?;
    if validity.is_zero() || validity > MAX_LIST_VALIDITY {
        return Err(format!(
            "'{text}': more than 0 and at most {} days",
            MAX_LIST_VALIDITY.as_secs() / 86_400
        ));
    }
    Ok(validity)
}

/// The list `show` prints, and how.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// The list (Ieee1609Dot2Data, COER).
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

/// `vss pki ctl …`: certificate trust lists.
#[derive(Subcommand)]
pub enum CtlCommand {
    /// Issue the root CA's CTL of the PKI in DIR (its EA and AA unless revoked, served at
    /// --url, and the distribution centre of its lists), kept as DIR/lists/ctl.oer, one
    /// sequence number after the last; with --delta, a delta CTL on the last full one (what
    /// changed since), kept as DIR/lists/deltactl.oer under the full CTL's sequence number.
    /// Where DIR holds a TLM, the ECTL of the --root certificates, kept as
    /// DIR/lists/ectl.oer.
    Issue(CtlIssueArgs),
    /// Print a signed ECTL or CTL: who signs it, its sequence and next update, and what it
    /// lists (root CAs with their names, HashedId8 and distribution centres; the TLM; EAs and
    /// AAs with their access points). The signature is not checked here.
    Show(ShowArgs),
}

/// Options of `vss pki ctl issue`.
#[derive(clap::Args)]
pub struct CtlIssueArgs {
    #[command(flatten)]
    pki: PkiArgs,
    /// Where the PKI's EA and AA are served (`vss pki serve --url`); a root's CTL only.
    #[arg(long, value_name = "URL", conflicts_with = "roots")]
    url: Option<String>,
    /// A root certificate the ECTL lists (COER), with the distribution centre of its
    /// lists after `=` when it is not --dc-url (`FILE=http://…`). Repeatable; the TLM's
    /// ECTL only.
    #[arg(long = "root", value_name = "FILE[=URL]")]
    roots: Vec<String>,
    /// The distribution centre that serves the lists (a root's CTL and CRL; the ECTL).
    #[arg(long, value_name = "URL")]
    dc_url: String,
    /// Where the ECTL is published, the TLM entry's access point (the EU's is its CPOC)
    /// [default: --dc-url]; the TLM's ECTL only.
    #[arg(long, value_name = "URL", conflicts_with = "url")]
    access_point: Option<String>,
    /// Issue a delta CTL on the root's last full CTL instead of a full one.
    #[arg(long, conflicts_with = "roots")]
    delta: bool,
    /// Also write the list here.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    #[command(flatten)]
    database: DatabaseArgs,
    #[command(flatten)]
    validity: ValidityArgs,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value = "json")]
    format: Format,
}

/// `vss pki crl …`: certificate revocation lists.
#[derive(Subcommand)]
pub enum CrlCommand {
    /// Revoke a CA certificate the root of the PKI in DIR issued (its EA or AA); it is on
    /// the next CRL (`vss pki crl issue`).
    Revoke {
        #[command(flatten)]
        pki: PkiArgs,
        /// The certificate (COER).
        #[arg(long, value_name = "FILE")]
        cert: PathBuf,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Issue the root CA's CRL of every certificate it revoked, kept as DIR/lists/crl.oer.
    Issue {
        #[command(flatten)]
        pki: PkiArgs,
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        validity: ValidityArgs,
        /// Output format of the summary.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// Print a signed CRL: who signs it, this and next update, and the revoked certificates.
    /// The signature is not checked here.
    Show(ShowArgs),
}

/// `vss pki dc …`: a distribution centre.
#[derive(Subcommand)]
pub enum DcCommand {
    /// Serve the lists of each --dir over HTTP until stopped: a PKI's root CTL and CRL at
    /// /getctl/<root HashedId8> and /getcrl/<root HashedId8>, its delta CTL on the current
    /// full CTL at /getdeltactl/<root HashedId8>, a TLM's ECTL at
    /// /getectl/<TLM HashedId8>. Each request reads the last list issued from the
    /// directory's store, so lists issued on any host sharing it are served at once.
    Serve {
        /// A PKI or TLM directory. Repeatable; at least one.
        #[arg(long = "dir", value_name = "DIR", required = true)]
        dirs: Vec<PathBuf>,
        /// The store of the one --dir, when not DIR/pki.sqlite.
        #[command(flatten)]
        database: DatabaseArgs,
        /// Address to listen on.
        #[arg(long)]
        listen: SocketAddr,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

impl DcCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        let DcCommand::Serve {
            dirs,
            database,
            listen,
            limits,
        } = self;
        let open_files = raise_open_file_limit().context("cannot raise the open-file limit")?;
        let config = limits.limits().fitted(open_files, 1);
        let dc = DistributionCentre::open(&dirs, database.given())?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the HTTP runtime")?;
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind(listen)
                .await
                .with_context(|| format!("cannot listen on {listen}"))?;
            let address = listener.local_addr()?;
            for (kind, id) in dc.served() {
                tracing::info!(list = ?kind, cert = %id, "serving");
            }
            tracing::info!(url = %format!("http://{address}"), "serving the distribution centre");
            let services = Services {
                dc: Some(Arc::new(dc)),
                ..Services::default()
            };
            crate::commands::signal::until_signal(async {
                serve_http(listener, services, config)
                    .await
                    .context("the HTTP server stopped")
            })
            .await
        })?;
        Ok(ExitCode::SUCCESS)
    }
}

impl CtlCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            CtlCommand::Issue(args) => args.run(),
            CtlCommand::Show(ShowArgs { file, format }) => {
                let list =
                    TrustList::parse(&read(&file)?).with_context(|| file.display().to_string())?;
                show(format, &list.summary(ItsTime::now()))
            }
        }
    }
}

impl CtlIssueArgs {
    /// Issues the ECTL or CTL, writes it to --out if given, and prints it.
    fn run(self) -> Result<ExitCode> {
        let roots = self
            .roots
            .iter()
            .map(|arg| ectl_root(arg, &self.dc_url))
            .collect::<Result<Vec<_>>>()?;
        let (dir, hsm) = self.pki.open_lists()?;
        let store = self.database.open(&dir)?;
        let order = self.order(&dir, roots, ItsTime::now())?;
        let (bytes, kept) = dir.issue_trust_list(&hsm, store.as_ref(), &order)?;
        if let Some(out) = &self.out {
            vss_hsm::write_atomic(out, &bytes)
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
        let mut summary = TrustList::parse(&bytes)?.summary(ItsTime::now());
        summary["file"] = json!(kept.display().to_string());
        show(self.format, &summary)
    }

    /// The list the options ask of `dir`: the ECTL of `roots` where it holds a TLM, else
    /// the root's CTL, full or a delta.
    fn order(&self, dir: &PkiDir, roots: Vec<EctlRoot>, now: ItsTime) -> Result<TrustListOrder> {
        let validity = self.validity.validity;
        if dir.holds_tlm() {
            if self.url.is_some() || self.delta {
                bail!(
                    "{} holds a TLM: its ECTL lists --root certificates and is issued \
                     full (no --url, no --delta)",
                    dir.path().display()
                );
            }
            return Ok(TrustListOrder::Ectl(EctlRequest {
                roots,
                access_point: self
                    .access_point
                    .clone()
                    .unwrap_or_else(|| self.dc_url.clone()),
                now,
                validity,
            }));
        }
        let Some(url) = &self.url else {
            bail!("a root's CTL needs --url, where its EA and AA are served");
        };
        if !roots.is_empty() || self.access_point.is_some() {
            bail!(
                "{} holds a PKI: --root and --access-point are for a TLM's ECTL",
                dir.path().display()
            );
        }
        let request = CtlRequest {
            ea_url: url.clone(),
            aa_url: url.clone(),
            dc_url: self.dc_url.clone(),
            now,
            validity,
        };
        Ok(if self.delta {
            TrustListOrder::DeltaCtl(request)
        } else {
            TrustListOrder::Ctl(request)
        })
    }
}

impl CrlCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            CrlCommand::Revoke {
                pki,
                cert,
                database,
            } => {
                let revoked = read_cert(&cert)?;
                let (dir, _) = pki.open()?;
                let id = revoked.hashed_id8();
                if dir.revoke(database.open(&dir)?.as_ref(), &revoked)? {
                    eprintln!("revoked {id}: on the next CRL (vss pki crl issue)");
                } else {
                    eprintln!("{id} was revoked already");
                }
                Ok(ExitCode::SUCCESS)
            }
            CrlCommand::Issue {
                pki,
                database,
                validity,
                format,
            } => {
                let (dir, hsm) = pki.open()?;
                let store = database.open(&dir)?;
                let bytes =
                    dir.issue_crl(&hsm, store.as_ref(), ItsTime::now(), validity.validity)?;
                let mut summary = RevocationList::parse(&bytes)?.summary(ItsTime::now());
                summary["file"] = json!(dir.crl_path().display().to_string());
                show(format, &summary)
            }
            CrlCommand::Show(ShowArgs { file, format }) => {
                let list = RevocationList::parse(&read(&file)?)
                    .with_context(|| file.display().to_string())?;
                show(format, &list.summary(ItsTime::now()))
            }
        }
    }
}

/// A `--root FILE[=URL]` argument: the certificate, and its distribution centre (`dc_url`
/// when none is given).
fn ectl_root(arg: &str, dc_url: &str) -> Result<EctlRoot> {
    let (file, url) = ["=http://", "=https://"]
        .iter()
        .find_map(|scheme| {
            arg.rfind(scheme)
                .map(|at| (&arg[..at], arg[at + 1..].to_string()))
        })
        .unwrap_or((arg, dc_url.to_string()));
    Ok(EctlRoot {
        cert: read_cert(Path::new(file))?,
        dc_url: url,
    })
}

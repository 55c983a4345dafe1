//! `vss pki ctl …` and `vss pki crl …`: the lists of the C-ITS trust model (TS 102 941
//! v2.1.1): the TLM's ECTL and a root CA's CTL, and a root CA's CRL.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use serde_json::{json, Value};
use vss_its::{Cert, HashedId8, ItsTime};
use vss_net::raise_open_file_limit;
use vss_pki::authority::{CtlRequest, EctlRequest, EctlRoot, MAX_LIST_VALIDITY};
use vss_pki::http::{serve as serve_http, DistributionCentre, Services};
use vss_pki::lists::{ListDeletion, ListEntry, ListIssuer, RevocationList, TrustList};

use super::pki::{DatabaseArgs, PkiArgs, ServeLimits};
use crate::files::{read, read_cert};
use crate::output::{emit, print_json, Format, Table};

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
    Issue {
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
    },
    /// Print a signed ECTL or CTL: who signs it, its sequence and next update, and what it
    /// lists (root CAs with their names, HashedId8 and distribution centres; the TLM; EAs and
    /// AAs with their access points). The signature is not checked here.
    Show(ShowArgs),
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
        limits: ServeLimits,
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
        let config = limits.config().fitted(open_files);
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
            serve_http(listener, services, config)
                .await
                .context("the HTTP server stopped")
        })?;
        Ok(ExitCode::SUCCESS)
    }
}

impl CtlCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            CtlCommand::Issue {
                pki,
                url,
                roots,
                dc_url,
                access_point,
                delta,
                out,
                database,
                validity,
                format,
            } => {
                let roots = roots
                    .iter()
                    .map(|arg| ectl_root(arg, &dc_url))
                    .collect::<Result<Vec<_>>>()?;
                let (dir, hsm) = pki.open_lists()?;
                let store = database.open(&dir)?;
                let now = ItsTime::now();
                let (bytes, kept) = if dir.holds_tlm() {
                    if url.is_some() || delta {
                        bail!(
                            "{} holds a TLM: its ECTL lists --root certificates and is issued \
                             full (no --url, no --delta)",
                            dir.path().display()
                        );
                    }
                    let request = EctlRequest {
                        roots,
                        access_point: access_point.unwrap_or_else(|| dc_url.clone()),
                        now,
                        validity: validity.validity,
                    };
                    let bytes = dir.issue_ectl(&hsm, store.as_ref(), &request)?;
                    (bytes, dir.ectl_path())
                } else {
                    let Some(url) = url else {
                        bail!("a root's CTL needs --url, where its EA and AA are served");
                    };
                    if !roots.is_empty() || access_point.is_some() {
                        bail!(
                            "{} holds a PKI: --root and --access-point are for a TLM's ECTL",
                            dir.path().display()
                        );
                    }
                    let request = CtlRequest {
                        ea_url: url.clone(),
                        aa_url: url,
                        dc_url,
                        now,
                        validity: validity.validity,
                    };
                    if delta {
                        (
                            dir.issue_delta_ctl(&hsm, store.as_ref(), &request)?,
                            dir.delta_ctl_path(),
                        )
                    } else {
                        (
                            dir.issue_ctl(&hsm, store.as_ref(), &request)?,
                            dir.ctl_path(),
                        )
                    }
                };
                if let Some(out) = &out {
                    vss_hsm::write_atomic(out, &bytes)
                        .with_context(|| format!("cannot write {}", out.display()))?;
                }
                let mut summary = trust_list_json(&TrustList::parse(&bytes)?);
                summary["file"] = json!(kept.display().to_string());
                show(format, &summary)
            }
            CtlCommand::Show(ShowArgs { file, format }) => {
                let list =
                    TrustList::parse(&read(&file)?).with_context(|| file.display().to_string())?;
                show(format, &trust_list_json(&list))
            }
        }
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
                let mut summary = revocation_list_json(&RevocationList::parse(&bytes)?);
                summary["file"] = json!(dir.crl_path().display().to_string());
                show(format, &summary)
            }
            CrlCommand::Show(ShowArgs { file, format }) => {
                let list = RevocationList::parse(&read(&file)?)
                    .with_context(|| file.display().to_string())?;
                show(format, &revocation_list_json(&list))
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
        cert: read_cert(std::path::Path::new(file))?,
        dc_url: url,
    })
}

fn id(id: Option<HashedId8>) -> Value {
    id.map_or(Value::Null, |id| json!(id.to_string()))
}

fn time(time: Option<ItsTime>) -> Value {
    time.map_or(Value::Null, |t| json!(t.to_string()))
}

/// Whether a list due for renewal at `next_update` is past it now.
fn stale(next_update: ItsTime) -> bool {
    ItsTime::now() > next_update
}

fn cert_json(cert: &Cert) -> Value {
    json!({"name": cert.name(), "hashed_id8": cert.hashed_id8().to_string()})
}

fn trust_list_json(list: &TrustList) -> Value {
    let with = |cert: &Cert, more: Value| {
        let mut value = cert_json(cert);
        if let (Some(object), Value::Object(more)) = (value.as_object_mut(), more) {
            object.extend(more);
        }
        value
    };
    let mut roots = Vec::new();
    let mut tlm = Vec::new();
    let mut eas = Vec::new();
    let mut aas = Vec::new();
    let mut dcs = Vec::new();
    for entry in &list.additions {
        match entry {
            ListEntry::RootCa { cert, successor_to } => roots.push(with(
                cert,
                json!({
                    "dc_urls": list.dc_urls(&cert.hashed_id8()),
                    "successor_to": successor_to.as_ref().map(|c| c.hashed_id8().to_string()),
                }),
            )),
            ListEntry::Tlm {
                cert,
                successor_to,
                access_point,
            } => tlm.push(with(
                cert,
                json!({
                    "access_point": access_point,
                    "successor_to": successor_to.as_ref().map(|c| c.hashed_id8().to_string()),
                }),
            )),
            ListEntry::Ea {
                cert,
                aa_access_point,
                its_access_point,
            } => eas.push(with(
                cert,
                json!({"aa_access_point": aa_access_point, "its_access_point": its_access_point}),
            )),
            ListEntry::Aa { cert, access_point } => {
                aas.push(with(cert, json!({"access_point": access_point})))
            }
            ListEntry::Dc { url, certs } => dcs.push(json!({
                "url": url,
                "certs": certs.iter().map(ToString::to_string).collect::<Vec<_>>(),
            })),
        }
    }
    let deletions: Vec<Value> = list
        .deletions
        .iter()
        .map(|d| match d {
            ListDeletion::Cert(id) => json!({"cert": id.to_string()}),
            ListDeletion::Dc(url) => json!({"dc": url}),
        })
        .collect();
    json!({
        "list": match list.issuer {
            ListIssuer::Tlm => "ectl",
            ListIssuer::RootCa => "ctl",
        },
        "signer": id(list.signer),
        "generated": time(list.generated),
        "next_update": list.next_update.to_string(),
        "stale": stale(list.next_update),
        "full": list.full,
        "sequence": list.sequence,
        "roots": roots,
        "tlm": tlm,
        "eas": eas,
        "aas": aas,
        "dcs": dcs,
        "deletions": deletions,
    })
}

fn revocation_list_json(list: &RevocationList) -> Value {
    json!({
        "list": "crl",
        "signer": id(list.signer),
        "generated": time(list.generated),
        "this_update": list.this_update.to_string(),
        "next_update": list.next_update.to_string(),
        "stale": stale(list.next_update),
        "revoked": list.revoked.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

/// Prints the JSON, or a table: one row per scalar field, one per listed item.
fn show(format: Format, value: &Value) -> Result<ExitCode> {
    match format {
        Format::Json => print_json(value)?,
        Format::Table => {
            let mut table = Table::new(&["field", "value"]);
            for (key, field) in value.as_object().into_iter().flatten() {
                match field {
                    Value::Array(items) => {
                        for item in items {
                            table.row(vec![key.clone(), compact(item)]);
                        }
                    }
                    other => table.row(vec![key.clone(), compact(other)]),
                }
            }
            emit(&table.render())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn compact(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(fields) => fields
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| format!("{k}={}", compact(v)))
            .collect::<Vec<_>>()
            .join(" "),
        Value::Array(items) => items.iter().map(compact).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

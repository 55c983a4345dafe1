//! `vss pki ctl …` and `vss pki crl …`: the lists of the C-ITS trust model (TS 102 941
//! v2.1.1): the TLM's ECTL and a root CA's CTL, and a root CA's CRL.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;
use serde_json::{json, Value};
use vss_its::{Cert, HashedId8, ItsTime};
use vss_pki::lists::{ListDeletion, ListEntry, ListIssuer, RevocationList, TrustList};

use super::its::read;
use crate::output::{emit, print_json, Format, Table};

/// `vss pki ctl …`: certificate trust lists.
#[derive(Subcommand)]
pub enum CtlCommand {
    /// Print a signed ECTL or CTL: who signs it, its sequence and next update, and what it
    /// lists (root CAs with their names, HashedId8 and distribution centres; the TLM; EAs and
    /// AAs with their access points). The signature is not checked here.
    Show {
        /// The list (Ieee1609Dot2Data, COER).
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
}

/// `vss pki crl …`: certificate revocation lists.
#[derive(Subcommand)]
pub enum CrlCommand {
    /// Print a signed CRL: who signs it, this and next update, and the revoked certificates.
    /// The signature is not checked here.
    Show {
        /// The list (Ieee1609Dot2Data, COER).
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
}

impl CtlCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        let CtlCommand::Show { file, format } = self;
        let list = TrustList::parse(&read(&file)?).with_context(|| file.display().to_string())?;
        show(format, &trust_list_json(&list))
    }
}

impl CrlCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        let CrlCommand::Show { file, format } = self;
        let list =
            RevocationList::parse(&read(&file)?).with_context(|| file.display().to_string())?;
        show(format, &revocation_list_json(&list))
    }
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

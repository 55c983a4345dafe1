//! A list as JSON, as `vss pki ctl show` and `vss pki crl show` print it: who signs it,
//! when, its sequence, and what it lists by name and HashedId8.

use serde_json::{json, Value};
use vss_its::{Cert, HashedId8, ItsTime};

use super::{ListDeletion, ListEntry, ListIssuer, RevocationList, TrustList};

fn id(id: Option<HashedId8>) -> Value {
    id.map_or(Value::Null, |id| json!(id.to_string()))
}

fn time(time: Option<ItsTime>) -> Value {
    time.map_or(Value::Null, |t| json!(t.to_string()))
}

fn cert_json(cert: &Cert) -> Value {
    json!({"name": cert.name(), "hashed_id8": cert.hashed_id8().to_string()})
}

/// A certificate's name and HashedId8 with the fields of `more`.
fn with(cert: &Cert, more: Value) -> Value {
    let mut value = cert_json(cert);
    if let (Some(object), Value::Object(more)) = (value.as_object_mut(), more) {
        object.extend(more);
    }
    value
}

fn successor(cert: Option<&Cert>) -> Option<String> {
    cert.map(|c| c.hashed_id8().to_string())
}

/// What a trust list adds, by kind of entry: roots, TLM, EAs, AAs, distribution centres.
#[derive(Default)]
struct Additions {
    roots: Vec<Value>,
    tlm: Vec<Value>,
    eas: Vec<Value>,
    aas: Vec<Value>,
    dcs: Vec<Value>,
}

impl Additions {
    fn of(list: &TrustList) -> Additions {
        let mut added = Additions::default();
        for entry in &list.additions {
            match entry {
                ListEntry::RootCa { cert, successor_to } => added.roots.push(with(
                    cert,
                    json!({
                        "dc_urls": list.dc_urls(&cert.hashed_id8()),
                        "successor_to": successor(successor_to.as_ref()),
                    }),
                )),
                ListEntry::Tlm {
                    cert,
                    successor_to,
                    access_point,
                } => added.tlm.push(with(
                    cert,
                    json!({
                        "access_point": access_point,
                        "successor_to": successor(successor_to.as_ref()),
                    }),
                )),
                ListEntry::Ea {
                    cert,
                    aa_access_point,
                    its_access_point,
                } => added.eas.push(with(
                    cert,
                    json!({"aa_access_point": aa_access_point, "its_access_point": its_access_point}),
                )),
                ListEntry::Aa { cert, access_point } => added
                    .aas
                    .push(with(cert, json!({"access_point": access_point}))),
                ListEntry::Dc { url, certs } => added.dcs.push(json!({
                    "url": url,
                    "certs": certs.iter().map(ToString::to_string).collect::<Vec<_>>(),
                })),
            }
        }
        added
    }
}

impl TrustList {
    /// The list as JSON: `list` (`ectl` or `ctl`), `signer`, `generated`, `next_update`,
    /// `stale` (whether `now` is past its next update), `full`, `sequence`, and what it lists:
    /// `roots`, `tlm`, `eas`, `aas`, `dcs`, `deletions`.
    pub fn summary(&self, now: ItsTime) -> Value {
        let added = Additions::of(self);
        let deletions: Vec<Value> = self
            .deletions
            .iter()
            .map(|d| match d {
                ListDeletion::Cert(id) => json!({"cert": id.to_string()}),
                ListDeletion::Dc(url) => json!({"dc": url}),
            })
            .collect();
        json!({
            "list": match self.issuer {
                ListIssuer::Tlm => "ectl",
                ListIssuer::RootCa => "ctl",
            },
            "signer": id(self.signer),
            "generated": time(self.generated),
            "next_update": self.next_update.to_string(),
            "stale": now > self.next_update,
            "full": self.full,
            "sequence": self.sequence,
            "roots": added.roots,
            "tlm": added.tlm,
            "eas": added.eas,
            "aas": added.aas,
            "dcs": added.dcs,
            "deletions": deletions,
        })
    }
}

impl RevocationList {
    /// The list as JSON: `list` (`crl`), `signer`, `generated`, `this_update`,
    /// `next_update`, `stale` (whether `now` is past its next update) and `revoked`.
    pub fn summary(&self, now: ItsTime) -> Value {
        json!({
            "list": "crl",
            "signer": id(self.signer),
            "generated": time(self.generated),
            "this_update": self.this_update.to_string(),
            "next_update": self.next_update.to_string(),
            "stale": now > self.next_update,
            "revoked": self.revoked.iter().map(ToString::to_string).collect::<Vec<_>>(),
        })
    }
}

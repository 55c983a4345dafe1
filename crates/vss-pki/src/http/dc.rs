//! A distribution centre (TS 102 941 v2.1.1, §6.3): the lists of root CAs and of a TLM over
//! HTTP GET at the standard's paths, `/getctl/<HashedId8>` and `/getcrl/<HashedId8>` for a
//! root (its CTL and CRL) and `/getectl/<HashedId8>` for a TLM (its ECTL); a root's delta CTL
//! at `/getdeltactl/<HashedId8>`, while it is a delta on the root's current full CTL. Each
//! request reads the last list of its kind from the store of the PKI or TLM
//! ([`PkiStore::last_list`]), so a list issued again, from any host on that store, is served
//! at once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use vss_its::HashedId8;

use crate::authority::PkiDir;
use crate::lists::ListKind;
use crate::messages::MAX_MESSAGE_LEN;
use crate::store::{PkiStore, Role, StoreLocation};
use crate::{Error, Result};

/// The paths a distribution centre serves, each followed by `/<HashedId8>` in hex.
pub const GET_CTL: &str = "/getctl";
/// A root's delta CTL.
pub const GET_DELTA_CTL: &str = "/getdeltactl";
/// A root's CRL.
pub const GET_CRL: &str = "/getcrl";
/// A TLM's ECTL.
pub const GET_ECTL: &str = "/getectl";

/// The largest list a station fetches or reads back (a signed list with its certificates:
/// the message bound and 4 KiB of envelope).
pub const MAX_LIST_FILE: u64 = MAX_MESSAGE_LEN as u64 + 4096;

impl ListKind {
    /// The path it is served at, before `/<HashedId8>`.
    pub fn path(self) -> &'static str {
        match self {
            ListKind::Ctl => GET_CTL,
            ListKind::DeltaCtl => GET_DELTA_CTL,
            ListKind::Crl => GET_CRL,
            ListKind::Ectl => GET_ECTL,
        }
    }
}

/// Where the distribution centre at `dc` (a base URL, with or without a trailing `/`)
/// serves the list of `kind` for the certificate `id`.
pub fn list_url(dc: &str, kind: ListKind, id: &HashedId8) -> String {
    format!("{}{}/{id}", dc.trim_end_matches('/'), kind.path())
}

/// The lists of the PKI and TLM directories it was given, by certificate, each read from
/// the store it is issued into.
#[derive(Clone, Default)]
pub struct DistributionCentre {
    stores: HashMap<(ListKind, HashedId8), Arc<dyn PkiStore>>,
}

/// Why a list is not served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotServed {
    /// This centre serves no such list (404).
    Unknown,
    /// It serves it, but none has been issued yet (404).
    NotIssued,
    /// Its store could not be read (503).
    Unavailable,
}

impl DistributionCentre {
    /// Serves the lists of each directory, a PKI's root CTL and CRL or a TLM's ECTL, from
    /// the directory's own store (`DIR/pki.sqlite`).
    pub fn new(dirs: &[PathBuf]) -> Result<DistributionCentre> {
        DistributionCentre::open(dirs, None)
    }

    /// As [`DistributionCentre::new`], with `database` the store of the one directory given,
    /// as its authorities and list issuers use.
    pub fn open(dirs: &[PathBuf], database: Option<&StoreLocation>) -> Result<DistributionCentre> {
        if database.is_some() && dirs.len() != 1 {
            return Err(Error::InvalidRequest(
                "a database is the store of one PKI or TLM: give one directory with it".into(),
            ));
        }
        let mut stores = HashMap::new();
        for path in dirs {
            let dir = PkiDir::new(path);
            let kinds: Vec<(ListKind, HashedId8)> = if dir.holds_tlm() {
                vec![(ListKind::Ectl, dir.tlm_cert()?.hashed_id8())]
            } else {
                dir.check()?;
                let root = dir.cert(Role::Root)?.hashed_id8();
                vec![
                    (ListKind::Ctl, root),
                    (ListKind::DeltaCtl, root),
                    (ListKind::Crl, root),
                ]
            };
            let store: Arc<dyn PkiStore> = Arc::from(dir.open_store(database)?);
            for key in kinds {
                stores.insert(key, store.clone());
            }
        }
        Ok(DistributionCentre { stores })
    }

    /// The current list of `kind` for the certificate named `id` (16 hex digits). A delta
    /// CTL is current while no full CTL has been issued after the one it is a delta on.
    pub fn list(&self, kind: ListKind, id: &str) -> std::result::Result<Vec<u8>, NotServed> {
        let id: HashedId8 = id.parse().map_err(|_| NotServed::Unknown)?;
        let store = self.stores.get(&(kind, id)).ok_or(NotServed::Unknown)?;
        let last = |kind| {
            store.last_list(kind).map_err(|e| {
                tracing::warn!(list = ?kind, cert = %id, error = %e, "a list's store failed");
                NotServed::Unavailable
            })
        };
        let list = last(kind)?.ok_or(NotServed::NotIssued)?;
        if kind == ListKind::DeltaCtl {
            let full = last(ListKind::Ctl)?;
            if full.is_none_or(|full| full.sequence != list.sequence) {
                return Err(NotServed::NotIssued);
            }
        }
        Ok(list.bytes)
    }

    /// What it serves: kind and certificate.
    pub fn served(&self) -> impl Iterator<Item = (ListKind, HashedId8)> + '_ {
        self.stores.keys().copied()
    }
}

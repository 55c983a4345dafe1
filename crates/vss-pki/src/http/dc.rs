//! A distribution centre (TS 102 941 v2.1.1, §6.3): the lists of root CAs and of a TLM over
//! HTTP GET at the standard's paths, `/getctl/<HashedId8>` and `/getcrl/<HashedId8>` for a
//! root (its CTL and CRL) and `/getectl/<HashedId8>` for a TLM (its ECTL). Each request reads
//! the list's current file, so a list issued again is served at once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use vss_its::HashedId8;

use crate::authority::PkiDir;
use crate::lists::ListKind;
use crate::messages::MAX_MESSAGE_LEN;
use crate::store::Role;
use crate::Result;

/// The paths a distribution centre serves, each followed by `/<HashedId8>` in hex.
pub const GET_CTL: &str = "/getctl";
/// A root's CRL.
pub const GET_CRL: &str = "/getcrl";
/// A TLM's ECTL.
pub const GET_ECTL: &str = "/getectl";

/// The largest list a distribution centre serves (a signed list with its certificates:
/// the message bound and 4 KiB of envelope).
pub const MAX_LIST_FILE: u64 = MAX_MESSAGE_LEN as u64 + 4096;

impl ListKind {
    /// The path it is served at, before `/<HashedId8>`.
    pub fn path(self) -> &'static str {
        match self {
            ListKind::Ctl => GET_CTL,
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

/// The lists of the PKI and TLM directories it was given, by certificate.
#[derive(Debug, Clone, Default)]
pub struct DistributionCentre {
    files: HashMap<(ListKind, HashedId8), PathBuf>,
}

/// Why a list is not served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotServed {
    /// This centre serves no such list (404).
    Unknown,
    /// It serves it, but none has been issued yet (404).
    NotIssued,
}

impl DistributionCentre {
    /// Serves the lists of each directory: a PKI's root CTL and CRL, a TLM's ECTL.
    pub fn new(dirs: &[PathBuf]) -> Result<DistributionCentre> {
        let mut files = HashMap::new();
        for path in dirs {
            let dir = PkiDir::new(path);
            if dir.holds_tlm() {
                let tlm = dir.tlm_cert()?.hashed_id8();
                files.insert((ListKind::Ectl, tlm), dir.ectl_path());
            } else {
                dir.check()?;
                let root = dir.cert(Role::Root)?.hashed_id8();
                files.insert((ListKind::Ctl, root), dir.ctl_path());
                files.insert((ListKind::Crl, root), dir.crl_path());
            }
        }
        Ok(DistributionCentre { files })
    }

    /// The current list of `kind` for the certificate named `id` (16 hex digits).
    pub fn list(&self, kind: ListKind, id: &str) -> std::result::Result<Vec<u8>, NotServed> {
        let id: HashedId8 = id.parse().map_err(|_| NotServed::Unknown)?;
        let path = self.files.get(&(kind, id)).ok_or(NotServed::Unknown)?;
        read(path).ok_or(NotServed::NotIssued)
    }

    /// What it serves: kind, certificate and file.
    pub fn served(&self) -> impl Iterator<Item = (ListKind, HashedId8, &Path)> {
        self.files
            .iter()
            .map(|((kind, id), path)| (*kind, *id, path.as_path()))
    }
}

fn read(path: &Path) -> Option<Vec<u8>> {
    vss_hsm::read_bounded(path, MAX_LIST_FILE).ok()
}

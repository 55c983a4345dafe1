//! Which trust list a directory issues: its TLM's ECTL, or its root's CTL, full or a delta.

use std::path::PathBuf;

use vss_hsm::Hsm;

use super::{CtlRequest, EctlRequest, PkiDir};
use crate::store::PkiStore;
use crate::Result;

/// A trust list to issue: a TLM's ECTL, or a root's CTL, full or a delta on its last full one.
#[derive(Debug, Clone)]
pub enum TrustListOrder {
    /// The TLM's ECTL ([`PkiDir::issue_ectl`]).
    Ectl(EctlRequest),
    /// The root's full CTL ([`PkiDir::issue_ctl`]).
    Ctl(CtlRequest),
    /// A delta CTL on the root's last full one ([`PkiDir::issue_delta_ctl`]).
    DeltaCtl(CtlRequest),
}

impl PkiDir {
    /// Issues the trust list `order` asks for and keeps it: the list, and the file it is
    /// kept in ([`PkiDir::ectl_path`], [`PkiDir::ctl_path`] or [`PkiDir::delta_ctl_path`]).
    pub fn issue_trust_list(
        &self,
        hsm: &dyn Hsm,
        store: &dyn PkiStore,
        order: &TrustListOrder,
    ) -> Result<(Vec<u8>, PathBuf)> {
        Ok(match order {
            TrustListOrder::Ectl(request) => {
                (self.issue_ectl(hsm, store, request)?, self.ectl_path())
            }
            TrustListOrder::Ctl(request) => (self.issue_ctl(hsm, store, request)?, self.ctl_path()),
            TrustListOrder::DeltaCtl(request) => (
                self.issue_delta_ctl(hsm, store, request)?,
                self.delta_ctl_path(),
            ),
        })
    }
}

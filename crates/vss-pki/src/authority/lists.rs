//! A root CA's lists (TS 102 941 v2.1.1, §6.3.3–6.3.4): its CTL of its EA and AA (with their
//! access points and the distribution centre that serves its lists), full or a delta on the
//! last full one, and its CRL of revoked CA certificates, signed with the root's key. The
//! revocations and each list's sequence are kept in the PKI's store (SQLite, or PostgreSQL
//! shared by several processes), the current lists also as `ctl.oer`, `deltactl.oer` and
//! `crl.oer` in `lists/` of the PKI directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rasn::types::{Ia5String, Integer};
use rasn_its::ieee1609dot2::base_types::Time32;
use vss_hsm::Hsm;
use vss_its::{Cert, HashedId8, HsmKey, ItsTime, Psid, SignedDataRequest};

use super::labels;
use super::PkiDir;
use crate::lists::{ListDeletion, ListKind, TrustList};
use crate::messages::{
    encode, AaEntry, CtlCommand, CtlDelete, CtlEntry, CtlFormat, DcEntry, EaEntry,
    EtsiTs102941Data, EtsiTs102941DataContent, ToBeSignedCrl,
};
use crate::store::{IssuedList, PkiStore, Role};
use crate::{Error, Result};

/// A root CTL's content: its EA and AA with their access points, and the distribution
/// centre of the root's lists, read and checked before any list is issued.
struct CtlContent {
    ea: Cert,
    aa: Cert,
    root: Cert,
    ea_url: Ia5String,
    aa_url: Ia5String,
    dc_url: Ia5String,
}

impl CtlContent {
    fn new(dir: &PkiDir, request: &CtlRequest) -> Result<CtlContent> {
        dir.check()?;
        window(request.now, request.validity)?;
        Ok(CtlContent {
            ea_url: list_url(&request.ea_url)?,
            aa_url: list_url(&request.aa_url)?,
            dc_url: list_url(&request.dc_url)?,
            ea: dir.cert(Role::Ea)?,
            aa: dir.cert(Role::Aa)?,
            root: dir.cert(Role::Root)?,
        })
    }

    /// The entries of a full CTL while `revoked` are revoked: the EA and the AA unless
    /// revoked (a station then finds them unlisted as well as revoked), and the
    /// distribution centre.
    fn entries(&self, revoked: &[HashedId8]) -> Vec<CtlEntry> {
        let listed = |cert: &Cert| !revoked.contains(&cert.hashed_id8());
        let mut entries = Vec::new();
        if listed(&self.ea) {
            entries.push(CtlEntry::Ea(Box::new(EaEntry {
                ea_certificate: self.ea.asn().clone(),
                aa_access_point: self.ea_url.clone(),
                its_access_point: Some(self.ea_url.clone()),
            })));
        }
        if listed(&self.aa) {
            entries.push(CtlEntry::Aa(Box::new(AaEntry {
                aa_certificate: self.aa.asn().clone(),
                access_point: self.aa_url.clone(),
            })));
        }
        entries.push(CtlEntry::Dc(DcEntry {
            url: self.dc_url.clone(),
            cert: vec![self.root.hashed_id8().to_asn()],
        }));
        entries
    }
}

/// The longest a list may stay current (its next update at most this far ahead): a year.
pub const MAX_LIST_VALIDITY: Duration = Duration::from_secs(365 * 24 * 3600);

/// What a root CA's CTL says besides its EA's and AA's certificates.
#[derive(Debug, Clone)]
pub struct CtlRequest {
    /// Where stations and AAs reach the EA.
    pub ea_url: String,
    /// Where stations reach the AA.
    pub aa_url: String,
    /// The distribution centre that serves the root's CTL and CRL.
    pub dc_url: String,
    /// When it is issued.
    pub now: ItsTime,
    /// How long until the next one is due (at most [`MAX_LIST_VALIDITY`]).
    pub validity: Duration,
}

fn invalid(detail: String) -> Error {
    Error::InvalidRequest(detail)
}

/// A URL as a list carries it (IA5), checked to be an http(s) base URL.
pub(super) fn list_url(text: &str) -> Result<Ia5String> {
    crate::url::check_base_url(text)?;
    Ia5String::from_iso646_bytes(text.as_bytes())
        .map_err(|_| invalid(format!("'{text}' is not an IA5 string")))
}

/// `now` and `now + validity` as Time32, the validity bounded.
pub(super) fn window(now: ItsTime, validity: Duration) -> Result<(Time32, Time32)> {
    if validity.is_zero() || validity > MAX_LIST_VALIDITY {
        return Err(invalid(format!(
            "a list's validity is more than 0 and at most {} days",
            MAX_LIST_VALIDITY.as_secs() / 86_400
        )));
    }
    let time = |t: ItsTime| t.to_time32().map_err(|e| invalid(format!("{t}: {e}")));
    let micros = u64::try_from(validity.as_micros()).unwrap_or(u64::MAX);
    Ok((time(now)?, time(now.plus_micros(micros))?))
}

/// Where a list falls in the sequence of its kind: its number (modulo 256) and its issue
/// time (whole seconds, later than the last one's).
#[derive(Debug, Clone, Copy)]
pub(super) struct ListSlot {
    pub sequence: u8,
    pub now: ItsTime,
}

/// The slot after `last`, at `now` or, when the last list was issued at `now` or after it
/// (another process, a clock set back), one second after the last.
fn next_slot(last: Option<&IssuedList>, now: ItsTime) -> Result<(i64, i64)> {
    let seconds = i64::from(
        now.to_time32()
            .map_err(|e| invalid(format!("{now}: {e}")))?
            .0,
    );
    Ok(match last {
        Some(last) => (last.sequence + 1, seconds.max(last.issued_at + 1)),
        None => (1, seconds),
    })
}

impl PkiDir {
    /// The directory of the root CA's lists.
    pub fn lists(&self) -> PathBuf {
        self.path().join("lists")
    }

    /// The root CA's current CTL.
    pub fn ctl_path(&self) -> PathBuf {
        self.lists().join("ctl.oer")
    }

    /// The root CA's current delta CTL.
    pub fn delta_ctl_path(&self) -> PathBuf {
        self.lists().join("deltactl.oer")
    }

    /// The root CA's current CRL.
    pub fn crl_path(&self) -> PathBuf {
        self.lists().join("crl.oer")
    }

    /// Issues a list of `kind` through `store`, one issuer at a time across processes:
    /// `make` signs it for its slot and the revocations as they are then. It is kept in the
    /// store, numbered one after the last of its kind or `sequence` when given (a delta's,
    /// its full list's), and at `path` in [`PkiDir::lists`] (written atomically, before the
    /// store's transaction commits, so the file follows the sequence).
    pub(super) fn issue_kept(
        &self,
        store: &dyn PkiStore,
        kind: ListKind,
        path: &Path,
        now: ItsTime,
        sequence: Option<i64>,
        make: impl Fn(ListSlot, &[HashedId8]) -> Result<Vec<u8>>,
    ) -> Result<Vec<u8>> {
        let dir = self.lists();
        std::fs::create_dir_all(&dir).map_err(|source| Error::Io { path: dir, source })?;
        let issued = store.issue_list(kind, &mut |last, revoked| {
            let (next, issued_at) = next_slot(last, now)?;
            let sequence = sequence.unwrap_or(next);
            let slot = ListSlot {
                sequence: (sequence % 256) as u8,
                now: ItsTime::from_time32(&Time32(u32::try_from(issued_at).map_err(|_| {
                    invalid(format!("a list issued at {issued_at}: beyond Time32"))
                })?)),
            };
            let bytes = make(slot, revoked)?;
            vss_hsm::write_atomic(path, &bytes)?;
            Ok(IssuedList {
                sequence,
                issued_at,
                bytes,
            })
        })?;
        Ok(issued.bytes)
    }

    /// Signs `content` with the root's key (PSID `psid`, signer by digest) at `now`.
    fn sign_list(
        &self,
        hsm: &dyn Hsm,
        psid: Psid,
        content: EtsiTs102941DataContent,
        now: ItsTime,
    ) -> Result<Vec<u8>> {
        let payload = encode("list", &EtsiTs102941Data::new(content))?;
        let mut request = SignedDataRequest::new(psid, &payload);
        request.generation_time = Some(now);
        let root = self.cert(Role::Root)?;
        let signer = HsmKey::new(hsm, labels::ROOT)?;
        let data = vss_its::sign_data(&request, Some(&root), &signer)?;
        Ok(vss_its::encode_data(&data)?)
    }

    /// Issues a full CTL of this PKI's EA and AA (each unless revoked in `store`) and the
    /// distribution centre of the root's lists, one sequence number after the last in
    /// `store`, and keeps it as [`PkiDir::ctl_path`].
    pub fn issue_ctl(
        &self,
        hsm: &dyn Hsm,
        store: &dyn PkiStore,
        request: &CtlRequest,
    ) -> Result<Vec<u8>> {
        let content = CtlContent::new(self, request)?;
        self.issue_kept(
            store,
            ListKind::Ctl,
            &self.ctl_path(),
            request.now,
            None,
            |slot, revoked| {
                let commands = content
                    .entries(revoked)
                    .into_iter()
                    .map(CtlCommand::Add)
                    .collect();
                self.sign_ctl(hsm, request, slot, true, commands)
            },
        )
    }

    /// Issues a delta CTL on the last full CTL in `store`: what a full CTL issued now
    /// ([`PkiDir::issue_ctl`]) would add or no longer hold (an EA or AA revoked since, a
    /// new access point or distribution centre), under the full list's sequence number. It
    /// is kept as [`PkiDir::delta_ctl_path`]; a distribution centre serves it until the next
    /// full CTL.
    pub fn issue_delta_ctl(
        &self,
        hsm: &dyn Hsm,
        store: &dyn PkiStore,
        request: &CtlRequest,
    ) -> Result<Vec<u8>> {
        let content = CtlContent::new(self, request)?;
        let full = store.last_list(ListKind::Ctl)?.ok_or_else(|| {
            invalid("no full CTL has been issued: a delta CTL follows one".into())
        })?;
        let full_list = TrustList::parse(&full.bytes)?;
        self.issue_kept(
            store,
            ListKind::DeltaCtl,
            &self.delta_ctl_path(),
            request.now,
            Some(full.sequence),
            |slot, revoked| {
                let entries = content.entries(revoked);
                let typed = entries
                    .iter()
                    .map(crate::lists::entry)
                    .collect::<Result<Vec<_>>>()?;
                let (added, deleted) = full_list.changes_to(&typed);
                let mut commands: Vec<CtlCommand> = added
                    .into_iter()
                    .map(|i| CtlCommand::Add(entries[i].clone()))
                    .collect();
                for deletion in deleted {
                    commands.push(CtlCommand::Delete(match deletion {
                        ListDeletion::Cert(id) => CtlDelete::Cert(id.to_asn()),
                        ListDeletion::Dc(url) => CtlDelete::Dc(list_url(&url)?),
                    }));
                }
                let slot = ListSlot {
                    sequence: full_list.sequence,
                    ..slot
                };
                self.sign_ctl(hsm, request, slot, false, commands)
            },
        )
    }

    /// Signs a root CTL of `commands`, full or a delta, for `slot`.
    fn sign_ctl(
        &self,
        hsm: &dyn Hsm,
        request: &CtlRequest,
        slot: ListSlot,
        full: bool,
        commands: Vec<CtlCommand>,
    ) -> Result<Vec<u8>> {
        let (_, next_update) = window(slot.now, request.validity)?;
        let ctl = CtlFormat {
            version: Integer::from(1),
            next_update,
            is_full_ctl: full,
            ctl_sequence: slot.sequence,
            ctl_commands: commands,
        };
        let content = EtsiTs102941DataContent::CertificateTrustListRca(Box::new(ctl));
        self.sign_list(hsm, Psid::CTL, content, slot.now)
    }

    /// Revokes `cert`, which this root must have issued (its EA or AA), in `store`; whether
    /// it was not revoked before. It is on the next CRL ([`PkiDir::issue_crl`]).
    pub fn revoke(&self, store: &dyn PkiStore, cert: &Cert) -> Result<bool> {
        self.check()?;
        let root = self.cert(Role::Root)?;
        let id = cert.hashed_id8();
        if cert.issuer() != vss_its::Issuer::Digest(cert.issuer().hash(), root.hashed_id8()) {
            return Err(invalid(format!(
                "{id} is not issued by this PKI's root {}",
                root.hashed_id8()
            )));
        }
        Ok(store.revoke(&id)?)
    }

    /// Issues the root's CRL of every certificate revoked in `store` so far, current from
    /// `now` (or one second after the last CRL) for `validity`, and keeps it as
    /// [`PkiDir::crl_path`].
    pub fn issue_crl(
        &self,
        hsm: &dyn Hsm,
        store: &dyn PkiStore,
        now: ItsTime,
        validity: Duration,
    ) -> Result<Vec<u8>> {
        self.check()?;
        window(now, validity)?;
        self.issue_kept(
            store,
            ListKind::Crl,
            &self.crl_path(),
            now,
            None,
            |slot, revoked| {
                let (this_update, next_update) = window(slot.now, validity)?;
                let crl = ToBeSignedCrl {
                    version: Integer::from(1),
                    this_update,
                    next_update,
                    entries: revoked.iter().map(|id| id.to_asn()).collect(),
                };
                let content = EtsiTs102941DataContent::CertificateRevocationList(Box::new(crl));
                self.sign_list(hsm, Psid::CRL, content, slot.now)
            },
        )
    }
}

//! A root CA's lists (TS 102 941 v2.1.1, §6.3.3–6.3.4): its CTL of its EA and AA (with their
//! access points and the distribution centre that serves its lists) and its CRL of revoked
//! CA certificates, signed with the root's key and kept in `lists/` of the PKI directory:
//! `ctl.oer`, `crl.oer`, and `revoked` (one HashedId8 per line).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rasn::types::{Ia5String, Integer};
use rasn_its::ieee1609dot2::base_types::Time32;
use vss_hsm::Hsm;
use vss_its::{Cert, HashedId8, HsmKey, ItsTime, SignedDataRequest, PSID_CRL, PSID_CTL};

use super::labels;
use super::PkiDir;
use crate::lists::TrustList;
use crate::messages::{
    encode, AaEntry, CtlCommand, CtlEntry, CtlFormat, DcEntry, EaEntry, EtsiTs102941Data,
    EtsiTs102941DataContent, ToBeSignedCrl,
};
use crate::store::Role;
use crate::{Error, Result};

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
    crate::http::check_base_url(text)?;
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

/// A file kept in [`PkiDir::lists`]; `None` when there is none yet.
fn read_kept(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The sequence number of the list after the one kept at `path` (1 when there is none).
pub(super) fn next_sequence(path: &Path) -> Result<u8> {
    match read_kept(path)? {
        Some(bytes) => Ok(TrustList::parse(&bytes)?.sequence.wrapping_add(1)),
        None => Ok(1),
    }
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

    /// The root CA's current CRL.
    pub fn crl_path(&self) -> PathBuf {
        self.lists().join("crl.oer")
    }

    fn revoked_path(&self) -> PathBuf {
        self.lists().join("revoked")
    }

    /// Writes a list (or the revoked set) at `path` in [`PkiDir::lists`], atomically.
    pub(super) fn keep(&self, path: &std::path::Path, bytes: &[u8]) -> Result<()> {
        let dir = self.lists();
        std::fs::create_dir_all(&dir).map_err(|source| Error::Io { path: dir, source })?;
        Ok(vss_hsm::write_atomic(path, bytes)?)
    }

    /// Signs `content` with the root's key (PSID `psid`, signer by digest) at `now`.
    fn sign_list(
        &self,
        hsm: &dyn Hsm,
        psid: u64,
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

    /// Issues a full CTL of this PKI's EA and AA and the distribution centre of the root's
    /// lists, one sequence number after the last one, and keeps it as [`PkiDir::ctl_path`].
    pub fn issue_ctl(&self, hsm: &dyn Hsm, request: &CtlRequest) -> Result<Vec<u8>> {
        self.check()?;
        let (_, next_update) = window(request.now, request.validity)?;
        let sequence = next_sequence(&self.ctl_path())?;
        let ea_url = list_url(&request.ea_url)?;
        let commands = vec![
            CtlCommand::Add(CtlEntry::Ea(Box::new(EaEntry {
                ea_certificate: self.cert(Role::Ea)?.asn().clone(),
                aa_access_point: ea_url.clone(),
                its_access_point: Some(ea_url),
            }))),
            CtlCommand::Add(CtlEntry::Aa(Box::new(AaEntry {
                aa_certificate: self.cert(Role::Aa)?.asn().clone(),
                access_point: list_url(&request.aa_url)?,
            }))),
            CtlCommand::Add(CtlEntry::Dc(DcEntry {
                url: list_url(&request.dc_url)?,
                cert: vec![self.cert(Role::Root)?.hashed_id8().to_asn()],
            })),
        ];
        let ctl = CtlFormat {
            version: Integer::from(1),
            next_update,
            is_full_ctl: true,
            ctl_sequence: sequence,
            ctl_commands: commands,
        };
        let content = EtsiTs102941DataContent::CertificateTrustListRca(Box::new(ctl));
        let bytes = self.sign_list(hsm, PSID_CTL, content, request.now)?;
        self.keep(&self.ctl_path(), &bytes)?;
        Ok(bytes)
    }

    /// The CA certificates this root has revoked.
    pub fn revoked(&self) -> Result<Vec<HashedId8>> {
        let Some(bytes) = read_kept(&self.revoked_path())? else {
            return Ok(Vec::new());
        };
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(|line| {
                line.parse().map_err(|_| Error::Malformed {
                    what: "revoked list",
                    detail: format!("'{line}' is not a HashedId8"),
                })
            })
            .collect()
    }

    /// Revokes `cert`, which this root must have issued (its EA or AA); whether it was not
    /// revoked before. It is on the next CRL ([`PkiDir::issue_crl`]).
    pub fn revoke(&self, cert: &Cert) -> Result<bool> {
        self.check()?;
        let root = self.cert(Role::Root)?;
        let id = cert.hashed_id8();
        if cert.issuer() != vss_its::Issuer::Digest(cert.issuer().hash(), root.hashed_id8()) {
            return Err(invalid(format!(
                "{id} is not issued by this PKI's root {}",
                root.hashed_id8()
            )));
        }
        let mut revoked = self.revoked()?;
        if revoked.contains(&id) {
            return Ok(false);
        }
        revoked.push(id);
        let text: String = revoked.iter().map(|id| format!("{id}\n")).collect();
        self.keep(&self.revoked_path(), text.as_bytes())?;
        Ok(true)
    }

    /// Issues the root's CRL of every certificate revoked so far, current from `now` for
    /// `validity`, and keeps it as [`PkiDir::crl_path`].
    pub fn issue_crl(&self, hsm: &dyn Hsm, now: ItsTime, validity: Duration) -> Result<Vec<u8>> {
        self.check()?;
        let (this_update, next_update) = window(now, validity)?;
        let crl = ToBeSignedCrl {
            version: Integer::from(1),
            this_update,
            next_update,
            entries: self.revoked()?.iter().map(|id| id.to_asn()).collect(),
        };
        let content = EtsiTs102941DataContent::CertificateRevocationList(Box::new(crl));
        let bytes = self.sign_list(hsm, PSID_CRL, content, now)?;
        self.keep(&self.crl_path(), &bytes)?;
        Ok(bytes)
    }
}

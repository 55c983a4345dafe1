//! A Trust List Manager in a directory (TS 102 941 v2.1.1, §6.3.2): its self-signed
//! certificate `tlm.cert` and key (label `tlm`) in `keys/`, and the ECTL it signs of the root
//! CAs it trusts, each with the distribution centre of its lists, kept as `lists/ectl.oer`.

use std::path::PathBuf;
use std::time::Duration;

use rasn::types::Integer;
use vss_hsm::{GenerateKeyRequest, Hsm};
use vss_its::{
    issue_certificate, Cert, CertificateRequest, HashedId8, HsmKey, ItsTime, Profile, Psid,
    SignedDataRequest, SignerKind,
};

use super::layout::read_cert;
use super::lists::{list_url, window};
use super::{InitRequest, PkiDir};
use crate::lists::ListKind;
use crate::messages::{
    encode, CtlCommand, CtlEntry, CtlFormat, DcEntry, EtsiTs102941Data, EtsiTs102941DataContent,
    RootCaEntry, TlmEntry,
};
use crate::store::PkiStore;
use crate::{Error, Result};

/// The label of the TLM's signing key.
pub const TLM_KEY: &str = "tlm";

/// A root CA an ECTL lists, with the distribution centre that serves its CTL and CRL.
#[derive(Debug, Clone)]
pub struct EctlRoot {
    /// Its self-signed certificate.
    pub cert: Cert,
    /// The base URL of its distribution centre.
    pub dc_url: String,
}

/// What an ECTL says.
#[derive(Debug, Clone)]
pub struct EctlRequest {
    /// The root CAs, each with its distribution centre.
    pub roots: Vec<EctlRoot>,
    /// Where the ECTL is published: the TLM entry's access point (the EU's is its CPOC).
    pub access_point: String,
    /// When it is issued.
    pub now: ItsTime,
    /// How long until the next one is due (at most a year).
    pub validity: Duration,
}

impl EctlRequest {
    /// An ECTL of `roots` whose lists are all served by the distribution centre at `dc_url`,
    /// which publishes the ECTL too.
    pub fn at_one_centre(roots: &[Cert], dc_url: &str, now: ItsTime, validity: Duration) -> Self {
        EctlRequest {
            roots: roots
                .iter()
                .map(|cert| EctlRoot {
                    cert: cert.clone(),
                    dc_url: dc_url.to_string(),
                })
                .collect(),
            access_point: dc_url.to_string(),
            now,
            validity,
        }
    }
}

impl PkiDir {
    /// The TLM's certificate.
    pub fn tlm_cert_path(&self) -> PathBuf {
        self.path().join("tlm.cert")
    }

    /// The TLM's current ECTL.
    pub fn ectl_path(&self) -> PathBuf {
        self.lists().join("ectl.oer")
    }

    /// Whether the directory holds a TLM (its certificate and key store).
    pub fn holds_tlm(&self) -> bool {
        self.tlm_cert_path().is_file() && self.keys().join("hsm.json").is_file()
    }

    /// Reads the TLM's certificate.
    pub fn tlm_cert(&self) -> Result<Cert> {
        read_cert(&self.tlm_cert_path())
    }

    /// Signs the ECTL `request` describes, one sequence number after the last in `store`,
    /// and keeps it as [`PkiDir::ectl_path`]. The TLM names itself by certificate, as the
    /// EU's does.
    pub fn issue_ectl(
        &self,
        hsm: &dyn Hsm,
        store: &dyn PkiStore,
        request: &EctlRequest,
    ) -> Result<Vec<u8>> {
        if !self.holds_tlm() {
            return Err(Error::NotAPkiDir {
                dir: self.path().to_path_buf(),
                missing: "tlm.cert".into(),
            });
        }
        let roots = &request.roots;
        if roots.is_empty()
            || roots
                .iter()
                .any(|r| !matches!(r.cert.issuer(), vss_its::Issuer::SelfSigned(_)))
        {
            return Err(Error::InvalidRequest(
                "an ECTL lists one or more self-signed root certificates".into(),
            ));
        }
        let (now, validity) = (request.now, request.validity);
        window(now, validity)?;
        let tlm = self.tlm_cert()?;
        let mut commands: Vec<CtlCommand> = roots
            .iter()
            .map(|root| {
                CtlCommand::Add(CtlEntry::Rca(Box::new(RootCaEntry {
                    selfsigned_root_ca: root.cert.asn().clone(),
                    successor_to: None,
                })))
            })
            .collect();
        commands.push(CtlCommand::Add(CtlEntry::Tlm(Box::new(TlmEntry {
            self_signed_tlm_certificate: tlm.asn().clone(),
            successor_to: None,
            access_point: list_url(&request.access_point)?,
        }))));
        // One entry per distribution centre, naming the roots whose lists it serves.
        let mut centres: Vec<(&str, Vec<HashedId8>)> = Vec::new();
        for root in roots {
            let id = root.cert.hashed_id8();
            match centres.iter_mut().find(|(url, _)| *url == root.dc_url) {
                Some((_, ids)) => ids.push(id),
                None => centres.push((&root.dc_url, vec![id])),
            }
        }
        for (url, ids) in centres {
            commands.push(CtlCommand::Add(CtlEntry::Dc(DcEntry {
                url: list_url(url)?,
                cert: ids.into_iter().map(HashedId8::to_asn).collect(),
            })));
        }
        self.issue_kept(
            store,
            ListKind::Ectl,
            &self.ectl_path(),
            now,
            None,
            |slot, _| {
                let (_, next_update) = window(slot.now, validity)?;
                let ctl = CtlFormat {
                    version: Integer::from(1),
                    next_update,
                    is_full_ctl: true,
                    ctl_sequence: slot.sequence,
                    ctl_commands: commands.clone(),
                };
                let payload = encode(
                    "ECTL",
                    &EtsiTs102941Data::new(EtsiTs102941DataContent::CertificateTrustListTlm(
                        Box::new(ctl),
                    )),
                )?;
                let mut signed = SignedDataRequest::new(Psid::CTL, &payload);
                signed.generation_time = Some(slot.now);
                signed.signer = SignerKind::Certificate;
                let signer = HsmKey::new(hsm, TLM_KEY)?;
                Ok(vss_its::encode_data(&vss_its::sign_data(
                    &signed,
                    Some(&tlm),
                    &signer,
                )?)?)
            },
        )
    }
}

/// Creates a TLM in `dir`: its key in `hsm` and its self-signed certificate
/// `<name>` (TLM profile: the ECTL's PSID), lifetime and curve from `request`. Refuses a
/// directory that holds a PKI or a TLM already.
pub fn init_tlm(dir: &PkiDir, hsm: &dyn Hsm, request: &InitRequest) -> Result<Cert> {
    request.check(dir)?;
    if dir.tlm_cert_path().exists() {
        return Err(Error::InvalidRequest(format!(
            "{} holds a TLM already",
            dir.path().display()
        )));
    }
    let info = hsm.generate_key(&GenerateKeyRequest::new(TLM_KEY, request.curve))?;
    let mut tlm = CertificateRequest::new(
        Profile::Tlm,
        hsm.public_key(&info.handle)?,
        request.root_duration.clone(),
    );
    tlm.name = Some(request.name.clone());
    tlm.start = request.start;
    let cert = issue_certificate(&tlm, None, &HsmKey::new(hsm, TLM_KEY)?)?;
    vss_hsm::write_atomic(&dir.tlm_cert_path(), cert.bytes())?;
    Ok(cert)
}

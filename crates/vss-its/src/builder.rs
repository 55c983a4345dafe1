//! Certificates of the ETSI TS 103 097 profiles (clause 7.2): root CA, enrolment authority,
//! authorization authority, enrolment credential and authorization ticket.

use std::fmt;
use std::str::FromStr;

use rasn::types::{Integer, OctetString};
use vss_crypto::PublicKey;

use crate::asn::{
    BitmapSsp, CertificateBase, CertificateId, CertificateType, CrlSeries, Duration, EndEntityType,
    GeographicRegion, HashedId3 as AsnHashedId3, Hostname, IssuerIdentifier, PsidGroupPermissions,
    PsidSsp, PsidSspRange, SequenceOfPsidGroupPermissions, SequenceOfPsidSsp,
    SequenceOfPsidSspRange, ServiceSpecificPermissions, SubjectAssurance, SubjectPermissions,
    ToBeSignedCertificate, ValidityPeriod, VerificationKeyIndicator,
};
use crate::cert::explicit;
use crate::hashing::{hash_algorithm, signing_digest};
use crate::keys::{
    hash_for_curve, public_encryption_key, public_verification_key, signature_to_asn,
};
use crate::permissions::check_granted;
use crate::request_ssp::{
    ca_request_range, SSP_AA_CERT_REQUEST, SSP_EA_CERT_REQUEST, SSP_EC_CERT_REQUEST,
};
use crate::{codec, Cert, Error, ItsTime, Psid, Result, Signer, Validity};

/// The certificate profiles of TS 103 097.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Root CA: self-signed; issues EA and AA certificates.
    Root,
    /// Enrolment authority: issues enrolment credentials.
    Ea,
    /// Authorization authority: issues authorization tickets.
    Aa,
    /// Enrolment credential (the seed's long-term certificate).
    Ec,
    /// Authorization ticket (the seed's pseudonym certificate): no identity.
    At,
    /// Trust List Manager: self-signed; signs the ECTL of root CAs (TS 102 941).
    Tlm,
}

impl Profile {
    /// The name used in the CLI: `root ea aa ec at`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Root => "root",
            Profile::Ea => "ea",
            Profile::Aa => "aa",
            Profile::Ec => "ec",
            Profile::At => "at",
            Profile::Tlm => "tlm",
        }
    }

    /// Whether its certificates are self-signed (a root CA's, the TLM's).
    pub fn is_self_signed(self) -> bool {
        matches!(self, Profile::Root | Profile::Tlm)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        [
            Profile::Root,
            Profile::Ea,
            Profile::Aa,
            Profile::Ec,
            Profile::At,
            Profile::Tlm,
        ]
        .into_iter()
        .find(|p| p.name() == s)
        .ok_or_else(|| {
            Error::InvalidRequest(format!(
                "unknown profile '{s}' (root, ea, aa, ec, at or tlm)"
            ))
        })
    }
}

/// An application permission: a PSID with an optional SSP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permission {
    /// The PSID (ITS-AID).
    pub psid: Psid,
    /// Service-specific permissions.
    pub ssp: Option<Vec<u8>>,
    /// How the SSP is carried: `opaque` or `bitmapSsp`.
    pub ssp_form: SspForm,
}

/// The `ServiceSpecificPermissions` alternative an SSP is carried in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SspForm {
    /// `opaque`: bytes the application interprets.
    #[default]
    Opaque,
    /// `bitmapSsp`: bits that certificate chains constrain with `bitmapSspRange`, as the
    /// EU profile's CTL and CRL permissions are.
    Bitmap,
}

impl Permission {
    /// A PSID without SSP.
    pub fn psid(psid: Psid) -> Self {
        Permission {
            psid,
            ssp: None,
            ssp_form: SspForm::Opaque,
        }
    }

    /// A PSID with an opaque SSP (none when `ssp` is `None`).
    pub fn opaque(psid: Psid, ssp: Option<Vec<u8>>) -> Self {
        Permission {
            psid,
            ssp,
            ssp_form: SspForm::Opaque,
        }
    }

    /// A PSID with a bitmap SSP.
    pub fn bitmap(psid: Psid, ssp: &[u8]) -> Self {
        Permission {
            psid,
            ssp: Some(ssp.to_vec()),
            ssp_form: SspForm::Bitmap,
        }
    }

    fn to_asn(&self) -> PsidSsp {
        PsidSsp {
            psid: self.psid.to_asn(),
            ssp: self.ssp.as_ref().map(|s| {
                let bytes = OctetString::from_slice(s);
                match self.ssp_form {
                    SspForm::Opaque => ServiceSpecificPermissions::Opaque(bytes),
                    SspForm::Bitmap => ServiceSpecificPermissions::BitmapSsp(BitmapSsp(bytes)),
                }
            }),
        }
    }
}

/// The EU profile's SSP of a root CA for CRLs (PSID 622): version 1.
pub const SSP_ROOT_CRL: [u8; 1] = [0x01];
/// The EU profile's SSP of a root CA for CTLs (PSID 624): version 1; EA, AA and DC entries.
pub const SSP_ROOT_CTL: [u8; 2] = [0x01, 0x38];
/// The EU profile's SSP of the TLM for the ECTL (PSID 624): version 1; TLM, root CA and DC
/// entries.
pub const SSP_TLM_CTL: [u8; 2] = [0x01, 0xC8];

/// What a new certificate says.
#[derive(Debug, Clone)]
pub struct CertificateRequest {
    /// The profile.
    pub profile: Profile,
    /// The `id` name (root, EA, AA, EC); an AT has none.
    pub name: Option<String>,
    /// The start of the validity period.
    pub start: ItsTime,
    /// Its length.
    pub duration: Duration,
    /// Where the certificate is valid (absent: wherever the issuer is).
    pub region: Option<GeographicRegion>,
    /// The subject assurance level byte.
    pub assurance_level: Option<u8>,
    /// Application permissions beyond the profile's own (for an AT: all of them).
    pub app_permissions: Vec<Permission>,
    /// For an AA: the PSIDs its tickets may carry (empty: any).
    pub issue_psids: Vec<Psid>,
    /// The subject's verification key.
    pub verification_key: PublicKey,
    /// The subject's encryption key (required of EA and AA).
    pub encryption_key: Option<PublicKey>,
}

impl CertificateRequest {
    /// A request for `profile` with `key`, valid from now for `duration`.
    pub fn new(profile: Profile, key: PublicKey, duration: Duration) -> Self {
        CertificateRequest {
            profile,
            name: None,
            start: ItsTime::now(),
            duration,
            region: None,
            assurance_level: None,
            app_permissions: Vec::new(),
            issue_psids: Vec::new(),
            verification_key: key,
            encryption_key: None,
        }
    }
}

fn group(subject: SubjectPermissions, min_chain: i64, ee_type: u8) -> PsidGroupPermissions {
    PsidGroupPermissions {
        subject_permissions: subject,
        min_chain_length: Integer::from(min_chain),
        chain_length_range: Integer::from(0),
        ee_type: EndEntityType(rasn::types::FixedBitString::new([
            ee_type, 0, 0, 0, 0, 0, 0, 0,
        ])),
    }
}

/// Subject permissions naming PSIDs, any SSP.
fn explicit_psids(psids: &[Psid]) -> SubjectPermissions {
    SubjectPermissions::Explicit(SequenceOfPsidSspRange(
        psids
            .iter()
            .map(|&p| PsidSspRange {
                psid: p.to_asn(),
                ssp_range: None,
            })
            .collect(),
    ))
}

/// The profile's permissions: (appPermissions, certIssuePermissions).
fn profile_permissions(
    request: &CertificateRequest,
) -> (Vec<Permission>, Vec<PsidGroupPermissions>) {
    let both = EndEntityType::APP | EndEntityType::ENROLL;
    let (own, issue) = match request.profile {
        // Two groups: EA and AA certificates (chains of two below the root), and the
        // authorities' own permission to sign certificate requests (one below), in the EU
        // root CA's range of PSID 623 SSPs for CAs.
        Profile::Root => (
            vec![
                Permission::bitmap(Psid::CRL, &SSP_ROOT_CRL),
                Permission::bitmap(Psid::CTL, &SSP_ROOT_CTL),
            ],
            vec![
                group(SubjectPermissions::All(()), 2, both),
                group(
                    SubjectPermissions::Explicit(SequenceOfPsidSspRange(vec![ca_request_range()])),
                    1,
                    both,
                ),
            ],
        ),
        Profile::Ea => (
            vec![Permission::bitmap(Psid::CERT_REQUEST, &SSP_EA_CERT_REQUEST)],
            vec![group(SubjectPermissions::All(()), 1, both)],
        ),
        Profile::Aa => {
            let subject = if request.issue_psids.is_empty() {
                SubjectPermissions::All(())
            } else {
                explicit_psids(&request.issue_psids)
            };
            (
                vec![Permission::bitmap(Psid::CERT_REQUEST, &SSP_AA_CERT_REQUEST)],
                vec![group(subject, 1, EndEntityType::APP)],
            )
        }
        Profile::Ec => (
            vec![Permission::bitmap(Psid::CERT_REQUEST, &SSP_EC_CERT_REQUEST)],
            Vec::new(),
        ),
        Profile::At => (Vec::new(), Vec::new()),
        // The ECTL only; it issues no certificates.
        Profile::Tlm => (
            vec![Permission::bitmap(Psid::CTL, &SSP_TLM_CTL)],
            Vec::new(),
        ),
    };
    // Each PSID once (1609.2): a requested permission replaces the profile's for that PSID.
    let mut app: Vec<Permission> = own
        .into_iter()
        .filter(|p| request.app_permissions.iter().all(|r| r.psid != p.psid))
        .collect();
    for p in &request.app_permissions {
        if let Some(same) = app.iter_mut().find(|a| a.psid == p.psid) {
            *same = p.clone();
        } else {
            app.push(p.clone());
        }
    }
    (app, issue)
}

fn check_profile(request: &CertificateRequest, issuer: Option<&Cert>) -> Result<()> {
    let needs = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidRequest(format!(
                "a {} certificate {what}",
                request.profile
            )))
        }
    };
    needs(
        request.profile.is_self_signed() == issuer.is_none(),
        if request.profile.is_self_signed() {
            "is self-signed: it takes no issuer"
        } else {
            "needs an issuer certificate"
        },
    )?;
    match request.profile {
        Profile::Ea | Profile::Aa => {
            needs(request.encryption_key.is_some(), "needs an encryption key")?
        }
        Profile::Ec => needs(
            request.name.is_some(),
            "needs a name (the station's canonical id)",
        )?,
        Profile::At => {
            needs(request.name.is_none(), "is a pseudonym: it carries no name")?;
            needs(
                !request.app_permissions.is_empty(),
                "needs at least one PSID",
            )?;
        }
        Profile::Root | Profile::Tlm => {}
    }
    if request
        .app_permissions
        .iter()
        .any(|p| p.ssp.as_ref().is_some_and(|s| s.len() > 31))
    {
        return Err(Error::InvalidRequest(
            "an SSP is longer than 31 bytes".into(),
        ));
    }
    Ok(())
}

/// Builds and signs a certificate. `issuer` is the issuing CA's certificate (`None` for a
/// root), and `signer` holds its private key (the subject's own key for a root). A start
/// after the last `Time32`, or a validity period that ends after the end of `Time32`, is an
/// [`Error::Time`].
pub fn issue_certificate(
    request: &CertificateRequest,
    issuer: Option<&Cert>,
    signer: &dyn Signer,
) -> Result<Cert> {
    check_profile(request, issuer)?;
    let hash = hash_for_curve(signer.curve())?;
    let (app, issue) = profile_permissions(request);
    let id = match &request.name {
        Some(name) if name.len() <= 255 => CertificateId::Name(Hostname(name.clone())),
        Some(_) => return Err(Error::InvalidRequest("a name longer than 255 bytes".into())),
        None => CertificateId::None(()),
    };
    let validity_period = ValidityPeriod {
        start: request.start.to_time32()?,
        duration: request.duration.clone(),
    };
    Validity::checked(&validity_period)?;
    let tbs = ToBeSignedCertificate::builder()
        .id(id)
        .craca_id(AsnHashedId3(rasn::types::FixedOctetString::new([0; 3])))
        .crl_series(CrlSeries(0))
        .validity_period(validity_period)
        .maybe_region(request.region.clone())
        .maybe_assurance_level(
            request
                .assurance_level
                .map(|a| SubjectAssurance(rasn::types::FixedOctetString::new([a]))),
        )
        .maybe_app_permissions(
            (!app.is_empty())
                .then(|| SequenceOfPsidSsp(app.iter().map(Permission::to_asn).collect())),
        )
        .maybe_cert_issue_permissions(
            (!issue.is_empty()).then(|| SequenceOfPsidGroupPermissions(issue)),
        )
        .maybe_encryption_key(
            request
                .encryption_key
                .as_ref()
                .map(public_encryption_key)
                .transpose()?,
        )
        .verify_key_indicator(VerificationKeyIndicator::VerificationKey(
            public_verification_key(&request.verification_key)?,
        ))
        .build()
        .map_err(|e| Error::InvalidRequest(e.to_string()))?;
    let issuer_id = match issuer {
        None => {
            if signer.public_key()? != request.verification_key {
                return Err(Error::InvalidRequest(
                    "a root certificate is signed with its own key".into(),
                ));
            }
            IssuerIdentifier::VSelf(hash_algorithm(hash)?)
        }
        Some(ca) => {
            check_issuer(&tbs, ca, signer)?;
            let id = ca.hashed_id8().to_asn();
            match hash {
                vss_crypto::HashAlg::Sha384 => IssuerIdentifier::Sha384AndDigest(id),
                _ => IssuerIdentifier::Sha256AndDigest(id),
            }
        }
    };
    let tbs_bytes = codec::encode("toBeSigned", &tbs)?;
    let digest = signing_digest(hash, &tbs_bytes, issuer.map(Cert::canonical_bytes));
    let signature = signature_to_asn(&signer.sign_digest(&digest)?)?;
    Cert::from_asn(explicit(CertificateBase {
        version: CertificateBase::VERSION,
        r#type: CertificateType::Explicit,
        issuer: issuer_id,
        to_be_signed: tbs,
        signature: Some(signature),
    })?)
}

/// The issuer must hold the signing key and grant what the subject asks for.
fn check_issuer(tbs: &ToBeSignedCertificate, ca: &Cert, signer: &dyn Signer) -> Result<()> {
    if ca.verification_key()? != signer.public_key()? {
        return Err(Error::InvalidRequest(
            "the signing key is not the issuer certificate's verification key".into(),
        ));
    }
    if !ca.validity().covers(&Validity::of(&tbs.validity_period)) {
        return Err(Error::InvalidRequest(format!(
            "the validity period is not inside the issuer's ({} to {})",
            ca.validity().start,
            ca.validity().end
        )));
    }
    let groups = ca
        .tbs()
        .cert_issue_permissions
        .as_ref()
        .map_or(&[][..], |g| &g.0[..]);
    check_granted(tbs, groups)
        .map_err(|why| Error::InvalidRequest(format!("{why} (issuer {})", ca.hashed_id8())))
}

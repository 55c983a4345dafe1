//! `EtsiTs102941BaseTypes` (TS 102 941 v2.1.1, Annex A).

use rasn::prelude::*;
use rasn_its::ieee1609dot2::base_types::{
    GeographicRegion, PublicEncryptionKey, PublicVerificationKey, SequenceOfPsidSsp,
    SubjectAssurance, ValidityPeriod,
};
use rasn_its::ieee1609dot2::{
    Certificate, CertificateId, Ieee1609Dot2Data, SequenceOfPsidGroupPermissions,
};

/// `CertificateFormat ::= INTEGER { ts103097v131(1) } (1..255)`.
pub type CertificateFormat = u8;

/// The one certificate format: TS 103 097 v1.3.1 and later.
pub const TS103097V131: CertificateFormat = 1;

/// `CertificateSubjectAttributes`: what a requester asks for, or an EA confirms.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq, Default)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct CertificateSubjectAttributes {
    /// `id`.
    pub id: Option<CertificateId>,
    /// `validityPeriod`.
    #[rasn(identifier = "validityPeriod")]
    pub validity_period: Option<ValidityPeriod>,
    /// `region`.
    pub region: Option<GeographicRegion>,
    /// `assuranceLevel`.
    #[rasn(identifier = "assuranceLevel")]
    pub assurance_level: Option<SubjectAssurance>,
    /// `appPermissions`.
    #[rasn(identifier = "appPermissions")]
    pub app_permissions: Option<SequenceOfPsidSsp>,
    /// `certIssuePermissions` (absent in EC and AT requests).
    #[rasn(identifier = "certIssuePermissions")]
    pub cert_issue_permissions: Option<SequenceOfPsidGroupPermissions>,
}

impl CertificateSubjectAttributes {
    /// Attributes with application permissions only.
    pub fn with_app_permissions(app_permissions: SequenceOfPsidSsp) -> Self {
        CertificateSubjectAttributes {
            app_permissions: Some(app_permissions),
            ..Default::default()
        }
    }
}

/// `PublicKeys`: the verification key and, optionally, the encryption key of a request.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
pub struct PublicKeys {
    /// `verificationKey`.
    #[rasn(identifier = "verificationKey")]
    pub verification_key: PublicVerificationKey,
    /// `encryptionKey`.
    #[rasn(identifier = "encryptionKey")]
    pub encryption_key: Option<PublicEncryptionKey>,
}

/// `EcSignature`: the EC's signature over a `SharedAtRequest`, encrypted to the EA or not.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(choice, automatic_tags)]
pub enum EcSignature {
    /// `encryptedEcSignature`: EtsiTs103097Data-Encrypted{EtsiTs103097Data-SignedExternalPayload}.
    #[rasn(identifier = "encryptedEcSignature")]
    EncryptedEcSignature(Ieee1609Dot2Data),
    /// `ecSignature`: EtsiTs103097Data-SignedExternalPayload.
    #[rasn(identifier = "ecSignature")]
    EcSignature(Ieee1609Dot2Data),
}

/// The shape `InnerEcResponse` and `InnerAtResponse` share: `requestHash OCTET STRING
/// (SIZE(16))`, `responseCode`, `certificate EtsiTs103097Certificate OPTIONAL`, `...`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct CertificateResponse<C: AsnType + Encode + Decode> {
    /// `requestHash`: the leftmost 16 bytes of SHA-256 of the request message.
    #[rasn(identifier = "requestHash")]
    pub request_hash: FixedOctetString<16>,
    /// `responseCode`.
    #[rasn(identifier = "responseCode")]
    pub response_code: C,
    /// `certificate`.
    pub certificate: Option<Certificate>,
}

impl<C: AsnType + Encode + Decode> CertificateResponse<C> {
    /// A response to the request with `request_hash`.
    pub fn new(request_hash: [u8; 16], response_code: C, certificate: Option<Certificate>) -> Self {
        CertificateResponse {
            request_hash: FixedOctetString::new(request_hash),
            response_code,
            certificate,
        }
    }
}

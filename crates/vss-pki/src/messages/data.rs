//! `EtsiTs102941MessagesCa`: `EtsiTs102941Data`, the envelope every TS 102 941 message
//! carries inside its 1609.2 signed or encrypted data.

use rasn::prelude::*;
use rasn_its::ieee1609dot2::Ieee1609Dot2Data;

use super::authorization::{
    AuthorizationValidationRequest, AuthorizationValidationResponse, InnerAtRequest,
    InnerAtResponse,
};
use super::base_types::{CertificateSubjectAttributes, PublicKeys};
use super::enrolment::InnerEcResponse;
use super::trust_lists::{CtlFormat, ToBeSignedCrl};

/// `EtsiTs102941Data ::= SEQUENCE { version Version (v1), content EtsiTs102941DataContent }`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
pub struct EtsiTs102941Data {
    /// `version`: always 1.
    #[rasn(value("1"))]
    pub version: u8,
    /// `content`.
    pub content: EtsiTs102941DataContent,
}

impl EtsiTs102941Data {
    /// The only version, v1.
    pub const VERSION: u8 = 1;

    /// The envelope of `content`.
    pub fn new(content: EtsiTs102941DataContent) -> Self {
        EtsiTs102941Data {
            version: Self::VERSION,
            content,
        }
    }
}

/// `EtsiTs102941DataContent`: its root, the same from V1.3.1 to V2.2.1 (tags 0–9). VSS answers
/// the enrolment and authorization protocols and reads and issues the lists; a CA certificate
/// request decodes to be refused by name, and so, through [`extension_alternative`], do the
/// alternatives V2.x adds after the `...`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(choice)]
#[non_exhaustive]
pub enum EtsiTs102941DataContent {
    /// `enrolmentRequest`: InnerEcRequestSignedForPop, the InnerEcRequest signed with the
    /// requested key.
    #[rasn(tag(context, 0), identifier = "enrolmentRequest")]
    EnrolmentRequest(Box<Ieee1609Dot2Data>),
    /// `enrolmentResponse`.
    #[rasn(tag(context, 1), identifier = "enrolmentResponse")]
    EnrolmentResponse(Box<InnerEcResponse>),
    /// `authorizationRequest`.
    #[rasn(tag(context, 2), identifier = "authorizationRequest")]
    AuthorizationRequest(Box<InnerAtRequest>),
    /// `authorizationResponse`.
    #[rasn(tag(context, 3), identifier = "authorizationResponse")]
    AuthorizationResponse(Box<InnerAtResponse>),
    /// `certificateRevocationList`: a root CA's CRL.
    #[rasn(tag(context, 4), identifier = "certificateRevocationList")]
    CertificateRevocationList(Box<ToBeSignedCrl>),
    /// `certificateTrustListTlm`: the TLM's ECTL (`ToBeSignedTlmCtl`).
    #[rasn(tag(context, 5), identifier = "certificateTrustListTlm")]
    CertificateTrustListTlm(Box<CtlFormat>),
    /// `certificateTrustListRca`: a root CA's CTL (`ToBeSignedRcaCtl`).
    #[rasn(tag(context, 6), identifier = "certificateTrustListRca")]
    CertificateTrustListRca(Box<CtlFormat>),
    /// `authorizationValidationRequest`.
    #[rasn(tag(context, 7), identifier = "authorizationValidationRequest")]
    AuthorizationValidationRequest(Box<AuthorizationValidationRequest>),
    /// `authorizationValidationResponse`.
    #[rasn(tag(context, 8), identifier = "authorizationValidationResponse")]
    AuthorizationValidationResponse(Box<AuthorizationValidationResponse>),
    /// `caCertificateRequest` (CA management, TS 102 941 6.2.3.6).
    #[rasn(tag(context, 9), identifier = "caCertificateRequest")]
    CaCertificateRequest(Box<CaCertificateRequest>),
}

impl EtsiTs102941DataContent {
    /// The standard's name of the alternative, for a refusal that says what arrived.
    pub fn name(&self) -> &'static str {
        use EtsiTs102941DataContent as C;
        match self {
            C::EnrolmentRequest(_) => "enrolmentRequest",
            C::EnrolmentResponse(_) => "enrolmentResponse",
            C::AuthorizationRequest(_) => "authorizationRequest",
            C::AuthorizationResponse(_) => "authorizationResponse",
            C::CertificateRevocationList(_) => "certificateRevocationList",
            C::CertificateTrustListTlm(_) => "certificateTrustListTlm",
            C::CertificateTrustListRca(_) => "certificateTrustListRca",
            C::AuthorizationValidationRequest(_) => "authorizationValidationRequest",
            C::AuthorizationValidationResponse(_) => "authorizationValidationResponse",
            C::CaCertificateRequest(_) => "caCertificateRequest",
        }
    }

    /// Why this content is refused where `expected` was asked for.
    pub fn unexpected(&self, expected: &str) -> String {
        format!("{} where {expected} was expected", self.name())
    }
}

/// The alternatives TS 102 941 V2.x adds after the root's `...`, from tag 10 on: link
/// certificates, and V2.2.1's butterfly key expansion (IEEE 1609.2.1), which the EU C-ITS
/// profile does not use. VSS implements none of them.
const EXTENSION_ALTERNATIVES: [&str; 9] = [
    "linkCertificateTlm",
    "singleSignedLinkCertificateRca",
    "doubleSignedlinkCertificateRca",
    "butterflyAuthorizationRequest",
    "x509SignedbutterflyAuthorizationRequest",
    "butterflyAuthorizationResponse",
    "butterflyCertificateRequest",
    "butterflyCertificateResponse",
    "butterflyAtDownloadRequest",
];

/// The V2.x extension alternative an encoded `EtsiTs102941Data` carries, named by its tag
/// (COER: version `01`, then the alternative's tag `80 | n`), if it is one of them.
pub fn extension_alternative(encoded: &[u8]) -> Option<&'static str> {
    match encoded {
        [1, tag, ..] if tag & 0xC0 == 0x80 => {
            let n = usize::from(tag & 0x3F);
            n.checked_sub(10)
                .and_then(|i| EXTENSION_ALTERNATIVES.get(i))
                .copied()
        }
        _ => None,
    }
}

/// `CaCertificateRequest ::= SEQUENCE { publicKeys, requestedSubjectAttributes, ... }`: a
/// sub-CA asks its root for a certificate (TS 102 941 6.2.3.6; VSS issues its CAs at
/// `pki init`).
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct CaCertificateRequest {
    /// `publicKeys`.
    pub public_keys: PublicKeys,
    /// `requestedSubjectAttributes`.
    pub requested_subject_attributes: CertificateSubjectAttributes,
}

//! `EtsiTs102941MessagesCa`: `EtsiTs102941Data`, the envelope every TS 102 941 message
//! carries inside its 1609.2 signed or encrypted data.

use rasn::prelude::*;
use rasn_its::ieee1609dot2::Ieee1609Dot2Data;

use super::authorization::{
    AuthorizationValidationRequest, AuthorizationValidationResponse, InnerAtRequest,
    InnerAtResponse,
};
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

/// `EtsiTs102941DataContent`: the alternatives of the enrolment and authorization protocols,
/// and the trust lists and revocation lists (CA management is not implemented; it does not
/// decode).
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
}

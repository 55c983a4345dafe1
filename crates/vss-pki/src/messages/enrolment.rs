//! `EtsiTs102941TypesEnrolment` (TS 102 941 v2.1.1, Annex A).

use super::base_types::{
    CertificateFormat, CertificateResponse, CertificateSubjectAttributes, PublicKeys,
};
use rasn::prelude::*;

/// `InnerEcRequest`: what a station asks the EA for.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct InnerEcRequest {
    /// `itsId`: the canonical id (initial enrolment) or the current EC's HashedId8.
    #[rasn(identifier = "itsId")]
    pub its_id: OctetString,
    /// `certificateFormat`.
    #[rasn(identifier = "certificateFormat")]
    pub certificate_format: CertificateFormat,
    /// `publicKeys`.
    #[rasn(identifier = "publicKeys")]
    pub public_keys: PublicKeys,
    /// `requestedSubjectAttributes`.
    #[rasn(identifier = "requestedSubjectAttributes")]
    pub requested_subject_attributes: CertificateSubjectAttributes,
}

impl InnerEcRequest {
    /// A request for `its_id` with these keys and attributes.
    pub fn new(
        its_id: &[u8],
        public_keys: PublicKeys,
        attributes: CertificateSubjectAttributes,
    ) -> Self {
        InnerEcRequest {
            its_id: OctetString::from_slice(its_id),
            certificate_format: super::TS103097V131,
            public_keys,
            requested_subject_attributes: attributes,
        }
    }
}

/// `InnerEcResponse`: the EA's answer; the certificate is present exactly when the code is
/// `ok`.
pub type InnerEcResponse = CertificateResponse<EnrolmentResponseCode>;

/// `EnrolmentResponseCode`.
#[derive(AsnType, Debug, Clone, Copy, Decode, Encode, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
#[non_exhaustive]
pub enum EnrolmentResponseCode {
    /// `ok`.
    #[rasn(identifier = "ok")]
    Ok = 0,
    /// `cantparse`: valid for any structure.
    #[rasn(identifier = "cantparse")]
    CantParse,
    /// `badcontenttype`: not encrypted, not signed, not an enrolment request.
    #[rasn(identifier = "badcontenttype")]
    BadContentType,
    /// `imnottherecipient`.
    #[rasn(identifier = "imnottherecipient")]
    ImNotTheRecipient,
    /// `unknownencryptionalgorithm`.
    #[rasn(identifier = "unknownencryptionalgorithm")]
    UnknownEncryptionAlgorithm,
    /// `decryptionfailed`.
    #[rasn(identifier = "decryptionfailed")]
    DecryptionFailed,
    /// `unknownits`: no station with that id.
    #[rasn(identifier = "unknownits")]
    UnknownIts,
    /// `invalidsignature`.
    #[rasn(identifier = "invalidsignature")]
    InvalidSignature,
    /// `invalidencryptionkey`.
    #[rasn(identifier = "invalidencryptionkey")]
    InvalidEncryptionKey,
    /// `baditsstatus`: revoked, not yet active.
    #[rasn(identifier = "baditsstatus")]
    BadItsStatus,
    /// `incompleterequest`.
    #[rasn(identifier = "incompleterequest")]
    IncompleteRequest,
    /// `deniedpermissions`.
    #[rasn(identifier = "deniedpermissions")]
    DeniedPermissions,
    /// `invalidkeys`.
    #[rasn(identifier = "invalidkeys")]
    InvalidKeys,
    /// `deniedrequest`: any other reason.
    #[rasn(identifier = "deniedrequest")]
    DeniedRequest,
}

//! `EtsiTs102941TypesAuthorization` and `EtsiTs102941TypesAuthorizationValidation`
//! (TS 102 941 v2.1.1, Annex A).

use rasn::prelude::*;
use rasn_its::ieee1609dot2::base_types::HashedId8;

use super::base_types::{
    CertificateFormat, CertificateResponse, CertificateSubjectAttributes, EcSignature, PublicKeys,
};

/// `SharedAtRequest`: the part of an authorization request the AA forwards to the EA.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct SharedAtRequest {
    /// `eaId`: the HashedId8 of the EA that issued the station's EC.
    #[rasn(identifier = "eaId")]
    pub ea_id: HashedId8,
    /// `keyTag`: binds the request's public keys to `hmacKey`.
    #[rasn(identifier = "keyTag")]
    pub key_tag: FixedOctetString<16>,
    /// `certificateFormat`.
    #[rasn(identifier = "certificateFormat")]
    pub certificate_format: CertificateFormat,
    /// `requestedSubjectAttributes`.
    #[rasn(identifier = "requestedSubjectAttributes")]
    pub requested_subject_attributes: CertificateSubjectAttributes,
}

impl SharedAtRequest {
    /// A shared request for the EA `ea_id`.
    pub fn new(
        ea_id: HashedId8,
        key_tag: [u8; 16],
        attributes: CertificateSubjectAttributes,
    ) -> Self {
        SharedAtRequest {
            ea_id,
            key_tag: FixedOctetString::new(key_tag),
            certificate_format: super::TS103097V131,
            requested_subject_attributes: attributes,
        }
    }
}

/// `InnerAtRequest`: what a station asks the AA for.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct InnerAtRequest {
    /// `publicKeys`: the ticket's keys.
    #[rasn(identifier = "publicKeys")]
    pub public_keys: PublicKeys,
    /// `hmacKey`: the key of `keyTag`.
    #[rasn(identifier = "hmacKey")]
    pub hmac_key: FixedOctetString<32>,
    /// `sharedAtRequest`.
    #[rasn(identifier = "sharedAtRequest")]
    pub shared_at_request: SharedAtRequest,
    /// `ecSignature`.
    #[rasn(identifier = "ecSignature")]
    pub ec_signature: EcSignature,
}

impl InnerAtRequest {
    /// An authorization request.
    pub fn new(
        public_keys: PublicKeys,
        hmac_key: [u8; 32],
        shared_at_request: SharedAtRequest,
        ec_signature: EcSignature,
    ) -> Self {
        InnerAtRequest {
            public_keys,
            hmac_key: FixedOctetString::new(hmac_key),
            shared_at_request,
            ec_signature,
        }
    }
}

/// `InnerAtResponse`: the AA's answer; the ticket is present exactly when the code is `ok`.
pub type InnerAtResponse = CertificateResponse<AuthorizationResponseCode>;

/// `AuthorizationResponseCode`: station→AA, AA→EA and EA→AA failures.
#[derive(AsnType, Debug, Clone, Copy, Decode, Encode, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
#[non_exhaustive]
pub enum AuthorizationResponseCode {
    /// `ok`.
    #[rasn(identifier = "ok")]
    Ok = 0,
    /// `its-aa-cantparse`.
    #[rasn(identifier = "its-aa-cantparse")]
    ItsAaCantParse,
    /// `its-aa-badcontenttype`.
    #[rasn(identifier = "its-aa-badcontenttype")]
    ItsAaBadContentType,
    /// `its-aa-imnottherecipient`.
    #[rasn(identifier = "its-aa-imnottherecipient")]
    ItsAaImNotTheRecipient,
    /// `its-aa-unknownencryptionalgorithm`.
    #[rasn(identifier = "its-aa-unknownencryptionalgorithm")]
    ItsAaUnknownEncryptionAlgorithm,
    /// `its-aa-decryptionfailed`.
    #[rasn(identifier = "its-aa-decryptionfailed")]
    ItsAaDecryptionFailed,
    /// `its-aa-keysdontmatch`: the keyTag does not verify.
    #[rasn(identifier = "its-aa-keysdontmatch")]
    ItsAaKeysDontMatch,
    /// `its-aa-incompleterequest`.
    #[rasn(identifier = "its-aa-incompleterequest")]
    ItsAaIncompleteRequest,
    /// `its-aa-invalidencryptionkey`.
    #[rasn(identifier = "its-aa-invalidencryptionkey")]
    ItsAaInvalidEncryptionKey,
    /// `its-aa-outofsyncrequest`: the signing time is outside acceptable limits.
    #[rasn(identifier = "its-aa-outofsyncrequest")]
    ItsAaOutOfSyncRequest,
    /// `its-aa-unknownea`: the EA named by eaId is unknown to the AA.
    #[rasn(identifier = "its-aa-unknownea")]
    ItsAaUnknownEa,
    /// `its-aa-invalidea`.
    #[rasn(identifier = "its-aa-invalidea")]
    ItsAaInvalidEa,
    /// `its-aa-deniedpermissions`.
    #[rasn(identifier = "its-aa-deniedpermissions")]
    ItsAaDeniedPermissions,
    /// `aa-ea-cantreachea`.
    #[rasn(identifier = "aa-ea-cantreachea")]
    AaEaCantReachEa,
    /// `ea-aa-cantparse`.
    #[rasn(identifier = "ea-aa-cantparse")]
    EaAaCantParse,
    /// `ea-aa-badcontenttype`.
    #[rasn(identifier = "ea-aa-badcontenttype")]
    EaAaBadContentType,
    /// `ea-aa-imnottherecipient`.
    #[rasn(identifier = "ea-aa-imnottherecipient")]
    EaAaImNotTheRecipient,
    /// `ea-aa-unknownencryptionalgorithm`.
    #[rasn(identifier = "ea-aa-unknownencryptionalgorithm")]
    EaAaUnknownEncryptionAlgorithm,
    /// `ea-aa-decryptionfailed`.
    #[rasn(identifier = "ea-aa-decryptionfailed")]
    EaAaDecryptionFailed,
    /// `invalidaa`.
    #[rasn(identifier = "invalidaa")]
    InvalidAa,
    /// `invalidaasignature`.
    #[rasn(identifier = "invalidaasignature")]
    InvalidAaSignature,
    /// `wrongea`.
    #[rasn(identifier = "wrongea")]
    WrongEa,
    /// `unknownits`.
    #[rasn(identifier = "unknownits")]
    UnknownIts,
    /// `invalidsignature`.
    #[rasn(identifier = "invalidsignature")]
    InvalidSignature,
    /// `invalidencryptionkey`.
    #[rasn(identifier = "invalidencryptionkey")]
    InvalidEncryptionKey,
    /// `deniedpermissions`.
    #[rasn(identifier = "deniedpermissions")]
    DeniedPermissions,
    /// `deniedtoomanycerts`.
    #[rasn(identifier = "deniedtoomanycerts")]
    DeniedTooManyCerts,
}

/// `AuthorizationValidationRequest`: the AA asks the EA to vouch for a station.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct AuthorizationValidationRequest {
    /// `sharedAtRequest`.
    #[rasn(identifier = "sharedAtRequest")]
    pub shared_at_request: SharedAtRequest,
    /// `ecSignature`.
    #[rasn(identifier = "ecSignature")]
    pub ec_signature: EcSignature,
}

impl AuthorizationValidationRequest {
    /// The request the AA forwards.
    pub fn new(shared_at_request: SharedAtRequest, ec_signature: EcSignature) -> Self {
        AuthorizationValidationRequest {
            shared_at_request,
            ec_signature,
        }
    }
}

/// `AuthorizationValidationResponse`: the EA's verdict, with the attributes it confirms
/// exactly when the code is `ok`.
#[derive(AsnType, Debug, Clone, Decode, Encode, PartialEq, Eq)]
#[rasn(automatic_tags)]
#[non_exhaustive]
pub struct AuthorizationValidationResponse {
    /// `requestHash`.
    #[rasn(identifier = "requestHash")]
    pub request_hash: FixedOctetString<16>,
    /// `responseCode`.
    #[rasn(identifier = "responseCode")]
    pub response_code: AuthorizationValidationResponseCode,
    /// `confirmedSubjectAttributes`.
    #[rasn(identifier = "confirmedSubjectAttributes")]
    pub confirmed_subject_attributes: Option<CertificateSubjectAttributes>,
}

impl AuthorizationValidationResponse {
    /// A response to the validation request with `request_hash`.
    pub fn new(
        request_hash: [u8; 16],
        response_code: AuthorizationValidationResponseCode,
        confirmed: Option<CertificateSubjectAttributes>,
    ) -> Self {
        AuthorizationValidationResponse {
            request_hash: FixedOctetString::new(request_hash),
            response_code,
            confirmed_subject_attributes: confirmed,
        }
    }
}

/// `AuthorizationValidationResponseCode`.
#[derive(AsnType, Debug, Clone, Copy, Decode, Encode, PartialEq, Eq, Hash)]
#[rasn(enumerated)]
#[non_exhaustive]
pub enum AuthorizationValidationResponseCode {
    /// `ok`.
    #[rasn(identifier = "ok")]
    Ok = 0,
    /// `cantparse`.
    #[rasn(identifier = "cantparse")]
    CantParse,
    /// `badcontenttype`.
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
    /// `invalidaa`.
    #[rasn(identifier = "invalidaa")]
    InvalidAa,
    /// `invalidaasignature`.
    #[rasn(identifier = "invalidaasignature")]
    InvalidAaSignature,
    /// `wrongea`: the EC signature does not name this EA.
    #[rasn(identifier = "wrongea")]
    WrongEa,
    /// `unknownits`: no such EC.
    #[rasn(identifier = "unknownits")]
    UnknownIts,
    /// `invalidsignature`: the EC signature does not verify.
    #[rasn(identifier = "invalidsignature")]
    InvalidSignature,
    /// `invalidencryptionkey`.
    #[rasn(identifier = "invalidencryptionkey")]
    InvalidEncryptionKey,
    /// `deniedpermissions`.
    #[rasn(identifier = "deniedpermissions")]
    DeniedPermissions,
    /// `deniedtoomanycerts`.
    #[rasn(identifier = "deniedtoomanycerts")]
    DeniedTooManyCerts,
    /// `deniedrequest`.
    #[rasn(identifier = "deniedrequest")]
    DeniedRequest,
}

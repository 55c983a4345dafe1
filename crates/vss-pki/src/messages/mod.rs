//! The messages of ETSI TS 102 941 (Annex A) that the enrolment and authorization protocols
//! and the trust lists use, as `rasn` types on top of `rasn-its`' IEEE 1609.2 types. The
//! `EtsiTs103097Data-*` parameterised types are `Ieee1609Dot2Data` on the wire.
//!
//! These types are the same bytes from V1.3.1 to V2.2.1: `EtsiTs102941Data.version` is v1 in
//! every version (nothing on the wire names the standard's version), and V2.x only adds
//! alternatives after the `...` of `EtsiTs102941DataContent` (link certificates, butterfly
//! key expansion), which [`decode_data`] names and refuses. The interop suite checks the
//! types against the pinned V1.3.1 and V2.2.1 ASN.1 (`tests/vectors/asn1/ts102941`).

mod authorization;
mod base_types;
mod data;
mod enrolment;
mod trust_lists;

pub use authorization::{
    AuthorizationResponseCode, AuthorizationValidationRequest, AuthorizationValidationResponse,
    AuthorizationValidationResponseCode, InnerAtRequest, InnerAtResponse, SharedAtRequest,
};
pub use base_types::{
    CertificateFormat, CertificateResponse, CertificateSubjectAttributes, EcSignature, PublicKeys,
    TS103097V131,
};
pub use data::{
    extension_alternative, CaCertificateRequest, EtsiTs102941Data, EtsiTs102941DataContent,
};
pub use enrolment::{EnrolmentResponseCode, InnerEcRequest, InnerEcResponse};
pub use trust_lists::{
    AaEntry, CtlCommand, CtlDelete, CtlEntry, CtlFormat, DcEntry, EaEntry, RootCaEntry, TlmEntry,
    ToBeSignedCrl, Url,
};

use crate::{Error, Result};

/// The largest message VSS decodes.
pub const MAX_MESSAGE_LEN: usize = 64 * 1024;

/// Decodes COER strictly: the input must re-encode to the same bytes (no trailing bytes, no
/// non-canonical forms).
pub fn decode<T: rasn::Decode + rasn::Encode>(what: &'static str, bytes: &[u8]) -> Result<T> {
    if bytes.len() > MAX_MESSAGE_LEN {
        return Err(Error::Malformed {
            what,
            detail: format!("{} bytes, more than {MAX_MESSAGE_LEN}", bytes.len()),
        });
    }
    let malformed = |detail: String| Error::Malformed { what, detail };
    let (value, rest) = rasn::coer::decode_with_remainder::<T>(bytes)
        .map_err(|e| malformed(first_line(&e.to_string())))?;
    if !rest.is_empty() {
        return Err(malformed(format!("{} trailing bytes", rest.len())));
    }
    if encode(what, &value)? != bytes {
        return Err(malformed("not canonical COER".into()));
    }
    Ok(value)
}

/// Decodes an `EtsiTs102941Data` as [`decode`] does; one carrying a V2.x extension alternative
/// is [`Error::UnsupportedContent`], named.
pub fn decode_data(bytes: &[u8]) -> Result<EtsiTs102941Data> {
    decode("EtsiTs102941Data", bytes).map_err(|e| match extension_alternative(bytes) {
        Some(content) => Error::UnsupportedContent { content },
        None => e,
    })
}

/// Encodes COER.
pub fn encode<T: rasn::Encode>(what: &'static str, value: &T) -> Result<Vec<u8>> {
    rasn::coer::encode(value).map_err(|e| Error::Encode {
        what,
        detail: first_line(&e.to_string()),
    })
}

/// The standard's name of a response code (its ASN.1 identifier, e.g. `its-aa-unknownea`).
pub fn code_name<C: rasn::Encode>(code: &C) -> String {
    rasn::jer::encode(code)
        .map(|json| json.trim_matches('"').to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// A response code of any of the three protocols: what an authority answered a request with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResponseCode {
    /// An EA's answer to an enrolment request.
    Enrolment(EnrolmentResponseCode),
    /// An AA's answer to an authorization request.
    Authorization(AuthorizationResponseCode),
    /// An EA's answer to an AA's authorization validation request.
    AuthorizationValidation(AuthorizationValidationResponseCode),
}

impl ResponseCode {
    /// The standard's name of the code ([`code_name`]).
    pub fn name(self) -> String {
        match self {
            ResponseCode::Enrolment(code) => code_name(&code),
            ResponseCode::Authorization(code) => code_name(&code),
            ResponseCode::AuthorizationValidation(code) => code_name(&code),
        }
    }
}

impl From<EnrolmentResponseCode> for ResponseCode {
    fn from(code: EnrolmentResponseCode) -> Self {
        ResponseCode::Enrolment(code)
    }
}

impl From<AuthorizationResponseCode> for ResponseCode {
    fn from(code: AuthorizationResponseCode) -> Self {
        ResponseCode::Authorization(code)
    }
}

impl From<AuthorizationValidationResponseCode> for ResponseCode {
    fn from(code: AuthorizationValidationResponseCode) -> Self {
        ResponseCode::AuthorizationValidation(code)
    }
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or("").trim().to_string()
}

#[cfg(test)]
mod tests;

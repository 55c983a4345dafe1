//! The SSP of the SecuredCertificateRequestService (PSID 623), ETSI TS 102 941 V2.2.1 §B.4
//! and table B.6: a version octet (1), then one octet whose bits say which TS 102 941
//! messages the certificate holder may sign. ETSI's conformance-test certificates carry
//! `01 0E` (EA), `01 32` (AA) and `01 C0` (EC); the EU root CA grants CA certificates the
//! range `sspValue 01 3E`, `sspBitmask FF C1`.

use std::fmt;

use rasn::types::OctetString;

use crate::asn::{
    BitmapSspRange, PsidSspRange, ServiceSpecificPermissions, SspRange, ToBeSignedCertificate,
};
use crate::Psid;

/// The SSP version this module reads and writes.
const VERSION: u8 = 1;

/// A message a certificate's PSID 623 SSP lets its holder sign (one bit of the second octet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CertRequestPermission {
    /// An enrolment request (re-enrolment, signed with the current EC): bit `0x80`.
    EnrolmentRequest,
    /// The EC signature of an authorization request: bit `0x40`.
    AuthorizationRequest,
    /// An authorization validation request (AA to EA): bit `0x20`.
    AuthorizationValidationRequest,
    /// An authorization response (AA to station): bit `0x10`.
    AuthorizationResponse,
    /// An authorization validation response (EA to AA): bit `0x08`.
    AuthorizationValidationResponse,
    /// An enrolment response (EA to station): bit `0x04`.
    EnrolmentResponse,
    /// A CA certificate request (an EA or AA re-keying at its root): bit `0x02`.
    CaCertificateRequest,
}

impl CertRequestPermission {
    /// Its bit in the octet after the version.
    pub fn bit(self) -> u8 {
        match self {
            CertRequestPermission::EnrolmentRequest => 0x80,
            CertRequestPermission::AuthorizationRequest => 0x40,
            CertRequestPermission::AuthorizationValidationRequest => 0x20,
            CertRequestPermission::AuthorizationResponse => 0x10,
            CertRequestPermission::AuthorizationValidationResponse => 0x08,
            CertRequestPermission::EnrolmentResponse => 0x04,
            CertRequestPermission::CaCertificateRequest => 0x02,
        }
    }

    /// The message it permits, in words.
    pub fn name(self) -> &'static str {
        match self {
            CertRequestPermission::EnrolmentRequest => "enrolment requests",
            CertRequestPermission::AuthorizationRequest => "authorization requests",
            CertRequestPermission::AuthorizationValidationRequest => {
                "authorization validation requests"
            }
            CertRequestPermission::AuthorizationResponse => "authorization responses",
            CertRequestPermission::AuthorizationValidationResponse => {
                "authorization validation responses"
            }
            CertRequestPermission::EnrolmentResponse => "enrolment responses",
            CertRequestPermission::CaCertificateRequest => "CA certificate requests",
        }
    }
}

impl fmt::Display for CertRequestPermission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "signing {} (PSID 623 SSP bit {:#04x})",
            self.name(),
            self.bit()
        )
    }
}

/// The PSID 623 SSP of an EA: enrolment responses, authorization validation responses, CA
/// certificate requests (as ETSI's conformance-test EA).
pub const SSP_EA_CERT_REQUEST: [u8; 2] = [VERSION, 0x0E];
/// The PSID 623 SSP of an AA: authorization validation requests, authorization responses,
/// CA certificate requests (as ETSI's conformance-test AA).
pub const SSP_AA_CERT_REQUEST: [u8; 2] = [VERSION, 0x32];
/// The PSID 623 SSP of an enrolment credential: enrolment requests (re-enrolment) and
/// authorization requests (as ETSI's conformance-test EC).
pub const SSP_EC_CERT_REQUEST: [u8; 2] = [VERSION, 0xC0];

/// The range of PSID 623 SSPs a root grants the CA certificates it issues (as the EU root
/// CA): version 1, the CA bits free, the enrolment and authorization request bits and the
/// reserved bit clear.
pub(crate) fn ca_request_range() -> PsidSspRange {
    PsidSspRange {
        psid: Psid::CERT_REQUEST.to_asn(),
        ssp_range: Some(SspRange::BitmapSspRange(BitmapSspRange {
            ssp_value: OctetString::from_static(&[VERSION, 0x3E]),
            ssp_bitmask: OctetString::from_static(&[0xFF, 0xC1]),
        })),
    }
}

/// Whether a certificate's PSID 623 permission lets its holder sign `permission`'s message.
/// No PSID 623: no. PSID 623 without SSP: yes (IEEE 1609.2 §6.4.28 leaves an absent SSP's
/// meaning to the service; VSS reads it as every permission, as certificates VSS issued
/// before it wrote these SSPs carry it). A bitmap SSP of version 1: its bit. Any other SSP
/// (opaque, another version, too short): no.
pub fn permits_cert_request(
    subject: &ToBeSignedCertificate,
    permission: CertRequestPermission,
) -> bool {
    let Some(entry) = subject
        .app_permissions
        .iter()
        .flat_map(|s| s.0.iter())
        .find(|p| Psid::from_asn(&p.psid) == Some(Psid::CERT_REQUEST))
    else {
        return false;
    };
    match &entry.ssp {
        None => true,
        Some(ServiceSpecificPermissions::BitmapSsp(bitmap)) => match bitmap.0.as_ref() {
            [VERSION, bits, ..] => bits & permission.bit() != 0,
            _ => false,
        },
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [CertRequestPermission; 7] = [
        CertRequestPermission::EnrolmentRequest,
        CertRequestPermission::AuthorizationRequest,
        CertRequestPermission::AuthorizationValidationRequest,
        CertRequestPermission::AuthorizationResponse,
        CertRequestPermission::AuthorizationValidationResponse,
        CertRequestPermission::EnrolmentResponse,
        CertRequestPermission::CaCertificateRequest,
    ];

    #[test]
    fn the_bits_are_distinct_and_leave_the_reserved_bit() {
        let union = ALL.iter().fold(0u8, |acc, p| {
            assert_eq!(acc & p.bit(), 0, "{p:?} shares a bit");
            acc | p.bit()
        });
        assert_eq!(union, 0xFE);
    }

    #[test]
    fn the_profiles_hold_their_messages() {
        use CertRequestPermission as P;
        let has = |ssp: [u8; 2], p: P| ssp[1] & p.bit() != 0;
        for p in ALL {
            let ea = matches!(
                p,
                P::EnrolmentResponse | P::AuthorizationValidationResponse | P::CaCertificateRequest
            );
            let aa = matches!(
                p,
                P::AuthorizationValidationRequest
                    | P::AuthorizationResponse
                    | P::CaCertificateRequest
            );
            let ec = matches!(p, P::EnrolmentRequest | P::AuthorizationRequest);
            assert_eq!(has(SSP_EA_CERT_REQUEST, p), ea, "EA {p:?}");
            assert_eq!(has(SSP_AA_CERT_REQUEST, p), aa, "AA {p:?}");
            assert_eq!(has(SSP_EC_CERT_REQUEST, p), ec, "EC {p:?}");
        }
    }
}

//! The verification report: one [`Verdict`] per validated message or certificate, numbered
//! as the report code of ETSI TS 102 723-8's SN-VERIFY.confirm on every interface VSS has
//! (`vss.v1.ReportCode` of the gRPC API, `vss_verdict` of the C library, `vss.Verdict` of
//! the Python package): a verdict's discriminant is its wire code.
//!
//! The wire codes 0 (unspecified: no verdict) and 14 (skipped: the verification policy did
//! not verify the message) are no verdict. Each verdict also gives the coarser report that
//! TS 102 723-8 names ([`Verdict::sn_verify_report`]).

use std::fmt;

use serde::Serialize;

/// The outcome of validating a message or a certificate; its discriminant is its report
/// code on the wire ([`Verdict::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum Verdict {
    /// Everything checked out (TS 102 723-8: "success").
    Valid = 1,
    /// The signature does not verify with the signer's key ("false signature").
    FalseSignature = 2,
    /// The signer (or a certificate's issuer) is not known: not cached, trusted or given
    /// ("signer certificate not found").
    SignerNotFound = 3,
    /// The chain ends in a self-signed certificate that is not a trust anchor ("invalid
    /// certificate").
    UntrustedRoot = 4,
    /// A certificate of the chain is inconsistent with its issuer (signature, validity)
    /// ("inconsistent chain").
    InvalidChain = 5,
    /// A certificate, or the message, is past its validity ("invalid certificate").
    Expired = 6,
    /// A certificate, or the message, is not valid yet ("invalid certificate").
    NotYetValid = 7,
    /// The PSID, or a certificate's permissions, are not granted by the issuer
    /// ("inconsistent chain").
    InsufficientPermissions = 8,
    /// The message or a certificate lies outside the region of its issuer ("invalid
    /// mobility data").
    OutsideRegion = 9,
    /// The bytes are not a well-formed structure ("incompatible protocol").
    Malformed = 10,
    /// The structure uses an algorithm or a form that VSS does not implement
    /// ("incompatible protocol").
    UnsupportedAlgorithm = 11,
    /// The message's generation or expiry time is no real time: after
    /// [`ItsTime::LAST`](crate::ItsTime::LAST); or, where a receiver keeps a replay window,
    /// outside it or missing ("invalid timestamp").
    InvalidTimestamp = 12,
    /// A copy of a message already accepted ("duplicate message").
    DuplicateMessage = 13,
    /// A CA certificate of the chain is on its root's certificate revocation list
    /// ("revoked certificate").
    Revoked = 15,
    /// A CA certificate of the chain is not on its root's certificate trust list, or the
    /// root's revocation list is past its next update where that refuses ("invalid
    /// certificate").
    UnlistedCa = 16,
}

impl Verdict {
    /// Every verdict, in the order of their codes.
    pub const ALL: [Verdict; 15] = [
        Verdict::Valid,
        Verdict::FalseSignature,
        Verdict::SignerNotFound,
        Verdict::UntrustedRoot,
        Verdict::InvalidChain,
        Verdict::Expired,
        Verdict::NotYetValid,
        Verdict::InsufficientPermissions,
        Verdict::OutsideRegion,
        Verdict::Malformed,
        Verdict::UnsupportedAlgorithm,
        Verdict::InvalidTimestamp,
        Verdict::DuplicateMessage,
        Verdict::Revoked,
        Verdict::UnlistedCa,
    ];

    /// The report code on the wire (`vss.v1.ReportCode`, `vss_verdict`, `vss.Verdict`).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The verdict of report code `code`; `None` for 0 (unspecified), 14 (skipped) and
    /// codes that name no verdict.
    pub fn from_code(code: u8) -> Option<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|verdict| verdict.code() == code)
    }

    /// The name, as printed in JSON (`Valid`, `FalseSignature`, …).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Valid => "Valid",
            Verdict::FalseSignature => "FalseSignature",
            Verdict::SignerNotFound => "SignerNotFound",
            Verdict::UntrustedRoot => "UntrustedRoot",
            Verdict::InvalidChain => "InvalidChain",
            Verdict::Expired => "Expired",
            Verdict::NotYetValid => "NotYetValid",
            Verdict::InsufficientPermissions => "InsufficientPermissions",
            Verdict::OutsideRegion => "OutsideRegion",
            Verdict::Malformed => "Malformed",
            Verdict::UnsupportedAlgorithm => "UnsupportedAlgorithm",
            Verdict::InvalidTimestamp => "InvalidTimestamp",
            Verdict::DuplicateMessage => "DuplicateMessage",
            Verdict::Revoked => "Revoked",
            Verdict::UnlistedCa => "UnlistedCa",
        }
    }

    /// The name of the TS 102 723-8 report this verdict gives, as printed in JSON
    /// (`success`, `false_signature`, …). `Expired` and `NotYetValid` are reported as an
    /// invalid certificate, also where the message's own expiry time or a generation time
    /// ahead of the clock gave them.
    pub fn sn_verify_report(self) -> &'static str {
        match self {
            Verdict::Valid => "success",
            Verdict::FalseSignature => "false_signature",
            Verdict::SignerNotFound => "signer_certificate_not_found",
            Verdict::UntrustedRoot
            | Verdict::UnlistedCa
            | Verdict::Expired
            | Verdict::NotYetValid => "invalid_certificate",
            Verdict::Revoked => "revoked_certificate",
            Verdict::InvalidChain | Verdict::InsufficientPermissions => "inconsistent_chain",
            Verdict::OutsideRegion => "invalid_mobility_data",
            Verdict::Malformed | Verdict::UnsupportedAlgorithm => "incompatible_protocol",
            Verdict::InvalidTimestamp => "invalid_timestamp",
            Verdict::DuplicateMessage => "duplicate_message",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_wire_codes_and_come_back() {
        let codes: Vec<u8> = Verdict::ALL.iter().map(|v| v.code()).collect();
        assert_eq!(codes, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16]);
        for verdict in Verdict::ALL {
            assert_eq!(Verdict::from_code(verdict.code()), Some(verdict));
        }
        for code in [0, 14, 17, 255] {
            assert_eq!(Verdict::from_code(code), None, "{code}");
        }
        let names: std::collections::HashSet<_> = Verdict::ALL.iter().map(|v| v.name()).collect();
        assert_eq!(names.len(), Verdict::ALL.len());
    }

    #[test]
    fn sn_verify_reports_are_snake_case_and_map_as_documented() {
        let reports: std::collections::HashSet<_> =
            Verdict::ALL.iter().map(|v| v.sn_verify_report()).collect();
        // Ten of the twelve reports of TS 102 723-8: VSS reaches no verdict on an unsigned
        // message, and names every unsupported signer form an incompatible protocol.
        assert_eq!(reports.len(), 10);
        assert!(reports
            .iter()
            .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
        for (verdict, report) in [
            (Verdict::Valid, "success"),
            (Verdict::SignerNotFound, "signer_certificate_not_found"),
            (Verdict::DuplicateMessage, "duplicate_message"),
            (Verdict::OutsideRegion, "invalid_mobility_data"),
            (Verdict::Revoked, "revoked_certificate"),
            (Verdict::UnlistedCa, "invalid_certificate"),
        ] {
            assert_eq!(verdict.sn_verify_report(), report, "{verdict}");
        }
    }
}

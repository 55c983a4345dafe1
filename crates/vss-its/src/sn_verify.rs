//! The reports of ETSI TS 102 723-8's SN-VERIFY.confirm, the interface a V2X stack's
//! network layer sees, and the one each [`Verdict`] gives, with stable JSON names.

use crate::Verdict;

/// An SN-VERIFY.confirm report (ETSI TS 102 723-8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SnVerifyReport {
    /// The message verified.
    Success,
    /// The signature does not verify.
    FalseSignature,
    /// A certificate is not valid: not trusted, or not valid at the time.
    InvalidCertificate,
    /// A certificate was revoked.
    RevokedCertificate,
    /// The chain is inconsistent: a certificate does not fit its issuer's, or grants what
    /// its issuer did not.
    InconsistentChain,
    /// The generation or expiry time is out of range or outside the receiver's window.
    InvalidTimestamp,
    /// A copy of a message already accepted.
    DuplicateMessage,
    /// The generation location is outside the signer's region.
    InvalidMobilityData,
    /// The message is not signed.
    UnsignedMessage,
    /// The signer's certificate, or an issuer's, is not known.
    SignerCertificateNotFound,
    /// The signer is named in a form that is not supported.
    UnsupportedSignerIdentifierType,
    /// The message is not well formed, or uses a form or algorithm not supported.
    IncompatibleProtocol,
}

impl SnVerifyReport {
    /// Every report, in the order of TS 102 723-8.
    pub const ALL: [SnVerifyReport; 12] = [
        SnVerifyReport::Success,
        SnVerifyReport::FalseSignature,
        SnVerifyReport::InvalidCertificate,
        SnVerifyReport::RevokedCertificate,
        SnVerifyReport::InconsistentChain,
        SnVerifyReport::InvalidTimestamp,
        SnVerifyReport::DuplicateMessage,
        SnVerifyReport::InvalidMobilityData,
        SnVerifyReport::UnsignedMessage,
        SnVerifyReport::SignerCertificateNotFound,
        SnVerifyReport::UnsupportedSignerIdentifierType,
        SnVerifyReport::IncompatibleProtocol,
    ];

    /// The stable name, as printed in JSON (`false_signature`, …).
    pub fn name(self) -> &'static str {
        match self {
            SnVerifyReport::Success => "success",
            SnVerifyReport::FalseSignature => "false_signature",
            SnVerifyReport::InvalidCertificate => "invalid_certificate",
            SnVerifyReport::RevokedCertificate => "revoked_certificate",
            SnVerifyReport::InconsistentChain => "inconsistent_chain",
            SnVerifyReport::InvalidTimestamp => "invalid_timestamp",
            SnVerifyReport::DuplicateMessage => "duplicate_message",
            SnVerifyReport::InvalidMobilityData => "invalid_mobility_data",
            SnVerifyReport::UnsignedMessage => "unsigned_message",
            SnVerifyReport::SignerCertificateNotFound => "signer_certificate_not_found",
            SnVerifyReport::UnsupportedSignerIdentifierType => "unsupported_signer_identifier_type",
            SnVerifyReport::IncompatibleProtocol => "incompatible_protocol",
        }
    }
}

impl std::fmt::Display for SnVerifyReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Verdict {
    /// The SN-VERIFY report this verdict gives. `Expired` and `NotYetValid` are reported as
    /// an invalid certificate, also where the message's own expiry time or a generation
    /// time ahead of the clock gave them.
    pub fn sn_verify_report(self) -> SnVerifyReport {
        match self {
            Verdict::Valid => SnVerifyReport::Success,
            Verdict::FalseSignature => SnVerifyReport::FalseSignature,
            Verdict::SignerNotFound => SnVerifyReport::SignerCertificateNotFound,
            Verdict::UntrustedRoot
            | Verdict::UnlistedCa
            | Verdict::Expired
            | Verdict::NotYetValid => SnVerifyReport::InvalidCertificate,
            Verdict::Revoked => SnVerifyReport::RevokedCertificate,
            Verdict::InvalidChain | Verdict::InsufficientPermissions => {
                SnVerifyReport::InconsistentChain
            }
            Verdict::OutsideRegion => SnVerifyReport::InvalidMobilityData,
            Verdict::Malformed | Verdict::UnsupportedAlgorithm => {
                SnVerifyReport::IncompatibleProtocol
            }
            Verdict::InvalidTimestamp => SnVerifyReport::InvalidTimestamp,
            Verdict::DuplicateMessage => SnVerifyReport::DuplicateMessage,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_snake_case_and_verdicts_map_as_documented() {
        let names: std::collections::HashSet<_> =
            SnVerifyReport::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), SnVerifyReport::ALL.len());
        assert!(names
            .iter()
            .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
        assert_eq!(Verdict::Valid.sn_verify_report(), SnVerifyReport::Success);
        assert_eq!(
            Verdict::SignerNotFound.sn_verify_report().name(),
            "signer_certificate_not_found"
        );
        assert_eq!(
            Verdict::DuplicateMessage.sn_verify_report(),
            SnVerifyReport::DuplicateMessage
        );
        assert_eq!(
            Verdict::OutsideRegion.sn_verify_report(),
            SnVerifyReport::InvalidMobilityData
        );
        assert_eq!(
            Verdict::Revoked.sn_verify_report(),
            SnVerifyReport::RevokedCertificate
        );
        assert_eq!(
            Verdict::UnlistedCa.sn_verify_report(),
            SnVerifyReport::InvalidCertificate
        );
    }
}

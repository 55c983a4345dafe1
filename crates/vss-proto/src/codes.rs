//! The API's codes: a verdict as its report code (SN-VERIFY.confirm), report codes and gRPC
//! codes as the names that metrics and logs show.

use tonic::Code;
use vss_its::Verdict;

use crate::proto::ReportCode;

/// The report code of `verdict`.
pub fn report_code(verdict: Verdict) -> ReportCode {
    match verdict {
        Verdict::Valid => ReportCode::Success,
        Verdict::FalseSignature => ReportCode::FalseSignature,
        Verdict::SignerNotFound => ReportCode::SignerNotFound,
        Verdict::UntrustedRoot => ReportCode::UntrustedRoot,
        Verdict::InvalidChain => ReportCode::InvalidChain,
        Verdict::Expired => ReportCode::Expired,
        Verdict::NotYetValid => ReportCode::NotYetValid,
        Verdict::InsufficientPermissions => ReportCode::InsufficientPermissions,
        Verdict::OutsideRegion => ReportCode::OutsideRegion,
        Verdict::Malformed => ReportCode::Malformed,
        Verdict::UnsupportedAlgorithm => ReportCode::UnsupportedAlgorithm,
        Verdict::InvalidTimestamp => ReportCode::InvalidTimestamp,
        Verdict::DuplicateMessage => ReportCode::DuplicateMessage,
        Verdict::Revoked => ReportCode::Revoked,
        Verdict::UnlistedCa => ReportCode::UnlistedCa,
    }
}

/// The name of a gRPC code as Prometheus labels and logs show it.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// The name of a report code as Prometheus labels show it (`SUCCESS`, `FALSE_SIGNATURE`, …).
pub fn report_name(code: ReportCode) -> &'static str {
    code.as_str_name()
        .strip_prefix("REPORT_CODE_")
        .unwrap_or("UNSPECIFIED")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_keep_their_meaning_as_report_codes() {
        assert_eq!(report_code(Verdict::Valid), ReportCode::Success);
        assert_eq!(report_code(Verdict::Malformed), ReportCode::Malformed);
        assert_eq!(report_name(ReportCode::FalseSignature), "FALSE_SIGNATURE");
    }
}

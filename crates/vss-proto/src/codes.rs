//! The API's codes: a verdict as its report code (SN-VERIFY.confirm), report codes and gRPC
//! codes as the names that metrics and logs show.

use tonic::Code;
use vss_its::Verdict;

use crate::proto::ReportCode;

/// The report code of `verdict`: the same number, a verdict's discriminant being its code on
/// the wire ([`Verdict::code`]); the inverse of [`crate::client::answer`].
pub fn report_code(verdict: Verdict) -> ReportCode {
    ReportCode::try_from(i32::from(verdict.code())).unwrap_or(ReportCode::Unspecified)
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
        // Every verdict has the code of its own name (VALID is SUCCESS on the wire).
        for verdict in Verdict::ALL {
            let code = report_code(verdict);
            assert_eq!(code as i32, i32::from(verdict.code()), "{verdict}");
            let mut name = String::new();
            for c in verdict.name().chars() {
                if c.is_ascii_uppercase() && !name.is_empty() {
                    name.push('_');
                }
                name.push(c.to_ascii_uppercase());
            }
            let name = if name == "VALID" {
                "SUCCESS".into()
            } else {
                name
            };
            assert_eq!(report_name(code), name, "{verdict}");
        }
        assert_eq!(report_name(ReportCode::FalseSignature), "FALSE_SIGNATURE");
    }
}

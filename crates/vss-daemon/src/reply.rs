//! The entity's results as the API's answers: an entity error as a gRPC status, a
//! verification's outcome as its `VerifyResponse` (SN-VERIFY.confirm), an oversized field
//! as RESOURCE_EXHAUSTED.

use tonic::{Code, Status};
use vss_core::verify::Outcome;
use vss_core::Error;
use vss_its::Verdict;
use vss_proto::codes::report_code;
use vss_proto::proto::{ReportCode, VerifyResponse};

/// The status of a failed call of the entity: what the caller asked cannot be done now
/// (FAILED_PRECONDITION), was wrong (INVALID_ARGUMENT), or the key store or another part
/// failed (INTERNAL).
pub fn status(error: &Error) -> Status {
    let code = match error {
        Error::NoPseudonym(_)
        | Error::ChangeBlocked(_)
        | Error::PoolEmpty
        | Error::PsidNotPermitted(_)
        | Error::SspNotGranted(_)
        | Error::NoFrameKey
        | Error::NoChangeListener
        | Error::ChangePostponed => Code::FailedPrecondition,
        Error::UnknownMessage(_) => Code::NotFound,
        Error::NotAFrame(_) | Error::Its(_) => Code::InvalidArgument,
        _ => Code::Internal,
    };
    Status::new(code, error.to_string())
}

/// RESOURCE_EXHAUSTED when `field` is longer than `max` bytes.
pub fn bounded(field: &str, bytes: &[u8], max: usize) -> Result<(), Status> {
    if bytes.len() > max {
        return Err(Status::resource_exhausted(format!(
            "{field}: {} bytes, more than max_message_bytes ({max})",
            bytes.len()
        )));
    }
    Ok(())
}

/// The answer to one verified message.
pub fn response(outcome: Outcome, tag: u64) -> VerifyResponse {
    match outcome {
        Outcome::Valid {
            payload,
            psid,
            signer,
        } => VerifyResponse {
            report: report_code(Verdict::Valid).into(),
            payload,
            psid: psid.value(),
            signer: signer.0.to_vec(),
            tag,
            ..VerifyResponse::default()
        },
        Outcome::Invalid { verdict } => VerifyResponse {
            report: report_code(verdict).into(),
            reason: verdict.to_string(),
            tag,
            ..VerifyResponse::default()
        },
        Outcome::Skipped { id } => VerifyResponse {
            report: ReportCode::Skipped.into(),
            reason: "skipped by the verification policy".into(),
            on_demand_id: id,
            tag,
            ..VerifyResponse::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_carries_the_outcomes_code() {
        for outcome in [
            Outcome::Invalid {
                verdict: Verdict::FalseSignature,
            },
            Outcome::Skipped { id: 1 },
        ] {
            let code = i32::from(outcome.code());
            let answer = response(outcome, 7);
            assert_eq!((answer.report, answer.tag), (code, 7));
        }
        let refused = response(
            Outcome::Invalid {
                verdict: Verdict::UnlistedCa,
            },
            0,
        );
        assert_eq!(refused.reason, "UnlistedCa");
        assert_eq!(refused.report(), ReportCode::UnlistedCa);
    }

    #[test]
    fn entity_errors_keep_their_meaning_as_statuses() {
        assert_eq!(status(&Error::PoolEmpty).code(), Code::FailedPrecondition);
    }
}

//! A client of `vssd` on its Unix socket, shared by `vss … --daemon SOCKET` and the bench:
//! the connection, and the report codes as the typed verdicts of `vss_its` (the inverse of
//! [`crate::codes::report_code`]: a verdict's discriminant is its report code).

use std::path::{Path, PathBuf};
use std::time::Duration;

use hyper_util::rt::TokioIo;
use tonic::transport::{Channel, Endpoint, Uri};
use vss_its::Verdict;

use crate::proto::security_entity_client::SecurityEntityClient;
use crate::proto::ReportCode;

/// How long connecting to the socket may take: 5 s.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The URI the channel names (a Unix socket has no host; the daemon ignores it).
const AUTHORITY: &str = "http://localhost";

/// Connects to `vssd` listening on the Unix socket `socket`.
pub async fn connect(socket: &Path) -> Result<SecurityEntityClient<Channel>, ConnectError> {
    let path = socket.to_path_buf();
    let connector = tower::service_fn(move |_: Uri| {
        let path = path.clone();
        async move {
            let stream = tokio::net::UnixStream::connect(&path).await?;
            Ok::<_, std::io::Error>(TokioIo::new(stream))
        }
    });
    let channel = Endpoint::from_static(AUTHORITY)
        .connect_timeout(CONNECT_TIMEOUT)
        .connect_with_connector(connector)
        .await
        .map_err(|source| ConnectError {
            socket: socket.to_path_buf(),
            source,
        })?;
    Ok(SecurityEntityClient::new(channel))
}

/// No connection to the daemon could be made.
#[derive(Debug, thiserror::Error)]
#[error("cannot reach vssd at {}: {source}", socket.display())]
pub struct ConnectError {
    /// The socket.
    pub socket: PathBuf,
    /// Why.
    #[source]
    pub source: tonic::transport::Error,
}

/// What a verification answered: a verdict, or not verified (the policy skipped it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Verified: this verdict.
    Verdict(Verdict),
    /// Skipped by the verification policy (verify it later by its on-demand id).
    Skipped,
}

/// The report a response's `report` field carries; `None` for `UNSPECIFIED` and for a
/// number this client does not know (a newer daemon).
pub fn answer(code: i32) -> Option<Answer> {
    match ReportCode::try_from(code).ok()? {
        ReportCode::Skipped => Some(Answer::Skipped),
        _ => Verdict::from_code(u8::try_from(code).ok()?).map(Answer::Verdict),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::report_code;

    #[test]
    fn every_report_code_maps_to_one_verdict_and_back() {
        let mut verdicts = Vec::new();
        for code in 0..=20 {
            match answer(code) {
                Some(Answer::Verdict(verdict)) => {
                    assert_eq!(report_code(verdict) as i32, code, "{verdict:?}");
                    verdicts.push(verdict);
                }
                Some(Answer::Skipped) => assert_eq!(code, ReportCode::Skipped as i32),
                None => assert!(
                    code == 0 || ReportCode::try_from(code).is_err(),
                    "code {code} is not mapped"
                ),
            }
        }
        let count = verdicts.len();
        verdicts.sort_by_key(|v| v.name());
        verdicts.dedup();
        assert_eq!((verdicts.len(), count), (15, 15), "each verdict once");
    }
}

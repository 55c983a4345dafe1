//! The revocation authority's service.
//!
//! | Method and path | Body | Answer |
//! |---|---|---|
//! | `GET /info` | | [`RevocationInfo`] |
//! | `POST /handle` | | [`HandleGrant`]: a fresh handle and its witness |
//! | `POST /revoke` | [`RevokeRequest`] | the new [`RevocationInfo`] |
//! | `GET /removals?since=EPOCH` | | the [`RemovalEntry`]s after `EPOCH` |

use super::{answer, blocking, json_body, ServiceError};
use crate::codec;
use crate::group::Scalar;
use crate::predicates::revocation::{MembershipWitness, RemovalEntry, RevocationInfo};
use crate::roles::Revocation;
use axum::body::Body;
use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

/// A fresh revocation handle for a credential being issued, with its witness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandleGrant {
    /// The handle, hex of the scalar.
    #[serde(with = "codec::scalar")]
    pub handle: Scalar,
    /// Its witness in the current accumulator.
    pub witness: MembershipWitness,
}

/// A handle to revoke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevokeRequest {
    /// The handle, hex of the scalar.
    #[serde(with = "codec::scalar")]
    pub handle: Scalar,
}

/// The revocation authority as a service: its role, one request at a time.
pub struct RevocationService {
    role: Mutex<Revocation>,
}

impl RevocationService {
    /// The revocation authority in `dir`, its key store opened with `pin`.
    pub fn open(dir: &Path, pin: &str) -> crate::Result<Self> {
        Ok(RevocationService {
            role: Mutex::new(Revocation::open(dir, pin)?),
        })
    }

    fn role(&self) -> MutexGuard<'_, Revocation> {
        self.role.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The revocation authority's routes.
pub fn router(service: Arc<RevocationService>) -> Router {
    Router::new()
        .route("/info", get(info))
        .route("/handle", post(handle))
        .route("/revoke", post(revoke))
        .route("/removals", get(removals))
        .with_state(service)
}

async fn info(State(s): State<Arc<RevocationService>>) -> Response {
    answer(blocking(move || Ok(s.role().info())).await)
}

async fn handle(State(s): State<Arc<RevocationService>>) -> Response {
    answer(
        blocking(move || {
            let (handle, witness) = s.role().issue_handle()?;
            Ok(HandleGrant { handle, witness })
        })
        .await,
    )
}

async fn revoke(State(s): State<Arc<RevocationService>>, body: Body) -> Response {
    let result = async {
        let request: RevokeRequest = json_body(body).await?;
        blocking(move || {
            let mut role = s.role();
            role.revoke(&request.handle)?;
            Ok(role.info())
        })
        .await
    };
    answer(result.await)
}

/// The `since` of the query, an epoch.
fn since(uri: &Uri) -> Result<u64, ServiceError> {
    uri.query()
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("since="))
        .ok_or(ServiceError::BadField("the query needs since=EPOCH"))?
        .parse()
        .map_err(|_| ServiceError::BadField("since is not an epoch"))
}

async fn removals(State(s): State<Arc<RevocationService>>, uri: Uri) -> Response {
    let result = match since(&uri) {
        Ok(epoch) => blocking(move || Ok(s.role().removals_since(epoch)?)).await,
        Err(e) => Err(e),
    };
    answer::<Vec<RemovalEntry>>(result)
}

/// The accumulator's state as the revocation service at `base` reports it.
pub(super) fn fetch_info(base: &str) -> Result<RevocationInfo, ServiceError> {
    super::call(&format!("{}/info", base.trim_end_matches('/')), None)
}

/// The removals after `epoch` from the revocation service at `base`.
pub(super) fn fetch_removals(base: &str, epoch: u64) -> Result<Vec<RemovalEntry>, ServiceError> {
    super::call(
        &format!("{}/removals?since={epoch}", base.trim_end_matches('/')),
        None,
    )
}

/// A fresh handle and witness from the revocation service at `base`.
pub(super) fn fetch_handle(base: &str) -> Result<HandleGrant, ServiceError> {
    super::call(
        &format!("{}/handle", base.trim_end_matches('/')),
        Some(&serde_json::json!({})),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_is_read_from_the_query() {
        let uri = |s: &str| s.parse::<Uri>().expect("uri");
        assert_eq!(since(&uri("/removals?since=3")).ok(), Some(3));
        assert_eq!(since(&uri("/removals?x=1&since=0")).ok(), Some(0));
        assert!(matches!(
            since(&uri("/removals")),
            Err(ServiceError::BadField(_))
        ));
        assert!(matches!(
            since(&uri("/removals?since=-1")),
            Err(ServiceError::BadField(_))
        ));
    }
}

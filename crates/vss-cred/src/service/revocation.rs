//! The revocation authority's service.
//!
//! | Method and path | Body | Answer |
//! |---|---|---|
//! | `GET /info` | | [`RevocationInfo`] |
//! | `POST /handle` | | [`HandleGrant`]: a fresh handle and its witness |
//! | `POST /revoke` | [`RevokeRequest`] | the new [`RevocationInfo`] |
//! | `GET /removals?since=EPOCH` | | the [`RemovalEntry`]s after `EPOCH` |
//!
//! A handle is never given back: it stays live (32 octets in the state, which is written
//! whole on every change) until it is revoked, and at most [`MAX_MEMBERS`] are live. So that
//! one client cannot take them all, `/handle` allows one client ([`ClientKey`]: its IPv4
//! address or IPv6 /64) [`HANDLE_BURST`] handles at once, then one per [`HANDLE_INTERVAL`]
//! (16, then one a second: the 2^20 would take one address twelve days); one more is
//! answered 429 with `Retry-After`. The issuer asks for one handle per revocable credential
//! it issues. Many addresses together can still take them: `/handle` and `/revoke` are for a
//! loopback or private network.

use super::rate::PerClientRate;
use super::{answer, blocking, json_body, ClientKey, ServiceError};
use crate::codec;
use crate::group::Scalar;
#[cfg(doc)]
use crate::predicates::revocation::MAX_MEMBERS;
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
use std::time::Duration;

/// The handles one client may take at once from `POST /handle`.
pub const HANDLE_BURST: u32 = 16;
/// After its burst, one client takes one handle per this interval.
pub const HANDLE_INTERVAL: Duration = Duration::from_secs(1);

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

/// The revocation authority as a service: its role, one request at a time, and the rate of
/// each client's handles.
pub struct RevocationService {
    role: Mutex<Revocation>,
    handles: PerClientRate,
}

impl RevocationService {
    /// The revocation authority in `dir`, its key store opened with `pin`.
    pub fn open(dir: &Path, pin: &str) -> crate::Result<Self> {
        Ok(RevocationService {
            role: Mutex::new(Revocation::open(dir, pin)?),
            handles: PerClientRate::new(HANDLE_BURST, HANDLE_INTERVAL),
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

async fn handle(State(s): State<Arc<RevocationService>>, client: ClientKey) -> Response {
    if let Err(e) = s.handles.hit(client) {
        return answer::<HandleGrant>(Err(e));
    }
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

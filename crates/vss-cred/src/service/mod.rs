//! The roles over HTTP/1.1, JSON in and out (the artefacts' serde forms): one [`axum`]
//! router per role ([`issuer`], [`revocation`], [`verifier`], [`inspector`], [`user`]) and
//! [`serve`], which bounds every wait and count of a connection ([`ServeLimits`], the
//! defaults [`default_limits`]).
//!
//! Bounds: a request body is at most [`MAX_BODY_LEN`] (1 MiB, the artefact bound) or is
//! answered 413, at once when its declared length is over (what the client still sends is
//! read and thrown away, at most [`DISCARD_LEN`] bytes within the idle timeout, then the
//! connection closes); a POST body that is not `application/json` is answered 415; a
//! request (its body read and its answer) takes at most the request timeout (default
//! [`DEFAULT_REQUEST_TIMEOUT`]) or is answered 503; a connection that sends no whole request
//! head within the idle timeout (default [`DEFAULT_IDLE_TIMEOUT`]), on connecting or between
//! kept-alive requests, a byte at a time or not at all, is closed; so is one whose answer
//! stays unread (a write blocked) for the write timeout (default 10 s); past the connection
//! cap (default [`DEFAULT_MAX_CONNECTIONS`]) a new connection is answered 503 with
//! `Retry-After` and closed, and while the process is out of descriptors accepting waits
//! [`ACCEPT_BACKOFF`]. The header and body timeouts are not applied (the idle and request
//! timeouts cover them). Every 429 and 503 carries `Retry-After` (the limits' `retry_after`).
//!
//! Open offers (issuer) and policies (verifier): one client ([`ClientKey`]: its IPv4 address
//! or IPv6 /64) holds at most [`MAX_OPEN_PER_CLIENT`] open at once, one more is answered 429;
//! all remote clients together at most [`crate::roles::MAX_OPEN_REMOTE`] per role directory,
//! one more is answered 503, so that [`crate::roles::LOCAL_RESERVE`] stay for the local
//! commands (`vss cred issue`, `vss cred policy`). The user service's sessions: one client
//! holds at most [`user::MAX_SESSIONS_PER_CLIENT`] (429), the clients off loopback leave
//! [`user::LOOPBACK_SESSIONS`] to the loopback ones (503). The revocation authority's
//! handles, never given back: one client takes [`revocation::HANDLE_BURST`] at once, then one
//! per [`revocation::HANDLE_INTERVAL`] (429), the rates of at most [`MAX_COUNTED_CLIENTS`]
//! clients counted at once (503).
//!
//! Errors are answered as `{"error": "..."}` with the status of [`ServiceError::status`].
//! The services have no authentication of their own: the revocation authority's `/handle`
//! and `/revoke`, the issuer's `/issuance/offer` and the user service are meant for a
//! loopback or private network.

mod client;
mod connection;
pub mod error;
pub mod inspector;
pub mod issuer;
mod nonces;
mod rate;
pub mod revocation;
mod sessions;
pub mod user;
pub mod verifier;

pub use client::ClientKey;
pub use connection::DISCARD_LEN;
pub use error::ServiceError;
pub use nonces::MAX_OPEN_PER_CLIENT;
pub use rate::MAX_COUNTED_CLIENTS;
pub use vss_net::ACCEPT_BACKOFF;

use crate::codec::{self, CodecError, Versioned};
use crate::Error;
use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use http_body_util::BodyExt;
use nonces::Nonces;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::net::TcpListener;
use vss_net::ServeLimits;

/// The largest request body read, in bytes: the artefact bound, 1 MiB.
pub const MAX_BODY_LEN: usize = codec::MAX_ARTEFACT_LEN;
/// How long a request may take, its body read and its answer, by default.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a connection may wait for a whole request head by default, on connecting or
/// between kept-alive requests.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once by default.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// How long a call to another service (the revocation authority) may take.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(30);

/// The defaults of [`serve`]: [`DEFAULT_REQUEST_TIMEOUT`], [`DEFAULT_IDLE_TIMEOUT`] and
/// [`DEFAULT_MAX_CONNECTIONS`], the rest `ServeLimits::default()` (a write blocked 10 s
/// closes the connection; a 429 or 503 says to retry after 1 s).
pub fn default_limits() -> ServeLimits {
    ServeLimits {
        request_timeout: DEFAULT_REQUEST_TIMEOUT,
        idle_timeout: DEFAULT_IDLE_TIMEOUT,
        max_connections: DEFAULT_MAX_CONNECTIONS,
        ..ServeLimits::default()
    }
}

/// A role's service, ready to serve.
pub enum Role {
    /// The issuer.
    Issuer(Arc<issuer::IssuerService>),
    /// The revocation authority.
    Revocation(Arc<revocation::RevocationService>),
    /// The verifier.
    Verifier(Arc<verifier::VerifierService>),
    /// The inspector.
    Inspector(Arc<inspector::InspectorService>),
    /// The user service.
    User(Arc<user::UserService>),
}

impl Role {
    /// The role's routes.
    pub fn router(self) -> axum::Router {
        match self {
            Role::Issuer(s) => issuer::router(s),
            Role::Revocation(s) => revocation::router(s),
            Role::Verifier(s) => verifier::router(s),
            Role::Inspector(s) => inspector::router(s),
            Role::User(s) => user::router(s),
        }
    }
}

/// Serves `role` on `listener` within `limits`, until accepting fails for a reason other
/// than a lack of descriptors or memory (then [`Error::Accept`]); `limits` out of range are
/// refused at once ([`Error::Limits`]).
pub async fn serve(role: Role, listener: TcpListener, limits: ServeLimits) -> crate::Result<()> {
    limits.check()?;
    let routes = role.router();
    let busy = busy_response(limits.retry_after);
    vss_net::serve_bounded(
        &listener,
        limits.max_connections,
        busy.as_bytes(),
        |stream| connection::connection(stream, routes.clone(), limits),
    )
    .await
    .map_err(Error::Accept)
}

/// The whole answer to a connection past the cap.
fn busy_response(retry_after: Duration) -> String {
    vss_net::busy_response(
        retry_after,
        "application/json",
        "{\"error\":\"too many connections\"}",
    )
}

/// The request body, at most [`MAX_BODY_LEN`] bytes.
async fn read_body(body: Body) -> Result<Bytes, ServiceError> {
    match http_body_util::Limited::new(body, MAX_BODY_LEN)
        .collect()
        .await
    {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(ServiceError::TooLarge),
        Err(_) => Err(ServiceError::Body),
    }
}

/// The body as JSON of `T`, which has no format version of its own.
async fn json_body<T: DeserializeOwned>(body: Body) -> Result<T, ServiceError> {
    let bytes = read_body(body).await?;
    serde_json::from_slice(&bytes).map_err(|e| ServiceError::Malformed(CodecError::Json(e)))
}

/// The body as an artefact of this format version.
async fn artefact_body<T: DeserializeOwned + Versioned>(body: Body) -> Result<T, ServiceError> {
    let bytes = read_body(body).await?;
    Ok(codec::from_json_bounded(&bytes, MAX_BODY_LEN)?)
}

/// Runs `work` off the async threads (it reads and writes files, talks to a card or to
/// another service, or computes proofs).
async fn blocking<T, F>(work: F) -> Result<T, ServiceError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ServiceError> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|_| ServiceError::Handler)?
}

/// `value` as a JSON answer, or the error's.
fn answer<T: Serialize>(result: Result<T, ServiceError>) -> Response {
    match result {
        Ok(value) => (StatusCode::OK, Json(value)).into_response(),
        Err(e) => e.into_response(),
    }
}

/// One HTTP agent per process for calls to other services.
fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(CLIENT_TIMEOUT))
            .build()
            .into()
    })
}

/// Calls another service: `GET url` without a body, `POST url` with `body` as JSON; its JSON
/// answer, at most [`MAX_BODY_LEN`] bytes.
fn call<T: DeserializeOwned>(
    url: &str,
    body: Option<&serde_json::Value>,
) -> Result<T, ServiceError> {
    let upstream = |detail: String| ServiceError::Upstream {
        url: url.to_string(),
        detail,
    };
    let sent = match body {
        Some(body) => agent()
            .post(url)
            .header("content-type", "application/json")
            .send(serde_json::to_vec(body).map_err(|e| upstream(e.to_string()))?),
        None => agent().get(url).call(),
    };
    let mut response = sent.map_err(|e| upstream(e.to_string()))?;
    let status = response.status().as_u16();
    let bytes = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY_LEN as u64)
        .read_to_vec()
        .map_err(|e| upstream(e.to_string()))?;
    if status != 200 {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
        return Err(upstream(format!("HTTP {status}: {text}")));
    }
    serde_json::from_slice(&bytes).map_err(|e| upstream(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn limits_out_of_range_are_refused_with_their_name() {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let refused = |limits: ServeLimits| {
            runtime.block_on(async {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
                let verifier = verifier::VerifierService::open(
                    std::path::Path::new("/nonexistent"),
                    Vec::new(),
                    None,
                );
                let role = Role::Verifier(Arc::new(verifier));
                serve(role, listener, limits).await.expect_err("refused")
            })
        };
        let zero = refused(ServeLimits {
            idle_timeout: Duration::ZERO,
            ..default_limits()
        });
        assert_eq!(
            zero.to_string(),
            "idle timeout: more than 0 and at most 3600 s"
        );
        let many = refused(ServeLimits {
            max_connections: vss_net::MAX_CONNECTIONS + 1,
            ..default_limits()
        });
        assert_eq!(many.to_string(), "max connections: from 1 to 65536");
    }

    #[test]
    fn a_slow_request_is_answered_503_at_the_request_timeout() {
        use std::io::{Read, Write};
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let config = ServeLimits {
            request_timeout: Duration::from_millis(200),
            ..default_limits()
        };
        let slow = axum::Router::new().route(
            "/slow",
            axum::routing::get(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "late"
            }),
        );
        let addr = runtime.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = listener.local_addr().expect("address");
            tokio::spawn(async move {
                let (stream, _) = listener.accept().await.expect("accept");
                connection::connection(stream, slow, config).await;
            });
            addr
        });
        let mut client = std::net::TcpStream::connect(addr).expect("connect");
        client
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        client
            .write_all(b"GET /slow HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .expect("write");
        let started = Instant::now();
        let mut text = String::new();
        let _ = client.read_to_string(&mut text);
        assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
        assert!(text.contains("\"error\""), "{text}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn the_busy_answer_is_whole() {
        let busy = busy_response(default_limits().retry_after);
        let (head, body) = busy.split_once("\r\n\r\n").expect("head and body");
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
        assert!(serde_json::from_str::<serde_json::Value>(body).is_ok());
    }
}

//! One connection of [`super::serve`]: hyper over a [`Guarded`] stream (a write blocked
//! past the write timeout closes it), the request head bounded by the idle timeout, each
//! request by the request timeout; a request refused on its head alone (413, 415) answered
//! before its body is read; a 429 or 503 told when to come back.

use super::client::ClientKey;
use super::{ServiceError, MAX_BODY_LEN};
use axum::body::Bytes;
use axum::http::header::{CONNECTION, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderValue, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use hyper::body::{Body as _, Incoming};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::time::Duration;
use tokio::net::TcpStream;
use vss_net::{Guarded, ServeLimits};

/// The most bytes of a refused body read and thrown away, so that a client still sending
/// it reads its answer before the connection closes.
pub const DISCARD_LEN: usize = 2 * MAX_BODY_LEN;

/// Serves one connection until the client closes it, the idle timeout does (no whole
/// request head in time), or a write blocks past the write timeout; each request is
/// answered within the request timeout.
pub(super) async fn connection(stream: TcpStream, routes: axum::Router, limits: ServeLimits) {
    let Ok(peer) = stream.peer_addr() else {
        return;
    };
    let client = ClientKey::of_peer(peer);
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        let mut routes = routes.clone();
        request.extensions_mut().insert(client);
        async move {
            if let Some(refusal) = refused_by_head(&request) {
                return Ok(refuse_early(
                    refusal,
                    request.into_body(),
                    limits.idle_timeout,
                ));
            }
            let call = tower_service::Service::call(&mut routes, request);
            let mut response = match tokio::time::timeout(limits.request_timeout, call).await {
                Ok(response) => response?,
                Err(_) => ServiceError::Timeout.into_response(),
            };
            retry_after(&mut response, limits.retry_after);
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    // hyper's header read timeout runs from the moment the connection waits for a request
    // head, on connecting and again once each answer is written, to the head's end: a head
    // sent a byte at a time is cut off too.
    let _ = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.idle_timeout)
        .serve_connection(
            TokioIo::new(Guarded::new(stream, limits.write_timeout)),
            service,
        )
        .await;
}

/// Why the request is refused on its head alone: a declared body over [`MAX_BODY_LEN`]
/// (413), or a POST body that is not `application/json` (415; a POST without a body may
/// omit its type).
fn refused_by_head(request: &Request<Incoming>) -> Option<ServiceError> {
    let body = request.body();
    if body.size_hint().lower() > MAX_BODY_LEN as u64 {
        return Some(ServiceError::TooLarge);
    }
    if request.method() != Method::POST {
        return None;
    }
    match request.headers().get(CONTENT_TYPE) {
        Some(kind) if is_json(kind) => None,
        None if body.is_end_stream() => None,
        _ => Some(ServiceError::UnsupportedMediaType),
    }
}

/// Whether a Content-Type is `application/json` (compared without case, parameters such as
/// `charset` ignored).
fn is_json(kind: &HeaderValue) -> bool {
    kind.to_str()
        .ok()
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// The refusal, answered at once with `Connection: close`; meanwhile what the client still
/// sends of its body is read and thrown away, at most [`DISCARD_LEN`] bytes within `linger`,
/// so that a client writing its whole body reads the answer rather than a reset.
fn refuse_early(refusal: ServiceError, body: Incoming, linger: Duration) -> Response {
    tokio::spawn(async move {
        let _ = tokio::time::timeout(linger, discard(body)).await;
    });
    let mut response = refusal.into_response();
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Reads `body` to its end or to [`DISCARD_LEN`] bytes, keeping nothing.
async fn discard(mut body: Incoming) {
    let mut left = DISCARD_LEN;
    while let Some(Ok(frame)) = body.frame().await {
        let read = frame.data_ref().map_or(0, Bytes::len);
        match left.checked_sub(read) {
            Some(rest) => left = rest,
            None => return,
        }
    }
}

/// A 429 or 503 without a `Retry-After` gets the limits' one.
fn retry_after(response: &mut Response, after: Duration) {
    let status = response.status();
    if status != StatusCode::TOO_MANY_REQUESTS && status != StatusCode::SERVICE_UNAVAILABLE {
        return;
    }
    let seconds = after.as_secs().max(1);
    response
        .headers_mut()
        .entry(RETRY_AFTER)
        .or_insert(HeaderValue::from(seconds));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_told_without_case_or_parameters() {
        let json = |v: &'static str| is_json(&HeaderValue::from_static(v));
        assert!(json("application/json"));
        assert!(json("Application/JSON; charset=utf-8"));
        assert!(!json("text/plain"));
        assert!(!json("application/jsonx"));
        assert!(!json("application/x-www-form-urlencoded"));
    }

    #[test]
    fn only_a_429_or_503_is_told_when_to_come_back() {
        let with = |status: StatusCode| {
            let mut response = status.into_response();
            retry_after(&mut response, Duration::from_millis(1500));
            response.headers().get(RETRY_AFTER).cloned()
        };
        assert_eq!(
            with(StatusCode::TOO_MANY_REQUESTS),
            Some(HeaderValue::from(1))
        );
        assert_eq!(
            with(StatusCode::SERVICE_UNAVAILABLE),
            Some(HeaderValue::from(1))
        );
        assert_eq!(with(StatusCode::NOT_FOUND), None);
    }
}

//! The deadlines of a call that the service cannot see. The client's, as gRPC over HTTP/2
//! gives it (the `grpc-timeout` request header, [`timeout`]): a call still running when that
//! time has passed since its arrival ends with `DEADLINE_EXCEEDED`, before its answer began
//! (the reading of its request included) or during it (a stream's answers end with that
//! status, [`body`]); a malformed value is ignored, as tonic's server did. And the reading
//! of a request: one not read to its end within `request_timeout` of its arrival, and not
//! answered meanwhile, ends with `DEADLINE_EXCEEDED` too ([`read`]; a stream is answered at
//! once, so this bounds a unary request). The service bounds the rest (`request_timeout`
//! from the end of the reading, `stream_timeout`), so a call ends at the earliest of them.

pub mod body;
pub mod read;
pub mod timeout;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::{HeaderMap, Request, Response};
use tokio::time::Instant;
use tonic::body::Body;
use tonic::Status;
use tower_service::Service;

use body::UntilDeadline;
use read::Watched;
use timeout::GrpcTimeout;

/// The request header that carries the client's deadline.
pub const GRPC_TIMEOUT: &str = "grpc-timeout";

/// The client's deadline in `headers`, if it gave one that parses.
fn client_timeout(headers: &HeaderMap) -> Option<GrpcTimeout> {
    let value = headers.get(GRPC_TIMEOUT)?;
    GrpcTimeout::parse(value.as_bytes())
        .inspect_err(|e| tracing::debug!(error = %e, "grpc-timeout ignored"))
        .ok()
}

/// The status of a call at the client's deadline `client`; never without one.
async fn client_expired(client: Option<(GrpcTimeout, Instant)>) -> Status {
    match client {
        Some((timeout, at)) => {
            tokio::time::sleep_until(at).await;
            timeout.expired()
        }
        None => std::future::pending().await,
    }
}

/// The status of a call whose request was not read within `request_timeout`.
fn unread(request_timeout: Duration) -> Status {
    Status::deadline_exceeded(format!(
        "the request was not read within request_timeout ({request_timeout:?})"
    ))
}

/// `inner` (the gRPC routes) with each call bounded by its client's deadline and its
/// request's reading by `request_timeout`.
#[derive(Debug, Clone)]
pub struct Deadlines<S> {
    inner: S,
    request_timeout: Duration,
}

impl<S> Deadlines<S> {
    /// `inner` within the deadlines of its clients, its requests read within
    /// `request_timeout`.
    pub fn new(inner: S, request_timeout: Duration) -> Deadlines<S> {
        Deadlines {
            inner,
            request_timeout,
        }
    }
}

/// The answer of a call: its head, and its body bounded by the deadline.
type Answer<E> = Pin<Box<dyn Future<Output = Result<Response<Body>, E>> + Send>>;

impl<S, B> Service<Request<B>> for Deadlines<S>
where
    S: Service<Request<Watched<B>>, Response = Response<Body>>,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Answer<S::Error> {
        let arrived = Instant::now();
        let read_by = arrived + self.request_timeout;
        let request_timeout = self.request_timeout;
        // A deadline too far to represent is none.
        let client = client_timeout(request.headers())
            .and_then(|t| Some((t, arrived.checked_add(t.duration())?)));
        let (request, reading) = read::watched(request);
        let answer = self.inner.call(request);
        Box::pin(async move {
            let head = tokio::select! {
                biased;
                head = answer => head?,
                status = client_expired(client) => return Ok(status.into_http()),
                _ = reading.unread_at(read_by) => return Ok(unread(request_timeout).into_http()),
            };
            Ok(match client {
                Some((timeout, at)) => {
                    head.map(|body| Body::new(UntilDeadline::new(body, at, timeout)))
                }
                None => head,
            })
        })
    }
}

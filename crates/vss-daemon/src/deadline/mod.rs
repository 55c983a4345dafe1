//! The client's deadline, as the gRPC over HTTP/2 protocol gives it (the `grpc-timeout`
//! request header, [`timeout`]): a call still running when that time has passed since its
//! arrival ends with `DEADLINE_EXCEEDED`, before its answer began (reading its request
//! included) or during it (a stream's answers end with that status, [`body`]). The
//! daemon's own limits (`request_timeout` and `stream_timeout`) are the service's, so a call
//! ends at the earlier of the two. A malformed value is ignored, as tonic's server did.

pub mod body;
pub mod timeout;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper::{HeaderMap, Request, Response};
use tokio::time::Instant;
use tonic::body::Body;
use tower_service::Service;

use body::UntilDeadline;
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

/// `inner` (the gRPC routes) with each call bounded by its client's deadline.
#[derive(Debug, Clone)]
pub struct ClientDeadline<S> {
    inner: S,
}

impl<S> ClientDeadline<S> {
    /// `inner` within the deadlines of its clients.
    pub fn new(inner: S) -> ClientDeadline<S> {
        ClientDeadline { inner }
    }
}

/// The answer of a call: its head, and its body bounded by the deadline.
type Answer<E> = Pin<Box<dyn Future<Output = Result<Response<Body>, E>> + Send>>;

impl<S, B> Service<Request<B>> for ClientDeadline<S>
where
    S: Service<Request<B>, Response = Response<Body>>,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Answer<S::Error> {
        let timeout = client_timeout(request.headers());
        let answer = self.inner.call(request);
        // A deadline too far to represent is none.
        let bound = timeout.and_then(|t| Some((t, Instant::now().checked_add(t.duration())?)));
        let Some((timeout, deadline)) = bound else {
            return Box::pin(answer);
        };
        Box::pin(async move {
            match tokio::time::timeout_at(deadline, answer).await {
                Ok(answer) => {
                    Ok(answer?.map(|body| Body::new(UntilDeadline::new(body, deadline, timeout))))
                }
                Err(_) => Ok(timeout.expired().into_http()),
            }
        })
    }
}

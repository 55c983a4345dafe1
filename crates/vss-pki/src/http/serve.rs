//! The authorities' routes served over HTTP/1.1 with every wait and count bounded
//! ([`ServeLimits`], `ServeLimits::default()` the PKI's defaults): a request head must arrive
//! within the header timeout, its body within the body timeout, a kept-alive connection is
//! closed once idle for the idle (keep-alive) timeout, one whose client stops reading its
//! answers once a write has stayed blocked for the write timeout ([`Guarded`]), and past the
//! connection cap a new connection is answered 503 with `Retry-After` and closed, before the
//! process runs out of file descriptors. The request timeout is not applied.
//!
//! Each answered request is logged at info and, with [`serve_with_metrics`], counted in the
//! PKI's [`HttpMetrics`].

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::Instant;
use vss_net::{Guarded, ServeLimits};

use super::observe::{HttpMetrics, Observed};
use super::server::router;
use super::Services;

/// Serves `services` on `listener` within `limits`, until accepting fails for a reason other
/// than a lack of descriptors or memory (then that error); `limits` out of range are refused
/// at once.
pub async fn serve(
    listener: TcpListener,
    services: Services,
    limits: ServeLimits,
) -> io::Result<()> {
    serve_observed(listener, services, limits, None).await
}

/// [`serve`], with every answered request counted in `metrics`.
pub async fn serve_with_metrics(
    listener: TcpListener,
    services: Services,
    limits: ServeLimits,
    metrics: HttpMetrics,
) -> io::Result<()> {
    serve_observed(listener, services, limits, Some(metrics)).await
}

/// [`serve`], counting in `metrics` where given.
async fn serve_observed(
    listener: TcpListener,
    services: Services,
    limits: ServeLimits,
    metrics: Option<HttpMetrics>,
) -> io::Result<()> {
    limits
        .check()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let routes = router(services, limits.body_timeout);
    let busy = vss_net::busy_response(
        limits.retry_after,
        "text/plain",
        "too many connections: try again later\n",
    );
    vss_net::serve_bounded(
        &listener,
        limits.max_connections,
        busy.as_bytes(),
        |stream| connection(stream, routes.clone(), limits, metrics.clone()),
    )
    .await
}

/// Requests in flight on one connection, and when it last fell idle after an answer.
#[derive(Default)]
struct Activity {
    in_flight: AtomicUsize,
    idle_since: Mutex<Option<Instant>>,
    /// Told when the last request in flight is answered.
    answered: Notify,
}

impl Activity {
    fn begin(&self) {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
    }

    fn end(&self) {
        if self.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            *self.idle_since.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
            self.answered.notify_one();
        }
    }

    /// When the connection, answered and idle, is due to close; `None` while a request is
    /// in flight or before the first answer (the header timeout bounds that wait).
    fn closes_at(&self, keep_alive: Duration) -> Option<Instant> {
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return None;
        }
        let since = *self.idle_since.lock().unwrap_or_else(|p| p.into_inner());
        since.map(|at| at + keep_alive)
    }
}

/// Serves one connection until the client closes it or a timeout does (a write blocked for
/// the write timeout fails, and the connection with it).
async fn connection(
    stream: TcpStream,
    routes: axum::Router,
    limits: ServeLimits,
    metrics: Option<HttpMetrics>,
) {
    // Answers go out as written, not held back for the ACK of an earlier segment (Nagle).
    // A failure leaves the default, which is only slower.
    let _ = stream.set_nodelay(true);
    let activity = Arc::new(Activity::default());
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let mut routes = routes.clone();
            let activity = activity.clone();
            let metrics = metrics.clone();
            let observed = Observed::start(request.method(), request.uri().path());
            activity.begin();
            async move {
                let response = tower_service::Service::call(&mut routes, request).await;
                activity.end();
                if let Ok(answer) = &response {
                    observed.answered(answer.status(), metrics.as_ref());
                }
                response
            }
        })
    };
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .serve_connection(
            TokioIo::new(Guarded::new(stream, limits.write_timeout)),
            service,
        );
    tokio::pin!(connection);
    loop {
        // Asleep until an answer starts the keep-alive clock, or until that clock runs out.
        let idle = async {
            match activity.closes_at(limits.idle_timeout) {
                Some(at) => tokio::time::sleep_until(at).await,
                None => activity.answered.notified().await,
            }
        };
        tokio::select! {
            _ = connection.as_mut() => return,
            _ = idle => {
                if activity
                    .closes_at(limits.idle_timeout)
                    .is_some_and(|at| at <= Instant::now())
                {
                    break;
                }
            }
        }
    }
    // Closes the connection now if it is idle, after the request it is reading if not (that
    // one bounded by the header and body timeouts).
    connection.as_mut().graceful_shutdown();
    connection.await.ok();
}

//! The authorities' routes served over HTTP/1.1 with every wait and count bounded
//! ([`ServeConfig`]): a request head must arrive within the header timeout, its body within
//! the body timeout, a kept-alive connection is closed once idle for the keep-alive timeout,
//! and past the connection cap a new connection is answered 503 with `Retry-After` and
//! closed, before the process runs out of file descriptors.
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

use super::observe::{HttpMetrics, Observed};
use super::server::router;
use super::Services;

/// The bounds of [`serve`]; `Default` gives the documented defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeConfig {
    /// How long the server waits for a whole request head, on a new connection or for the
    /// next request on a kept-alive one (default 10 s); then the connection is closed.
    pub header_timeout: Duration,
    /// How long the server waits for a request's whole body once its head arrived (default
    /// 10 s); then the request is answered 408.
    pub body_timeout: Duration,
    /// How long a connection that has been answered may sit idle before it is closed
    /// (default 5 s).
    pub keep_alive_timeout: Duration,
    /// Connections served at once (default 4,096); more are answered 503 and closed.
    pub max_connections: usize,
    /// What a 503 tells the client to wait before it tries again (default 1 s).
    pub retry_after: Duration,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            keep_alive_timeout: Duration::from_secs(5),
            max_connections: 4096,
            retry_after: Duration::from_secs(1),
        }
    }
}

/// File descriptors kept out of the connection cap: the store, the key files, the listener
/// and the runtime's own.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// The longest of the timeouts a [`ServeConfig`] takes: one hour.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// The largest connection cap a [`ServeConfig`] takes.
pub const MAX_CONNECTIONS: usize = 1 << 20;

/// A [`ServeConfig`] value out of its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServeConfigError {
    /// A timeout is zero or longer than [`MAX_TIMEOUT`] (its name).
    Timeout(&'static str),
    /// The connection cap is zero or above [`MAX_CONNECTIONS`].
    MaxConnections,
}

impl std::fmt::Display for ServeConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeConfigError::Timeout(name) => write!(
                f,
                "{name}: more than 0 and at most {} s",
                MAX_TIMEOUT.as_secs()
            ),
            ServeConfigError::MaxConnections => {
                write!(f, "max connections: from 1 to {MAX_CONNECTIONS}")
            }
        }
    }
}

impl std::error::Error for ServeConfigError {}

impl ServeConfig {
    /// Whether every value is inside its range.
    pub fn check(&self) -> Result<(), ServeConfigError> {
        for (name, timeout) in [
            ("header timeout", self.header_timeout),
            ("body timeout", self.body_timeout),
            ("keep-alive timeout", self.keep_alive_timeout),
            ("retry after", self.retry_after),
        ] {
            if timeout.is_zero() || timeout > MAX_TIMEOUT {
                return Err(ServeConfigError::Timeout(name));
            }
        }
        if self.max_connections == 0 || self.max_connections > MAX_CONNECTIONS {
            return Err(ServeConfigError::MaxConnections);
        }
        Ok(())
    }

    /// The configuration with its connection cap lowered, where needed, to fit under
    /// `open_files` (the process's open-file limit, as [`vss_net::raise_open_file_limit`]
    /// leaves it) less [`RESERVED_DESCRIPTORS`], so load is shed before descriptors run out.
    pub fn fitted(self, open_files: u64) -> ServeConfig {
        let room = open_files.saturating_sub(RESERVED_DESCRIPTORS).max(1);
        ServeConfig {
            max_connections: self
                .max_connections
                .min(usize::try_from(room).unwrap_or(usize::MAX)),
            ..self
        }
    }
}

/// Serves `services` on `listener` within the bounds of `config`, until accepting fails for
/// a reason other than a lack of descriptors or memory (then that error); a `config` out of
/// range is refused at once.
pub async fn serve(
    listener: TcpListener,
    services: Services,
    config: ServeConfig,
) -> io::Result<()> {
    serve_observed(listener, services, config, None).await
}

/// [`serve`], with every answered request counted in `metrics`.
pub async fn serve_with_metrics(
    listener: TcpListener,
    services: Services,
    config: ServeConfig,
    metrics: HttpMetrics,
) -> io::Result<()> {
    serve_observed(listener, services, config, Some(metrics)).await
}

/// [`serve`], counting in `metrics` where given.
async fn serve_observed(
    listener: TcpListener,
    services: Services,
    config: ServeConfig,
    metrics: Option<HttpMetrics>,
) -> io::Result<()> {
    config
        .check()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let routes = router(services, config.body_timeout);
    let busy = busy_response(config.retry_after);
    vss_net::serve_bounded(
        &listener,
        config.max_connections,
        busy.as_bytes(),
        |stream| connection(stream, routes.clone(), config, metrics.clone()),
    )
    .await
}

/// The whole answer to a connection past the cap.
fn busy_response(retry_after: Duration) -> String {
    let body = "too many connections: try again later\n";
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nretry-after: {}\r\ncontent-type: text/plain\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        retry_after.as_secs().max(1),
        body.len()
    )
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

/// Serves one connection until the client closes it or a timeout does.
async fn connection(
    stream: TcpStream,
    routes: axum::Router,
    config: ServeConfig,
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
        .header_read_timeout(config.header_timeout)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    loop {
        // Asleep until an answer starts the keep-alive clock, or until that clock runs out.
        let idle = async {
            match activity.closes_at(config.keep_alive_timeout) {
                Some(at) => tokio::time::sleep_until(at).await,
                None => activity.answered.notified().await,
            }
        };
        tokio::select! {
            _ = connection.as_mut() => return,
            _ = idle => {
                if activity
                    .closes_at(config.keep_alive_timeout)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bound_is_checked_against_its_range() {
        let config = ServeConfig::default();
        assert_eq!(config.check(), Ok(()));
        let with = |change: fn(&mut ServeConfig)| {
            let mut c = config;
            change(&mut c);
            c.check()
        };
        assert_eq!(
            with(|c| c.header_timeout = Duration::ZERO),
            Err(ServeConfigError::Timeout("header timeout"))
        );
        assert_eq!(
            with(|c| c.body_timeout = MAX_TIMEOUT + Duration::from_secs(1)),
            Err(ServeConfigError::Timeout("body timeout"))
        );
        assert_eq!(
            with(|c| c.max_connections = 0),
            Err(ServeConfigError::MaxConnections)
        );
    }

    #[test]
    fn the_connection_cap_fits_under_the_open_file_limit() {
        let config = ServeConfig::default();
        assert_eq!(config.fitted(1 << 20), config);
        assert_eq!(config.fitted(1024).max_connections, 960);
        assert_eq!(config.fitted(10).max_connections, 1);
    }

    #[test]
    fn the_busy_answer_is_a_whole_503_with_retry_after() {
        let text = busy_response(Duration::from_secs(3));
        assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
        assert!(text.contains("\r\nretry-after: 3\r\n"), "{text}");
        let (head, body) = text.split_once("\r\n\r\n").expect("head and body");
        assert!(head.contains(&format!("content-length: {}", body.len())));
    }
}

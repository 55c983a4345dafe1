//! One listener served: each connection admitted by the listener's [`Gate`], its writes
//! bounded by `write_timeout` ([`vss_net::Guarded`]), its TLS handshake (on TCP) and HTTP/2
//! preface within `header_timeout`, then served by HTTP/2 within [`super::http2`]'s
//! bounds, each call within its client's deadline and its request read within
//! `request_timeout` ([`crate::deadline`]). What an attacker can repeat (refused, unserved
//! and stalled connections) is logged at most once per [`vss_net::WARN_INTERVAL`] per
//! kind, with a count.

use std::future::Future;
use std::io;
use std::sync::Arc;

use hyper::server::conn::http2::Builder;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tonic::service::Routes;
use vss_core::config::DaemonConfig;
use vss_net::{Guarded, Throttle, WARN_INTERVAL};

use super::gate::Gate;
use super::wait::{Admitted, Closed};
use super::{http2, Accept};
use crate::deadline::Deadlines;
use crate::stop::until_stopped;

/// What a listener serves with: its name in logs (`unix`, `tcp`), its caps, the API, the
/// HTTP/2 server, and its rate-limited warnings.
pub struct Listening {
    name: &'static str,
    gate: Gate,
    routes: Routes,
    http2: Builder<TokioExecutor>,
    write_timeout: std::time::Duration,
    request_timeout: std::time::Duration,
    refused: Throttle,
    unserved: Throttle,
    stalled: Throttle,
}

impl Listening {
    /// The listener `name` serving `routes` within `config`.
    pub fn new(name: &'static str, config: &DaemonConfig, routes: Routes) -> Listening {
        Listening {
            name,
            gate: Gate::new(config),
            routes,
            http2: http2::builder(config),
            write_timeout: config.write_timeout,
            request_timeout: config.request_timeout,
            refused: Throttle::new(WARN_INTERVAL),
            unserved: Throttle::new(WARN_INTERVAL),
            stalled: Throttle::new(WARN_INTERVAL),
        }
    }

    /// Logs (rate-limited) why a connection ended (`in_handshake`: before its TLS
    /// handshake was done), when an attacker could have caused it.
    fn ended(&self, error: &io::Error, in_handshake: bool) {
        let name = self.name;
        let closed = Closed::of(error);
        if closed == Some(Closed::ClientCap) {
            self.refused_one("max_connections_per_client");
        } else if closed.is_some() || in_handshake {
            if let Some(count) = self.unserved.hit() {
                tracing::warn!(listener = name, count, reason = %error, "connections closed before they were served (handshake or preface)");
            }
        } else if error.kind() == io::ErrorKind::TimedOut {
            self.stalled_one();
        } else {
            tracing::debug!(listener = name, error = %error, "connection ended");
        }
    }

    fn stalled_one(&self) {
        if let Some(count) = self.stalled.hit() {
            tracing::warn!(
                listener = self.name,
                count,
                "connections closed: the client did not read within write_timeout or answer a ping"
            );
        }
    }

    fn refused_one(&self, cap: &'static str) {
        if let Some(count) = self.refused.hit() {
            tracing::warn!(
                listener = self.name,
                count,
                cap,
                "connections refused: the cap is reached"
            );
        }
    }
}

/// The `io::Error` in `error`'s chain, if any.
fn io_error<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a io::Error> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(io) = error.downcast_ref::<io::Error>() {
            return Some(io);
        }
        next = error.source();
    }
    None
}

/// Serves `listener` until `stopping` turns true, each connection's bytes through
/// `handshake` (TLS, or none); then stops accepting and waits for its connections, which
/// finish their calls (HTTP/2 graceful shutdown).
pub async fn serve<L, H, F, S>(
    listener: L,
    handshake: H,
    listening: Listening,
    mut stopping: watch::Receiver<bool>,
) where
    L: Accept,
    H: Fn(Guarded<L::Io>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = io::Result<S>> + Send + 'static,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let this = Arc::new(listening);
    let mut connections = JoinSet::new();
    loop {
        let (io, client) = tokio::select! {
            _ = until_stopped(&mut stopping) => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or a connection reset before it was accepted:
                    // the listener itself is fine.
                    tracing::debug!(listener = this.name, error = %e, "accept failed");
                    tokio::time::sleep(vss_net::ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        let Some((place, mut wait)) = this.gate.admit(client).await else {
            this.refused_one("max_connections");
            continue;
        };
        let (this, handshake, mut stopping) = (this.clone(), handshake.clone(), stopping.clone());
        connections.spawn(async move {
            let io = Guarded::new(io, this.write_timeout);
            let io = match wait.within(handshake(io)).await {
                Ok(io) => io,
                Err(e) => return this.ended(&e, true),
            };
            let io = TokioIo::new(Admitted::new(io, wait, place));
            let routes = Deadlines::new(this.routes.clone(), this.request_timeout);
            let service = TowerToHyperService::new(routes);
            let mut connection = std::pin::pin!(this.http2.serve_connection(io, service));
            let served = tokio::select! {
                served = connection.as_mut() => served,
                _ = until_stopped(&mut stopping) => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            match served {
                Err(e) if e.is_timeout() => this.stalled_one(),
                Err(e) => {
                    if let Some(e) = io_error(&e) {
                        this.ended(e, false);
                    }
                }
                Ok(()) => {}
            }
        });
    }
    while connections.join_next().await.is_some() {}
}

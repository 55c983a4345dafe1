//! The terminator: accept TCP, complete the TLS handshake (TLS 1.3 and 1.2, session tickets,
//! ALPN), connect to the backend, and pass bytes both ways until either side closes or the
//! connection idles or a write stays blocked. Every wait is bounded; past the connection cap a client is closed at
//! once.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;
use vss_net::{accept_bounded, Accepted, Guarded, ServeLimits, ACCEPT_BACKOFF};

use crate::error::{Error, Result};
use crate::key::SniResolver;
use crate::pump::pump;

/// The defaults of a terminator's [`ServeLimits`]: the handshake completed within 10 s of
/// accept (the header timeout), a connection with no bytes either way closed after 60 s (the
/// idle timeout, which also runs while a write waits), a write to the client or the backend
/// blocked for 10 s closes the connection (the write timeout), 4,096 connections at once,
/// more closed at accept. The body and request timeouts and Retry-After are not applied.
pub fn default_limits() -> ServeLimits {
    ServeLimits {
        idle_timeout: Duration::from_secs(60),
        ..ServeLimits::default()
    }
}

/// How long connecting to the backend may take by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The service a terminator passes the plain bytes to, and how long connecting to it may
/// take (a bound of the terminator's own, beside its [`ServeLimits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backend {
    /// Its address.
    pub address: SocketAddr,
    /// The longest wait to connect to it: [`DEFAULT_CONNECT_TIMEOUT`] by default.
    pub connect_timeout: Duration,
}

impl Backend {
    /// The backend at `address`, connected to within [`DEFAULT_CONNECT_TIMEOUT`].
    pub fn new(address: SocketAddr) -> Self {
        Backend {
            address,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }

    /// Whether the connect timeout is in the range of every timeout (more than 0, at most
    /// [`vss_net::MAX_TIMEOUT`]).
    pub fn check(&self) -> Result<()> {
        Ok(vss_net::check_timeout(
            "connect timeout",
            self.connect_timeout,
        )?)
    }
}

/// The rustls server configuration of a terminator: TLS 1.3 and 1.2 on AWS-LC, the
/// certificate chosen by SNI, `alpn` offered in order, session tickets and a session cache.
pub fn server_config(resolver: SniResolver, alpn: &[String]) -> Result<rustls::ServerConfig> {
    if alpn
        .iter()
        .any(|p| !(1..=255).contains(&p.len()) || !p.bytes().all(|b| b.is_ascii_graphic()))
    {
        return Err(Error::Config(
            "an ALPN protocol is 1 to 255 printable ASCII characters",
        ));
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols = alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
    config.ticketer = rustls::crypto::aws_lc_rs::Ticketer::new()?;
    Ok(config)
}

/// What a terminator has done so far.
#[derive(Debug, Default)]
pub struct ServeStats {
    handshakes: AtomicU64,
    failed: AtomicU64,
    refused: AtomicU64,
}

impl ServeStats {
    /// Handshakes completed.
    pub fn handshakes(&self) -> u64 {
        self.handshakes.load(Ordering::Relaxed)
    }

    /// Handshakes that failed or timed out.
    pub fn failed(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }

    /// Connections closed at accept because the cap was reached.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}

/// Serves `listener` until `shutdown` completes: each connection's TLS ends here and its
/// bytes go to `backend`, within `limits` (the header timeout bounds the handshake from
/// accept, the idle timeout a connection with no bytes either way, blocked writes included,
/// the write timeout a write to the client or the backend that does not read, and the
/// connection cap); `limits` or a `backend` out of range are refused at once.
pub async fn serve(
    listener: TcpListener,
    config: Arc<rustls::ServerConfig>,
    backend: Backend,
    limits: ServeLimits,
    stats: Arc<ServeStats>,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    limits.check()?;
    backend.check()?;
    let acceptor = TlsAcceptor::from(config);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            accepted = accept_bounded(&listener, &slots) => accepted,
        };
        let (stream, slot) = match accepted {
            Ok(Accepted::Slot(stream, slot)) => (stream, slot),
            Ok(Accepted::Refused(stream)) => {
                stats.refused.fetch_add(1, Ordering::Relaxed);
                drop(stream);
                continue;
            }
            // Any other accept error: wait a little, keep serving.
            Err(_) => {
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let acceptor = acceptor.clone();
        let stats = Arc::clone(&stats);
        tokio::spawn(async move {
            let _slot = slot;
            let _ = stream.set_nodelay(true);
            let stream = Guarded::new(stream, limits.write_timeout);
            let tls =
                match tokio::time::timeout(limits.header_timeout, acceptor.accept(stream)).await {
                    Ok(Ok(tls)) => tls,
                    _ => {
                        stats.failed.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                };
            stats.handshakes.fetch_add(1, Ordering::Relaxed);
            let Ok(Ok(upstream)) =
                tokio::time::timeout(backend.connect_timeout, TcpStream::connect(backend.address))
                    .await
            else {
                return;
            };
            let _ = upstream.set_nodelay(true);
            let upstream = Guarded::new(upstream, limits.write_timeout);
            let _ = pump(tls, upstream, limits.idle_timeout).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_in_range_and_the_connect_timeout_is_checked() {
        assert_eq!(default_limits().check(), Ok(()));
        let backend = Backend::new(SocketAddr::from(([127, 0, 0, 1], 9)));
        assert!(backend.check().is_ok());
        for connect_timeout in [Duration::ZERO, Duration::from_secs(7200)] {
            let refused = Backend {
                connect_timeout,
                ..backend
            }
            .check()
            .expect_err("out of range");
            assert_eq!(
                refused.to_string(),
                "invalid setting: connect timeout: more than 0 and at most 3600 s"
            );
        }
    }
}

//! The terminator: accept TCP, complete the TLS handshake (TLS 1.3 and 1.2, session tickets,
//! ALPN), connect to the backend, and pass bytes both ways until either side closes or the
//! connection idles. Every wait is bounded; past the connection cap a client is closed at
//! once.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;
use vss_net::{accept_bounded, Accepted, ServeLimits, ACCEPT_BACKOFF};

use crate::error::{Error, Result};
use crate::key::SniResolver;

/// The defaults of a terminator's [`ServeLimits`]: the handshake completed within 10 s of
/// accept (the header timeout), a connection with no bytes either way closed after 60 s (the
/// idle timeout), 4,096 connections at once, more closed at accept. The body and request
/// timeouts and Retry-After are not applied.
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
/// bytes go to `backend`, within `limits` (the header timeout bounds the handshake, the idle
/// timeout a connection with no bytes either way, and the connection cap); `limits` or a
/// `backend` out of range are refused at once.
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
            let _ = pump(tls, upstream, limits.idle_timeout).await;
        });
    }
}

/// The size of each direction's buffer: four TLS records (fewer system calls and wake-ups
/// per MB than one). A connection holds two: 128 KiB, so 512 MiB at the default cap.
const BUFFER: usize = 64 * 1024;

/// Passes bytes both ways until both sides have closed; [`std::io::ErrorKind::TimedOut`]
/// when neither sends for `idle`.
async fn pump<A, B>(a: A, b: B, idle: Duration) -> std::io::Result<()>
where
    A: AsyncRead + AsyncWrite + Unpin,
    B: AsyncRead + AsyncWrite + Unpin,
{
    let (mut a_read, mut a_write) = tokio::io::split(a);
    let (mut b_read, mut b_write) = tokio::io::split(b);
    let mut a_buf = vec![0u8; BUFFER];
    let mut b_buf = vec![0u8; BUFFER];
    let (mut a_open, mut b_open) = (true, true);
    while a_open || b_open {
        tokio::select! {
            read = a_read.read(&mut a_buf), if a_open => match read? {
                0 => {
                    a_open = false;
                    b_write.shutdown().await?;
                }
                n => b_write.write_all(&a_buf[..n]).await?,
            },
            read = b_read.read(&mut b_buf), if b_open => match read? {
                0 => {
                    b_open = false;
                    a_write.shutdown().await?;
                }
                n => a_write.write_all(&b_buf[..n]).await?,
            },
            _ = tokio::time::sleep(idle) => {
                return Err(std::io::ErrorKind::TimedOut.into());
            }
        }
    }
    Ok(())
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

    #[tokio::test]
    async fn pump_passes_bytes_both_ways_and_ends_when_both_close() {
        let (a, mut a_peer) = tokio::io::duplex(64);
        let (b, mut b_peer) = tokio::io::duplex(64);
        let pumping = tokio::spawn(pump(a, b, Duration::from_secs(5)));
        a_peer.write_all(b"GET /").await.expect("write");
        let mut got = [0u8; 5];
        b_peer.read_exact(&mut got).await.expect("read");
        assert_eq!(&got, b"GET /");
        b_peer.write_all(b"200").await.expect("write");
        let mut got = [0u8; 3];
        a_peer.read_exact(&mut got).await.expect("read");
        assert_eq!(&got, b"200");
        drop(a_peer);
        drop(b_peer);
        pumping.await.expect("join").expect("clean end");
    }

    #[tokio::test]
    async fn an_idle_connection_times_out() {
        let (a, _a_peer) = tokio::io::duplex(64);
        let (b, _b_peer) = tokio::io::duplex(64);
        let result = pump(a, b, Duration::from_millis(50)).await;
        assert_eq!(
            result.map_err(|e| e.kind()),
            Err(std::io::ErrorKind::TimedOut)
        );
    }
}

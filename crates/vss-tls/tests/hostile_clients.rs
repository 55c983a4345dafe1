//! The terminator against clients that hold connections: silent ones, ones that drip their
//! handshake a byte at a time, ones that ask the backend for a flood of bytes and never read
//! them, and one that sends without end to a backend that stops reading. While they hold twice the connection cap, a legitimate client is served within
//! the timeout that cuts them plus 1 s.

mod common;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{client, pki, terminator, FLOOD, SINK};
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;
use vss_net::ServeLimits;
use vss_tls::default_limits;

/// How long past its documented timeout a legitimate client may wait.
const MARGIN: Duration = Duration::from_secs(1);

/// A TLS 1.3 client of the "ec.test" certificate, over a new connection.
async fn handshake(
    addr: SocketAddr,
    config: &Arc<ClientConfig>,
) -> io::Result<TlsStream<TcpStream>> {
    let tcp = TcpStream::connect(addr).await?;
    TlsConnector::from(Arc::clone(config))
        .connect(ServerName::try_from("ec.test").expect("name"), tcp)
        .await
}

/// One legitimate exchange: a handshake, "ping" through the echo backend and back.
async fn ping(addr: SocketAddr, config: &Arc<ClientConfig>) -> io::Result<()> {
    let mut tls = handshake(addr, config).await?;
    tls.write_all(b"ping").await?;
    let mut echoed = [0u8; 4];
    tls.read_exact(&mut echoed).await?;
    assert_eq!(&echoed, b"ping");
    Ok(())
}

/// A legitimate client that tries again (a connection past the cap is closed at once) until
/// served: panics unless served within `within`; how long it took.
async fn served_within(addr: SocketAddr, config: &Arc<ClientConfig>, within: Duration) -> Duration {
    let start = Instant::now();
    loop {
        let left = within.saturating_sub(start.elapsed());
        assert!(!left.is_zero(), "not served within {within:?}");
        if let Ok(Ok(())) = tokio::time::timeout(left, ping(addr, config)).await {
            return start.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A client that completes its handshake, asks the backend for a flood and never reads: the
/// connection held, or none where it was closed (past the cap).
async fn never_reading(
    addr: SocketAddr,
    config: &Arc<ClientConfig>,
) -> Option<TlsStream<TcpStream>> {
    let mut tls = handshake(addr, config).await.ok()?;
    tls.write_all(FLOOD).await.ok()?;
    tls.flush().await.ok()?;
    Some(tls)
}

/// A client that sends a TLS record header announcing a 512-byte handshake message, then one
/// byte every `every`: how long after it began to connect the server closed it.
async fn slow_drip(addr: SocketAddr, every: Duration) -> JoinHandle<Duration> {
    let start = Instant::now();
    let stream = TcpStream::connect(addr).await.expect("connect");
    tokio::spawn(async move {
        let (mut read, mut write) = stream.into_split();
        let drip = async {
            let header = [0x16u8, 0x03, 0x01, 0x02, 0x00];
            for byte in header.into_iter().chain(std::iter::repeat(0x01)) {
                if write.write_all(&[byte]).await.is_err() {
                    return;
                }
                tokio::time::sleep(every).await;
            }
        };
        let mut byte = [0u8; 1];
        tokio::select! {
            () = drip => {}
            // The server's end: the end of stream, or a reset.
            _ = read.read(&mut byte) => {}
        }
        start.elapsed()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_dripped_a_byte_at_a_time_is_cut_at_the_handshake_timeout() {
    let pki = pki();
    let handshake_timeout = Duration::from_secs(1);
    let limits = ServeLimits {
        header_timeout: handshake_timeout,
        ..default_limits()
    };
    let server = terminator(&pki, limits).await;
    // Each byte well within the timeout: only the deadline from accept can cut it.
    let cut = slow_drip(server.addr, Duration::from_millis(250))
        .await
        .await
        .expect("drip");
    assert!(cut >= handshake_timeout, "cut after {cut:?}");
    assert!(cut < handshake_timeout + MARGIN, "cut after {cut:?}");
    assert_eq!(server.stats.failed(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_cut_by_the_idle_or_the_write_timeout() {
    let pki = pki();
    let config = client(&pki, &[&rustls::version::TLS13]);
    let short = Duration::from_millis(800);
    let long = Duration::from_secs(60);
    // The idle timeout runs while the write waits; the write timeout cuts it on its own.
    for (idle_timeout, write_timeout) in [(short, long), (long, short)] {
        let limits = ServeLimits {
            idle_timeout,
            write_timeout,
            max_connections: 1,
            ..default_limits()
        };
        let server = terminator(&pki, limits).await;
        let attacker = never_reading(server.addr, &config)
            .await
            .expect("the one slot");
        let took = served_within(server.addr, &config, short + MARGIN).await;
        assert!(
            server.stats.refused() >= 1,
            "the attacker held the slot for a while ({took:?})"
        );
        drop(attacker);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_that_stops_reading_is_cut_by_the_write_timeout() {
    let pki = pki();
    let config = client(&pki, &[&rustls::version::TLS13]);
    let write_timeout = Duration::from_millis(800);
    let limits = ServeLimits {
        write_timeout,
        max_connections: 1,
        ..default_limits()
    };
    let server = terminator(&pki, limits).await;
    // A client that sends without end to a backend that reads nothing: the terminator's
    // write to the backend blocks (the idle timeout, 60 s, is far off).
    let mut tls = handshake(server.addr, &config).await.expect("the one slot");
    tls.write_all(SINK).await.expect("write");
    tls.flush().await.expect("flush");
    let sender = tokio::spawn(async move {
        let chunk = vec![0u8; 64 * 1024];
        while tls.write_all(&chunk).await.is_ok() {}
    });
    served_within(server.addr, &config, write_timeout + MARGIN).await;
    assert!(
        server.stats.refused() >= 1,
        "the sender held the slot for a while"
    );
    sender.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attackers_at_twice_the_cap_do_not_keep_a_client_out_past_the_timeouts() {
    let pki = pki();
    let config = client(&pki, &[&rustls::version::TLS13]);
    let timeout = Duration::from_secs(1);
    let cap = 6;
    let limits = ServeLimits {
        header_timeout: timeout,
        write_timeout: timeout,
        max_connections: cap,
        ..default_limits()
    };
    let server = terminator(&pki, limits).await;
    // Two of each kind take the slots, two more of each are closed at the cap; all are held
    // (or dripping) while the legitimate client tries.
    let (mut readers, mut drips, mut silent) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..2 {
        for _ in 0..2 {
            readers.push(never_reading(server.addr, &config).await);
            drips.push(slow_drip(server.addr, Duration::from_millis(250)).await);
            silent.push(TcpStream::connect(server.addr).await.expect("connect"));
        }
        // Let the first round settle in their slots before the second comes.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let held = readers.iter().filter(|r| r.is_some()).count();
    assert!(held >= 1, "a never-reading client held a slot");
    let took = served_within(server.addr, &config, timeout + MARGIN).await;
    assert!(
        server.stats.refused() >= 6,
        "the cap was full: {} refused, served after {took:?}",
        server.stats.refused()
    );
    // The never-reading clients' handshakes and the legitimate one's were signed.
    assert!(server.batcher.stats().signatures() > held as u64);
    drop((readers, drips, silent));
}

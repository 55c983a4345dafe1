//! vssd against clients that hold connections: silent ones (Unix and TCP), ones that stop
//! within the HTTP/2 preface or the TLS handshake, ones that never read; while twice the
//! connection cap of them hold on, a legitimate client is served within the documented
//! timeout plus 1 s, and each kind of warning is one log line. A `VerifyStream` ends with
//! DEADLINE_EXCEEDED at `stream_timeout`. Short timeouts and a small cap throughout.

mod common;

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{certificates, Daemon, Station};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};
use tonic::Code;
use vss_core::config::DaemonTcpConfig;
use vss_proto::proto::security_entity_client::SecurityEntityClient;
use vss_proto::proto::{StatusRequest, VerifyRequest};

/// The connection cap of each listener in these tests.
const CAP: usize = 4;
/// `header_timeout` and `write_timeout` in these tests.
const TIMEOUT: Duration = Duration::from_secs(1);
/// What the acceptance allows beyond the documented timeout.
const MARGIN: Duration = Duration::from_secs(1);
/// The HTTP/2 client preface.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

fn run<F: std::future::Future>(test: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(test)
}

/// A station whose vssd has the test's cap and timeouts, over TCP too when `tls` is given;
/// `per_client` connections per client.
fn station(tls: Option<(&Path, SocketAddr)>, per_client: usize) -> Station {
    Station::new(&["A"], 1, |c| {
        c.daemon.max_connections = CAP;
        c.daemon.max_connections_per_client = per_client;
        c.daemon.header_timeout = TIMEOUT;
        c.daemon.write_timeout = TIMEOUT;
        c.daemon.tcp = tls.map(|(dir, listen)| DaemonTcpConfig {
            listen,
            certificate: dir.join("server.pem"),
            key: dir.join("server.key"),
            client_ca: dir.join("ca.pem"),
        });
    })
}

/// `Status` over a new connection to the Unix socket.
async fn unix_status(socket: &Path) -> Result<(), String> {
    let mut client = vss_proto::client::connect(socket)
        .await
        .map_err(|e| e.to_string())?;
    client
        .status(StatusRequest {})
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

/// `Status` over a new TLS connection with the client certificate of `dir`.
async fn tcp_status(listen: SocketAddr, dir: &Path) -> Result<(), String> {
    tcp_status_from(listen, dir, None).await.map(drop)
}

/// `Status` over a new TLS connection from `local` (an address of the loopback network),
/// with the client certificate of `dir`; the client, its connection open.
async fn tcp_status_from(
    listen: SocketAddr,
    dir: &Path,
    local: Option<std::net::IpAddr>,
) -> Result<SecurityEntityClient<tonic::transport::Channel>, String> {
    let read = |name: &str| std::fs::read(dir.join(name)).expect(name);
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(read("ca.pem")))
        .domain_name("localhost")
        .identity(Identity::from_pem(read("client.pem"), read("client.key")));
    let channel = Endpoint::from_shared(format!("https://{listen}"))
        .expect("uri")
        .local_address(local)
        .tls_config(tls)
        .expect("tls")
        .connect()
        .await
        .map_err(|e| e.to_string())?;
    let mut client = SecurityEntityClient::new(channel);
    client
        .status(StatusRequest {})
        .await
        .map_err(|e| e.to_string())?;
    Ok(client)
}

/// Whether the daemon closes `stream` by `deadline`.
async fn closed_by(stream: &mut (impl AsyncRead + Unpin), deadline: Instant) -> bool {
    let mut byte = [0u8; 1];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut byte)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            // The server's SETTINGS: not a close yet.
            Ok(Ok(_)) => continue,
        }
    }
}

/// Lines of the daemon's log that contain `what`.
fn lines(daemon: &Daemon, what: &str) -> Vec<String> {
    let log = daemon.stderr();
    log.lines()
        .filter(|l| l.contains(what))
        .map(String::from)
        .collect()
}

#[test]
fn silent_and_half_open_connections_neither_lock_out_clients_nor_flood_the_log() {
    let tls = tempfile::tempdir().expect("dir");
    assert!(certificates(tls.path()), "openssl cannot make certificates");
    let listen = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("port")
        .local_addr()
        .expect("addr");
    let station = station(Some((tls.path(), listen)), CAP);
    let daemon = Daemon::start(&station, &[]);
    run(async {
        let attacked = Instant::now();
        let (mut unix, mut tcp) = (Vec::new(), Vec::new());
        for _ in 0..2 * CAP {
            unix.push(
                tokio::net::UnixStream::connect(&daemon.socket)
                    .await
                    .expect("silent"),
            );
            let mut half = tokio::net::UnixStream::connect(&daemon.socket)
                .await
                .expect("unix");
            half.write_all(&PREFACE[..16])
                .await
                .expect("half a preface");
            unix.push(half);
            tcp.push(
                tokio::net::TcpStream::connect(listen)
                    .await
                    .expect("silent"),
            );
            let mut hello = tokio::net::TcpStream::connect(listen).await.expect("tcp");
            // The start of a TLS record, never the rest of the ClientHello.
            hello
                .write_all(&[0x16, 0x03, 0x01])
                .await
                .expect("half a hello");
            tcp.push(hello);
        }

        let started = Instant::now();
        let served = unix_status(&daemon.socket).await;
        assert!(served.is_ok(), "{served:?} {}", daemon.stderr());
        assert!(
            started.elapsed() <= TIMEOUT + MARGIN,
            "{:?}",
            started.elapsed()
        );
        let started = Instant::now();
        let served = tcp_status(listen, tls.path()).await;
        assert!(served.is_ok(), "{served:?} {}", daemon.stderr());
        assert!(
            started.elapsed() <= TIMEOUT + MARGIN,
            "{:?}",
            started.elapsed()
        );

        // Every attacker is closed within header_timeout (a displaced one at once).
        let deadline = attacked + 2 * TIMEOUT + MARGIN;
        for stream in &mut unix {
            assert!(closed_by(stream, deadline).await, "a Unix attacker held on");
        }
        for stream in &mut tcp {
            assert!(closed_by(stream, deadline).await, "a TCP attacker held on");
        }
    });
    // 32 connections closed unserved, one line per listener; none refused.
    let unserved = lines(&daemon, "closed before they were served");
    assert_eq!(unserved.len(), 2, "{}", daemon.stderr());
    assert!(unserved.iter().any(|l| l.contains("unix")), "{unserved:?}");
    assert!(unserved.iter().any(|l| l.contains("tcp")), "{unserved:?}");
    assert!(lines(&daemon, "refused").is_empty(), "{}", daemon.stderr());
}

#[test]
fn one_address_holds_at_most_its_share_of_the_connections() {
    let tls = tempfile::tempdir().expect("dir");
    assert!(certificates(tls.path()), "openssl cannot make certificates");
    let listen = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("port")
        .local_addr()
        .expect("addr");
    let station = station(Some((tls.path(), listen)), CAP / 2);
    let daemon = Daemon::start(&station, &[]);
    run(async {
        // Twice the cap of clients with certificates, all from 127.0.0.2, each keeping its
        // connection: the address gets its share only.
        let attacker = Some(std::net::IpAddr::from([127, 0, 0, 2]));
        let mut held = Vec::new();
        for _ in 0..2 * CAP {
            if let Ok(client) = tcp_status_from(listen, tls.path(), attacker).await {
                held.push(client);
            }
        }
        assert_eq!(held.len(), CAP / 2, "{}", daemon.stderr());
        let started = Instant::now();
        let served = tcp_status(listen, tls.path()).await;
        assert!(served.is_ok(), "{served:?} {}", daemon.stderr());
        assert!(
            started.elapsed() <= TIMEOUT + MARGIN,
            "{:?}",
            started.elapsed()
        );
    });
    let refused = lines(&daemon, "max_connections_per_client");
    assert_eq!(refused.len(), 1, "{}", daemon.stderr());
}

/// A client that sends its preface and then pings without end and never reads: the daemon's
/// answers fill the socket and its writes block.
fn deaf_pinger(socket: &Path) -> std::thread::JoinHandle<()> {
    let mut stream = std::os::unix::net::UnixStream::connect(socket).expect("connect");
    std::thread::spawn(move || {
        let settings = [0u8, 0, 0, 4, 0, 0, 0, 0, 0];
        let ping = [0u8, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
        let pings: Vec<u8> = ping
            .iter()
            .copied()
            .cycle()
            .take(ping.len() * 1024)
            .collect();
        if stream.write_all(PREFACE).is_err() || stream.write_all(&settings).is_err() {
            return;
        }
        // Until the daemon closes the connection.
        while stream.write_all(&pings).is_ok() {}
    })
}

#[test]
fn clients_that_never_read_are_closed_within_write_timeout() {
    let station = station(None, CAP);
    let daemon = Daemon::start(&station, &[]);
    let attackers: Vec<_> = (0..2 * CAP).map(|_| deaf_pinger(&daemon.socket)).collect();
    run(async {
        // The attackers hold every place: a client is turned away until they are closed.
        let started = Instant::now();
        while let Err(e) = unix_status(&daemon.socket).await {
            assert!(
                started.elapsed() <= TIMEOUT + MARGIN,
                "not served within write_timeout + 1 s: {e}\n{}",
                daemon.stderr()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    for attacker in attackers {
        attacker.join().expect("attacker");
    }
    let stalled = lines(&daemon, "did not read within write_timeout");
    assert_eq!(stalled.len(), 1, "{}", daemon.stderr());
}

#[test]
fn a_verify_stream_ends_with_deadline_exceeded_at_stream_timeout() {
    let station = Station::new(&["A"], 1, |c| c.daemon.stream_timeout = TIMEOUT);
    let daemon = Daemon::start(&station, &[]);
    run(async {
        let mut client = daemon.client().await;
        // A stream that sends nothing and stays open.
        let (_sender, requests) = tokio::sync::mpsc::channel::<VerifyRequest>(1);
        let started = Instant::now();
        let mut answers = client
            .verify_stream(tokio_stream::wrappers::ReceiverStream::new(requests))
            .await
            .expect("stream")
            .into_inner();
        let end = tokio::time::timeout(TIMEOUT + MARGIN, answers.message())
            .await
            .expect("the stream ends in time")
            .expect_err("a status");
        assert_eq!(end.code(), Code::DeadlineExceeded, "{end:?}");
        assert!(started.elapsed() >= TIMEOUT, "{:?}", started.elapsed());
    });
}

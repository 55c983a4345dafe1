//! The roles' HTTP services under hostile clients, over real loopback TCP: for each attack
//! (silent, a head a byte at a time, a body a byte at a time, never reading the answers, an
//! oversized declared body) twice the connection cap of attackers hold their connections
//! while a legitimate client is served within the bound that ends the attack plus 1 s; one
//! address flooding the issuer with offers, the user service with sessions or the revocation
//! authority with handles is refused 429 while another is served, and the local commands
//! keep their reserve of offers. Also the 413 at once and the 415.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::{TcpSocket, TcpStream};
use vss_cred::roles::Inspector;
use vss_cred::service::inspector::InspectorService;
use vss_cred::service::{default_limits, serve, Role, MAX_BODY_LEN};
use vss_net::ServeLimits;

/// The roles' PIN and PUK.
const PIN: &str = "1234";
const PUK: &str = "12345678";
/// The connection cap in these tests; each attack holds twice as many connections.
const CAP: usize = 4;
/// Whatever the attack, the legitimate client is served within its bound and this.
const MARGIN: Duration = Duration::from_secs(1);
/// The legitimate client's address; attackers come from others of 127/8.
const HONEST: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
const ATTACKER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

const PUBLIC: &[u8] = b"GET /public HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n";

/// Short bounds, a small cap.
fn limits() -> ServeLimits {
    ServeLimits {
        idle_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_millis(1000),
        write_timeout: Duration::from_millis(500),
        max_connections: CAP,
        ..default_limits()
    }
}

/// A role served on 127.0.0.1 with `limits`, until the runtime drops.
struct Server {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

fn inspector(limits: ServeLimits) -> Server {
    let dir = tempfile::tempdir().expect("tempdir");
    Inspector::create(dir.path(), PIN, PUK).expect("inspector");
    let service = InspectorService::open(dir.path(), PIN).expect("service");
    start(Role::Inspector(Arc::new(service)), limits, dir)
}

fn start(role: Role, limits: ServeLimits, dir: tempfile::TempDir) -> Server {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let addr = runtime.block_on(async {
        // A send buffer of a slow path rather than loopback's megabytes (the accepted
        // connections inherit it): an answer left unread blocks the server's writes soon.
        let socket = TcpSocket::new_v4().expect("socket");
        socket.set_send_buffer_size(16 * 1024).expect("send buffer");
        socket
            .bind("127.0.0.1:0".parse().expect("address"))
            .expect("bind");
        let listener = socket.listen(1024).expect("listen");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(serve(role, listener, limits));
        addr
    });
    Server {
        runtime,
        addr,
        _dir: dir,
    }
}

/// A connection to `addr` from `from`, its receive buffer small where asked.
async fn connect(addr: SocketAddr, from: IpAddr, small_window: bool) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    if small_window {
        socket.set_recv_buffer_size(4096).expect("receive buffer");
    }
    socket.bind(SocketAddr::new(from, 0)).expect("bind");
    socket.connect(addr).await.expect("connect")
}

/// One request from `from` and the whole answer (the request asks to close): status and
/// text, or `None` if the connection failed.
async fn ask(addr: SocketAddr, from: IpAddr, request: &[u8]) -> Option<(u16, String)> {
    let exchange = async {
        let mut stream = connect(addr, from, false).await;
        stream.write_all(request).await.ok()?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.ok()?;
        status(&answer)
    };
    tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .ok()
        .flatten()
}

/// The status and text of an answer.
fn status(answer: &[u8]) -> Option<(u16, String)> {
    let text = String::from_utf8_lossy(answer).into_owned();
    let code = text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()?;
    Some((code, text))
}

/// How long the legitimate client waited for a 200 to `request`, trying again after each
/// refusal; fails past `bound` + [`MARGIN`].
async fn served_within(addr: SocketAddr, request: &[u8], bound: Duration) -> Duration {
    let started = Instant::now();
    loop {
        if let Some((200, _)) = ask(addr, HONEST, request).await {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < bound + MARGIN,
            "not served within {:?}",
            bound + MARGIN
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Twice the cap of attackers, each set up by `attack` (what it returns is held), held
/// while the legitimate client is first refused (the attack holds every slot), then served
/// within `bound` + 1 s.
fn hold_while_served<F, Fut, H>(server: &Server, bound: Duration, attack: F)
where
    F: Fn(TcpStream) -> Fut,
    Fut: std::future::Future<Output = H>,
{
    let addr = server.addr;
    server.runtime.block_on(async {
        let mut held = Vec::new();
        for _ in 0..2 * CAP {
            held.push(attack(connect(addr, ATTACKER, true).await).await);
        }
        let refused = ask(addr, HONEST, PUBLIC).await;
        assert!(
            !matches!(refused, Some((200, _))),
            "the attack holds every slot: {refused:?}"
        );
        let waited = served_within(addr, PUBLIC, bound).await;
        println!("served after {waited:?} (bound {bound:?})");
        drop(held);
    });
}

#[test]
fn silent_clients_are_closed_at_the_idle_timeout() {
    let server = inspector(limits());
    hold_while_served(&server, limits().idle_timeout, |stream| async { stream });
}

/// Writes `start`, then `byte` every 50 ms in the background until the server closes; the
/// reading half, to hold.
fn drip(stream: TcpStream, start: &'static [u8], byte: u8) -> OwnedReadHalf {
    let (read, mut write) = stream.into_split();
    tokio::spawn(async move {
        if write.write_all(start).await.is_err() {
            return;
        }
        while write.write_all(&[byte]).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    read
}

#[test]
fn a_head_sent_a_byte_at_a_time_is_cut_at_the_idle_timeout() {
    let server = inspector(limits());
    hold_while_served(&server, limits().idle_timeout, |stream| async {
        drip(stream, b"GET /public HTTP/1.1\r\nx-slow: ", b'a')
    });
}

#[test]
fn a_body_sent_a_byte_at_a_time_is_cut_at_the_request_timeout() {
    let server = inspector(limits());
    let head = b"POST /inspect HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
                 content-length: 100000\r\n\r\n{\"token\": ";
    hold_while_served(&server, limits().request_timeout, |stream| async {
        drip(stream, head, b' ')
    });
}

#[test]
fn clients_that_never_read_are_closed_at_the_write_timeout() {
    let server = inspector(limits());
    hold_while_served(&server, limits().write_timeout, |mut stream| async move {
        // Pipelined requests whose answers (~400 bytes each) fill both windows many times.
        let burst = String::from_utf8(PUBLIC.repeat(400))
            .expect("text")
            .replace("connection: close\r\n", "");
        stream.write_all(burst.as_bytes()).await.expect("requests");
        stream
    });
}

const OVERSIZED: &[u8] = b"POST /inspect HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
                           content-length: 1073741824\r\n\r\n{\"token\":";

#[test]
fn oversized_declared_bodies_are_refused_at_once_and_closed_after_the_linger() {
    let server = inspector(limits());
    hold_while_served(&server, limits().idle_timeout, |mut stream| async move {
        stream.write_all(OVERSIZED).await.expect("request");
        stream
    });
}

#[test]
fn a_declared_length_over_the_bound_is_answered_413_at_once() {
    // The default request timeout (60 s) would otherwise run first.
    let server = inspector(default_limits());
    server.runtime.block_on(async {
        let mut stream = connect(server.addr, HONEST, false).await;
        stream.write_all(OVERSIZED).await.expect("request");
        let started = Instant::now();
        // The answer, not the connection's end (what the client still sends is read first).
        let mut answer = vec![0u8; 4096];
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer));
        let read = read.await.expect("answered within 5 s").expect("read");
        let (code, text) = status(&answer[..read]).expect("an answer");
        assert_eq!(code, 413, "{text}");
        assert!(text.contains("\"error\""), "{text}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    });
}

#[test]
fn a_client_sending_its_whole_oversized_body_reads_the_413() {
    let server = inspector(default_limits());
    let len = MAX_BODY_LEN + 1;
    let mut request = format!(
        "POST /inspect HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {len}\r\nconnection: close\r\n\r\n"
    )
    .into_bytes();
    request.resize(request.len() + len, b' ');
    let answer = server.runtime.block_on(ask(server.addr, HONEST, &request));
    let (code, text) = answer.expect("an answer, not a reset");
    assert_eq!(code, 413, "{text}");
}

#[test]
fn a_post_body_that_is_not_json_is_answered_415() {
    let server = inspector(limits());
    let post = |kind: Option<&str>, body: &str| {
        let kind = kind.map_or(String::new(), |k| format!("content-type: {k}\r\n"));
        let request = format!(
            "POST /inspect HTTP/1.1\r\nhost: x\r\n{kind}content-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        );
        let answer = server
            .runtime
            .block_on(ask(server.addr, HONEST, request.as_bytes()));
        answer.expect("an answer").0
    };
    assert_eq!(post(Some("text/plain"), "{}"), 415);
    assert_eq!(post(Some("application/x-www-form-urlencoded"), "a=b"), 415);
    assert_eq!(post(None, "{}"), 415);
    // JSON, with or without parameters, reaches the route (which finds it malformed).
    assert_eq!(post(Some("application/json"), "{}"), 400);
    assert_eq!(post(Some("Application/JSON; charset=utf-8"), "{}"), 400);
}

#[path = "hostile/offers.rs"]
mod offers;

#[path = "hostile/sessions.rs"]
mod sessions;

#[path = "hostile/handles.rs"]
mod handles;

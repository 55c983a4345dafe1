//! Hostile clients against the PKI's HTTP server (issue 33), over real sockets on loopback.
//! For each way of holding a connection (silent, a head dripped a byte at a time, a body
//! dripped, pipelined requests whose answers are never read, a declared body over the bound)
//! twice the connection cap of attackers hold connections while a legitimate client asks
//! `/health`: it is served within the one bound that frees their slots plus 1 s, every other
//! bound a minute long.

#[path = "common/loopback.rs"]
mod loopback;
#[path = "common/made_pki.rs"]
mod made_pki;
#[path = "common/raw_http.rs"]
mod raw_http;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use raw_http::{connect, health, read_until_closed, served};
use vss_net::ServeLimits;

/// Connections served at once in these tests.
const CAP: usize = 4;
/// The bound under test.
const SHORT: Duration = Duration::from_secs(2);
/// Every other bound.
const LONG: Duration = Duration::from_secs(60);
/// How often a dripping attacker sends its next byte.
const DRIP_EVERY: Duration = Duration::from_millis(200);

/// The bounds with every timeout [`LONG`] but the one `short` sets, and [`CAP`] connections.
fn limits(short: fn(&mut ServeLimits)) -> ServeLimits {
    let mut limits = ServeLimits {
        header_timeout: LONG,
        body_timeout: LONG,
        idle_timeout: LONG,
        write_timeout: LONG,
        max_connections: CAP,
        ..ServeLimits::default()
    };
    short(&mut limits);
    limits
}

/// How attackers hold their connections.
struct Attack {
    /// What each sends first; it returns once its connection is held.
    opening: fn(&mut TcpStream),
    /// The byte each then sends every [`DRIP_EVERY`], while the server takes it.
    drip: Option<u8>,
}

/// A connection to `address` whose receive buffer is a few KiB, so that answers it does not
/// read soon block the server's writes.
fn small_window(address: &str) -> TcpStream {
    let address: SocketAddr = address.parse().expect("address");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("runtime");
    let stream = runtime
        .block_on(async {
            let socket = tokio::net::TcpSocket::new_v4()?;
            socket.set_recv_buffer_size(4096)?;
            socket.connect(address).await?.into_std()
        })
        .expect("connect");
    stream.set_nonblocking(false).expect("blocking");
    stream
}

/// Sets the flag when dropped, a failed assertion included.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Serves a PKI within `limits`, opens twice its cap of connections (the first ones take
/// every slot) and runs `attack` on each, holding them all; once every attacker is in place,
/// asks `/health` until it is answered 200, each attempt before turned away with 503. How
/// long that took, and whether the first attempt was turned away.
fn served_while_attacked(limits: ServeLimits, attack: &Attack) -> (Duration, bool) {
    let (_pki, address) = served(limits);
    let attackers: Vec<TcpStream> = (0..2 * CAP).map(|_| small_window(&address)).collect();
    let stop = AtomicBool::new(false);
    let (ready, in_place) = mpsc::channel();
    std::thread::scope(|s| {
        let _stop = StopOnDrop(&stop);
        for mut stream in attackers {
            let (ready, stop) = (ready.clone(), &stop);
            s.spawn(move || {
                let _stop = StopOnDrop(stop);
                (attack.opening)(&mut stream);
                let _ = ready.send(());
                let mut drip = attack.drip;
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(DRIP_EVERY);
                    if let Some(byte) = drip {
                        drip = stream.write_all(&[byte]).is_ok().then_some(byte);
                    }
                }
            });
        }
        for _ in 0..2 * CAP {
            in_place
                .recv_timeout(Duration::from_secs(30))
                .expect("an attacker in place");
        }
        let held = Instant::now();
        let mut first_turned_away = None;
        loop {
            let (status, _) = health(&address);
            first_turned_away.get_or_insert(status != "HTTP/1.1 200 OK");
            if status == "HTTP/1.1 200 OK" {
                return (held.elapsed(), first_turned_away == Some(true));
            }
            // Turned away: a 503, or a reset for the request it did not read (empty).
            assert!(
                status.is_empty() || status.starts_with("HTTP/1.1 503 "),
                "{status}"
            );
            assert!(
                held.elapsed() < SHORT + Duration::from_secs(5),
                "never served"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    })
}

/// Asserts that the legitimate client was turned away while the attack held every slot, and
/// then served within [`SHORT`] + 1 s.
fn assert_served_in_time((took, turned_away): (Duration, bool)) {
    assert!(turned_away, "the attack held no slot");
    assert!(
        took < SHORT + Duration::from_secs(1),
        "served after {took:?}"
    );
}

#[test]
fn silent_connections_are_closed_at_the_header_timeout() {
    let attack = Attack {
        opening: |_| {},
        drip: None,
    };
    let limits = limits(|l| l.header_timeout = SHORT);
    assert_served_in_time(served_while_attacked(limits, &attack));
}

#[test]
fn a_head_dripped_a_byte_at_a_time_is_cut_at_the_header_timeout() {
    let attack = Attack {
        opening: |stream| {
            let _ = stream.write_all(b"GET /health HTTP/1.1\r\nhost: vss\r\nx-slow: ");
        },
        drip: Some(b'a'),
    };
    let limits = limits(|l| l.header_timeout = SHORT);
    assert_served_in_time(served_while_attacked(limits, &attack));
}

#[test]
fn a_body_dripped_a_byte_at_a_time_is_cut_at_the_body_timeout() {
    let attack = Attack {
        opening: |stream| {
            let _ = stream.write_all(
                b"POST /ea/enrolment HTTP/1.1\r\nhost: vss\r\n\
                  content-type: application/x-its-request\r\ncontent-length: 60000\r\n\r\n",
            );
        },
        drip: Some(b'0'),
    };
    let limits = limits(|l| l.body_timeout = SHORT);
    assert_served_in_time(served_while_attacked(limits, &attack));
}

#[test]
fn pipelined_requests_whose_answers_are_never_read_are_cut_at_the_write_timeout() {
    let attack = Attack {
        // Requests until the server stops taking them: its answers fill the way back.
        opening: |stream| {
            stream
                .set_write_timeout(Some(Duration::from_millis(300)))
                .expect("write timeout");
            let requests = b"GET /health HTTP/1.1\r\nhost: vss\r\n\r\n".repeat(256);
            let mut sent = 0;
            while sent < 64 << 20 {
                match stream.write(&requests) {
                    Ok(n) => sent += n,
                    Err(_) => return,
                }
            }
            panic!("the server read 64 MiB of requests whose answers were not read");
        },
        drip: None,
    };
    let limits = limits(|l| l.write_timeout = SHORT);
    assert_served_in_time(served_while_attacked(limits, &attack));
}

/// The status line of the answer to a request the server refuses at once (or 503 past the
/// cap, or a reset for a request it did not read), read within a second.
fn refused_at_once(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(1)))
        .expect("read timeout");
    let mut answer = [0u8; 12];
    match stream.read_exact(&mut answer) {
        Ok(()) => String::from_utf8_lossy(&answer).into_owned(),
        Err(e) if e.kind() == ErrorKind::ConnectionReset => "reset".into(),
        Err(e) => panic!("no answer within a second: {e}"),
    }
}

#[test]
fn a_declared_body_over_the_bound_is_refused_at_once() {
    let attack = Attack {
        opening: |stream| {
            let _ = stream.write_all(
                b"POST /aa/authorization HTTP/1.1\r\nhost: vss\r\n\
                  content-type: application/x-its-request\r\ncontent-length: 1073741824\r\n\r\n\
                  0123456789",
            );
            let status = refused_at_once(stream);
            assert!(
                ["HTTP/1.1 413", "HTTP/1.1 503", "reset"].contains(&status.as_str()),
                "{status}"
            );
        },
        drip: None,
    };
    // Every timeout long: only the declared length can have the body refused at once.
    let (took, _) = served_while_attacked(limits(|_| {}), &attack);
    assert!(took < Duration::from_secs(1), "served after {took:?}");
}

#[test]
fn a_chunked_body_over_the_bound_is_413() {
    let (_pki, address) = served(limits(|_| {}));
    let mut stream = connect(&address);
    let chunk = vec![b'0'; 70 * 1024];
    stream
        .write_all(
            b"POST /ea/enrolment HTTP/1.1\r\nhost: vss\r\n\
              content-type: application/x-its-request\r\ntransfer-encoding: chunked\r\n\r\n",
        )
        .expect("head");
    stream
        .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
        .expect("chunk size");
    stream.write_all(&chunk).expect("chunk");
    let answer = String::from_utf8_lossy(&read_until_closed(&mut stream)).into_owned();
    assert!(answer.starts_with("HTTP/1.1 413 "), "{answer}");
}

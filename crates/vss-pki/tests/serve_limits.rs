//! The bounds of the HTTP server (issue 18, defect 3), over real sockets on loopback: with
//! 2,000 half-open connections `/health` still answers within a second and the half-open
//! ones are closed after the header timeout; past the connection cap a client gets 503 with
//! `Retry-After`; a body that stalls gets 408; an answered connection left idle is closed
//! after the keep-alive timeout.

#[path = "common/loopback.rs"]
mod loopback;
#[path = "common/made_pki.rs"]
mod made_pki;
#[path = "common/raw_http.rs"]
mod raw_http;

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use raw_http::{connect, health, read_until_closed, served};
use vss_net::raise_open_file_limit;
use vss_net::ServeLimits;

#[test]
fn health_answers_within_a_second_under_2000_half_open_connections_that_the_header_timeout_closes()
{
    let header_timeout = Duration::from_secs(3);
    // Both ends of every connection are in this process: two descriptors each.
    let open_files = raise_open_file_limit().expect("open-file limit");
    let wanted = 2_000u64;
    let half_open = wanted.min(open_files.saturating_sub(256) / 2);
    if half_open < wanted {
        println!(
            "only {half_open} half-open connections: the open-file limit here is {open_files}"
        );
    }
    assert!(half_open >= 400, "open-file limit {open_files} is too low");
    let (_pki, address) = served(ServeLimits {
        header_timeout,
        ..ServeLimits::default()
    });
    let first_opened = Instant::now();
    let mut idle: Vec<TcpStream> = (0..half_open)
        .map(|i| {
            let mut stream = connect(&address);
            // Half of them send half a head, half send nothing at all.
            if i % 2 == 0 {
                stream
                    .write_all(b"POST /ea/enrolment HTTP/1.1\r\nhost: vss\r\n")
                    .expect("half a head");
            }
            stream
        })
        .collect();
    let last_opened = Instant::now();
    let (status, took) = health(&address);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(took < Duration::from_secs(1), "/health took {took:?}");

    // The first one opened is closed by its header timeout, not before.
    read_until_closed(&mut idle[0]);
    let first_closed = first_opened.elapsed();
    assert!(
        first_closed >= header_timeout - Duration::from_millis(100),
        "closed after {first_closed:?}, before the header timeout"
    );
    for stream in &mut idle[1..] {
        read_until_closed(stream);
    }
    let all_closed = last_opened.elapsed();
    assert!(
        all_closed < header_timeout + Duration::from_secs(10),
        "the last closed {all_closed:?} after the last was opened"
    );
    let (status, _) = health(&address);
    assert_eq!(status, "HTTP/1.1 200 OK");
}

#[test]
fn past_the_connection_cap_a_client_gets_503_with_retry_after_until_one_closes() {
    let (_pki, address) = served(ServeLimits {
        max_connections: 8,
        ..ServeLimits::default()
    });
    let mut held: Vec<TcpStream> = (0..8).map(|_| connect(&address)).collect();
    let mut extra = connect(&address);
    let answer = String::from_utf8_lossy(&read_until_closed(&mut extra)).into_owned();
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.contains("\r\nretry-after: 1\r\n"), "{answer}");

    // One held connection closes: its slot serves the next client.
    held.pop();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, _) = health(&address);
        if status == "HTTP/1.1 200 OK" {
            break;
        }
        assert!(status.starts_with("HTTP/1.1 503 "), "{status}");
        assert!(Instant::now() < deadline, "the slot was never freed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_stalled_body_gets_408_and_an_idle_answered_connection_is_closed() {
    let (_pki, address) = served(ServeLimits {
        header_timeout: Duration::from_secs(20),
        body_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(1),
        ..ServeLimits::default()
    });
    let mut stream = connect(&address);
    stream
        .write_all(
            b"POST /ea/enrolment HTTP/1.1\r\nhost: vss\r\n\
              content-type: application/x-its-request\r\ncontent-length: 100\r\n\r\n0123456789",
        )
        .expect("a head and a tenth of the body");
    let started = Instant::now();
    let answer = String::from_utf8_lossy(&read_until_closed(&mut stream)).into_owned();
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(10));

    // A kept-alive connection, answered, then left idle: closed after about a second, long
    // before the 20 s header timeout.
    let mut stream = connect(&address);
    stream
        .write_all(b"GET /health HTTP/1.1\r\nhost: vss\r\n\r\n")
        .expect("request");
    let started = Instant::now();
    let answer = String::from_utf8_lossy(&read_until_closed(&mut stream)).into_owned();
    let idle = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(
        idle >= Duration::from_millis(900) && idle < Duration::from_secs(10),
        "closed after {idle:?}"
    );
}

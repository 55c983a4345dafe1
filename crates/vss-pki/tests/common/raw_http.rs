//! A PKI served on loopback within given bounds, and a client that speaks HTTP/1.1 over a
//! plain TCP socket, byte by byte as a test needs.

// Each test file uses some of these.
#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use vss_net::ServeLimits;

use crate::loopback::Loopback;

/// A PKI served within `config`, and its `host:port`.
pub fn served(config: ServeLimits) -> (Loopback, String) {
    let mut pki = Loopback::new("bounded");
    pki.start(config);
    let address = pki.url.trim_start_matches("http://").to_string();
    (pki, address)
}

/// A connection to `address` whose reads give up after 30 s.
pub fn connect(address: &str) -> TcpStream {
    let stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    stream
}

/// What the server sent until it closed the connection (a reset counts as a close).
pub fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return bytes,
            Ok(n) => bytes.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return bytes,
            Err(e) => panic!("the connection stayed open: {e}"),
        }
    }
}

/// One `GET /health` on a new connection: the status line and how long it took.
pub fn health(address: &str) -> (String, Duration) {
    let started = Instant::now();
    let mut stream = connect(address);
    stream
        .write_all(b"GET /health HTTP/1.1\r\nhost: vss\r\nconnection: close\r\n\r\n")
        .expect("request");
    let answer = String::from_utf8_lossy(&read_until_closed(&mut stream)).into_owned();
    let status = answer.lines().next().unwrap_or_default().to_string();
    (status, started.elapsed())
}

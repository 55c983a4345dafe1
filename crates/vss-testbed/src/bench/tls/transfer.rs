//! The bulk transfer: the file each server sends (from the run's directory through
//! `s_server -WWW`, from a plain backend behind `vss tls serve`), fetching it over one
//! AES-256-GCM connection, and `--transfer`'s sizes.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, StreamOwned};

use super::server::{Running, Server};

/// The path the transfer asks for; served from the run's directory by `s_server -WWW`, and
/// by the bench's backend behind `vss tls serve`.
pub(super) const TRANSFER_PATH: &str = "transfer.bin";
/// The largest transfer: 4 GiB.
const MAX_TRANSFER: u64 = 4 << 30;

/// What one transfer measured: MB/s and the server's CPU seconds per MB, or why it failed.
pub(super) struct Transfer {
    /// The server the bytes went through.
    pub(super) server: Server,
    /// MB/s and CPU s/MB, or the failure.
    pub(super) outcome: std::result::Result<(f64, f64), String>,
}

/// "128M" and the like: bytes (1 to 4G).
pub(super) fn parse_size(text: &str) -> Result<u64> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| anyhow!("--transfer {text:?}: a number with K, M or G"))?;
    let scale = match unit {
        "" => 1,
        "K" | "k" => 1 << 10,
        "M" | "m" => 1 << 20,
        "G" | "g" => 1 << 30,
        _ => bail!("--transfer {text:?}: the unit is K, M or G"),
    };
    let bytes = n
        .checked_mul(scale)
        .filter(|b| (1..=MAX_TRANSFER).contains(b))
        .ok_or_else(|| anyhow!("--transfer is 1 byte to 4G"))?;
    Ok(bytes)
}

/// The transfer through a started server: MB/s, and the server's CPU seconds per MB (the
/// fastest of three runs).
pub(super) fn move_bytes(
    running: &Running,
    client: &Arc<ClientConfig>,
    size: u64,
) -> Result<(f64, f64)> {
    // Three times, the fastest kept: the first also warms the server's page cache.
    let mut best: Option<(f64, f64)> = None;
    for _ in 0..3 {
        let cpu_before = running.cpu()?;
        let (got, took) = fetch(client, running.port)?;
        let cpu = running.cpu()? - cpu_before;
        if got != size {
            bail!("received {got} bytes of {size}");
        }
        let mb = size as f64 / (1u64 << 20) as f64;
        let run = (mb / took.as_secs_f64(), cpu.as_secs_f64() / mb);
        if best.is_none_or(|(rate, _)| run.0 > rate) {
            best = Some(run);
        }
    }
    best.ok_or_else(|| anyhow!("no transfer"))
}

/// Fetches the transfer file over one connection: the body's length and the time it took.
fn fetch(config: &Arc<ClientConfig>, port: u16) -> Result<(u64, Duration)> {
    let start = Instant::now();
    let tcp = TcpStream::connect(("127.0.0.1", port))?;
    tcp.set_read_timeout(Some(Duration::from_secs(60)))?;
    let conn = ClientConnection::new(Arc::clone(config), ServerName::try_from("localhost")?)?;
    let mut tls = StreamOwned::new(conn, tcp);
    tls.write_all(format!("GET /{TRANSFER_PATH} HTTP/1.0\r\n\r\n").as_bytes())?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut head, mut body) = (Vec::new(), 0u64);
    loop {
        let n = match tls.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            // s_server closes without close_notify after an HTTP/1.0 answer.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e.into()),
        };
        if body == 0 && head.len() < 4096 && !head.ends_with(b"\r\n\r\n") {
            let mut rest = &buf[..n];
            while let Some((&b, tail)) = rest.split_first() {
                head.push(b);
                rest = tail;
                if head.ends_with(b"\r\n\r\n") {
                    break;
                }
            }
            body += rest.len() as u64;
        } else {
            body += n as u64;
        }
    }
    Ok((body, start.elapsed()))
}

/// The backend behind `vss tls serve`: a connection that asks for the transfer file gets it
/// (an HTTP/1.0 answer of `size` bytes); any other just ends.
pub(super) fn backend(size: u64) -> Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve_backend(stream, size));
        }
    });
    Ok(addr)
}

/// Answers one backend connection: `size` bytes when it asks for the transfer file.
fn serve_backend(mut stream: TcpStream, size: u64) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 4096 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    if !head.starts_with(format!("GET /{TRANSFER_PATH} ").as_bytes()) {
        return;
    }
    let chunk = vec![0x5a_u8; 1 << 20];
    if stream.write_all(b"HTTP/1.0 200 ok\r\n\r\n").is_err() {
        return;
    }
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        if stream.write_all(&chunk[..n]).is_err() {
            return;
        }
        left -= n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_k_m_g_and_are_bounded() {
        assert_eq!(parse_size("128M").ok(), Some(128 << 20));
        assert_eq!(parse_size("4k").ok(), Some(4096));
        assert_eq!(parse_size("1").ok(), Some(1));
        for bad in ["", "0", "M", "5T", "5G", "99999999999999999999", "-1"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}

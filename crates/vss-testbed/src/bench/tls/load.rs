//! The client load: threads making new full handshakes, one after another, against a
//! started server, and what one load run measured.

use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection};

use super::server::Running;
use crate::bench::measure::percentile;

/// What one load run measured.
pub(super) struct Load {
    /// Handshakes completed.
    pub(super) handshakes: usize,
    /// Handshakes per second of wall time.
    pub(super) per_second: f64,
    /// The median connection time.
    pub(super) p50: Duration,
    /// The 99th percentile of the connection times.
    pub(super) p99: Duration,
    /// The server's CPU time per handshake.
    pub(super) cpu_per_handshake: Duration,
    /// `vss tls serve`'s signatures, batches and largest batch over the whole run.
    pub(super) batches: Option<(u64, u64, u64)>,
}

/// One load run against a started server: `clients` threads for `seconds`.
pub(super) fn measure(
    running: &Running,
    client: &Arc<ClientConfig>,
    clients: u32,
    seconds: Duration,
) -> std::result::Result<Load, String> {
    // One handshake first: the server is up and the key works (and s_server's engine has
    // logged in) before the clock starts.
    handshake(client, running.port).map_err(|e| format!("first handshake: {e}"))?;
    let cpu_before = running.cpu().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let (mut times, errors) = load(client, running.port, clients, seconds);
    let wall = start.elapsed();
    let cpu = running.cpu().map_err(|e| e.to_string())? - cpu_before;
    if let Some(first) = errors.first() {
        return Err(format!(
            "{} failed handshakes, the first: {first}",
            errors.len()
        ));
    }
    if times.is_empty() {
        return Err("no handshake completed".into());
    }
    times.sort();
    let handshakes = times.len();
    Ok(Load {
        handshakes,
        per_second: handshakes as f64 / wall.as_secs_f64(),
        p50: percentile(&times, 0.50),
        p99: percentile(&times, 0.99),
        cpu_per_handshake: cpu / handshakes as u32,
        batches: None,
    })
}

/// One full handshake: its time from connect to the end of the handshake.
fn handshake(config: &Arc<ClientConfig>, port: u16) -> Result<Duration> {
    let start = Instant::now();
    let mut tcp = TcpStream::connect(("127.0.0.1", port))?;
    tcp.set_nodelay(true)?;
    tcp.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut conn = ClientConnection::new(Arc::clone(config), ServerName::try_from("localhost")?)?;
    while conn.is_handshaking() {
        conn.complete_io(&mut tcp)?;
    }
    let took = start.elapsed();
    conn.send_close_notify();
    let _ = conn.complete_io(&mut tcp);
    Ok(took)
}

/// `clients` threads making handshakes until `seconds` pass: every connection time, and
/// the failures.
fn load(
    config: &Arc<ClientConfig>,
    port: u16,
    clients: u32,
    seconds: Duration,
) -> (Vec<Duration>, Vec<String>) {
    let deadline = Instant::now() + seconds;
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let config = Arc::clone(config);
            std::thread::spawn(move || {
                let (mut times, mut errors) = (Vec::new(), Vec::new());
                while Instant::now() < deadline {
                    match handshake(&config, port) {
                        Ok(took) => times.push(took),
                        Err(e) => {
                            errors.push(e.to_string());
                            // A server that fails keeps failing: stop this client.
                            break;
                        }
                    }
                }
                (times, errors)
            })
        })
        .collect();
    let (mut times, mut errors) = (Vec::new(), Vec::new());
    for thread in threads {
        match thread.join() {
            Ok((t, e)) => {
                times.extend(t);
                errors.extend(e);
            }
            Err(_) => errors.push("a client thread panicked".into()),
        }
    }
    (times, errors)
}

//! Latency and loss at a fixed rate: packets sent at `rate` per second (each at its time on
//! the clock; a late one at once), through the bridge's own loop ([`run::run`] and its
//! threads) over two Unix socket-pair links, or through [`Filter::run`] over UDP on loopback;
//! each packet's time from just before its send to just after its arrival on the far side.
//! A packet the bridge's radio or stack socket has no room for is lost there, as the kernel
//! drops frames on a full AF_PACKET socket.

use std::io;
use std::net::UdpSocket;
use std::os::unix::net::UnixDatagram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use vss_core::filter::{listen_socket, BatchConfig, Filter};
use vss_core::gn_bridge::link::{Link, MAX_FRAME};
use vss_core::gn_bridge::{run, Bridge};

use super::packets::{number, signed_number, Packets, RADIO_MAC, STACK_SIDE_MAC};
use crate::bench::measure::percentile;

/// How the far side finds a packet's number in what arrives.
type Number = fn(&[u8]) -> Option<usize>;

/// How long the far side waits for the rest once the last packet was sent.
const QUIET: Duration = Duration::from_millis(500);

/// How long a receive waits before it looks at the clock again.
const POLL: Duration = Duration::from_millis(20);

/// Where a paced run's packets went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Path {
    /// The bridge, radio → stack (verification).
    ToStack,
    /// The bridge, stack → radio (signing).
    ToRadio,
    /// `vss filter` over UDP.
    Filter,
}

impl Path {
    /// Its name in the report.
    pub(super) fn name(self) -> &'static str {
        match self {
            Path::ToStack => "bridge_to_stack",
            Path::ToRadio => "bridge_to_radio",
            Path::Filter => "filter_udp",
        }
    }
}

/// One paced run.
pub(super) struct Paced {
    pub(super) path: Path,
    pub(super) rate: u32,
    /// Packets sent (the link had room for them).
    pub(super) sent: usize,
    /// Packets the link had no room for.
    pub(super) full: usize,
    /// Packets sent that arrived.
    pub(super) arrived: usize,
    /// Packets the bridge or filter dropped (its counts; none known when the filter gave up
    /// waiting for a lost datagram).
    pub(super) refused: u64,
    /// Packets sent per second, as achieved.
    pub(super) achieved: f64,
    /// Sorted.
    latencies: Vec<Duration>,
}

impl Paced {
    /// Packets not delivered: no room on the link, or never arrived.
    pub(super) fn lost(&self) -> usize {
        self.full + self.sent - self.arrived
    }

    /// The `p`-quantile of the latencies in milliseconds; none when nothing arrived.
    pub(super) fn latency_ms(&self, p: f64) -> Option<f64> {
        (!self.latencies.is_empty()).then(|| percentile(&self.latencies, p).as_secs_f64() * 1e3)
    }
}

/// Sends `packets` at `rate` with `send` (false: no room, lost) while this thread receives
/// with `receive` (none: nothing within its wait) and numbers what arrives with `number`.
fn measure(
    packets: &[Vec<u8>],
    rate: u32,
    send: impl Fn(&[u8]) -> io::Result<bool> + Sync,
    mut receive: impl FnMut(&mut [u8]) -> io::Result<Option<usize>>,
    number: Number,
    path: Path,
) -> Result<Paced> {
    let done = AtomicBool::new(false);
    let period = Duration::from_secs(1) / rate.max(1);
    let mut arrivals: Vec<Option<Instant>> = vec![None; packets.len()];
    let (sends, sending) = std::thread::scope(|scope| {
        let sender = scope.spawn(|| {
            let started = Instant::now();
            let sends: io::Result<Vec<Option<Instant>>> = (0..packets.len())
                .map(|i| {
                    let due = started + period * i as u32;
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    let at = Instant::now();
                    Ok(send(&packets[i])?.then_some(at))
                })
                .collect();
            let sending = started.elapsed();
            done.store(true, Ordering::SeqCst);
            sends.map(|s| (s, sending))
        });
        let mut buffer = vec![0u8; 65_536];
        let (mut count, mut quiet_since) = (0, None::<Instant>);
        while count < packets.len() {
            if let Some(len) = receive(&mut buffer)? {
                let i = number(&buffer[..len]).filter(|&i| i < packets.len());
                if let Some(slot) = i.and_then(|i| arrivals.get_mut(i)) {
                    *slot = Some(Instant::now());
                    count += 1;
                    quiet_since = quiet_since.map(|_| Instant::now());
                }
            }
            if done.load(Ordering::SeqCst) {
                let since = *quiet_since.get_or_insert_with(Instant::now);
                if since.elapsed() > QUIET {
                    break;
                }
            }
        }
        sender
            .join()
            .map_err(|_| anyhow!("the sender panicked"))?
            .context("sending failed")
    })?;
    let mut latencies: Vec<Duration> = sends
        .iter()
        .zip(&arrivals)
        .filter_map(|(sent, arrived)| Some(arrived.as_ref()?.duration_since(*sent.as_ref()?)))
        .collect();
    latencies.sort_unstable();
    let sent = sends.iter().flatten().count();
    Ok(Paced {
        path,
        rate,
        sent,
        full: packets.len() - sent,
        arrived: latencies.len(),
        refused: 0,
        achieved: packets.len() as f64 / sending.as_secs_f64(),
        latencies,
    })
}

/// Whether a socket call ended for want of room or of data.
fn would_block(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// `bridge` in its own loop over two socket-pair links: `count` packets sent at `rate` on
/// the radio's side and received on the stack's (`path` [`Path::ToStack`]), or the other
/// way round (signing).
pub(super) fn through_bridge(
    bridge: Bridge,
    path: Path,
    packets: &Packets,
    rate: u32,
    count: usize,
) -> Result<Paced> {
    let (radio, radio_wire) = Link::unix_pair(RADIO_MAC, run::POLL)?;
    let (stack, stack_wire) = Link::unix_pair(STACK_SIDE_MAC, run::POLL)?;
    let (to, from, frames, numbered): (_, _, _, Number) = match path {
        Path::ToRadio => (stack_wire, radio_wire, &packets.unsecured, signed_number),
        _ => (radio_wire, stack_wire, &packets.secured, number),
    };
    to.set_nonblocking(true)?;
    from.set_read_timeout(Some(POLL))?;
    let stop = Arc::new(AtomicBool::new(false));
    let running = {
        let (bridge, stop) = (Arc::new(bridge), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("gn-bench-bridge".into())
            .spawn(move || run::run(bridge, radio, stack, stop))?
    };
    let measured = measure(
        &frames[..count.min(frames.len())],
        rate,
        |frame| unix_send(&to, frame),
        |buffer| unix_receive(&from, &mut buffer[..MAX_FRAME]),
        numbered,
        path,
    );
    stop.store(true, Ordering::SeqCst);
    let counts = running
        .join()
        .map_err(|_| anyhow!("the bridge panicked"))?
        .context("the bridge stopped")?;
    let direction = match path {
        Path::ToRadio => counts.to_radio,
        _ => counts.to_stack,
    };
    Ok(Paced {
        refused: direction.dropped.values().sum::<u64>() + direction.send_errors,
        ..measured?
    })
}

fn unix_send(socket: &UnixDatagram, frame: &[u8]) -> io::Result<bool> {
    match socket.send(frame) {
        Ok(_) => Ok(true),
        Err(e) if would_block(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

fn unix_receive(socket: &UnixDatagram, buffer: &mut [u8]) -> io::Result<Option<usize>> {
    match socket.recv(buffer) {
        Ok(len) => Ok(Some(len)),
        Err(e) if would_block(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `filter` in its loop ([`Filter::run`], batches as `batch` says): `messages` sent at
/// `rate` over UDP on loopback, the payloads forwarded to this thread.
pub(super) fn through_filter(
    filter: &Filter,
    batch: &BatchConfig,
    messages: &[Vec<u8>],
    rate: u32,
) -> Result<Paced> {
    let loopback = ([127, 0, 0, 1], 0).into();
    let listen = listen_socket(loopback, batch).context("cannot bind on loopback")?;
    // A datagram lost on the way leaves the filter waiting: it gives up after this.
    listen.set_read_timeout(Some(QUIET))?;
    let receiver = listen_socket(loopback, batch).context("cannot bind on loopback")?;
    receiver.set_read_timeout(Some(POLL))?;
    let forward = UdpSocket::bind(loopback).context("cannot bind on loopback")?;
    forward.connect(receiver.local_addr()?)?;
    let sender = UdpSocket::bind(loopback).context("cannot bind on loopback")?;
    sender.connect(listen.local_addr()?)?;
    std::thread::scope(|scope| {
        let running = scope.spawn(|| filter.run(&listen, &forward, Some(messages.len() as u64)));
        let measured = measure(
            messages,
            rate,
            |message| sender.send(message).map(|_| true),
            |buffer| match receiver.recv(buffer) {
                Ok(len) => Ok(Some(len)),
                Err(e) if would_block(&e) => Ok(None),
                Err(e) => Err(e),
            },
            number,
            Path::Filter,
        );
        let refused = match running.join().map_err(|_| anyhow!("the filter panicked"))? {
            Ok(counts) => counts.dropped.values().sum::<u64>() + counts.forward_refused,
            Err(e) if would_block(&e) => 0,
            Err(e) => return Err(anyhow!(e).context("the filter stopped")),
        };
        Ok(Paced {
            refused,
            ..measured?
        })
    })
}

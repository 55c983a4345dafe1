//! Seed 001's transparent mode: secured messages arrive as UDP datagrams, each is verified
//! (every one: the policy is `always`), and only the payloads of valid ones are forwarded,
//! in the order they arrived; the rest are counted by the verdict that refused them.
//!
//! Datagrams are gathered into batches ([`BatchConfig`]): a batch is verified when it is
//! full or when its deadline, counted from its first datagram, has passed, so latency stays
//! bounded while the engine gets enough signatures at once to be fast.
//!
//! With a replay window (on by default in `vss filter`) each message is forwarded once, and
//! only while its generation time is fresh: copies are dropped as `DuplicateMessage`, stale
//! or early ones as `InvalidTimestamp`.
//!
//! With an [`EventHub`] ([`Filter::with_events`]) the outer system is told of each dropped
//! datagram: its report, the PSID and signer where they can be read, and its sender.
//!
//! The outgoing direction ([`Outgoing`]) signs the payloads it receives with the entity's
//! current pseudonym and sends them on.

mod outgoing;

pub use outgoing::{Outgoing, SignCounts, Signing, STOP_POLL};

use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vss_engine::VerifyEngine;
use vss_its::{SignedMessage, Validator};

use crate::config::{PolicyKind, VerificationConfig};
use crate::events::{Event, EventHub};
use crate::pseudonym::SystemClock;
use crate::replay::ReplayConfig;
use crate::verify::Outcome;
use crate::{VerificationPolicy, VerifyService};

/// The largest UDP payload.
const MAX_DATAGRAM: usize = 65_507;

/// Receive-buffer room per datagram the listening socket should hold: a small secured
/// message with the kernel's bookkeeping (about 1.3 KiB on Linux), with some margin.
const ROOM_PER_DATAGRAM: usize = 2048;

/// Batches' worth of datagrams the listening socket should hold.
const BATCHES_BUFFERED: usize = 4;

/// How datagrams are gathered before they are verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchConfig {
    /// The most datagrams in one batch (0 counts as 1; 1 verifies each as it arrives).
    pub max_batch: usize,
    /// The longest a batch waits for more datagrams after its first one arrived.
    pub deadline: Duration,
}

impl BatchConfig {
    /// One datagram at a time.
    pub const ONE_AT_A_TIME: BatchConfig = BatchConfig {
        max_batch: 1,
        deadline: Duration::ZERO,
    };
}

impl std::fmt::Display for BatchConfig {
    /// The batches in words.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "batches of up to {} within {} ms",
            self.max_batch,
            self.deadline.as_millis()
        )
    }
}

impl Default for BatchConfig {
    /// 256 datagrams or 2 ms, whichever comes first.
    fn default() -> Self {
        BatchConfig {
            max_batch: 256,
            deadline: Duration::from_millis(2),
        }
    }
}

/// What a filter did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterCounts {
    /// Datagrams received.
    pub received: u64,
    /// Payloads forwarded.
    pub forwarded: u64,
    /// Valid payloads the forward address refused (nothing listening there).
    pub forward_refused: u64,
    /// Datagrams dropped, by the verdict's name (`FalseSignature`, `Expired`, …).
    pub dropped: BTreeMap<&'static str, u64>,
}

/// Verifies datagrams and forwards the payloads of valid ones.
pub struct Filter {
    verify: VerifyService,
    batch: BatchConfig,
    events: Option<Arc<EventHub>>,
}

/// The payload to forward, or the name of the verdict that drops the datagram.
fn verdict(outcome: Outcome) -> Result<Vec<u8>, &'static str> {
    match outcome {
        Outcome::Valid { payload, .. } => Ok(payload),
        refused => Err(refused.name()),
    }
}

/// Datagrams received into one buffer.
struct Batch {
    /// Where a datagram lands before it joins the batch.
    scratch: Vec<u8>,
    bytes: Vec<u8>,
    datagrams: Vec<Range<usize>>,
    senders: Vec<SocketAddr>,
}

impl Batch {
    fn new(capacity: usize) -> Self {
        Batch {
            scratch: vec![0; MAX_DATAGRAM],
            bytes: Vec::new(),
            datagrams: Vec::with_capacity(capacity),
            senders: Vec::with_capacity(capacity),
        }
    }

    fn len(&self) -> usize {
        self.datagrams.len()
    }

    /// Receives one datagram into the batch.
    fn receive(&mut self, socket: &UdpSocket) -> io::Result<()> {
        let (len, sender) = socket.recv_from(&mut self.scratch)?;
        let start = self.bytes.len();
        self.bytes.extend_from_slice(&self.scratch[..len]);
        self.datagrams.push(start..start + len);
        self.senders.push(sender);
        Ok(())
    }

    /// The datagrams, in arrival order.
    fn datagrams(&self) -> Vec<&[u8]> {
        self.datagrams
            .iter()
            .map(|r| &self.bytes[r.clone()])
            .collect()
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.datagrams.clear();
        self.senders.clear();
    }
}

/// A socket bound to `address` for [`Filter::run`] to listen on, whose receive buffer holds
/// a few batches of datagrams (as far as the system allows: on Linux up to
/// `net.core.rmem_max`), so that what arrives while a batch is verified is not dropped.
pub fn listen_socket(address: SocketAddr, batch: &BatchConfig) -> io::Result<UdpSocket> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(
        Domain::for_address(address),
        Type::DGRAM,
        Some(Protocol::UDP),
    )?;
    let wanted = batch
        .max_batch
        .max(1)
        .saturating_mul(BATCHES_BUFFERED * ROOM_PER_DATAGRAM);
    if socket.recv_buffer_size()? < wanted {
        socket.set_recv_buffer_size(wanted)?;
    }
    socket.bind(&address.into())?;
    Ok(socket.into())
}

/// A socket of the address family of `to`, connected to it (where a filter sends).
pub fn sending_socket(to: SocketAddr) -> io::Result<UdpSocket> {
    let unspecified: SocketAddr = if to.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let socket = UdpSocket::bind(unspecified)?;
    socket.connect(to)?;
    Ok(socket)
}

/// About how many small datagrams (secured messages, not fragments) `socket`'s receive
/// buffer holds.
pub fn buffered_datagrams(socket: &UdpSocket) -> io::Result<usize> {
    Ok(socket2::SockRef::from(socket).recv_buffer_size()? / ROOM_PER_DATAGRAM)
}

/// Whether a receive ended because its timeout passed.
fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

impl Filter {
    /// A filter trusting what `validator` trusts, verifying batches gathered as `batch`
    /// says on `engine`, and forwarding each message once, only while it is fresh, as
    /// `replay` says (none: copies and stale messages are forwarded too).
    pub fn new(
        validator: Validator,
        engine: Arc<dyn VerifyEngine>,
        batch: BatchConfig,
        replay: Option<ReplayConfig>,
    ) -> Self {
        let policy = VerificationPolicy::new(&VerificationConfig {
            policy: PolicyKind::Always,
            ..VerificationConfig::default()
        });
        Filter {
            verify: VerifyService::new(validator, policy, Arc::new(SystemClock), engine)
                .with_replay_window(replay),
            batch,
            events: None,
        }
    }

    /// The filter, telling `events`' clients of every datagram it drops.
    pub fn with_events(mut self, events: Arc<EventHub>) -> Self {
        self.events = Some(events);
        self
    }

    /// Tells the event clients, if any, that `datagram` from `sender` was dropped as
    /// `outcome` says.
    fn tell_dropped(&self, datagram: &[u8], sender: SocketAddr, outcome: &Outcome) {
        let Some(events) = &self.events else { return };
        let message = SignedMessage::from_bytes(datagram).ok();
        events.publish(&Event::dropped(
            outcome.name(),
            outcome.code(),
            message.as_ref().and_then(SignedMessage::psid),
            message.as_ref().and_then(SignedMessage::signer_id),
            format!("udp:{sender}"),
        ));
    }

    /// The payload to forward, or the name of the verdict that drops the datagram.
    pub fn inspect(&self, datagram: &[u8]) -> Result<Vec<u8>, &'static str> {
        verdict(self.verify.receive(datagram))
    }

    /// [`Filter::inspect`] for each of `datagrams`, in order, the signatures checked in one
    /// batch on the engine.
    pub fn inspect_batch(&self, datagrams: &[&[u8]]) -> Vec<Result<Vec<u8>, &'static str>> {
        self.verify
            .receive_batch(datagrams)
            .into_iter()
            .map(verdict)
            .collect()
    }

    /// Receives on `listen` and sends each valid payload on `forward` (connected to where
    /// payloads go), in arrival order, until `limit` datagrams were received (or for ever);
    /// one thread. The first datagram of a batch is awaited with `listen`'s read timeout as
    /// it was given (none: for ever); while a batch is gathered the timeout is set to what
    /// is left of its deadline.
    pub fn run(
        &self,
        listen: &UdpSocket,
        forward: &UdpSocket,
        limit: Option<u64>,
    ) -> io::Result<FilterCounts> {
        let first_wait = listen.read_timeout()?;
        let max_batch = self.batch.max_batch.max(1);
        let mut counts = FilterCounts::default();
        let mut batch = Batch::new(max_batch);
        let more = |counts: &FilterCounts, batch: &Batch| {
            limit.is_none_or(|l| counts.received + (batch.len() as u64) < l)
        };
        while more(&counts, &batch) {
            if max_batch > 1 {
                listen.set_read_timeout(first_wait)?;
            }
            batch.receive(listen)?;
            let deadline = Instant::now() + self.batch.deadline;
            while batch.len() < max_batch && more(&counts, &batch) {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                listen.set_read_timeout(Some(left))?;
                match batch.receive(listen) {
                    Ok(()) => {}
                    Err(e) if timed_out(&e) => break,
                    Err(e) => return Err(e),
                }
            }
            counts.received += batch.len() as u64;
            let datagrams = batch.datagrams();
            let outcomes = self.verify.receive_batch(&datagrams);
            for ((outcome, datagram), sender) in
                outcomes.into_iter().zip(datagrams).zip(&batch.senders)
            {
                match outcome {
                    Outcome::Valid { payload, .. } => match forward.send(&payload) {
                        Ok(_) => counts.forwarded += 1,
                        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                            counts.forward_refused += 1;
                        }
                        Err(e) => return Err(e),
                    },
                    refused => {
                        *counts.dropped.entry(refused.name()).or_default() += 1;
                        self.tell_dropped(datagram, *sender, &refused);
                    }
                }
            }
            batch.clear();
        }
        if max_batch > 1 {
            listen.set_read_timeout(first_wait)?;
        }
        Ok(counts)
    }
}

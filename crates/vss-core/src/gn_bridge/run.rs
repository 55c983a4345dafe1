//! Both directions of a [`Bridge`] over two [`Link`]s, one thread each way plus the
//! radio's receiver: stack → radio signs each frame as it arrives; radio → stack queues
//! received frames ([`QUEUE_FRAMES`] at most: past it the receiver waits, and the kernel's
//! socket buffer takes the rest, then drops) and verifies what is queued in batches of up
//! to [`MAX_BATCH`].
//!
//! Setting the stop flag ends the receivers within [`POLL`]; what is queued is still
//! verified and delivered before [`run`] returns its counts.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::link::{Link, LinkError, LinkReceiver, LinkSender};
use super::{Bridge, BridgeMetrics};

/// Frames queued between the radio's receiver and the verifier.
pub const QUEUE_FRAMES: usize = 1024;

/// The most frames verified in one batch.
pub const MAX_BATCH: usize = 64;

/// How long a receive waits before it looks at the stop flag again.
pub const POLL: Duration = Duration::from_millis(100);

/// What one direction did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DirectionCounts {
    /// Frames received.
    pub received: u64,
    /// Frames passed on.
    pub passed: u64,
    /// Frames the link would not send.
    pub send_errors: u64,
    /// Frames dropped, by reason ([`super::Refusal::name`]).
    pub dropped: BTreeMap<&'static str, u64>,
}

/// What the bridge did in both directions.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct BridgeCounts {
    /// Stack → radio.
    pub to_radio: DirectionCounts,
    /// Radio → stack.
    pub to_stack: DirectionCounts,
}

/// Why the bridge stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A link did not open.
    #[error(transparent)]
    Link(#[from] LinkError),
    /// A link failed while receiving.
    #[error("receiving failed: {0}")]
    Receive(#[source] io::Error),
    /// A thread could not be started.
    #[error("cannot start a thread: {0}")]
    Thread(#[source] io::Error),
}

impl DirectionCounts {
    /// Counts the result of one frame (here and in `metrics` under `direction`) and sends a
    /// passed one.
    fn count(
        &mut self,
        result: Result<Vec<u8>, super::Refusal>,
        out: &mut LinkSender,
        metrics: (&BridgeMetrics, &'static str),
    ) {
        self.received += 1;
        let (metrics, direction) = metrics;
        match result {
            Ok(frame) => match out.send(&frame) {
                Ok(()) => {
                    self.passed += 1;
                    metrics.frame(direction, "passed");
                }
                Err(_) => {
                    self.send_errors += 1;
                    metrics.frame(direction, "send_error");
                }
            },
            Err(refusal) => {
                *self.dropped.entry(refusal.name()).or_default() += 1;
                metrics.frame(direction, refusal.name());
            }
        }
    }
}

/// Runs the bridge between the interfaces `radio` and `stack` until `stop` is set; the
/// bridge's stack-side MAC should be `stack`'s own.
pub fn run(
    bridge: Arc<Bridge>,
    radio: Link,
    stack: Link,
    stop: Arc<AtomicBool>,
) -> Result<BridgeCounts, RunError> {
    let (queue, queued) = mpsc::sync_channel::<Vec<u8>>(QUEUE_FRAMES);
    let spawn = |name: &str| thread::Builder::new().name(name.into());
    let receiving = {
        let stop = Arc::clone(&stop);
        let receiver = radio.receiver;
        spawn("gn-radio-rx")
            .spawn(move || receive(receiver, &queue, &stop))
            .map_err(RunError::Thread)?
    };
    let verifying = {
        let bridge = Arc::clone(&bridge);
        let sender = stack.sender;
        spawn("gn-verify")
            .spawn(move || verify(&bridge, &queued, sender))
            .map_err(RunError::Thread)?
    };
    let signed = sign(&bridge, stack.receiver, radio.sender, &stop);
    stop.store(true, Ordering::SeqCst);
    let received = receiving
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the radio receiver panicked")));
    let to_stack = verifying.join().unwrap_or_default();
    let to_radio = signed.map_err(RunError::Receive)?;
    received.map_err(RunError::Receive)?;
    Ok(BridgeCounts { to_radio, to_stack })
}

/// Stack → radio until `stop`.
fn sign(
    bridge: &Bridge,
    mut from: LinkReceiver,
    mut to: LinkSender,
    stop: &AtomicBool,
) -> io::Result<DirectionCounts> {
    let mut counts = DirectionCounts::default();
    while !stop.load(Ordering::SeqCst) {
        if let Some(frame) = from.recv()? {
            let metrics = (bridge.metrics(), "to_radio");
            counts.count(bridge.to_radio(&frame), &mut to, metrics);
        }
    }
    Ok(counts)
}

/// The radio's frames into `queue` until `stop`, waiting while it is full.
fn receive(
    mut from: LinkReceiver,
    queue: &SyncSender<Vec<u8>>,
    stop: &AtomicBool,
) -> io::Result<()> {
    while !stop.load(Ordering::SeqCst) {
        if let Some(frame) = from.recv()? {
            if queue.send(frame).is_err() {
                break;
            }
        }
    }
    Ok(())
}

/// Radio → stack: what is queued, in batches, until the receiver is gone and the queue
/// empty.
fn verify(bridge: &Bridge, queued: &Receiver<Vec<u8>>, mut to: LinkSender) -> DirectionCounts {
    let mut counts = DirectionCounts::default();
    let mut batch = Vec::with_capacity(MAX_BATCH);
    loop {
        match queued.recv_timeout(POLL) {
            Ok(frame) => batch.push(frame),
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return counts,
        }
        while batch.len() < MAX_BATCH {
            match queued.try_recv() {
                Ok(frame) => batch.push(frame),
                Err(_) => break,
            }
        }
        let frames: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
        for result in bridge.to_stack(&frames) {
            counts.count(result, &mut to, (bridge.metrics(), "to_stack"));
        }
        batch.clear();
    }
}

//! The filter's outgoing direction (`vss filter --sign-to`): each UDP datagram is a payload
//! the entity signs with its current pseudonym under one ITS-AID's profile of ETSI TS 103 097
//! §7.1 ([`SignOptions::profile`], as the GeoNetworking bridge signs), sent on as
//! `Ieee1609Dot2Data`. The filter is the entity's id-change listener: a pseudonym change
//! needs no one's consent and is announced on the events socket ([`IdAnnouncer`]).

use std::io;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use vss_its::Psid;

use super::{timed_out, MAX_DATAGRAM};
use crate::events::EventHub;
use crate::id_change::IdAnnouncer;
use crate::sign::SignOptions;
use crate::{Error, Vss};

/// What the outgoing direction did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SignCounts {
    /// Payloads received.
    pub received: u64,
    /// Signed messages sent.
    pub sent: u64,
    /// Signed messages the destination refused (nothing listening there).
    pub send_refused: u64,
    /// Payloads the entity could not sign (no pseudonym, a PSID it does not permit, …).
    pub sign_failed: u64,
    /// Signed messages larger than a UDP payload may be (65,507 bytes), not sent.
    pub oversized: u64,
}

/// How often a spawned signer looks at its stop flag.
pub const STOP_POLL: Duration = Duration::from_millis(100);

/// Signs payloads for one ITS-AID with the entity's current pseudonym.
pub struct Outgoing {
    vss: Arc<Vss>,
    options: SignOptions,
    announcer: Arc<IdAnnouncer>,
}

impl Outgoing {
    /// Signing with `vss` under `psid`'s profile (a UDP payload has no position, so a DENM
    /// goes without a generation location); pseudonym changes are announced on `events`.
    pub fn new(vss: Arc<Vss>, psid: Psid, events: Option<Arc<EventHub>>) -> Self {
        let announcer = Arc::new(IdAnnouncer::new(events, Counter::default()));
        vss.register_network_id_listener(announcer.clone());
        Outgoing {
            vss,
            options: SignOptions::profile(psid, None),
            announcer,
        }
    }

    /// The pseudonym changes announced so far.
    pub fn id_changes(&self) -> u64 {
        self.announcer.changes()
    }

    /// `payload` signed (`Ieee1609Dot2Data`, COER).
    pub fn sign(&self, payload: &[u8]) -> Result<Vec<u8>, Error> {
        Ok(self
            .vss
            .create_signature_with(&self.options, payload)?
            .bytes)
    }

    /// Receives payloads on `listen`, signs each and sends it on `to` (connected to where
    /// signed messages go), until `stop` is set (looked at whenever `listen`'s read timeout
    /// passes: give it one). Each payload the entity cannot sign is counted and handed to
    /// `failed`.
    pub fn run(
        &self,
        listen: &UdpSocket,
        to: &UdpSocket,
        stop: &AtomicBool,
        failed: &dyn Fn(&Error),
    ) -> io::Result<SignCounts> {
        let mut counts = SignCounts::default();
        let mut payload = vec![0; MAX_DATAGRAM];
        while !stop.load(Ordering::SeqCst) {
            let len = match listen.recv(&mut payload) {
                Ok(len) => len,
                Err(e) if timed_out(&e) => continue,
                Err(e) => return Err(e),
            };
            counts.received += 1;
            match self.sign(&payload[..len]) {
                Ok(signed) if signed.len() > MAX_DATAGRAM => counts.oversized += 1,
                Ok(signed) => match to.send(&signed) {
                    Ok(_) => counts.sent += 1,
                    Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                        counts.send_refused += 1;
                    }
                    Err(e) => return Err(e),
                },
                Err(e) => {
                    counts.sign_failed += 1;
                    failed(&e);
                }
            }
        }
        Ok(counts)
    }
}

/// An [`Outgoing`] direction running on a thread of its own ([`Outgoing::spawn`]).
pub struct Signing {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<io::Result<SignCounts>>,
}

impl Signing {
    /// Stops the signer (within [`STOP_POLL`]) and returns what it did.
    pub fn stop(self) -> io::Result<SignCounts> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the signer panicked")))
    }
}

impl Outgoing {
    /// [`Outgoing::run`] on a thread of its own until [`Signing::stop`] (`listen`'s read
    /// timeout is set to [`STOP_POLL`]).
    pub fn spawn(
        self,
        listen: UdpSocket,
        to: UdpSocket,
        failed: impl Fn(&Error) + Send + 'static,
    ) -> io::Result<Signing> {
        listen.set_read_timeout(Some(STOP_POLL))?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("vss-filter-sign".into())
            .spawn(move || self.run(&listen, &to, &flag, &failed))?;
        Ok(Signing { stop, thread })
    }
}

//! Seed 001's "in case of an invalid signature the outer system is informed": an
//! [`EventHub`] listens on a Unix stream socket and writes one JSON line per [`Event`] to
//! every connected client.
//!
//! Publishing never waits for a client: each has a queue of [`QUEUE_LINES`] lines, and a
//! line that finds it full is lost for that client (counted, [`EventHub::lost`]). A client
//! whose write stays blocked for [`WRITE_TIMEOUT`] is disconnected; at most [`MAX_CLIENTS`]
//! are connected at once, and one more is closed at once.

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use vss_its::{HashedId8, Psid};
use vss_net::{bind_unix, SocketFile, UnixSocketError};

/// Clients connected at once.
pub const MAX_CLIENTS: usize = 16;

/// Lines queued for one client; past them its lines are lost until it reads.
pub const QUEUE_LINES: usize = 1024;

/// How long a write to a client may stay blocked before the client is disconnected.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// The mode of the socket: owner and group may connect.
pub const SOCKET_MODE: u32 = 0o660;

/// Something the outer system is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A message was dropped: its verification report (the name and the SN-VERIFY code of
    /// the verdict), what could be read of it, and where it came from.
    Dropped {
        /// The verdict's name (`FalseSignature`, `Expired`, …).
        report: &'static str,
        /// The report code on the wire (`vss.v1.ReportCode`).
        code: u8,
        /// The ITS-AID (PSID) the message names, where it could be read.
        #[serde(skip_serializing_if = "Option::is_none")]
        its_aid: Option<u64>,
        /// The signer's HashedId8 (upper-case hex), where it could be read.
        #[serde(skip_serializing_if = "Option::is_none")]
        signer: Option<String>,
        /// Where it came from (`udp:HOST:PORT`, or a GeoNetworking source).
        source: String,
    },
    /// The pseudonym changed, and with it the station's radio-side identity.
    IdChange {
        /// The pseudonym before (upper-case hex), none at the first.
        #[serde(skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        /// The new pseudonym's HashedId8 (upper-case hex).
        signer: String,
        /// The radio-side MAC address (and GN address MID) that goes with it, where the
        /// front end has one (the GeoNetworking bridge; not the UDP filter).
        #[serde(skip_serializing_if = "Option::is_none")]
        mac: Option<String>,
    },
}

impl Event {
    /// A message from `source` dropped with the verdict named `report` (code `code`), its
    /// PSID and signer where they could be read.
    pub fn dropped(
        report: &'static str,
        code: u8,
        psid: Option<Psid>,
        signer: Option<HashedId8>,
        source: String,
    ) -> Self {
        Event::Dropped {
            report,
            code,
            its_aid: psid.map(Psid::value),
            signer: signer.map(|s| s.to_string()),
            source,
        }
    }

    /// The event as one JSON line, its newline included.
    pub fn line(&self) -> String {
        // An enum of plain fields serializes without error.
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// The clients' queues, and what was lost.
#[derive(Default)]
struct Clients {
    queues: Mutex<Vec<SyncSender<Arc<str>>>>,
    lost: AtomicU64,
    stopping: AtomicBool,
}

/// The events socket: accepts clients on its own thread, writes to each on another.
pub struct EventHub {
    clients: Arc<Clients>,
    file: SocketFile,
}

impl EventHub {
    /// Listens at `path` (mode [`SOCKET_MODE`], a stale socket there replaced, a live one
    /// refused).
    pub fn bind(path: &Path) -> Result<EventHub, UnixSocketError> {
        let listener = bind_unix(path, SOCKET_MODE)?;
        let clients = Arc::new(Clients::default());
        let accepting = Arc::clone(&clients);
        std::thread::Builder::new()
            .name("vss-events".into())
            .spawn(move || accept(&listener, &accepting))
            .map_err(|source| UnixSocketError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(EventHub {
            clients,
            file: SocketFile(path.to_path_buf()),
        })
    }

    /// Queues `event` for every connected client, waiting for none.
    pub fn publish(&self, event: &Event) {
        let line: Arc<str> = event.line().into();
        let mut queues = self
            .clients
            .queues
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        queues.retain(|queue| match queue.try_send(Arc::clone(&line)) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.clients.lost.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(TrySendError::Disconnected(_)) => false,
        });
    }

    /// Lines lost because a client's queue was full.
    pub fn lost(&self) -> u64 {
        self.clients.lost.load(Ordering::Relaxed)
    }

    /// Clients connected now (as far as publishing has noticed).
    pub fn clients(&self) -> usize {
        self.clients
            .queues
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}

impl Drop for EventHub {
    fn drop(&mut self) {
        self.clients.stopping.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees it is to stop.
        let _ = UnixStream::connect(&self.file.0);
        self.clients
            .queues
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}

/// Accepts clients until the hub is dropped, each with its queue and writer thread.
fn accept(listener: &UnixListener, clients: &Clients) {
    for stream in listener.incoming() {
        if clients.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let mut queues = clients.queues.lock().unwrap_or_else(|p| p.into_inner());
        if queues.len() >= MAX_CLIENTS || stream.set_write_timeout(Some(WRITE_TIMEOUT)).is_err() {
            continue;
        }
        let (sender, receiver) = mpsc::sync_channel::<Arc<str>>(QUEUE_LINES);
        let spawned = std::thread::Builder::new()
            .name("vss-events-client".into())
            .spawn(move || {
                let mut stream = stream;
                // Ends when the hub drops the queue or the client stops reading.
                while let Ok(line) = receiver.recv() {
                    if stream.write_all(line.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        if spawned.is_ok() {
            queues.push(sender);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::time::Instant;

    fn socket_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("vss-events-{}-{name}.sock", std::process::id()))
    }

    fn dropped(n: u64) -> Event {
        Event::dropped(
            "FalseSignature",
            4,
            Some(Psid::CAM),
            Some(HashedId8([0xab; 8])),
            format!("udp:127.0.0.1:{n}"),
        )
    }

    /// Waits until the hub has `n` clients.
    fn until_clients(hub: &EventHub, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while hub.clients() != n {
            assert!(
                Instant::now() < deadline,
                "{} clients, not {n}",
                hub.clients()
            );
            hub.publish(&Event::dropped("Valid", 0, None, None, "probe".into()));
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn every_client_reads_each_event_as_one_json_line() {
        let path = socket_path("lines");
        let hub = EventHub::bind(&path).expect("bind");
        let mut readers: Vec<_> = (0..2)
            .map(|_| BufReader::new(UnixStream::connect(&path).expect("connect")))
            .collect();
        until_clients(&hub, 2);
        hub.publish(&dropped(7));
        for reader in &mut readers {
            let line = loop {
                let mut line = String::new();
                reader.read_line(&mut line).expect("line");
                if !line.contains("probe") {
                    break line;
                }
            };
            let value: serde_json::Value = serde_json::from_str(&line).expect("JSON");
            assert_eq!(value["event"], "dropped");
            assert_eq!(value["report"], "FalseSignature");
            assert_eq!(value["code"], 4);
            assert_eq!(value["its_aid"], 36);
            assert_eq!(value["signer"], "ABABABABABABABAB");
            assert_eq!(value["source"], "udp:127.0.0.1:7");
        }
        drop(hub);
        assert!(!path.exists(), "the socket file is removed");
    }

    #[test]
    fn a_client_that_never_reads_loses_lines_and_blocks_no_one() {
        let path = socket_path("slow");
        let hub = EventHub::bind(&path).expect("bind");
        let _silent = UnixStream::connect(&path).expect("connect");
        until_clients(&hub, 1);
        let started = Instant::now();
        for n in 0..20_000 {
            hub.publish(&dropped(n));
        }
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        assert!(hub.lost() > 0, "its queue and socket buffer are full");
        // Its writer gives up once a write stays blocked for the write timeout.
        let deadline = Instant::now() + WRITE_TIMEOUT * 5;
        while hub.clients() > 0 {
            assert!(Instant::now() < deadline, "the silent client is still held");
            hub.publish(&dropped(0));
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    #[test]
    fn past_the_cap_a_client_is_closed() {
        let path = socket_path("cap");
        let hub = EventHub::bind(&path).expect("bind");
        let _held: Vec<_> = (0..MAX_CLIENTS)
            .map(|_| UnixStream::connect(&path).expect("connect"))
            .collect();
        until_clients(&hub, MAX_CLIENTS);
        let mut extra = UnixStream::connect(&path).expect("connect");
        extra
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let mut byte = [0u8; 1];
        assert_eq!(
            std::io::Read::read(&mut extra, &mut byte).expect("closed, not timed out"),
            0
        );
        assert_eq!(hub.clients(), MAX_CLIENTS);
    }
}

//! The card's own TCP port (`--listen`): the vpcd framing ([`crate::frame`]) over plain
//! TCP, one client at a time. Each client starts with a reset (nothing selected, no PIN
//! verified). Its [`ServeLimits`] ([`default_limits`]) bound every wait:
//!
//! | bound | default | what it bounds |
//! |---|---|---|
//! | `idle_timeout` | 60 s ([`IDLE_TIMEOUT`]) | the wait for the first byte of a frame, a connection's first frame too; then it is closed |
//! | `header_timeout` | 5 s ([`FRAME_TIMEOUT`]) | the rest of a frame once its first byte arrived (a real deadline for the whole frame, not per read) |
//! | `write_timeout` | 10 s | writing an answer whole, for a client that does not read its answers |
//! | `max_connections` | 16 ([`MAX_CONNECTIONS_HELD`]) | connections held: the one served and those waiting for it |
//!
//! A thread accepts every connection at once and reads its first frame, so no connection
//! waits in the kernel's queue; the card takes the next client only when it is free, and
//! only one whose first frame arrived whole, in the order their first frames arrived. A
//! connection that sends nothing, or drips a frame, therefore never stands between the card
//! and a client that sends its command: it waits apart until its own bound closes it. When
//! `max_connections` are held a new connection takes the place of the oldest one whose first
//! frame has not arrived (that one is closed); it is refused (closed) only when every place
//! holds a connection with a whole frame waiting.
//!
//! A client whose command arrived is answered once the clients ahead of it are done: one
//! that drips a frame holds the card at most the frame timeout, one that stops reading its
//! answers the write timeout after its answers stall (the card's send buffer is fixed at
//! 16 KiB, so they stall once that and the client's receive window are full), one that goes
//! quiet between commands the idle timeout, one that keeps sending commands as long as it
//! does (one client at a time is the card's design). Clients dropped on a bound
//! are logged on stderr at most once per [`WARN_INTERVAL`], with a count.

mod conn;
mod waiting;

use crate::applet::Applet;
use crate::frame::{next_frame, serve_frames, Payload};
use conn::Conn;
use socket2::SockRef;
use std::convert::Infallible;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::Duration;
use vss_net::{ServeLimits, Throttle, WARN_INTERVAL};
use waiting::{Admission, Place, Waiting};

/// How long a client may stay silent before the card closes its connection, by default.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a frame may take to arrive whole once its first byte arrived, by default.
pub const FRAME_TIMEOUT: Duration = Duration::from_secs(5);
/// The connections the port holds (served and waiting), by default.
pub const MAX_CONNECTIONS_HELD: usize = 16;

/// The card's defaults: [`IDLE_TIMEOUT`], [`FRAME_TIMEOUT`] as the header timeout,
/// [`MAX_CONNECTIONS_HELD`], and `ServeLimits::default()`'s write timeout (10 s); its
/// other bounds are not applied.
pub fn default_limits() -> ServeLimits {
    ServeLimits {
        idle_timeout: IDLE_TIMEOUT,
        header_timeout: FRAME_TIMEOUT,
        max_connections: MAX_CONNECTIONS_HELD,
        ..ServeLimits::default()
    }
}

/// The pause after a failed accept, so that a persistent failure does not spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);
/// The stack of a thread reading a connection's first frame.
const READER_STACK: usize = 128 * 1024;
/// A connection's send buffer (Linux doubles it), fixed: the longest answer is 4,100 bytes
/// framed, and a buffer left to grow (to 4 MiB) would let a client that stops reading keep
/// the card filling it for seconds before the write timeout starts.
const SEND_BUFFER: usize = 16 * 1024;

/// A connection whose first frame arrived, waiting for the card.
struct Client {
    conn: Conn,
    first: Payload,
    peer: SocketAddr,
    _place: Place,
}

/// The port's rate-limited warnings.
struct Warnings {
    dropped: Throttle,
    refused: Throttle,
    evicted: Throttle,
}

impl Warnings {
    fn dropped(&self, peer: SocketAddr, e: &io::Error) {
        if let Some(n) = self.dropped.hit() {
            eprintln!("vss-card: {peer}: {e} ({n} client(s) dropped since the last such line)");
        }
    }
}

/// Serves the applet to one client after the other within `limits` (checked by the
/// caller: [`ServeLimits::check`]); returns only if the thread accepting connections could
/// not start or stopped.
pub fn serve(
    applet: &mut Applet,
    listener: &TcpListener,
    limits: &ServeLimits,
) -> io::Result<Infallible> {
    let limits = *limits;
    let warnings = Arc::new(Warnings {
        dropped: Throttle::new(WARN_INTERVAL),
        refused: Throttle::new(WARN_INTERVAL),
        evicted: Throttle::new(WARN_INTERVAL),
    });
    let (ready, clients) = mpsc::channel();
    std::thread::scope(|scope| {
        let accepting = Arc::clone(&warnings);
        std::thread::Builder::new()
            .name("vss-card-accept".into())
            .spawn_scoped(scope, move || accept(listener, limits, &ready, &accepting))?;
        for Client {
            mut conn,
            first,
            peer,
            _place,
        } in clients
        {
            applet.reset();
            let served = serve_frames(applet, &mut conn, Some(first));
            applet.reset();
            if let Err(e) = served {
                warnings.dropped(peer, &e);
            }
        }
        Err(io::Error::other("the thread accepting connections stopped"))
    })
}

/// Accepts every connection and starts reading its first frame; returns never.
fn accept(
    listener: &TcpListener,
    limits: ServeLimits,
    ready: &Sender<Client>,
    warnings: &Arc<Warnings>,
) -> ! {
    let waiting = Waiting::new(limits.max_connections);
    loop {
        let (stream, peer) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("vss-card: accept: {e}");
                std::thread::sleep(ACCEPT_PAUSE);
                continue;
            }
        };
        let place = match stream.try_clone().map(|handle| waiting.admit(handle)) {
            Ok(Admission::Held(place, evicted)) => {
                if let Some(n) = evicted.then(|| warnings.evicted.hit()).flatten() {
                    eprintln!(
                        "vss-card: {n} connection(s) without a command closed: {} held",
                        limits.max_connections
                    );
                }
                place
            }
            Ok(Admission::Full) => {
                if let Some(n) = warnings.refused.hit() {
                    eprintln!(
                        "vss-card: {n} connection(s) refused: {} held, each with a command waiting",
                        limits.max_connections
                    );
                }
                continue;
            }
            Err(e) => {
                warnings.dropped(peer, &e);
                continue;
            }
        };
        let (ready, reading) = (ready.clone(), Arc::clone(warnings));
        let reader = std::thread::Builder::new()
            .name("vss-card-client".into())
            .stack_size(READER_STACK)
            .spawn(move || read_first(stream, peer, place, &limits, &ready, &reading));
        if let Err(e) = reader {
            warnings.dropped(peer, &e);
        }
    }
}

/// Reads a connection's first frame and hands the connection to the card.
fn read_first(
    stream: TcpStream,
    peer: SocketAddr,
    place: Place,
    limits: &ServeLimits,
    ready: &Sender<Client>,
    warnings: &Warnings,
) {
    let socket = SockRef::from(&stream);
    if let Err(e) = stream
        .set_nodelay(true)
        .and_then(|()| socket.set_send_buffer_size(SEND_BUFFER))
    {
        return warnings.dropped(peer, &e);
    }
    let mut conn = Conn::new(stream, limits);
    match next_frame(&mut conn) {
        Ok(Some(first)) if place.ready() => {
            // Fails only once the card stopped serving.
            let _ = ready.send(Client {
                conn,
                first,
                peer,
                _place: place,
            });
        }
        Ok(_) => {}
        Err(e) => warnings.dropped(peer, &e),
    }
}

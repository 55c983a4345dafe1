//! The card side of vsmartcard's vpcd protocol: the card connects to the vpcd reader driver
//! of pcscd and answers its frames ([`crate::frame`]) until the driver goes away, then
//! connects again with backoff.
//!
//! Debian's vpcd writes a frame's length and its APDU in two writes; without `TCP_QUICKACK`
//! (set before every read) each APDU would wait for the card's delayed ACK, about 40 ms.

use crate::applet::Applet;
use crate::frame::{serve_frames, FrameIo};
use socket2::SockRef;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Where vpcd listens by default (its first reader).
pub const DEFAULT_VPCD: &str = "127.0.0.1:35963";
/// The first wait before connecting again.
pub const BACKOFF_MIN: Duration = Duration::from_millis(100);
/// The longest wait between connection attempts.
pub const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// Serves the applet to the vpcd driver at `addr`, connecting again whenever it is not
/// there or goes away; returns never.
pub fn serve(applet: &mut Applet, addr: SocketAddr) -> ! {
    let mut backoff = BACKOFF_MIN;
    let mut announced = false;
    loop {
        match TcpStream::connect(addr) {
            Ok(stream) => {
                backoff = BACKOFF_MIN;
                announced = false;
                eprintln!("vss-card: connected to vpcd at {addr}");
                applet.reset();
                if let Err(e) = stream.set_nodelay(true) {
                    eprintln!("vss-card: TCP_NODELAY: {e}");
                }
                let result = serve_frames(applet, &mut QuickAck(stream), None);
                applet.reset();
                match result {
                    Ok(()) => eprintln!("vss-card: vpcd closed the connection"),
                    Err(e) => eprintln!("vss-card: vpcd connection lost: {e}"),
                }
            }
            Err(e) if !announced => {
                eprintln!("vss-card: vpcd at {addr} not reachable ({e}), retrying");
                announced = true;
            }
            Err(_) => {}
        }
        std::thread::sleep(backoff);
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

/// The connection to vpcd, `TCP_QUICKACK` set before every frame is waited for.
struct QuickAck(TcpStream);

impl Read for QuickAck {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for QuickAck {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl FrameIo for QuickAck {
    fn before_frame(&mut self) {
        // Best effort: a socket without quick ACKs is slower, not wrong.
        let _ = SockRef::from(&self.0).set_tcp_quickack(true);
    }
}

//! The card's own TCP port (`--listen`): the vpcd framing ([`crate::frame`]) over plain
//! TCP, one client at a time. Each connection starts with a reset (nothing selected, no
//! PIN verified), and a client silent for [`IDLE_TIMEOUT`] is disconnected.

use crate::applet::Applet;
use crate::frame::serve_frames;
use std::net::TcpListener;
use std::time::Duration;

/// How long a client may stay silent before the card closes its connection.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The pause after a failed accept, so that a persistent failure does not spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Serves the applet to one client after the other; returns never.
pub fn serve(applet: &mut Applet, listener: &TcpListener) -> ! {
    loop {
        let (mut stream, peer) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(e) => {
                eprintln!("vss-card: accept: {e}");
                std::thread::sleep(ACCEPT_PAUSE);
                continue;
            }
        };
        if let Err(e) = stream
            .set_nodelay(true)
            .and_then(|()| stream.set_read_timeout(Some(IDLE_TIMEOUT)))
        {
            eprintln!("vss-card: {peer}: {e}");
            continue;
        }
        applet.reset();
        if let Err(e) = serve_frames(applet, &mut stream, |_| {}) {
            eprintln!("vss-card: {peer}: {e}");
        }
        applet.reset();
    }
}

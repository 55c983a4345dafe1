//! The card's own TCP port (`--listen`): the vpcd framing ([`crate::frame`]) over plain
//! TCP, one client at a time. Each connection starts with a reset (nothing selected, no
//! PIN verified), and a client silent for the idle timeout of its [`ServeLimits`]
//! ([`default_limits`]: [`IDLE_TIMEOUT`]) is disconnected. No other bound of the limits is
//! applied: one client is served at a time.

use crate::applet::Applet;
use crate::frame::serve_frames;
use std::net::TcpListener;
use std::time::Duration;
use vss_net::ServeLimits;

/// How long a client may stay silent before the card closes its connection, by default.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The card's defaults: its idle timeout [`IDLE_TIMEOUT`], the rest `ServeLimits::default()`
/// (not applied).
pub fn default_limits() -> ServeLimits {
    ServeLimits {
        idle_timeout: IDLE_TIMEOUT,
        ..ServeLimits::default()
    }
}
/// The pause after a failed accept, so that a persistent failure does not spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Serves the applet to one client after the other, closing a client silent for the idle
/// timeout of `limits` (checked by the caller: [`ServeLimits::check`]); returns never.
pub fn serve(applet: &mut Applet, listener: &TcpListener, limits: &ServeLimits) -> ! {
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
            .and_then(|()| stream.set_read_timeout(Some(limits.idle_timeout)))
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

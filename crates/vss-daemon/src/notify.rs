//! The systemd readiness protocol (`sd_notify`): a datagram such as `READY=1` to the Unix
//! socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace); nothing
//! when it is unset.

use std::io;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};

/// The environment variable systemd sets for `Type=notify` services.
pub const NOTIFY_SOCKET: &str = "NOTIFY_SOCKET";

/// Sends `state` (e.g. `READY=1`, `STOPPING=1`) to the service manager; `false` when none
/// listens (`$NOTIFY_SOCKET` unset).
pub fn notify(state: &str) -> io::Result<bool> {
    let Some(target) = std::env::var_os(NOTIFY_SOCKET) else {
        return Ok(false);
    };
    let bytes = target.as_bytes();
    let address = match bytes.strip_prefix(b"@") {
        Some(name) => SocketAddr::from_abstract_name(name)?,
        None => SocketAddr::from_pathname(std::path::Path::new(&target))?,
    };
    UnixDatagram::unbound()?.send_to_addr(state.as_bytes(), &address)?;
    Ok(true)
}

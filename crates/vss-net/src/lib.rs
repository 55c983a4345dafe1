//! What VSS's servers share (the PKI's and the credential roles' HTTP services, the TLS
//! terminator, the daemon): bounded TCP serving, metrics and logs.
//!
//! [`accept_bounded`] takes the next connection and a slot under a connection cap: a
//! connection past the cap comes back [`Accepted::Refused`], for the caller to tell (or not)
//! and close, before the process runs out of file descriptors. While the process is out of
//! descriptors or memory ([`out_of_resources`]) accepting waits [`ACCEPT_BACKOFF`] and tries
//! again: connections closing free some, and meanwhile the listener's backlog waits.
//! [`serve_bounded`] is the whole loop of a server whose refusal is one canned answer (for
//! HTTP, [`busy_response`]).
//! [`raise_open_file_limit`] gives a server all the descriptors it may have.
//!
//! [`ServeLimits`] ([`limits`]) are the bounds every server keeps (header, body, request and
//! idle timeouts, the connection cap, the Retry-After of a 503), with one set of ceilings and
//! one check; they need none of the serving dependencies (feature `serve`, on by default), so
//! the card and the configuration take them too.
//!
//! [`Guarded`] wraps a connection so that a write blocked longer than the write timeout
//! (a client that stops reading) fails and the connection closes. [`PerClient`] caps what one
//! client may hold (connections, offers, streams) under a key the server names, and
//! [`bind_unix`] binds a server's Unix socket (a stale one replaced, never a live one), and
//! [`Throttle`] turns a warning an attacker can repeat into one line per interval with a
//! count.
//!
//! [`metrics`] serves a Prometheus registry at `GET /metrics` within the same bounds, and
//! [`logging`] sets up a process's `tracing` logs on stderr (text or JSON lines).

pub mod limits;
#[cfg(feature = "serve")]
pub mod logging;
#[cfg(feature = "serve")]
pub mod metrics;

#[cfg(feature = "serve")]
mod bounded;
#[cfg(feature = "serve")]
mod guarded;
mod per_client;
mod throttle;
mod unix_socket;

#[cfg(feature = "serve")]
pub use bounded::{
    accept_bounded, busy_response, out_of_resources, raise_open_file_limit, serve_bounded,
    Accepted, ACCEPT_BACKOFF,
};
#[cfg(feature = "serve")]
pub use guarded::Guarded;
pub use limits::{
    check_timeout, LimitsError, ServeLimits, MAX_CONNECTIONS, MAX_TIMEOUT, RESERVED_DESCRIPTORS,
};
pub use per_client::{ClientSlot, PerClient};
pub use throttle::{Throttle, WARN_INTERVAL};
pub use unix_socket::{bind_unix, SocketFile, UnixSocketError};

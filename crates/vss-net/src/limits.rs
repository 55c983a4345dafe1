//! [`ServeLimits`]: the bounds every VSS server keeps on a client's waits and on the
//! connections it serves at once, with one set of ceilings ([`MAX_TIMEOUT`],
//! [`MAX_CONNECTIONS`]) and one check ([`ServeLimits::check`], [`LimitsError`]).
//!
//! Which server applies which bound, and the defaults each starts from:
//!
//! | bound | `pki serve`, `pki dc serve` | `cred serve` | `tls serve` | `vssd` | card TCP port | `/metrics` |
//! |---|---|---|---|---|---|---|
//! | [`header_timeout`](ServeLimits::header_timeout) | 10 s | — | 10 s (handshake) | 10 s (handshake and preface) | 5 s (a frame) | — |
//! | [`body_timeout`](ServeLimits::body_timeout) | 10 s (408) | — | — | — | — | — |
//! | [`request_timeout`](ServeLimits::request_timeout) | — | 60 s (503) | — | 10 s | — | 10 s |
//! | [`idle_timeout`](ServeLimits::idle_timeout) | 5 s (keep-alive) | 10 s | 60 s | — | 60 s | — |
//! | [`write_timeout`](ServeLimits::write_timeout) | 10 s | 10 s | 10 s | 10 s | 10 s | 10 s |
//! | [`max_connections`](ServeLimits::max_connections) | 4,096 | 256 | 4,096 | 256 | 16 (held) | 16 |
//! | [`retry_after`](ServeLimits::retry_after) | 1 s | 1 s | — | — | — | — |
//!
//! `ServeLimits::default()` is the PKI's column (and 60 s for the request timeout); every
//! other server starts from its own named defaults, each beside its `serve` function.

use std::time::Duration;

/// The longest timeout any server takes: one hour.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// The largest connection cap any server takes.
pub const MAX_CONNECTIONS: usize = 65_536;

/// File descriptors kept out of a connection cap by [`ServeLimits::fitted`]: the store, the
/// key files, the listener and the runtime's own.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// How long a server waits for a client, and how many clients it serves at once. A server
/// applies the bounds that fit its protocol (see the module's table) and ignores the others,
/// which [`ServeLimits::check`] still keeps in range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeLimits {
    /// The longest wait for a whole request head (HTTP), on a new connection or for the next
    /// request on a kept-alive one, or for a completed TLS handshake from accept; then the
    /// connection is closed.
    pub header_timeout: Duration,
    /// The longest wait for a request's whole body once its head arrived; then the request
    /// is answered 408.
    pub body_timeout: Duration,
    /// The longest a whole request may take, its body read and its answer; then it is
    /// answered 503 (HTTP) or `DEADLINE_EXCEEDED` (gRPC).
    pub request_timeout: Duration,
    /// How long a connection may sit idle (answered and waiting for its next request, or
    /// with no bytes either way) before it is closed.
    pub idle_timeout: Duration,
    /// The longest a write may stay blocked because the client does not read its answers
    /// (its receive window full); then the connection is closed ([`crate::Guarded`]).
    pub write_timeout: Duration,
    /// Connections served at once; one past the cap is refused (a 503 for HTTP) and closed.
    pub max_connections: usize,
    /// What a 503 past the cap tells the client to wait before it tries again (whole
    /// seconds, at least 1).
    pub retry_after: Duration,
}

impl Default for ServeLimits {
    fn default() -> Self {
        ServeLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(10),
            max_connections: 4096,
            retry_after: Duration::from_secs(1),
        }
    }
}

/// A [`ServeLimits`] value (or a server's own timeout, [`check_timeout`]) out of its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LimitsError {
    /// A timeout is zero or longer than [`MAX_TIMEOUT`] (its name).
    #[error("{0}: more than 0 and at most {max} s", max = MAX_TIMEOUT.as_secs())]
    Timeout(&'static str),
    /// The connection cap is zero or above [`MAX_CONNECTIONS`].
    #[error("max connections: from 1 to {MAX_CONNECTIONS}")]
    MaxConnections,
}

/// Whether `timeout`, named `name` in the error, is more than 0 and at most
/// [`MAX_TIMEOUT`]: the rule of every timeout of [`ServeLimits`], for a server's own too.
pub fn check_timeout(name: &'static str, timeout: Duration) -> Result<(), LimitsError> {
    if timeout.is_zero() || timeout > MAX_TIMEOUT {
        return Err(LimitsError::Timeout(name));
    }
    Ok(())
}

impl ServeLimits {
    /// Whether every value is inside its range: each timeout more than 0 and at most
    /// [`MAX_TIMEOUT`], the connection cap 1 to [`MAX_CONNECTIONS`].
    pub fn check(&self) -> Result<(), LimitsError> {
        check_timeout("header or handshake timeout", self.header_timeout)?;
        check_timeout("body timeout", self.body_timeout)?;
        check_timeout("request timeout", self.request_timeout)?;
        check_timeout("idle timeout", self.idle_timeout)?;
        check_timeout("write timeout", self.write_timeout)?;
        check_timeout("retry after", self.retry_after)?;
        if self.max_connections == 0 || self.max_connections > MAX_CONNECTIONS {
            return Err(LimitsError::MaxConnections);
        }
        Ok(())
    }

    /// The limits with the connection cap lowered, where needed, so that
    /// `descriptors_per_connection` descriptors for each fit under `open_files` (the
    /// process's open-file limit, as [`crate::raise_open_file_limit`] leaves it) less
    /// [`RESERVED_DESCRIPTORS`]: load is shed before descriptors run out. At least 1.
    pub fn fitted(self, open_files: u64, descriptors_per_connection: u64) -> ServeLimits {
        let room =
            open_files.saturating_sub(RESERVED_DESCRIPTORS) / descriptors_per_connection.max(1);
        ServeLimits {
            max_connections: self
                .max_connections
                .min(usize::try_from(room).unwrap_or(usize::MAX))
                .max(1),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bound_is_checked_against_its_range() {
        let limits = ServeLimits::default();
        assert_eq!(limits.check(), Ok(()));
        let with = |change: fn(&mut ServeLimits)| {
            let mut l = limits;
            change(&mut l);
            l.check()
        };
        assert_eq!(
            with(|l| l.header_timeout = Duration::ZERO),
            Err(LimitsError::Timeout("header or handshake timeout"))
        );
        assert_eq!(
            with(|l| l.body_timeout = MAX_TIMEOUT + Duration::from_millis(1)),
            Err(LimitsError::Timeout("body timeout"))
        );
        assert_eq!(
            with(|l| l.request_timeout = Duration::ZERO),
            Err(LimitsError::Timeout("request timeout"))
        );
        assert_eq!(
            with(|l| l.idle_timeout = Duration::ZERO),
            Err(LimitsError::Timeout("idle timeout"))
        );
        assert_eq!(
            with(|l| l.write_timeout = MAX_TIMEOUT + Duration::from_secs(1)),
            Err(LimitsError::Timeout("write timeout"))
        );
        assert_eq!(
            with(|l| l.retry_after = Duration::ZERO),
            Err(LimitsError::Timeout("retry after"))
        );
        assert_eq!(with(|l| l.idle_timeout = MAX_TIMEOUT), Ok(()));
        assert_eq!(
            with(|l| l.max_connections = 0),
            Err(LimitsError::MaxConnections)
        );
        assert_eq!(
            with(|l| l.max_connections = MAX_CONNECTIONS + 1),
            Err(LimitsError::MaxConnections)
        );
        assert_eq!(with(|l| l.max_connections = MAX_CONNECTIONS), Ok(()));
    }

    #[test]
    fn the_errors_say_the_range() {
        assert_eq!(
            LimitsError::Timeout("idle timeout").to_string(),
            "idle timeout: more than 0 and at most 3600 s"
        );
        assert_eq!(
            LimitsError::MaxConnections.to_string(),
            "max connections: from 1 to 65536"
        );
    }

    #[test]
    fn the_connection_cap_fits_under_the_open_file_limit() {
        let limits = ServeLimits::default();
        assert_eq!(limits.fitted(1 << 20, 1), limits);
        assert_eq!(limits.fitted(1024, 1).max_connections, 960);
        assert_eq!(limits.fitted(1024, 2).max_connections, 480);
        assert_eq!(limits.fitted(10, 1).max_connections, 1);
        assert_eq!(limits.fitted(10, 2).max_connections, 1);
    }
}

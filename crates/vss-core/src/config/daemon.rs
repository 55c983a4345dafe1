//! `[daemon]`: where `vssd` listens and the limits it keeps. Every bound has a default and a
//! ceiling, checked when the file is read; the server's bounds (`max_connections`,
//! `header_timeout`, `request_timeout`, `write_timeout`) are a [`ServeLimits`]
//! ([`DaemonConfig::limits`]), with its ceilings ([`vss_net::MAX_CONNECTIONS`],
//! [`vss_net::MAX_TIMEOUT`]) and the rule of their check ([`check_timeout`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use vss_net::{check_timeout, ServeLimits};

use super::{duration_text, ConfigError};

/// The most messages in one engine batch.
pub const MAX_BATCH: usize = 4096;
/// The longest a batch waits to fill.
pub const MAX_BATCH_DEADLINE: Duration = Duration::from_secs(1);
/// The largest payload or message a request may carry.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The longest shutdown grace.
pub const MAX_SHUTDOWN_GRACE: Duration = Duration::from_secs(600);
/// The most HTTP/2 streams (calls) at once on one connection.
pub const MAX_STREAMS_PER_CONNECTION: u32 = 1024;

/// `[daemon]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DaemonConfig {
    /// The Unix socket the gRPC API is served on (mode 0660).
    #[serde(default = "default_socket")]
    pub socket: PathBuf,
    /// Where Prometheus `/metrics` is served over HTTP (none: not served).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<SocketAddr>,
    /// `VerifyStream`: the most messages in one engine batch.
    #[serde(default = "default_batch_max")]
    pub batch_max: usize,
    /// `VerifyStream`: how long a batch waits to fill.
    #[serde(default = "default_batch_deadline", with = "duration_text")]
    pub batch_deadline: Duration,
    /// The largest payload or message in one request.
    #[serde(default = "default_max_message_bytes")]
    pub max_message_bytes: usize,
    /// Connections served at once on each listener, the Unix socket and TCP each
    /// ([`ServeLimits::max_connections`]).
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// Connections one client holds at once on a listener: one Unix user (uid), one TCP
    /// peer address.
    #[serde(default = "default_max_connections_per_client")]
    pub max_connections_per_client: usize,
    /// HTTP/2 streams (calls) at once on one connection.
    #[serde(default = "default_max_streams_per_connection")]
    pub max_streams_per_connection: u32,
    /// From accept, the longest wait for a TLS handshake and the HTTP/2 preface
    /// ([`ServeLimits::header_timeout`]).
    #[serde(default = "default_wait", with = "duration_text")]
    pub header_timeout: Duration,
    /// The longest a write may stay blocked by a client that does not read
    /// ([`ServeLimits::write_timeout`]).
    #[serde(default = "default_wait", with = "duration_text")]
    pub write_timeout: Duration,
    /// A unary call's time limit ([`ServeLimits::request_timeout`]).
    #[serde(default = "default_wait", with = "duration_text")]
    pub request_timeout: Duration,
    /// A `VerifyStream`'s time limit; then it ends with `DEADLINE_EXCEEDED`.
    #[serde(default = "default_stream_timeout", with = "duration_text")]
    pub stream_timeout: Duration,
    /// On SIGTERM, how long in-flight calls get to finish.
    #[serde(default = "default_wait", with = "duration_text")]
    pub shutdown_grace: Duration,
    /// gRPC over TCP with mutual TLS (none: the Unix socket only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<DaemonTcpConfig>,
}

/// `[daemon.tcp]`: gRPC over TCP, clients authenticated by certificate.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DaemonTcpConfig {
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The server's certificate chain (PEM).
    pub certificate: PathBuf,
    /// The server's private key (PEM, PKCS#8).
    pub key: PathBuf,
    /// The CA (PEM) whose certificates clients must present.
    pub client_ca: PathBuf,
}

fn default_socket() -> PathBuf {
    PathBuf::from("/run/vss/vss.sock")
}

fn default_batch_max() -> usize {
    64
}

fn default_batch_deadline() -> Duration {
    Duration::from_millis(2)
}

fn default_max_message_bytes() -> usize {
    65_536
}

fn default_max_connections() -> usize {
    256
}

fn default_max_connections_per_client() -> usize {
    128
}

fn default_max_streams_per_connection() -> u32 {
    16
}

fn default_stream_timeout() -> Duration {
    Duration::from_secs(3600)
}

fn default_wait() -> Duration {
    Duration::from_secs(10)
}

impl Default for DaemonConfig {
    fn default() -> Self {
        DaemonConfig {
            socket: default_socket(),
            metrics: None,
            batch_max: default_batch_max(),
            batch_deadline: default_batch_deadline(),
            max_message_bytes: default_max_message_bytes(),
            max_connections: default_max_connections(),
            max_connections_per_client: default_max_connections_per_client(),
            max_streams_per_connection: default_max_streams_per_connection(),
            header_timeout: default_wait(),
            write_timeout: default_wait(),
            request_timeout: default_wait(),
            stream_timeout: default_stream_timeout(),
            shutdown_grace: default_wait(),
            tcp: None,
        }
    }
}

impl DaemonConfig {
    /// Checks every bound; the error names the key.
    pub fn check(&self) -> Result<(), ConfigError> {
        if !(1..=MAX_BATCH).contains(&self.batch_max) {
            return Err(ConfigError::invalid(
                "daemon.batch_max",
                format!("1-{MAX_BATCH}"),
            ));
        }
        if self.batch_deadline > MAX_BATCH_DEADLINE {
            return Err(ConfigError::invalid(
                "daemon.batch_deadline",
                format!("at most {MAX_BATCH_DEADLINE:?}"),
            ));
        }
        if !(1..=MAX_MESSAGE_BYTES).contains(&self.max_message_bytes) {
            return Err(ConfigError::invalid(
                "daemon.max_message_bytes",
                format!("1-{MAX_MESSAGE_BYTES}"),
            ));
        }
        for (key, timeout) in [
            ("daemon.header_timeout", self.header_timeout),
            ("daemon.write_timeout", self.write_timeout),
            ("daemon.request_timeout", self.request_timeout),
            ("daemon.stream_timeout", self.stream_timeout),
        ] {
            check_timeout(key, timeout).map_err(|_| {
                ConfigError::invalid(
                    key,
                    format!("more than 0 and at most {:?}", vss_net::MAX_TIMEOUT),
                )
            })?;
        }
        for (key, count) in [
            ("daemon.max_connections", self.max_connections),
            (
                "daemon.max_connections_per_client",
                self.max_connections_per_client,
            ),
        ] {
            if !(1..=vss_net::MAX_CONNECTIONS).contains(&count) {
                return Err(ConfigError::invalid(
                    key,
                    format!("1-{}", vss_net::MAX_CONNECTIONS),
                ));
            }
        }
        if !(1..=MAX_STREAMS_PER_CONNECTION).contains(&self.max_streams_per_connection) {
            return Err(ConfigError::invalid(
                "daemon.max_streams_per_connection",
                format!("1-{MAX_STREAMS_PER_CONNECTION}"),
            ));
        }
        if self.shutdown_grace.is_zero() || self.shutdown_grace > MAX_SHUTDOWN_GRACE {
            return Err(ConfigError::invalid(
                "daemon.shutdown_grace",
                format!("more than 0 and at most {MAX_SHUTDOWN_GRACE:?}"),
            ));
        }
        Ok(())
    }

    /// The bounds `vssd` serves within: `max_connections`, `header_timeout` (handshake and
    /// preface), `request_timeout` and `write_timeout`, the rest `ServeLimits::default()`
    /// (not applied by `vssd`).
    pub fn limits(&self) -> ServeLimits {
        ServeLimits {
            max_connections: self.max_connections,
            header_timeout: self.header_timeout,
            request_timeout: self.request_timeout,
            write_timeout: self.write_timeout,
            ..ServeLimits::default()
        }
    }
}

//! `[daemon]`: where `vssd` listens and the limits it keeps. Every bound has a default and a
//! ceiling, checked when the file is read; the server's bounds (`max_connections`,
//! `request_timeout`) are a [`ServeLimits`] ([`DaemonConfig::limits`]), with its ceilings
//! ([`vss_net::MAX_CONNECTIONS`], [`vss_net::MAX_TIMEOUT`]) and its check.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use vss_net::{LimitsError, ServeLimits};

use super::{duration_text, ConfigError};

/// The most messages in one engine batch.
pub const MAX_BATCH: usize = 4096;
/// The longest a batch waits to fill.
pub const MAX_BATCH_DEADLINE: Duration = Duration::from_secs(1);
/// The largest payload or message a request may carry.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The longest shutdown grace.
pub const MAX_SHUTDOWN_GRACE: Duration = Duration::from_secs(600);

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
    /// Clients served at once ([`ServeLimits::max_connections`]).
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// A unary call's time limit ([`ServeLimits::request_timeout`]).
    #[serde(default = "default_wait", with = "duration_text")]
    pub request_timeout: Duration,
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
            request_timeout: default_wait(),
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
        self.limits().check().map_err(|e| match e {
            LimitsError::MaxConnections => ConfigError::invalid(
                "daemon.max_connections",
                format!("1-{}", vss_net::MAX_CONNECTIONS),
            ),
            // The other timeouts are the defaults', in range.
            LimitsError::Timeout(_) => ConfigError::invalid(
                "daemon.request_timeout",
                format!("more than 0 and at most {:?}", vss_net::MAX_TIMEOUT),
            ),
        })?;
        if self.shutdown_grace.is_zero() || self.shutdown_grace > MAX_SHUTDOWN_GRACE {
            return Err(ConfigError::invalid(
                "daemon.shutdown_grace",
                format!("more than 0 and at most {MAX_SHUTDOWN_GRACE:?}"),
            ));
        }
        Ok(())
    }

    /// The bounds `vssd` serves within: `max_connections` and `request_timeout`, the rest
    /// `ServeLimits::default()` (not applied by `vssd`).
    pub fn limits(&self) -> ServeLimits {
        ServeLimits {
            max_connections: self.max_connections,
            request_timeout: self.request_timeout,
            ..ServeLimits::default()
        }
    }
}

//! What stops `vssd` from starting or serving: [`DaemonError`].

use std::path::PathBuf;

/// Why `vssd` could not start or serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DaemonError {
    /// The configuration, the key store, the trust anchors or the pool failed to load.
    #[error(transparent)]
    Entity(#[from] vss_core::Error),
    /// A file or socket could not be used.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A socket could not be bound or served.
    #[error("{what}: {source}")]
    Net {
        /// Which socket.
        what: String,
        /// Why.
        source: std::io::Error,
    },
    /// The Unix socket could not be bound (another `vssd` serves it, the path holds
    /// something else, the file system refused).
    #[error(transparent)]
    Socket(#[from] vss_net::UnixSocketError),
    /// The TCP listener's TLS could not be set up.
    #[error("[daemon.tcp]: {0}")]
    Tls(String),
}

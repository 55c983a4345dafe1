//! `vssd`: the security entity of `vss-core` as a service. The API `vss.v1`
//! (`proto/vss/v1/vss.proto`) carries the SN-SAP primitives of ETSI TS 102 723-8 over gRPC
//! on a Unix socket, and optionally over TCP with mutual TLS (docs/DAEMON.md).
//!
//! - [`server`]: loading, serving, signals (SIGTERM/SIGINT stop, SIGHUP reloads);
//! - [`service`]: the RPCs on the entity; [`batcher`]: `VerifyStream`'s batches;
//! - [`events`]: identifier changes broadcast to subscribers;
//! - [`listen`]: the sockets and the connection cap; [`notify`]: `sd_notify`;
//! - [`metrics`]: Prometheus metrics; [`codes`]: report codes and statuses.

pub mod batcher;
pub mod client;
pub mod codes;
pub mod events;
pub mod listen;
pub mod metrics;
pub mod notify;
pub mod server;
pub mod service;

use std::path::PathBuf;

/// The generated messages, server and client of `vss.v1`; their documentation is the
/// proto file's (generated items without a comment there have none).
#[allow(missing_docs, clippy::all)]
pub mod proto {
    tonic::include_proto!("vss.v1");
}

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
    /// Another `vssd` answers on the socket.
    #[error("{0}: another vssd is serving this socket")]
    AlreadyServed(PathBuf),
    /// The socket path holds something other than a socket.
    #[error("{0}: exists and is not a socket")]
    NotASocket(PathBuf),
    /// The TCP listener's TLS could not be set up.
    #[error("[daemon.tcp]: {0}")]
    Tls(String),
    /// The server failed while serving.
    #[error("serving: {0}")]
    Serve(#[from] tonic::transport::Error),
}

/// Returns once `stop` turns true (or its sender is gone).
pub async fn until_stopped(stop: &mut tokio::sync::watch::Receiver<bool>) {
    // The value is not needed, only that it turned true (or can no longer change).
    let _ = stop.wait_for(|stop| *stop).await;
}

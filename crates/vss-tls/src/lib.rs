//! TLS termination with keys that stay in a VSS key store (seed 002's secure-channel offload).
//!
//! rustls does the protocol (TLS 1.3 and 1.2, session tickets, ALPN, SNI); when a handshake
//! needs the server's signature it asks an [`HsmSigningKey`], which queues the digest with a
//! [`SignBatcher`]: handshakes that wait at the same moment are signed as one batch, in
//! parallel on all cores, bounded by a size and a deadline. [`serve`] accepts connections
//! and passes their bytes to a backend, with every wait bounded ([`vss_net::ServeLimits`], [`default_limits`]).
//!
//! ```no_run
//! use std::sync::Arc;
//! use vss_tls::{certified_key, default_limits, serve, server_config, Backend, BatchConfig,
//!               ServeStats, SignBatcher, SniResolver};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let hsm: Arc<dyn vss_hsm::Hsm> = Arc::from(vss_hsm::open("store".as_ref(), "1234")?);
//! let batcher = SignBatcher::new(Arc::clone(&hsm), BatchConfig::default())?;
//! let key = certified_key(hsm.as_ref(), "server.pem".as_ref(), "tls-rsa", batcher)?;
//! let config = server_config(SniResolver::new(vec![key])?, &["http/1.1".into()])?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8443").await?;
//! serve(listener, Arc::new(config), Backend::new("127.0.0.1:8080".parse()?),
//!       default_limits(), Arc::new(ServeStats::default()), std::future::pending()).await?;
//! # Ok(()) }
//! ```

mod batch;
mod error;
mod key;
mod pump;
mod serve;

pub use batch::{BatchConfig, BatchStats, SignBatcher, SignRequest};
pub use error::{Error, Result};
pub use key::{certified_key, HsmSigningKey, SniResolver, MAX_CERT_FILE};
pub use serve::{
    default_limits, serve, server_config, Backend, ServeStats, DEFAULT_CONNECT_TIMEOUT,
};

//! `vss tls serve`: TLS termination in front of a service, the private keys in the store.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use vss_hsm::Hsm;
use vss_net::ServeLimits;
use vss_tls::{
    certified_key, default_limits, serve, server_config, Backend, BatchConfig, ServeStats,
    SignBatcher, SniResolver, DEFAULT_CONNECT_TIMEOUT,
};

use crate::store::StoreArgs;

/// TLS termination.
#[derive(Subcommand)]
pub enum TlsCommand {
    /// Terminate TLS 1.3 and 1.2 on --listen and pass each connection's bytes to --backend;
    /// the private keys stay in the store and handshakes are signed in batches.
    Serve(ServeArgs),
}

/// `vss tls serve`'s arguments.
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    store: StoreArgs,
    /// Address to accept TLS on (port 0: any free port, printed on start).
    #[arg(long, value_name = "ADDR")]
    listen: SocketAddr,
    /// Address of the service the plain bytes go to.
    #[arg(long, value_name = "ADDR")]
    backend: SocketAddr,
    /// Certificate chain (PEM, leaf first); repeat for several, chosen by SNI from their
    /// DNS names (the first also serves clients that name none).
    #[arg(long = "cert", value_name = "FILE", required = true)]
    certs: Vec<PathBuf>,
    /// Label of the store key for the --cert at the same position.
    #[arg(long = "key", value_name = "LABEL", required = true)]
    keys: Vec<String>,
    /// ALPN protocols offered, in order of preference (comma-separated).
    #[arg(
        long,
        value_name = "PROTOCOLS",
        value_delimiter = ',',
        default_value = "http/1.1"
    )]
    alpn: Vec<String>,
    /// Milliseconds from accept to a completed handshake (1–3600000).
    #[arg(long, value_name = "MS", default_value_t = millis(default_limits().header_timeout))]
    handshake_timeout_ms: u64,
    /// Milliseconds to connect to the backend (1–3600000).
    #[arg(long, value_name = "MS", default_value_t = millis(DEFAULT_CONNECT_TIMEOUT))]
    connect_timeout_ms: u64,
    /// Milliseconds with no bytes either way before a connection is closed (1–3600000).
    #[arg(long, value_name = "MS", default_value_t = millis(default_limits().idle_timeout))]
    idle_timeout_ms: u64,
    /// Milliseconds a write to the client (or the backend) may stay blocked because it does
    /// not read before the connection is closed (1–3600000).
    #[arg(long, value_name = "MS", default_value_t = millis(default_limits().write_timeout))]
    write_timeout_ms: u64,
    /// Connections served at once; more are closed at accept (1–65536).
    #[arg(long, value_name = "N", default_value_t = default_limits().max_connections)]
    max_connections: usize,
    /// The most signatures in one batch (1–1024).
    #[arg(long, value_name = "N", default_value_t = 64)]
    batch_size: usize,
    /// Microseconds a batch waits for more handshakes after its first (0–100000).
    #[arg(long, value_name = "US", default_value_t = 0)]
    batch_wait_us: u64,
}

/// `duration` in whole milliseconds, for a flag's default.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl TlsCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            TlsCommand::Serve(args) => args.run(),
        }
    }
}

impl ServeArgs {
    fn run(self) -> Result<ExitCode> {
        if self.certs.len() != self.keys.len() {
            bail!(
                "{} --cert and {} --key: give one --key LABEL for each --cert FILE",
                self.certs.len(),
                self.keys.len()
            );
        }
        let batch = BatchConfig {
            max_batch: self.batch_size,
            max_wait: Duration::from_micros(self.batch_wait_us),
            ..BatchConfig::default()
        };
        batch.check()?;
        let limits = ServeLimits {
            header_timeout: Duration::from_millis(self.handshake_timeout_ms),
            idle_timeout: Duration::from_millis(self.idle_timeout_ms),
            write_timeout: Duration::from_millis(self.write_timeout_ms),
            max_connections: self.max_connections,
            ..default_limits()
        };
        limits.check().map_err(vss_tls::Error::from)?;
        let backend = Backend {
            address: self.backend,
            connect_timeout: Duration::from_millis(self.connect_timeout_ms),
        };
        backend.check()?;
        // Two descriptors per connection (client and backend).
        let open_files =
            vss_net::raise_open_file_limit().context("cannot raise the open-file limit")?;
        let limits = limits.fitted(open_files, 2);

        let hsm: Arc<dyn Hsm> = Arc::from(self.store.open()?);
        let batcher = SignBatcher::new(Arc::clone(&hsm), batch)?;
        let mut keys = Vec::new();
        for (cert, label) in self.certs.iter().zip(&self.keys) {
            keys.push(certified_key(hsm.as_ref(), cert, label, batcher.clone())?);
        }
        let config = Arc::new(server_config(SniResolver::new(keys)?, &self.alpn)?);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("cannot start the TLS runtime")?;
        let stats = Arc::new(ServeStats::default());
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind(self.listen)
                .await
                .with_context(|| format!("cannot listen on {}", self.listen))?;
            eprintln!(
                "terminating TLS on {} for {} ({} certificate{}): up to {} connections, \
                 handshakes within {} ms, idle ones closed after {} ms, blocked writes after {} ms",
                listener.local_addr()?,
                self.backend,
                self.certs.len(),
                if self.certs.len() == 1 { "" } else { "s" },
                limits.max_connections,
                self.handshake_timeout_ms,
                self.idle_timeout_ms,
                self.write_timeout_ms,
            );
            serve(
                listener,
                config,
                backend,
                limits,
                Arc::clone(&stats),
                crate::commands::signal::shutdown_signal(),
            )
            .await
            .context("the TLS server stopped")
        })?;
        let signed = batcher.stats();
        eprintln!(
            "stopped: {} handshakes ({} failed, {} refused at the cap); {} signatures in {} \
             batches (largest {})",
            stats.handshakes(),
            stats.failed(),
            stats.refused(),
            signed.signatures(),
            signed.batches(),
            signed.largest()
        );
        Ok(ExitCode::SUCCESS)
    }
}

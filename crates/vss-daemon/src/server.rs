//! `vssd` from start to exit: loads the configuration, opens the entity without a prompt,
//! serves the API on the Unix socket (and TCP with mutual TLS when `[daemon.tcp]` is set)
//! and the metrics, tells systemd it is ready, reloads trust anchors and policy on SIGHUP,
//! and on SIGTERM or SIGINT stops accepting, lets in-flight calls finish within
//! `shutdown_grace`, and returns.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;
use tonic::service::Routes;
use vss_core::config::DaemonConfig;
use vss_core::{Config, Vss};
use vss_proto::proto::security_entity_server::SecurityEntityServer;

use crate::error::DaemonError;
use crate::listen::serve::{serve as serve_listener, Listening};
use crate::listen::{bind_unix, tls, SocketFile};
use crate::metrics::Metrics;
use crate::notify::notify;
use crate::service::Entity;
use crate::stop::until_stopped;

/// Room beside the largest field in one request (tags, other fields, framing).
pub const MESSAGE_SLACK: usize = 4096;

/// What `vssd` was started with.
#[derive(Debug, Clone)]
pub struct Options {
    /// The configuration file.
    pub config: PathBuf,
    /// The Unix socket, instead of `[daemon] socket`.
    pub socket: Option<PathBuf>,
}

/// Loads `options.config` and serves until SIGTERM or SIGINT.
pub fn run(options: &Options) -> Result<(), DaemonError> {
    let mut config = Config::load(&options.config)?;
    if let Some(socket) = &options.socket {
        config.daemon.socket = socket.clone();
    }
    let vss = Arc::new(Vss::open_unattended(&config)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| DaemonError::Net {
            what: "the runtime".into(),
            source,
        })?;
    runtime.block_on(serve(&config, &options.config, vss))
}

fn net(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> DaemonError {
    let what = what.into();
    move |source| DaemonError::Net { what, source }
}

fn service(entity: Entity, config: &DaemonConfig) -> SecurityEntityServer<Entity> {
    SecurityEntityServer::new(entity)
        .max_decoding_message_size(config.max_message_bytes + MESSAGE_SLACK)
}

async fn serve(config: &Config, path: &Path, vss: Arc<Vss>) -> Result<(), DaemonError> {
    let daemon = &config.daemon;
    let mut terminate = signal(SignalKind::terminate()).map_err(net("SIGTERM"))?;
    let mut interrupt = signal(SignalKind::interrupt()).map_err(net("SIGINT"))?;
    let mut hangup = signal(SignalKind::hangup()).map_err(net("SIGHUP"))?;
    let (metrics, registry) = Metrics::new();
    if let Some(address) = daemon.metrics {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(net(format!("metrics {address}")))?;
        tokio::spawn(vss_net::metrics::serve(
            listener,
            Arc::new(registry),
            vss_net::metrics::default_limits(),
        ));
    }
    let (stop, stopping) = watch::channel(false);
    let entity = Entity::new(vss.clone(), daemon, metrics, stopping.clone());
    let routes = Routes::new(service(entity.clone(), daemon));

    let unix = bind_unix(&daemon.socket)?;
    let _socket_file = SocketFile(daemon.socket.clone());
    let mut servers = tokio::task::JoinSet::new();
    servers.spawn(serve_listener(
        unix,
        |io| std::future::ready(Ok(io)),
        Listening::new("unix", daemon, routes.clone()),
        stopping.clone(),
    ));
    if let Some(tcp) = &daemon.tcp {
        let acceptor = tls::acceptor(tcp)?;
        let listener = tokio::net::TcpListener::bind(tcp.listen)
            .await
            .map_err(net(format!("[daemon.tcp] listen {}", tcp.listen)))?;
        servers.spawn(serve_listener(
            listener,
            move |io| acceptor.accept(io),
            Listening::new("tcp", daemon, routes),
            stopping.clone(),
        ));
    }
    drop(entity);
    if let Some(update) = &config.trust.update {
        tokio::spawn(refresh_trust(
            path.to_path_buf(),
            vss.clone(),
            update.every,
            stopping.clone(),
        ));
    }
    tracing::info!(socket = %daemon.socket.display(), "vssd ready");
    if let Err(e) = notify("READY=1") {
        tracing::warn!(error = %e, "sd_notify READY failed");
    }

    loop {
        tokio::select! {
            _ = terminate.recv() => break,
            _ = interrupt.recv() => break,
            _ = hangup.recv() => reload(path, &vss).await,
            // A listener stops only when the daemon does.
            _ = servers.join_next() => break,
        }
    }
    tracing::info!("stopping: no new calls, in-flight calls finish");
    if let Err(e) = notify("STOPPING=1") {
        tracing::warn!(error = %e, "sd_notify STOPPING failed");
    }
    let _ = stop.send(true);
    let finished = tokio::time::timeout(daemon.shutdown_grace, async {
        while servers.join_next().await.is_some() {}
    })
    .await;
    if finished.is_err() {
        tracing::warn!(grace = ?daemon.shutdown_grace, "calls still running after shutdown_grace were cut off");
    }
    tracing::info!("vssd stopped");
    Ok(())
}

/// `[trust.update]`: every `every` until the daemon stops, the trust lists fetched into the
/// store and verified with from then on (the configuration read again, as on SIGHUP); a
/// failed update is logged and the last good store stays.
async fn refresh_trust(
    path: PathBuf,
    vss: Arc<Vss>,
    every: std::time::Duration,
    mut stopping: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = until_stopped(&mut stopping) => return,
        }
        let (path, vss) = (path.clone(), vss.clone());
        let result = tokio::task::spawn_blocking(move || {
            let config = Config::load(&path)?;
            vss.refresh_trust(&config)
        })
        .await;
        match result {
            Ok(Ok(refresh)) => {
                tracing::info!(
                    roots = refresh.roots,
                    updated = refresh.updated,
                    "trust lists refreshed"
                );
                for root in refresh.stale_crls {
                    tracing::warn!(root = %root, "the root's CRL is past its next update");
                }
            }
            Ok(Err(e)) => {
                tracing::error!(error = %e, "trust update failed; the last good trust store stays")
            }
            Err(e) => tracing::error!(error = %e, "trust update failed"),
        }
    }
}

/// SIGHUP: trust anchors, authorities and verification policy from the file again; a
/// file that does not load changes nothing.
async fn reload(path: &Path, vss: &Arc<Vss>) {
    let (path, vss) = (path.to_path_buf(), vss.clone());
    let result = tokio::task::spawn_blocking(move || {
        let config = Config::load(&path)?;
        vss.reload(&config)
    })
    .await;
    match result {
        Ok(Ok(())) => tracing::info!("reloaded trust anchors and verification policy"),
        Ok(Err(e)) => tracing::error!(error = %e, "reload refused; the old anchors stay"),
        Err(e) => tracing::error!(error = %e, "reload failed"),
    }
}

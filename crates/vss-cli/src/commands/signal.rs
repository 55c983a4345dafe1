//! How the servers (`vss pki serve`, `vss pki dc serve`, `vss cred serve`, `vss tls serve`)
//! stop on SIGTERM or SIGINT: with a success and a line that says so.

use std::future::Future;

use anyhow::Result;

/// Completes on SIGINT or SIGTERM.
pub(crate) async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// Runs `serving` until it stops, with its error, or until SIGTERM or SIGINT ends it: then
/// one line (info) says so, and it is a success.
pub(crate) async fn until_signal(serving: impl Future<Output = Result<()>>) -> Result<()> {
    tokio::select! {
        stopped = serving => stopped,
        () = shutdown_signal() => {
            tracing::info!("stopped by a signal");
            Ok(())
        }
    }
}

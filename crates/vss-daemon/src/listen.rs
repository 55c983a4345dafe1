//! Where `vssd` listens: its Unix socket (parent directory created, mode 0660, a stale
//! socket file replaced but never another live daemon's) and optionally a TCP port; every
//! accepted connection holds one of `[daemon] max_connections` permits, and a connection
//! past the cap is closed at once.

use std::io;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::server::Connected;

use crate::error::DaemonError;
use crate::stop::until_stopped;

/// The mode of the socket: owner and group may connect.
pub const SOCKET_MODE: u32 = 0o660;

/// Binds the Unix socket at `path`.
pub fn bind_unix(path: &Path) -> Result<UnixListener, DaemonError> {
    let io = |source| DaemonError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| DaemonError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(DaemonError::NotASocket(path.to_path_buf()));
        }
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(DaemonError::AlreadyServed(path.to_path_buf()));
        }
        std::fs::remove_file(path).map_err(io)?;
    }
    let listener = UnixListener::bind(path).map_err(io)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(SOCKET_MODE)).map_err(io)?;
    Ok(listener)
}

/// Removes the socket file when dropped (the daemon's exit).
pub struct SocketFile(pub PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        // Gone already, or replaced: nothing to clean.
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A connection holding its permit.
pub struct Limited<S> {
    io: S,
    _permit: OwnedSemaphorePermit,
}

impl<S: AsyncRead + Unpin> AsyncRead for Limited<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Limited<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

impl<S: Connected> Connected for Limited<S> {
    type ConnectInfo = S::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.io.connect_info()
    }
}

/// Something that accepts connections.
pub trait Accept: Send + 'static {
    /// A connection.
    type Io: Send + 'static;
    /// The next connection.
    fn accept(&self) -> impl std::future::Future<Output = io::Result<Self::Io>> + Send;
}

impl Accept for UnixListener {
    type Io = tokio::net::UnixStream;

    async fn accept(&self) -> io::Result<Self::Io> {
        UnixListener::accept(self).await.map(|(s, _)| s)
    }
}

impl Accept for TcpListener {
    type Io = tokio::net::TcpStream;

    async fn accept(&self) -> io::Result<Self::Io> {
        TcpListener::accept(self).await.map(|(s, _)| s)
    }
}

/// The connections of `listener` within the `permits`, until `shutdown` turns true.
pub fn incoming<L: Accept>(
    listener: L,
    permits: Arc<Semaphore>,
    mut shutdown: watch::Receiver<bool>,
) -> ReceiverStream<io::Result<Limited<L::Io>>> {
    let (sender, receiver) = mpsc::channel(16);
    tokio::spawn(async move {
        loop {
            let io = tokio::select! {
                _ = until_stopped(&mut shutdown) => break,
                accepted = listener.accept() => match accepted {
                    Ok(io) => io,
                    Err(e) => {
                        // Out of descriptors or a connection reset before it was accepted:
                        // the listener itself is fine.
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                tracing::warn!("max_connections reached: a connection is closed");
                continue;
            };
            let connection = Limited {
                io,
                _permit: permit,
            };
            if sender.send(Ok(connection)).await.is_err() {
                break;
            }
        }
    });
    ReceiverStream::new(receiver)
}

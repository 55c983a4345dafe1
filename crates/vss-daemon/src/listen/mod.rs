//! Where `vssd` listens: its Unix socket (parent directory created, mode 0660, a stale
//! socket file replaced but never another live daemon's) and optionally a TCP port, and
//! who may connect: each listener has its own [`gate::Gate`] (`[daemon] max_connections`,
//! `max_connections_per_client`), a connection must finish its TLS handshake and HTTP/2
//! preface within `header_timeout` ([`wait::Admitted`]), and [`serve`] serves each
//! admitted connection within the HTTP/2 bounds of [`http2`].

pub mod gate;
pub mod http2;
pub mod serve;
pub mod tls;
pub mod wait;

use std::io;
use std::net::IpAddr;
use std::path::Path;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, UnixListener};

use crate::error::DaemonError;

/// The mode of the socket: owner and group may connect.
pub const SOCKET_MODE: u32 = 0o660;

/// Binds the Unix socket at `path` (mode [`SOCKET_MODE`]).
pub fn bind_unix(path: &Path) -> Result<UnixListener, DaemonError> {
    let listener = vss_net::bind_unix(path, SOCKET_MODE)?;
    let io = |source| DaemonError::Io {
        path: path.to_path_buf(),
        source,
    };
    listener.set_nonblocking(true).map_err(io)?;
    UnixListener::from_std(listener).map_err(io)
}

pub use vss_net::SocketFile;

/// What names a client for `[daemon] max_connections_per_client`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// A Unix socket client's user (`SO_PEERCRED`).
    Uid(u32),
    /// A TCP client's address.
    Address(IpAddr),
    /// A peer whose credentials could not be read (one key for all of them).
    Unknown,
}

/// Something that accepts connections.
pub trait Accept: Send + 'static {
    /// A connection.
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    /// The next connection and who it is from.
    fn accept(&self)
        -> impl std::future::Future<Output = io::Result<(Self::Io, ClientKey)>> + Send;
}

impl Accept for UnixListener {
    type Io = tokio::net::UnixStream;

    async fn accept(&self) -> io::Result<(Self::Io, ClientKey)> {
        let (stream, _) = UnixListener::accept(self).await?;
        let client = stream
            .peer_cred()
            .map_or(ClientKey::Unknown, |c| ClientKey::Uid(c.uid()));
        Ok((stream, client))
    }
}

impl Accept for TcpListener {
    type Io = tokio::net::TcpStream;

    async fn accept(&self) -> io::Result<(Self::Io, ClientKey)> {
        let (stream, peer) = TcpListener::accept(self).await?;
        Ok((stream, ClientKey::Address(peer.ip())))
    }
}

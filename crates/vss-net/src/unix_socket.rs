//! A server's Unix stream socket: its parent directory created, the socket file given a mode,
//! a stale socket file replaced but never one another process still serves, and the file
//! removed when the server ends ([`SocketFile`]).

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// Why a Unix socket could not be bound.
#[derive(Debug, thiserror::Error)]
pub enum UnixSocketError {
    /// Another process answers on the socket.
    #[error("{0}: another process is serving this socket")]
    AlreadyServed(PathBuf),
    /// The path holds something other than a socket.
    #[error("{0}: exists and is not a socket")]
    NotASocket(PathBuf),
    /// The file system refused (the directory, the bind, the mode).
    #[error("{path}: {source}")]
    Io {
        /// Which path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Binds a Unix stream socket at `path` with file mode `mode` (e.g. `0o660`: owner and group
/// may connect), making its parent directory and replacing a stale socket file there.
pub fn bind_unix(path: &Path, mode: u32) -> Result<UnixListener, UnixSocketError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| UnixSocketError::Io { path, source }
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(UnixSocketError::NotASocket(path.to_path_buf()));
        }
        if UnixStream::connect(path).is_ok() {
            return Err(UnixSocketError::AlreadyServed(path.to_path_buf()));
        }
        std::fs::remove_file(path).map_err(io(path))?;
    }
    let listener = UnixListener::bind(path).map_err(io(path))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(io(path))?;
    Ok(listener)
}

/// Removes the socket file when dropped (the server's end).
#[derive(Debug)]
pub struct SocketFile(pub PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        // Gone already, or replaced: nothing to clean.
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_socket_is_replaced_a_live_one_and_a_file_are_not() {
        let dir = std::env::temp_dir().join(format!("vss-net-unix-{}", std::process::id()));
        let path = dir.join("sub/s.sock");
        let live = bind_unix(&path, 0o660).expect("bind");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o660);
        assert!(matches!(
            bind_unix(&path, 0o660),
            Err(UnixSocketError::AlreadyServed(_))
        ));
        drop(live);
        let again = bind_unix(&path, 0o600).expect("a stale socket is replaced");
        drop(again);
        {
            let _file = SocketFile(path.clone());
        }
        assert!(!path.exists(), "removed when dropped");
        std::fs::write(&path, b"x").expect("file");
        assert!(matches!(
            bind_unix(&path, 0o660),
            Err(UnixSocketError::NotASocket(_))
        ));
        std::fs::remove_dir_all(&dir).expect("clean");
    }
}

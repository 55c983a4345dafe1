//! Atomic file replacement: write a temporary file, fsync it, rename it, fsync the directory;
//! and bounded reads of the files a store holds.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

use crate::{Error, Result};

/// Prefix of temporary files; a reader ignores them (a crash may leave one behind).
pub(crate) const TEMP_PREFIX: &str = ".tmp-";

/// Replaces `path` with `bytes` so that a reader (or a crash) sees either the old or the new
/// content, never a mixture. Files are created readable by the owner only. Only a regular
/// file (or nothing) is replaced: anything else at `path`, or at the end of a link there, is
/// [`Error::NotAFile`] (renaming over `/dev/null` would replace the device with a file).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(Error::NotAFile(path.to_path_buf()));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut nonce = [0u8; 8];
    vss_crypto::random_bytes(&mut nonce)?;
    let temp = dir.join(format!("{TEMP_PREFIX}{name}-{}", hex::encode(nonce)));
    let result = write_and_rename(&temp, path, bytes);
    if result.is_err() {
        // Best effort: the temporary file is not part of the store either way.
        let _ = fs::remove_file(&temp);
    }
    result?;
    sync_dir(dir)
}

fn write_and_rename(temp: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(temp).map_err(Error::io(temp))?;
    file.write_all(bytes).map_err(Error::io(temp))?;
    file.sync_all().map_err(Error::io(temp))?;
    drop(file);
    fs::rename(temp, path).map_err(Error::io(path))
}

/// The largest store file (a key file, the state file) that is read: each is a few hundred
/// bytes of JSON.
pub(crate) const MAX_STORE_FILE: u64 = 64 * 1024;

/// A file longer than the bound a [`read_bounded`] was given: the source of its
/// `InvalidData` error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("larger than {max} bytes")]
pub struct TooLarge {
    /// The bound.
    pub max: u64,
}

/// Reads the file at `path`, no more than `max` + 1 bytes whatever it is (`/dev/zero`, a
/// link to a huge file): a longer one is an `InvalidData` error whose source is
/// [`TooLarge`] ("larger than `max` bytes").
pub fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            TooLarge { max },
        ));
    }
    Ok(bytes)
}

/// Reads a file of the store with [`read_bounded`] to [`MAX_STORE_FILE`]: a larger one is
/// [`Error::CorruptFile`].
pub(crate) fn read_store_file(path: &Path) -> Result<Vec<u8>> {
    read_bounded(path, MAX_STORE_FILE).map_err(|e| match e.get_ref() {
        Some(inner) if inner.is::<TooLarge>() => Error::CorruptFile {
            path: path.to_path_buf(),
            reason: e.to_string(),
        },
        _ => Error::io(path)(e),
    })
}

/// Points the symbolic link `link` at `target` so that a reader (or a crash) finds either
/// the old target or the new one: a new link made beside it, renamed over it, the directory
/// synced. What is at `link` must be a link or nothing.
#[cfg(unix)]
pub fn replace_link(link: &Path, target: &Path) -> Result<()> {
    if fs::symlink_metadata(link).is_ok_and(|m| !m.file_type().is_symlink()) {
        return Err(Error::NotAFile(link.to_path_buf()));
    }
    let dir = match link.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut nonce = [0u8; 8];
    vss_crypto::random_bytes(&mut nonce)?;
    let temp = dir.join(format!("{TEMP_PREFIX}link-{}", hex::encode(nonce)));
    std::os::unix::fs::symlink(target, &temp).map_err(Error::io(&temp))?;
    if let Err(e) = fs::rename(&temp, link) {
        // Best effort: the temporary link is not part of the store either way.
        let _ = fs::remove_file(&temp);
        return Err(Error::io(link)(e));
    }
    sync_dir(dir)
}

/// Makes a directory entry change (create, rename, unlink) durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(Error::io(dir))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn replaces_content_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.json");
        write_atomic(&path, b"one").expect("write");
        write_atomic(&path, b"two").expect("rewrite");
        assert_eq!(fs::read(&path).expect("read"), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.json")]);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_repointed_in_place_and_nothing_else_is_replaced_by_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let link = dir.path().join("current");
        replace_link(&link, Path::new("gen-1")).expect("link");
        replace_link(&link, Path::new("gen-2")).expect("relink");
        assert_eq!(fs::read_link(&link).expect("a link"), Path::new("gen-2"));
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("current")]);

        let file = dir.path().join("file");
        fs::write(&file, b"kept").expect("write");
        let err = replace_link(&file, Path::new("gen-3")).expect_err("a regular file");
        assert!(matches!(err, Error::NotAFile(_)), "{err}");
        assert_eq!(fs::read(&file).expect("read"), b"kept");
    }

    #[cfg(unix)]
    #[test]
    fn what_is_not_a_regular_file_is_not_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A socket stands in for a device: a regression must not replace a real one.
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("socket");
        let link = dir.path().join("null");
        std::os::unix::fs::symlink("/dev/null", &link).expect("symlink");
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).expect("mkdir");
        for path in [&socket, &link, &sub] {
            let err = write_atomic(path, b"x").expect_err("not a file");
            assert!(matches!(&err, Error::NotAFile(p) if p == path), "{err}");
        }
        assert!(fs::symlink_metadata(&socket)
            .expect("socket")
            .file_type()
            .is_socket());
        assert!(fs::symlink_metadata(&link).expect("link").is_symlink());
        assert_eq!(fs::read_dir(dir.path()).expect("list").count(), 3);
    }

    #[test]
    fn missing_directory_is_an_io_error_naming_the_file() {
        let err = write_atomic(Path::new("/nonexistent-vss-dir/f"), b"x").expect_err("fails");
        assert!(err.to_string().contains("/nonexistent-vss-dir"), "{err}");
    }
}

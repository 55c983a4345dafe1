//! Reading a certificate file: bounded, decoded, the file named in the error.

use std::path::{Path, PathBuf};

use crate::{Cert, Error, MAX_ENCODED_LEN};

/// A certificate file that could not be read, or holds no certificate VSS accepts.
#[derive(Debug, thiserror::Error)]
pub enum CertFileError {
    /// The file could not be read, or is longer than [`MAX_ENCODED_LEN`] bytes.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason (or the bound).
        source: std::io::Error,
    },
    /// The file's bytes are not a certificate (see [`Cert::from_bytes`]).
    #[error("{}: {source}", .path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// Why the bytes are not a certificate.
        source: Error,
    },
}

impl CertFileError {
    /// The file.
    pub fn path(&self) -> &Path {
        match self {
            CertFileError::Read { path, .. } | CertFileError::Decode { path, .. } => path,
        }
    }
}

impl Cert {
    /// Reads the COER certificate in the file at `path`: no more than [`MAX_ENCODED_LEN`]
    /// bytes whatever the file is (`/dev/zero`, a huge file), since nothing longer decodes.
    pub fn read(path: &Path) -> Result<Cert, CertFileError> {
        let bytes = vss_hsm::read_bounded(path, MAX_ENCODED_LEN as u64).map_err(|source| {
            CertFileError::Read {
                path: path.to_path_buf(),
                source,
            }
        })?;
        Cert::from_bytes(&bytes).map_err(|source| CertFileError::Decode {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_huge_or_junk_file_is_named() {
        let dir = tempfile::tempdir().expect("dir");
        let missing = dir.path().join("missing.cert");
        let junk = dir.path().join("junk.cert");
        std::fs::write(&junk, b"not a certificate").expect("write");
        let huge = Path::new("/dev/zero");
        for (path, read) in [(missing.as_path(), true), (huge, true), (&junk, false)] {
            let error = Cert::read(path).expect_err("refused");
            assert_eq!(error.path(), path);
            assert_eq!(matches!(error, CertFileError::Read { .. }), read, "{error}");
            let prefix = if read { "cannot read " } else { "" };
            assert!(
                error
                    .to_string()
                    .starts_with(&format!("{prefix}{}: ", path.display())),
                "{error}"
            );
        }
    }
}

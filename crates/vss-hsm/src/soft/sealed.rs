//! What key files and secret files share: a value encrypted under the store's master key
//! (AES-256-GCM, a fresh nonce each time, the file's identity bound as associated data),
//! and reading a store file that may be missing, too large or not the expected JSON.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use vss_crypto::AesGcm;
use zeroize::Zeroizing;

use super::state::MasterKey;
use crate::{Error, Result};

/// A ciphertext with its nonce, as a store file holds it (hex).
#[derive(Serialize, Deserialize)]
pub(crate) struct Sealed {
    #[serde(with = "hex::serde")]
    nonce: Vec<u8>,
    #[serde(with = "hex::serde")]
    ciphertext: Vec<u8>,
}

impl Sealed {
    /// Encrypts `plaintext` under the master key, bound to `aad`.
    pub(crate) fn seal(master: &MasterKey, aad: &[u8], plaintext: &[u8]) -> Result<Self> {
        let mut nonce = vec![0u8; vss_crypto::NONCE_LEN];
        vss_crypto::random_bytes(&mut nonce)?;
        let ciphertext = AesGcm::new(master.as_ref())?.seal(&nonce, aad, plaintext)?;
        Ok(Sealed { nonce, ciphertext })
    }

    /// Decrypts what [`Self::seal`] sealed with the same `aad`; a file (at `path`) that was
    /// altered, renamed or damaged is [`Error::CorruptFile`].
    pub(crate) fn open(
        &self,
        master: &MasterKey,
        aad: &[u8],
        path: &Path,
    ) -> Result<Zeroizing<Vec<u8>>> {
        Ok(Zeroizing::new(
            AesGcm::new(master.as_ref())?
                .open(&self.nonce, aad, &self.ciphertext)
                .map_err(|_| {
                    corrupt(
                        path,
                        "authentication failed: the file was altered or damaged".into(),
                    )
                })?,
        ))
    }
}

/// [`Error::CorruptFile`] for `path`.
pub(crate) fn corrupt(path: &Path, reason: String) -> Error {
    Error::CorruptFile {
        path: path.to_path_buf(),
        reason,
    }
}

/// Reads a store file of version 1 as JSON; a missing file is `missing`, one that is not
/// the expected JSON or of another version is [`Error::CorruptFile`].
pub(crate) fn read_file<T: DeserializeOwned + Versioned>(
    path: &Path,
    missing: impl FnOnce() -> Error,
) -> Result<T> {
    let bytes = match crate::atomic::read_store_file(path) {
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Err(missing())
        }
        read => read?,
    };
    let file: T = serde_json::from_slice(&bytes).map_err(|e| corrupt(path, e.to_string()))?;
    if file.version() != 1 {
        return Err(corrupt(path, format!("unknown version {}", file.version())));
    }
    Ok(file)
}

/// A store file's JSON.
pub(crate) fn to_json<T: Serialize>(file: &T) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(file).map_err(|e| Error::Unsupported(e.to_string()))
}

/// A store file with a format version.
pub(crate) trait Versioned {
    /// The file's format version.
    fn version(&self) -> u32;
}

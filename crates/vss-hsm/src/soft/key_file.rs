//! `keys/<label>.key`: one private key, encrypted under the store's master key.
//!
//! The secret is the big-endian scalar of an EC key or the PKCS #8 DER of an RSA key. The label
//! and algorithm are bound to the ciphertext as associated data, so a key file that
//! was renamed, edited or damaged fails to decrypt and is reported as corrupt.

use std::path::Path;

use serde::{Deserialize, Serialize};
use vss_crypto::{KeyAlgorithm, PrivateKey, RsaPrivateKey};

use super::sealed::{self, Sealed, Versioned};
use super::state::MasterKey;
use crate::{Error, KeyHandle, Result};

#[derive(Serialize, Deserialize)]
struct KeyFile {
    version: u32,
    label: String,
    /// `p256`…, `rsa2048`…; named `curve` in the files of the EC-only versions.
    #[serde(alias = "curve")]
    algorithm: String,
    #[serde(flatten)]
    sealed: Sealed,
}

impl Versioned for KeyFile {
    fn version(&self) -> u32 {
        self.version
    }
}

fn aad(label: &str, algorithm: KeyAlgorithm) -> Vec<u8> {
    format!("vss soft key v1\0{label}\0{algorithm}").into_bytes()
}

/// A private key of either kind, as the store holds it.
pub(crate) enum StoredKey {
    /// An elliptic-curve key.
    Ec(PrivateKey),
    /// An RSA key.
    Rsa(RsaPrivateKey),
}

impl StoredKey {
    /// The key's algorithm and size.
    pub(crate) fn algorithm(&self) -> KeyAlgorithm {
        match self {
            StoredKey::Ec(key) => KeyAlgorithm::Ec(key.curve()),
            StoredKey::Rsa(key) => KeyAlgorithm::Rsa(key.public_key().bits()),
        }
    }

    /// The EC key, or [`Error::WrongKeyType`] for an RSA key.
    pub(crate) fn ec(&self, handle: &KeyHandle) -> Result<&PrivateKey> {
        match self {
            StoredKey::Ec(key) => Ok(key),
            StoredKey::Rsa(_) => Err(self.wrong_type(handle, "an EC key")),
        }
    }

    /// The RSA key, or [`Error::WrongKeyType`] for an EC key.
    pub(crate) fn rsa(&self, handle: &KeyHandle) -> Result<&RsaPrivateKey> {
        match self {
            StoredKey::Rsa(key) => Ok(key),
            StoredKey::Ec(_) => Err(self.wrong_type(handle, "an RSA key")),
        }
    }

    fn wrong_type(&self, handle: &KeyHandle, needs: &'static str) -> Error {
        Error::WrongKeyType {
            label: handle.id().to_owned(),
            algorithm: self.algorithm(),
            needs,
        }
    }

    fn secret(&self) -> &[u8] {
        match self {
            StoredKey::Ec(key) => key.scalar(),
            StoredKey::Rsa(key) => key.pkcs8(),
        }
    }
}

/// The encrypted file content for a key.
pub(crate) fn seal(master: &MasterKey, label: &str, key: &StoredKey) -> Result<Vec<u8>> {
    let algorithm = key.algorithm();
    sealed::to_json(&KeyFile {
        version: 1,
        label: label.to_owned(),
        algorithm: algorithm.to_string(),
        sealed: Sealed::seal(master, &aad(label, algorithm), key.secret())?,
    })
}

/// Reads the algorithm of a key file without decrypting it.
pub(crate) fn algorithm(path: &Path, label: &str) -> Result<KeyAlgorithm> {
    let (_, algorithm) = parse(path, label)?;
    Ok(algorithm)
}

/// Reads and decrypts a key file.
pub(crate) fn open(master: &MasterKey, path: &Path, label: &str) -> Result<StoredKey> {
    let (file, algorithm) = parse(path, label)?;
    let corrupt = |reason: &str| sealed::corrupt(path, reason.to_owned());
    let secret = file.sealed.open(master, &aad(label, algorithm), path)?;
    let key = match algorithm {
        KeyAlgorithm::Ec(curve) => PrivateKey::from_scalar(curve, &secret).map(StoredKey::Ec),
        KeyAlgorithm::Rsa(_) => RsaPrivateKey::from_pkcs8(&secret).map(StoredKey::Rsa),
    }
    .map_err(|_| corrupt("the decrypted key is invalid"))?;
    if key.algorithm() != algorithm {
        return Err(corrupt("the decrypted key is not of the recorded size"));
    }
    Ok(key)
}

fn parse(path: &Path, label: &str) -> Result<(KeyFile, KeyAlgorithm)> {
    let file: KeyFile = sealed::read_file(path, || Error::KeyNotFound(label.to_owned()))?;
    let corrupt = |reason: String| sealed::corrupt(path, reason);
    if file.label != label {
        return Err(corrupt(format!(
            "holds label '{}', not '{label}'",
            file.label
        )));
    }
    let algorithm = file
        .algorithm
        .parse::<KeyAlgorithm>()
        .map_err(|e| corrupt(e.to_string()))?;
    Ok((file, algorithm))
}

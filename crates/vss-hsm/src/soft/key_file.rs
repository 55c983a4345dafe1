//! `keys/<label>.key`: one private key, encrypted under the store's master key.
//!
//! The label and curve are bound to the ciphertext as associated data, so a key file that
//! was renamed, edited or damaged fails to decrypt and is reported as corrupt.

use std::path::Path;

use serde::{Deserialize, Serialize};
use vss_crypto::{AesGcm, Curve, PrivateKey};
use zeroize::Zeroizing;

use super::state::MasterKey;
use crate::{Error, Result};

#[derive(Serialize, Deserialize)]
struct KeyFile {
    version: u32,
    label: String,
    curve: String,
    #[serde(with = "hex::serde")]
    nonce: Vec<u8>,
    #[serde(with = "hex::serde")]
    ciphertext: Vec<u8>,
}

fn aad(label: &str, curve: Curve) -> Vec<u8> {
    format!("vss soft key v1\0{label}\0{curve}").into_bytes()
}

/// The encrypted file content for a key.
pub(crate) fn seal(master: &MasterKey, label: &str, key: &PrivateKey) -> Result<Vec<u8>> {
    let mut nonce = vec![0u8; vss_crypto::NONCE_LEN];
    vss_crypto::random_bytes(&mut nonce)?;
    let ciphertext =
        AesGcm::new(master.as_ref())?.seal(&nonce, &aad(label, key.curve()), key.scalar())?;
    let file = KeyFile {
        version: 1,
        label: label.to_owned(),
        curve: key.curve().to_string(),
        nonce,
        ciphertext,
    };
    serde_json::to_vec_pretty(&file).map_err(|e| Error::Unsupported(e.to_string()))
}

/// Reads the curve of a key file without decrypting it.
pub(crate) fn curve(path: &Path, label: &str) -> Result<Curve> {
    let (_, curve) = parse(path, label)?;
    Ok(curve)
}

/// Reads and decrypts a key file.
pub(crate) fn open(master: &MasterKey, path: &Path, label: &str) -> Result<PrivateKey> {
    let (file, curve) = parse(path, label)?;
    let corrupt = |reason: &str| Error::CorruptFile {
        path: path.to_path_buf(),
        reason: reason.to_owned(),
    };
    let scalar = Zeroizing::new(
        AesGcm::new(master.as_ref())?
            .open(&file.nonce, &aad(label, curve), &file.ciphertext)
            .map_err(|_| corrupt("authentication failed: the file was altered or damaged"))?,
    );
    PrivateKey::from_scalar(curve, &scalar).map_err(|_| corrupt("the decrypted key is invalid"))
}

fn parse(path: &Path, label: &str) -> Result<(KeyFile, Curve)> {
    let bytes = match crate::atomic::read_store_file(path) {
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::KeyNotFound(label.to_owned()))
        }
        read => read?,
    };
    let corrupt = |reason: String| Error::CorruptFile {
        path: path.to_path_buf(),
        reason,
    };
    let file: KeyFile = serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
    if file.version != 1 {
        return Err(corrupt(format!("unknown version {}", file.version)));
    }
    if file.label != label {
        return Err(corrupt(format!(
            "holds label '{}', not '{label}'",
            file.label
        )));
    }
    let curve = file
        .curve
        .parse::<Curve>()
        .map_err(|e| corrupt(e.to_string()))?;
    Ok((file, curve))
}

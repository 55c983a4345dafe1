//! `secrets/<name>.secret`: one opaque secret (a credential role's key), encrypted under the
//! store's master key like a key file. The name is bound to the ciphertext as associated
//! data, so a secret file that was renamed, edited or damaged is reported as corrupt.

use std::path::Path;

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use super::sealed::{self, Sealed, Versioned};
use super::state::MasterKey;
use crate::{Error, Result};

/// The largest secret a store keeps, in bytes: 16 KiB, room for any key (an RSA-4096 key's
/// PKCS #8 is under 2.5 KiB; a credential role's key is 32 octets). Sealed and hex-encoded
/// it stays under the 64 KiB bound on a store file. Large state that goes with a secret (a
/// revocation authority's members and log) belongs in a file of its own, outside the store.
pub const MAX_SECRET_LEN: usize = 16 * 1024;

#[derive(Serialize, Deserialize)]
struct SecretFile {
    version: u32,
    name: String,
    #[serde(flatten)]
    sealed: Sealed,
}

impl Versioned for SecretFile {
    fn version(&self) -> u32 {
        self.version
    }
}

fn aad(name: &str) -> Vec<u8> {
    format!("vss soft secret v1\0{name}").into_bytes()
}

/// The encrypted file content for a secret of at most [`MAX_SECRET_LEN`] bytes.
pub(crate) fn seal(master: &MasterKey, name: &str, secret: &[u8]) -> Result<Vec<u8>> {
    if secret.len() > MAX_SECRET_LEN {
        return Err(Error::SecretTooLarge {
            len: secret.len(),
            max: MAX_SECRET_LEN,
        });
    }
    sealed::to_json(&SecretFile {
        version: 1,
        name: name.to_owned(),
        sealed: Sealed::seal(master, &aad(name), secret)?,
    })
}

/// Reads and decrypts a secret file.
pub(crate) fn open(master: &MasterKey, path: &Path, name: &str) -> Result<Zeroizing<Vec<u8>>> {
    let file: SecretFile = sealed::read_file(path, || Error::SecretNotFound(name.to_owned()))?;
    if file.name != name {
        return Err(sealed::corrupt(
            path,
            format!("holds secret '{}', not '{name}'", file.name),
        ));
    }
    file.sealed.open(master, &aad(name), path)
}

//! The `soft` backend: a key-store directory whose key files are encrypted at rest under a
//! master key, which is itself wrapped under the user PIN and the PUK (Argon2id, AES-256-GCM).
//!
//! ```text
//! DIR/hsm.json          {"version":1,"backend":"soft"}
//! DIR/soft-store.json   KDF parameters, wrapped master key, PIN and PUK retry counters
//! DIR/keys/LABEL.key    one private key, AES-256-GCM under the master key
//! DIR/secrets/NAME.secret  one opaque secret (a credential role's key), sealed the same way
//! ```

mod key_file;
mod sealed;
mod secret_file;
mod state;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use vss_crypto::{
    KeyAlgorithm, PrivateKey, PublicKey, RsaEncryptionPadding, RsaPrivateKey, RsaPublicKey,
    RsaSignatureScheme, Signature,
};
use zeroize::Zeroizing;

pub use secret_file::MAX_SECRET_LEN;
pub use state::{SoftStoreStatus, KDF_LANES, KDF_MEMORY_KIB, KDF_PASSES, PIN_TRIES, PUK_TRIES};

use crate::atomic::{self, TEMP_PREFIX};
use crate::config::{KeyLocation, StoreConfig};
use crate::Backend;
use crate::{
    check_label, Error, GenerateKeyRequest, Hsm, ImportKeyRequest, KeyHandle, KeyInfo, Result,
};
use key_file::StoredKey;
use state::{MasterKey, StateFile};

const KEYS_DIR: &str = "keys";
const KEY_SUFFIX: &str = ".key";
const SECRETS_DIR: &str = "secrets";
const SECRET_SUFFIX: &str = ".secret";

/// The software HSM: keys in files under a store directory, opened with the user PIN.
pub struct SoftHsm {
    dir: PathBuf,
    master: MasterKey,
    /// Keys decrypted once and held parsed, so that a signature reads no file.
    loaded: RwLock<HashMap<String, Arc<StoredKey>>>,
}

impl SoftHsm {
    /// Initialises a new, empty store in `dir` (created if missing; it must be empty).
    pub fn init(dir: &Path, pin: &str, puk: &str) -> Result<()> {
        state::check_pin_policy(pin)?;
        state::check_puk_policy(puk)?;
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        let mut entries = std::fs::read_dir(dir).map_err(Error::io(dir))?;
        if entries.next().is_some() {
            return Err(Error::NotEmpty(dir.to_path_buf()));
        }
        let result = Self::create_files(dir, pin, puk);
        if result.is_err() {
            // Leave the directory as empty as it was found, so that init can be retried.
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let _ = std::fs::remove_dir_all(entry.path())
                    .or_else(|_| std::fs::remove_file(entry.path()));
            }
        }
        result
    }

    fn create_files(dir: &Path, pin: &str, puk: &str) -> Result<()> {
        let keys = dir.join(KEYS_DIR);
        std::fs::create_dir(&keys).map_err(Error::io(&keys))?;
        StateFile::create(dir, pin, puk)?;
        // Written last: a directory with hsm.json is a complete store.
        StoreConfig {
            version: 1,
            location: KeyLocation::Soft,
        }
        .write(dir)
    }

    /// Opens the store with the user PIN. Each wrong PIN costs one of [`PIN_TRIES`].
    pub fn open(dir: &Path, pin: &str) -> Result<Self> {
        Self::check_is_soft(dir)?;
        let master = StateFile::load(dir)?.verify_pin(pin)?;
        Ok(SoftHsm {
            dir: dir.to_path_buf(),
            master,
            loaded: RwLock::new(HashMap::new()),
        })
    }

    /// The PIN and PUK counters, read without using a try.
    pub fn status(dir: &Path) -> Result<SoftStoreStatus> {
        Self::check_is_soft(dir)?;
        Ok(StateFile::load(dir)?.status())
    }

    /// Changes the user PIN (the old PIN is checked like any PIN).
    pub fn change_pin(dir: &Path, old_pin: &str, new_pin: &str) -> Result<()> {
        Self::check_is_soft(dir)?;
        state::check_pin_policy(new_pin)?;
        let mut state = StateFile::load(dir)?;
        let master = state.verify_pin(old_pin)?;
        state.set_pin(&master, new_pin)
    }

    /// Unblocks the PIN with the PUK and sets a new PIN. Each wrong PUK costs one of
    /// [`PUK_TRIES`]; the last one locks the store for good.
    pub fn unblock(dir: &Path, puk: &str, new_pin: &str) -> Result<()> {
        Self::check_is_soft(dir)?;
        StateFile::load(dir)?.unblock(puk, new_pin)
    }

    fn check_is_soft(dir: &Path) -> Result<()> {
        match StoreConfig::read(dir)?.location {
            KeyLocation::Soft => Ok(()),
            other => Err(Error::Unsupported(format!(
                "{} keeps its keys on a {} token: PIN administration is the token's",
                dir.display(),
                match other {
                    KeyLocation::Pkcs11 { .. } => "PKCS#11",
                    KeyLocation::Soft => "soft",
                }
            ))),
        }
    }

    /// Keeps `secret` under `name` (checked like a key label), encrypted under the master key
    /// like a key file, replacing the secret of that name if there is one. At most
    /// [`MAX_SECRET_LEN`] bytes: more is [`Error::SecretTooLarge`].
    pub fn put_secret(&self, name: &str, secret: &[u8]) -> Result<()> {
        check_label(name)?;
        let bytes = secret_file::seal(&self.master, name, secret)?;
        let dir = self.dir.join(SECRETS_DIR);
        let _lock = state::lock(&self.dir)?;
        if !dir.exists() {
            // Stores made before secrets existed have no directory for them yet.
            std::fs::create_dir(&dir).map_err(Error::io(&dir))?;
            atomic::sync_dir(&self.dir)?;
        }
        atomic::write_atomic(&self.secret_path(name), &bytes)
    }

    /// The secret kept under `name`: [`Error::SecretNotFound`] if there is none,
    /// [`Error::CorruptFile`] if its file was altered, renamed or damaged.
    pub fn get_secret(&self, name: &str) -> Result<Zeroizing<Vec<u8>>> {
        check_label(name)?;
        secret_file::open(&self.master, &self.secret_path(name), name)
    }

    /// Deletes the secret kept under `name` ([`Error::SecretNotFound`] if there is none).
    pub fn delete_secret(&self, name: &str) -> Result<()> {
        check_label(name)?;
        let path = self.secret_path(name);
        let _lock = state::lock(&self.dir)?;
        match std::fs::remove_file(&path) {
            Ok(()) => atomic::sync_dir(&self.dir.join(SECRETS_DIR)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(Error::SecretNotFound(name.to_owned()))
            }
            Err(e) => Err(Error::io(&path)(e)),
        }
    }

    fn secret_path(&self, name: &str) -> PathBuf {
        self.dir
            .join(SECRETS_DIR)
            .join(format!("{name}{SECRET_SUFFIX}"))
    }

    fn key_path(&self, label: &str) -> PathBuf {
        self.dir.join(KEYS_DIR).join(format!("{label}{KEY_SUFFIX}"))
    }

    fn store(&self, label: &str, key: StoredKey) -> Result<KeyInfo> {
        check_label(label)?;
        let bytes = key_file::seal(&self.master, label, &key)?;
        let path = self.key_path(label);
        let _lock = state::lock(&self.dir)?;
        if path.exists() {
            return Err(Error::KeyExists(label.to_owned()));
        }
        atomic::write_atomic(&path, &bytes)?;
        let info = info(label, key.algorithm());
        self.cache()?.insert(label.to_owned(), Arc::new(key));
        Ok(info)
    }

    fn stored_key(&self, handle: &KeyHandle) -> Result<Arc<StoredKey>> {
        let label = handle.id();
        if let Some(key) = self
            .loaded
            .read()
            .map_err(|_| Error::Unsupported("key cache poisoned".into()))?
            .get(label)
        {
            return Ok(Arc::clone(key));
        }
        check_label(label)?;
        let key = Arc::new(key_file::open(&self.master, &self.key_path(label), label)?);
        self.cache()?.insert(label.to_owned(), Arc::clone(&key));
        Ok(key)
    }

    fn cache(&self) -> Result<std::sync::RwLockWriteGuard<'_, HashMap<String, Arc<StoredKey>>>> {
        self.loaded
            .write()
            .map_err(|_| Error::Unsupported("key cache poisoned".into()))
    }
}

fn info(label: &str, algorithm: KeyAlgorithm) -> KeyInfo {
    KeyInfo {
        handle: KeyHandle::new(label),
        label: label.to_owned(),
        algorithm,
    }
}

impl Hsm for SoftHsm {
    fn backend(&self) -> Backend {
        Backend::Soft
    }

    fn generate_key(&self, request: &GenerateKeyRequest) -> Result<KeyInfo> {
        check_label(&request.label)?;
        let key = match request.algorithm {
            KeyAlgorithm::Ec(curve) => StoredKey::Ec(PrivateKey::generate(curve)?),
            KeyAlgorithm::Rsa(bits) => StoredKey::Rsa(RsaPrivateKey::generate(bits)?),
        };
        self.store(&request.label, key)
    }

    fn import_key(&self, request: &ImportKeyRequest<'_>) -> Result<KeyInfo> {
        let key =
            PrivateKey::from_scalar(request.private_key.curve(), request.private_key.scalar())?;
        self.store(&request.label, StoredKey::Ec(key))
    }

    fn keys(&self) -> Result<Vec<KeyInfo>> {
        let dir = self.dir.join(KEYS_DIR);
        let mut keys = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(Error::io(&dir))? {
            let entry = entry.map_err(Error::io(&dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(TEMP_PREFIX) {
                continue; // a write that never completed: not part of the store
            }
            let Some(label) = name.strip_suffix(KEY_SUFFIX) else {
                return Err(Error::CorruptFile {
                    path: entry.path(),
                    reason: "not a key file".into(),
                });
            };
            keys.push(info(label, key_file::algorithm(&entry.path(), label)?));
        }
        keys.sort_by(|a, b| a.label.cmp(&b.label));
        Ok(keys)
    }

    fn key(&self, label: &str) -> Result<KeyInfo> {
        check_label(label)?;
        // Read from the file, not the cache of loaded keys: another handle on the store (or
        // another process) may have deleted the key since.
        let algorithm = key_file::algorithm(&self.key_path(label), label)?;
        Ok(info(label, algorithm))
    }

    fn public_key(&self, key: &KeyHandle) -> Result<PublicKey> {
        Ok(self.stored_key(key)?.ec(key)?.public_key().clone())
    }

    fn sign_digest(&self, key: &KeyHandle, digest: &[u8]) -> Result<Signature> {
        Ok(self.stored_key(key)?.ec(key)?.sign_digest(digest)?)
    }

    fn ecdh(&self, key: &KeyHandle, peer: &PublicKey) -> Result<Zeroizing<Vec<u8>>> {
        Ok(self.stored_key(key)?.ec(key)?.diffie_hellman(peer)?)
    }

    fn rsa_public_key(&self, key: &KeyHandle) -> Result<RsaPublicKey> {
        Ok(self.stored_key(key)?.rsa(key)?.public_key().clone())
    }

    fn rsa_sign_digest(
        &self,
        key: &KeyHandle,
        scheme: RsaSignatureScheme,
        digest: &[u8],
    ) -> Result<Vec<u8>> {
        Ok(self
            .stored_key(key)?
            .rsa(key)?
            .sign_digest(scheme, digest)?)
    }

    fn rsa_sign_pkcs1_raw(&self, key: &KeyHandle, data: &[u8]) -> Result<Vec<u8>> {
        Ok(self.stored_key(key)?.rsa(key)?.sign_pkcs1_raw(data)?)
    }

    fn rsa_decrypt(
        &self,
        key: &KeyHandle,
        padding: RsaEncryptionPadding,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        Ok(self
            .stored_key(key)?
            .rsa(key)?
            .decrypt(padding, ciphertext)?)
    }

    fn delete_key(&self, key: &KeyHandle) -> Result<()> {
        let label = key.id();
        check_label(label)?;
        let path = self.key_path(label);
        let _lock = state::lock(&self.dir)?;
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::KeyNotFound(label.to_owned()))
            }
            Err(e) => return Err(Error::io(&path)(e)),
        }
        self.cache()?.remove(label);
        atomic::sync_dir(&self.dir.join(KEYS_DIR))
    }
}

impl std::fmt::Debug for SoftHsm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SoftHsm")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

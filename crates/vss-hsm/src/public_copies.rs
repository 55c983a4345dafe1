//! Clear copies of the public halves of a store's keys, so that what is public can be read
//! without the PIN (a PKCS#11 token shows its public keys before login, as SoftHSM and
//! hardware tokens do). One JSON file per key, named by its label, written atomically:
//!
//! ```text
//! DIR/public/LABEL.json   {"label": …, "kind": "ec_public_key", "curve": "p256", "point": hex}
//! DIR/public/LABEL.json   {"label": …, "kind": "rsa_public_key", "modulus": hex, "exponent": hex}
//! ```
//!
//! A store opened with [`crate::open`] writes the copy of a key it generates or imports and
//! removes it with the key; each opening also writes the copies missing (a store made before
//! copies existed, a key made on the token by another program) and removes those of keys
//! gone, as far as the directory can be written: a key without a copy appears before login
//! once the store has been opened with the PIN.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use vss_crypto::{KeyAlgorithm, RsaPublicKey};
use zeroize::Zeroizing;

use crate::atomic::{self, TEMP_PREFIX};
use crate::objects::ObjectKind;
use crate::{
    check_label, printable, Backend, Error, GenerateKeyRequest, Hsm, ImportKeyRequest, KeyHandle,
    KeyInfo, Result,
};

const PUBLIC_DIR: &str = "public";
const SUFFIX: &str = ".json";

/// The public half of one key, kept in clear.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicCopy {
    /// The key's label in the store.
    pub label: String,
    /// Its public value: [`ObjectKind::EcPublicKey`] or [`ObjectKind::RsaPublicKey`].
    #[serde(flatten)]
    pub kind: ObjectKind,
}

/// The clear copies of the public keys of the store in a directory.
#[derive(Debug, Clone)]
pub struct PublicCopies {
    dir: PathBuf,
}

impl PublicCopies {
    /// The copies of the store in `store_dir` (whose `public/` may not exist yet).
    pub fn new(store_dir: &Path) -> Self {
        PublicCopies {
            dir: store_dir.join(PUBLIC_DIR),
        }
    }

    /// Every copy, in label order (at most [`crate::MAX_OBJECTS`] are read; a damaged one is
    /// [`Error::CorruptFile`]).
    pub fn list(&self) -> Result<Vec<PublicCopy>> {
        self.labels()?
            .iter()
            .map(|label| self.read(label))
            .collect()
    }

    /// The labels that have a copy, in order (at most [`crate::MAX_OBJECTS`]), from the file
    /// names alone.
    fn labels(&self) -> Result<Vec<String>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&self.dir)(e)),
        };
        let mut labels = Vec::new();
        for entry in entries {
            let file = entry.map_err(Error::io(&self.dir))?.file_name();
            let file = file.to_string_lossy();
            let Some(label) = file.strip_suffix(SUFFIX) else {
                continue;
            };
            if file.starts_with(TEMP_PREFIX) || check_label(label).is_err() {
                continue;
            }
            if labels.len() == crate::MAX_OBJECTS {
                break;
            }
            labels.push(label.to_owned());
        }
        labels.sort();
        Ok(labels)
    }

    /// The copy of the key labelled `label`, if there is one.
    pub fn get(&self, label: &str) -> Result<Option<PublicCopy>> {
        if check_label(label).is_err() || !self.path(label).is_file() {
            return Ok(None);
        }
        self.read(label).map(Some)
    }

    fn read(&self, label: &str) -> Result<PublicCopy> {
        let path = self.path(label);
        let corrupt = |reason: String| Error::CorruptFile {
            path: path.clone(),
            reason,
        };
        let bytes = atomic::read_store_file(&path)?;
        let copy: PublicCopy =
            serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
        let public_key = matches!(
            copy.kind,
            ObjectKind::EcPublicKey { .. } | ObjectKind::RsaPublicKey { .. }
        );
        if copy.label != label || !public_key {
            return Err(corrupt(format!(
                "not the public key of {}",
                printable(label)
            )));
        }
        Ok(copy)
    }

    /// Writes (atomically) the copy of `key`, read from `hsm`.
    pub(crate) fn write(&self, hsm: &dyn Hsm, key: &KeyInfo) -> Result<()> {
        check_label(&key.label)?;
        let kind = match key.algorithm {
            KeyAlgorithm::Ec(curve) => ObjectKind::EcPublicKey {
                curve: curve.name().to_owned(),
                point: hsm.public_key(&key.handle)?.to_sec1_uncompressed().to_vec(),
            },
            KeyAlgorithm::Rsa(_) => {
                let public: RsaPublicKey = hsm.rsa_public_key(&key.handle)?;
                ObjectKind::RsaPublicKey {
                    modulus: public.modulus().to_vec(),
                    exponent: public.public_exponent().to_vec(),
                }
            }
        };
        let copy = PublicCopy {
            label: key.label.clone(),
            kind,
        };
        std::fs::create_dir_all(&self.dir).map_err(Error::io(&self.dir))?;
        let bytes =
            serde_json::to_vec_pretty(&copy).map_err(|e| Error::Unsupported(e.to_string()))?;
        atomic::write_atomic(&self.path(&key.label), &bytes)
    }

    /// Removes the copy of the key labelled `label`, if there is one.
    pub(crate) fn remove(&self, label: &str) -> Result<()> {
        check_label(label)?;
        let path = self.path(label);
        match std::fs::remove_file(&path) {
            Ok(()) => atomic::sync_dir(&self.dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(&path)(e)),
        }
    }

    /// Writes the copies of `hsm`'s keys that are missing and removes those of keys gone,
    /// from the copies' file names (no copy is read).
    pub(crate) fn sync(&self, hsm: &dyn Hsm) -> Result<()> {
        let keys = hsm.keys()?;
        let labels = self.labels()?;
        for key in &keys {
            if check_label(&key.label).is_ok() && labels.binary_search(&key.label).is_err() {
                self.write(hsm, key)?;
            }
        }
        for label in labels {
            if !keys.iter().any(|k| k.label == label) {
                self.remove(&label)?;
            }
        }
        Ok(())
    }

    fn path(&self, label: &str) -> PathBuf {
        self.dir.join(format!("{label}{SUFFIX}"))
    }
}

/// A store whose generated and imported keys get their [`PublicCopies`], removed again with
/// the key; every other call passes through.
pub(crate) struct WithPublicCopies {
    inner: Box<dyn Hsm>,
    copies: PublicCopies,
}

impl WithPublicCopies {
    /// `inner`, the store in `dir`, its missing copies written now where the directory can
    /// be written (a store that cannot be written opens all the same, without them).
    pub(crate) fn new(inner: Box<dyn Hsm>, dir: &Path) -> Self {
        let copies = PublicCopies::new(dir);
        let _ = copies.sync(inner.as_ref());
        WithPublicCopies { inner, copies }
    }

    /// `made` with its copy written; a key whose copy cannot be written is deleted again.
    fn published(&self, made: Result<KeyInfo>) -> Result<KeyInfo> {
        let key = made?;
        if let Err(e) = self.copies.write(self.inner.as_ref(), &key) {
            let _ = self.inner.delete_key(&key.handle);
            return Err(e);
        }
        Ok(key)
    }
}

impl Hsm for WithPublicCopies {
    fn backend(&self) -> Backend {
        self.inner.backend()
    }

    fn generate_key(&self, request: &GenerateKeyRequest) -> Result<KeyInfo> {
        self.published(self.inner.generate_key(request))
    }

    fn import_key(&self, request: &ImportKeyRequest<'_>) -> Result<KeyInfo> {
        self.published(self.inner.import_key(request))
    }

    fn keys(&self) -> Result<Vec<KeyInfo>> {
        self.inner.keys()
    }

    fn key(&self, label: &str) -> Result<KeyInfo> {
        self.inner.key(label)
    }

    fn public_key(&self, key: &KeyHandle) -> Result<vss_crypto::PublicKey> {
        self.inner.public_key(key)
    }

    fn sign_digest(&self, key: &KeyHandle, digest: &[u8]) -> Result<vss_crypto::Signature> {
        self.inner.sign_digest(key, digest)
    }

    fn ecdh(&self, key: &KeyHandle, peer: &vss_crypto::PublicKey) -> Result<Zeroizing<Vec<u8>>> {
        self.inner.ecdh(key, peer)
    }

    fn rsa_public_key(&self, key: &KeyHandle) -> Result<RsaPublicKey> {
        self.inner.rsa_public_key(key)
    }

    fn rsa_sign_digest(
        &self,
        key: &KeyHandle,
        scheme: vss_crypto::RsaSignatureScheme,
        digest: &[u8],
    ) -> Result<Vec<u8>> {
        self.inner.rsa_sign_digest(key, scheme, digest)
    }

    fn rsa_sign_pkcs1_raw(&self, key: &KeyHandle, data: &[u8]) -> Result<Vec<u8>> {
        self.inner.rsa_sign_pkcs1_raw(key, data)
    }

    fn rsa_decrypt(
        &self,
        key: &KeyHandle,
        padding: vss_crypto::RsaEncryptionPadding,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        self.inner.rsa_decrypt(key, padding, ciphertext)
    }

    fn delete_key(&self, key: &KeyHandle) -> Result<()> {
        let label = self
            .inner
            .keys()?
            .into_iter()
            .find(|k| &k.handle == key)
            .map(|k| k.label);
        self.inner.delete_key(key)?;
        match label {
            Some(label) => self.copies.remove(&label),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SoftHsm;
    use vss_crypto::{Curve, PrivateKey, RsaBits};

    fn store() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("dir");
        let store = dir.path().join("store");
        SoftHsm::init(&store, "1234", "12345678").expect("init");
        (dir, store)
    }

    #[test]
    fn generated_and_imported_keys_get_a_copy_that_goes_with_the_key() {
        let (_dir, store) = store();
        let hsm = crate::open(&store, "1234").expect("open");
        let ec = hsm
            .generate_key(&GenerateKeyRequest::new("ec", Curve::P256))
            .expect("ec");
        let rsa = hsm
            .generate_key(&GenerateKeyRequest::new("rsa", RsaBits::B2048))
            .expect("rsa");
        let private = PrivateKey::generate(Curve::P384).expect("key");
        hsm.import_key(&ImportKeyRequest {
            label: "imported".into(),
            private_key: &private,
        })
        .expect("import");
        let copies = PublicCopies::new(&store);
        let labels: Vec<String> = copies
            .list()
            .expect("list")
            .into_iter()
            .map(|c| c.label)
            .collect();
        assert_eq!(labels, ["ec", "imported", "rsa"]);
        let point = hsm.public_key(&ec.handle).expect("public");
        assert_eq!(
            copies.get("ec").expect("read").map(|c| c.kind),
            Some(ObjectKind::EcPublicKey {
                curve: "p256".into(),
                point: point.to_sec1_uncompressed().to_vec(),
            })
        );
        let modulus = hsm
            .rsa_public_key(&rsa.handle)
            .expect("public")
            .modulus()
            .to_vec();
        assert!(matches!(
            copies.get("rsa").expect("read").map(|c| c.kind),
            Some(ObjectKind::RsaPublicKey { modulus: m, .. }) if m == modulus
        ));
        hsm.delete_key(&ec.handle).expect("delete");
        assert_eq!(copies.get("ec").expect("read"), None);
        assert_eq!(copies.list().expect("list").len(), 2);
    }

    #[test]
    fn opening_writes_the_missing_copies_and_drops_the_stale_ones() {
        let (_dir, store) = store();
        // A key made before copies existed: the soft store alone writes none.
        SoftHsm::open(&store, "1234")
            .expect("open")
            .generate_key(&GenerateKeyRequest::new("old", Curve::P256))
            .expect("old");
        let copies = PublicCopies::new(&store);
        assert!(copies.list().expect("list").is_empty());
        let hsm = crate::open(&store, "1234").expect("open");
        assert!(copies.get("old").expect("read").is_some());
        // A copy whose key is gone is removed at the next opening.
        let old = hsm.key("old").expect("key");
        SoftHsm::open(&store, "1234")
            .expect("open")
            .delete_key(&old.handle)
            .expect("delete");
        assert!(copies.get("old").expect("read").is_some());
        drop(crate::open(&store, "1234").expect("open"));
        assert!(copies.list().expect("list").is_empty());
    }

    #[test]
    fn a_damaged_or_misnamed_copy_is_corrupt_and_odd_names_are_skipped() {
        let (_dir, store) = store();
        let hsm = crate::open(&store, "1234").expect("open");
        hsm.generate_key(&GenerateKeyRequest::new("k", Curve::P256))
            .expect("k");
        let copies = PublicCopies::new(&store);
        let dir = store.join(PUBLIC_DIR);
        std::fs::write(dir.join(".hidden.json"), b"{}").expect("write");
        std::fs::write(dir.join("notes.txt"), b"x").expect("write");
        assert_eq!(copies.list().expect("list").len(), 1);
        assert_eq!(copies.get("../k").expect("refused"), None);
        let moved = std::fs::read(dir.join("k.json")).expect("read");
        std::fs::write(dir.join("other.json"), moved).expect("write");
        assert!(matches!(
            copies.get("other"),
            Err(Error::CorruptFile { .. })
        ));
        std::fs::write(dir.join("k.json"), b"{not json").expect("damage");
        assert!(matches!(copies.list(), Err(Error::CorruptFile { .. })));
    }
}

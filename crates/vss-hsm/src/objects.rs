//! Public objects kept beside the keys of a store: X.509 certificates, public keys, and the
//! PKCS#11 ids given to keys. Nothing in them is secret, so they are plain JSON files, one
//! per object, written atomically:
//!
//! ```text
//! DIR/objects/NAME.json   {"label": …, "id": hex, "kind": "certificate", "der": hex}
//! ```
//!
//! Bounds: at most [`MAX_OBJECTS`] objects of at most [`MAX_OBJECT_LEN`] bytes each, labels
//! of at most [`MAX_OBJECT_LABEL_LEN`] bytes and ids of at most [`MAX_OBJECT_ID_LEN`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic::{self, TEMP_PREFIX};
use crate::{printable, Error, Result};

/// The most objects one store keeps.
pub const MAX_OBJECTS: usize = 1024;
/// The largest value (a certificate's DER) of one object, in bytes.
pub const MAX_OBJECT_LEN: usize = 32 * 1024;
/// The longest object label, in bytes.
pub const MAX_OBJECT_LABEL_LEN: usize = 128;
/// The longest object id, in bytes.
pub const MAX_OBJECT_ID_LEN: usize = 64;

const OBJECTS_DIR: &str = "objects";
const SUFFIX: &str = ".json";

/// What an object is, with its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ObjectKind {
    /// An X.509 certificate, DER.
    Certificate {
        /// The certificate's DER encoding.
        #[serde(with = "hex::serde")]
        der: Vec<u8>,
    },
    /// An elliptic-curve public key.
    EcPublicKey {
        /// The curve's VSS name (`p256`).
        curve: String,
        /// The uncompressed SEC1 point.
        #[serde(with = "hex::serde")]
        point: Vec<u8>,
    },
    /// An RSA public key.
    RsaPublicKey {
        /// The big-endian modulus.
        #[serde(with = "hex::serde")]
        modulus: Vec<u8>,
        /// The big-endian public exponent.
        #[serde(with = "hex::serde")]
        exponent: Vec<u8>,
    },
    /// The id the key labelled `key_label` carries (else its label's bytes).
    KeyId {
        /// The key's label in the store.
        key_label: String,
    },
}

impl ObjectKind {
    fn value_len(&self) -> usize {
        match self {
            ObjectKind::Certificate { der } => der.len(),
            ObjectKind::EcPublicKey { point, .. } => point.len(),
            ObjectKind::RsaPublicKey { modulus, exponent } => modulus.len() + exponent.len(),
            ObjectKind::KeyId { key_label } => key_label.len(),
        }
    }
}

/// One stored object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredObject {
    /// The object's name in the store (its file's stem), assigned when it is added.
    #[serde(skip)]
    pub name: String,
    /// The object's label (`CKA_LABEL`), UTF-8 without control characters.
    pub label: String,
    /// The object's id (`CKA_ID`).
    #[serde(with = "hex::serde")]
    pub id: Vec<u8>,
    /// What it is.
    #[serde(flatten)]
    pub kind: ObjectKind,
}

/// The objects of the store in a directory.
#[derive(Debug, Clone)]
pub struct ObjectStore {
    dir: PathBuf,
}

impl ObjectStore {
    /// The objects of the store in `store_dir` (whose `objects/` may not exist yet).
    pub fn new(store_dir: &Path) -> Self {
        ObjectStore {
            dir: store_dir.join(OBJECTS_DIR),
        }
    }

    /// Every object, in name order.
    pub fn list(&self) -> Result<Vec<StoredObject>> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(&self.dir)(e)),
        };
        let mut objects = Vec::new();
        for entry in entries {
            let entry = entry.map_err(Error::io(&self.dir))?;
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.starts_with(TEMP_PREFIX) {
                continue;
            }
            let Some(name) = file.strip_suffix(SUFFIX) else {
                continue;
            };
            if objects.len() == MAX_OBJECTS {
                return Err(Error::CorruptFile {
                    path: self.dir.clone(),
                    reason: format!("more than {MAX_OBJECTS} objects"),
                });
            }
            objects.push(self.read(name)?);
        }
        objects.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(objects)
    }

    /// The object `name`, or [`Error::KeyNotFound`].
    pub fn get(&self, name: &str) -> Result<StoredObject> {
        if !is_name(name) || !self.path(name).is_file() {
            return Err(Error::KeyNotFound(printable(name)));
        }
        self.read(name)
    }

    fn read(&self, name: &str) -> Result<StoredObject> {
        let path = self.path(name);
        let bytes = atomic::read_store_file(&path)?;
        let mut object: StoredObject =
            serde_json::from_slice(&bytes).map_err(|e| Error::CorruptFile {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        check(&object.label, &object.id, &object.kind).map_err(|e| Error::CorruptFile {
            path,
            reason: e.to_string(),
        })?;
        object.name = name.to_owned();
        Ok(object)
    }

    /// Adds an object; it comes back with its name.
    pub fn add(&self, label: &str, id: &[u8], kind: ObjectKind) -> Result<StoredObject> {
        check(label, id, &kind)?;
        if self.list()?.len() >= MAX_OBJECTS {
            return Err(Error::Unsupported(format!(
                "the store holds {MAX_OBJECTS} objects already: delete one first"
            )));
        }
        std::fs::create_dir_all(&self.dir).map_err(Error::io(&self.dir))?;
        let mut nonce = [0u8; 8];
        vss_crypto::random_bytes(&mut nonce)?;
        let object = StoredObject {
            name: hex::encode(nonce),
            label: label.to_owned(),
            id: id.to_vec(),
            kind,
        };
        let bytes =
            serde_json::to_vec_pretty(&object).map_err(|e| Error::Unsupported(e.to_string()))?;
        atomic::write_atomic(&self.path(&object.name), &bytes)?;
        Ok(object)
    }

    /// Removes the object `name` for good.
    pub fn remove(&self, name: &str) -> Result<()> {
        if !is_name(name) {
            return Err(Error::InvalidLabel(printable(name)));
        }
        let path = self.path(name);
        match std::fs::remove_file(&path) {
            Ok(()) => atomic::sync_dir(&self.dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(Error::KeyNotFound(name.to_owned()))
            }
            Err(e) => Err(Error::io(&path)(e)),
        }
    }

    /// Removes the id records of the key labelled `key_label` (when the key is deleted).
    pub fn remove_key_ids(&self, key_label: &str) -> Result<()> {
        for object in self.list()? {
            if matches!(&object.kind, ObjectKind::KeyId { key_label: k } if k == key_label) {
                self.remove(&object.name)?;
            }
        }
        Ok(())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}{SUFFIX}"))
    }
}

fn is_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 32 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

fn check(label: &str, id: &[u8], kind: &ObjectKind) -> Result<()> {
    if label.len() > MAX_OBJECT_LABEL_LEN || label.chars().any(char::is_control) {
        return Err(Error::InvalidLabel(printable(label)));
    }
    if id.len() > MAX_OBJECT_ID_LEN {
        return Err(Error::Unsupported(format!(
            "an object id has at most {MAX_OBJECT_ID_LEN} bytes, not {}",
            id.len()
        )));
    }
    if kind.value_len() > MAX_OBJECT_LEN {
        return Err(Error::Unsupported(format!(
            "an object's value has at most {MAX_OBJECT_LEN} bytes, not {}",
            kind.value_len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_round_trip_and_are_removed_by_name_and_by_key() {
        let dir = tempfile::tempdir().expect("dir");
        let store = ObjectStore::new(dir.path());
        assert!(store.list().expect("empty").is_empty());
        let cert = store
            .add(
                "server cert",
                &[1],
                ObjectKind::Certificate {
                    der: vec![0x30, 0x00],
                },
            )
            .expect("add");
        let id = store
            .add(
                "srv",
                &[1],
                ObjectKind::KeyId {
                    key_label: "srv".into(),
                },
            )
            .expect("add");
        let mut names = vec![cert.name.clone(), id.name.clone()];
        names.sort();
        let listed = store.list().expect("list");
        assert_eq!(
            listed.iter().map(|o| o.name.clone()).collect::<Vec<_>>(),
            names
        );
        assert!(listed.contains(&cert));
        store.remove_key_ids("srv").expect("remove ids");
        assert_eq!(store.list().expect("list"), vec![cert.clone()]);
        store.remove(&cert.name).expect("remove");
        assert!(matches!(
            store.remove(&cert.name),
            Err(Error::KeyNotFound(_))
        ));
        assert!(store.remove("../hsm").is_err());
    }

    #[test]
    fn oversized_and_odd_objects_are_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().expect("dir");
        let store = ObjectStore::new(dir.path());
        let big = ObjectKind::Certificate {
            der: vec![0; MAX_OBJECT_LEN + 1],
        };
        assert!(store.add("x", &[], big).is_err());
        let small = || ObjectKind::Certificate { der: vec![0x30] };
        assert!(store.add("bell\u{7}", &[], small()).is_err());
        assert!(store
            .add("x", &[0; MAX_OBJECT_ID_LEN + 1], small())
            .is_err());
        assert!(store.list().expect("list").is_empty());
    }

    #[test]
    fn a_damaged_object_file_is_reported_as_corrupt() {
        let dir = tempfile::tempdir().expect("dir");
        let store = ObjectStore::new(dir.path());
        let object = store
            .add("x", &[], ObjectKind::Certificate { der: vec![0x30] })
            .expect("add");
        std::fs::write(store.path(&object.name), b"{not json").expect("damage");
        assert!(matches!(store.list(), Err(Error::CorruptFile { .. })));
    }
}

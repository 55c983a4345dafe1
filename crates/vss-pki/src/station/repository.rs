//! The station's certificate repository (seed 000's "repository" with its `.meta` files):
//! each certificate as `<HashedId8>.cert` (COER) beside `<HashedId8>.meta` (JSON naming the
//! HSM keys that belong to it), enrolment certificates and pseudonyms in their own folders.
//!
//! The certificate is written first and the `.meta` last, each atomically, so an entry is
//! complete exactly when its `.meta` exists; removal takes the `.meta` first.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use vss_its::{Cert, HashedId8};

/// What a stored certificate is to the station.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CertKind {
    /// The enrolment credential (seed 000: long-term certificate, LTC).
    Enrolment,
    /// An authorization ticket (seed 000: pseudonym).
    Pseudonym,
}

impl CertKind {
    fn folder(self) -> &'static str {
        match self {
            CertKind::Enrolment => "enrolment",
            CertKind::Pseudonym => "pseudonyms",
        }
    }
}

/// The `.meta` of a certificate: its HSM key handles and what the station needs without
/// decoding it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    /// Enrolment or pseudonym.
    pub kind: CertKind,
    /// The certificate's HashedId8 (upper-case hex).
    pub hashed_id8: String,
    /// Label of the signing key in the station's HSM.
    pub verification_key: String,
    /// Label of the decryption key in the station's HSM, if the certificate has one.
    pub encryption_key: Option<String>,
    /// Start of validity, RFC 3339.
    pub start: String,
    /// End of validity, RFC 3339.
    pub end: String,
    /// The issuer's HashedId8 (upper-case hex; empty when self-signed).
    pub issuer: String,
}

impl Meta {
    /// The labels of the certificate's keys in the station's HSM: the signing key, then the
    /// decryption key if there is one.
    pub fn key_labels(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.verification_key.as_str()).chain(self.encryption_key.as_deref())
    }

    /// Deletes the certificate's keys from `hsm`, as when its certificate is retired.
    pub fn delete_keys(&self, hsm: &dyn vss_hsm::Hsm) -> vss_hsm::Result<()> {
        self.key_labels()
            .try_for_each(|label| hsm.delete_key(&hsm.key(label)?.handle))
    }
}

/// A certificate with its `.meta`.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The certificate.
    pub cert: Cert,
    /// Its `.meta`.
    pub meta: Meta,
}

/// Why the repository failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepositoryError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A stored file is not what it should be.
    #[error("{path}: {detail}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

/// The repository in one directory.
#[derive(Debug, Clone)]
pub struct Repository {
    dir: PathBuf,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RepositoryError + '_ {
    move |source| RepositoryError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes a file atomically (write, fsync, rename).
fn write(path: &Path, bytes: &[u8]) -> Result<(), RepositoryError> {
    vss_hsm::write_atomic(path, bytes).map_err(|e| RepositoryError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

impl Repository {
    /// The repository in `dir` (created with its folders if absent).
    pub fn open(dir: &Path) -> Result<Self, RepositoryError> {
        for kind in [CertKind::Enrolment, CertKind::Pseudonym] {
            let folder = dir.join(kind.folder());
            std::fs::create_dir_all(&folder).map_err(io(&folder))?;
        }
        Ok(Repository {
            dir: dir.to_path_buf(),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, kind: CertKind, id: HashedId8, extension: &str) -> PathBuf {
        self.dir
            .join(kind.folder())
            .join(format!("{id}.{extension}"))
    }

    /// Stores `cert` with the labels of its keys; returns the entry.
    pub fn store(
        &self,
        kind: CertKind,
        cert: &Cert,
        verification_key: &str,
        encryption_key: Option<&str>,
    ) -> Result<Entry, RepositoryError> {
        let validity = cert.validity();
        let meta = Meta {
            kind,
            hashed_id8: cert.hashed_id8().to_string(),
            verification_key: verification_key.to_string(),
            encryption_key: encryption_key.map(str::to_string),
            start: validity.start.to_string(),
            end: validity.end.to_string(),
            issuer: match cert.issuer() {
                vss_its::Issuer::Digest(_, id) => id.to_string(),
                vss_its::Issuer::SelfSigned(_) => String::new(),
            },
        };
        let id = cert.hashed_id8();
        let cert_path = self.path(kind, id, "cert");
        write(&cert_path, cert.bytes())?;
        let meta_path = self.path(kind, id, "meta");
        let json = serde_json::to_vec_pretty(&meta).expect("a Meta serializes");
        write(&meta_path, &json)?;
        Ok(Entry {
            cert: cert.clone(),
            meta,
        })
    }

    /// Every complete entry of `kind`, ordered by start of validity then HashedId8.
    pub fn list(&self, kind: CertKind) -> Result<Vec<Entry>, RepositoryError> {
        let folder = self.dir.join(kind.folder());
        let mut entries = Vec::new();
        for item in std::fs::read_dir(&folder).map_err(io(&folder))? {
            let path = item.map_err(io(&folder))?.path();
            if path.extension().is_some_and(|e| e == "meta") {
                entries.push(self.read_entry(&path, kind)?);
            }
        }
        entries.sort_by(|a, b| {
            (a.cert.validity().start, &a.meta.hashed_id8)
                .cmp(&(b.cert.validity().start, &b.meta.hashed_id8))
        });
        Ok(entries)
    }

    fn read_entry(&self, meta_path: &Path, kind: CertKind) -> Result<Entry, RepositoryError> {
        let corrupt = |detail: String| RepositoryError::Corrupt {
            path: meta_path.to_path_buf(),
            detail,
        };
        let json = std::fs::read(meta_path).map_err(io(meta_path))?;
        let meta: Meta = serde_json::from_slice(&json).map_err(|e| corrupt(e.to_string()))?;
        let cert_path = meta_path.with_extension("cert");
        let bytes = std::fs::read(&cert_path).map_err(io(&cert_path))?;
        let cert = Cert::from_bytes(&bytes).map_err(|e| RepositoryError::Corrupt {
            path: cert_path.clone(),
            detail: e.to_string(),
        })?;
        if meta.kind != kind || meta.hashed_id8 != cert.hashed_id8().to_string() {
            return Err(corrupt(format!(
                "names {} {}, the certificate beside it is {}",
                kind.folder(),
                meta.hashed_id8,
                cert.hashed_id8()
            )));
        }
        Ok(Entry { cert, meta })
    }

    /// Removes an entry (its `.meta` first); `false` if there was none.
    pub fn remove(&self, kind: CertKind, id: HashedId8) -> Result<bool, RepositoryError> {
        let meta_path = self.path(kind, id, "meta");
        match std::fs::remove_file(&meta_path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(io(&meta_path)(e)),
        }
        let cert_path = self.path(kind, id, "cert");
        match std::fs::remove_file(&cert_path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
            Err(e) => Err(io(&cert_path)(e)),
        }
    }
}

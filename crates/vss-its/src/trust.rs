//! Trust anchors: the certificates a validator trusts without an issuer, from files or a
//! directory (`*.oer`, `*.cert`, `*.coer`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::cache::ValidatedCert;
use crate::cert::Issuer;
use crate::hashing::HashedId8;
use crate::{Cert, Error, Result, MAX_ENCODED_LEN};

/// The trusted certificates, by HashedId8.
#[derive(Debug, Clone, Default)]
pub struct TrustStore {
    anchors: HashMap<HashedId8, Arc<ValidatedCert>>,
}

/// The file extensions read from a trust directory.
const EXTENSIONS: [&str; 3] = ["oer", "cert", "coer"];

impl TrustStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts a certificate. A self-signed one must carry a valid self-signature.
    pub fn add(&mut self, cert: Cert) -> Result<HashedId8> {
        let key = cert.verification_key()?.verifying_key()?;
        if let Issuer::SelfSigned(_) = cert.issuer() {
            let digest = cert.signed_digest(None);
            if !key.verify_digest(&digest, &cert.signature()?) {
                return Err(Error::InvalidRequest(format!(
                    "trust anchor {}: its self-signature does not verify",
                    cert.hashed_id8()
                )));
            }
        }
        let id = cert.hashed_id8();
        let anchor = Arc::new(ValidatedCert {
            region: cert.tbs().region.clone(),
            cert,
            key,
        });
        self.anchors.insert(id, anchor);
        Ok(id)
    }

    /// Trusts the certificate in a COER file.
    pub fn add_file(&mut self, path: &Path) -> Result<HashedId8> {
        let bytes = read(path)?;
        let cert = Cert::from_bytes(&bytes)
            .map_err(|e| Error::InvalidRequest(format!("{}: {e}", path.display())))?;
        self.add(cert)
    }

    /// Trusts every certificate file in a directory (not recursive); returns how many.
    pub fn add_dir(&mut self, dir: &Path) -> Result<usize> {
        let io = |source| Error::Io {
            path: dir.display().to_string(),
            source,
        };
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| EXTENSIONS.contains(&e))
            })
            .collect();
        paths.sort();
        for path in &paths {
            self.add_file(path)?;
        }
        Ok(paths.len())
    }

    /// The anchor named `id`.
    pub fn get(&self, id: &HashedId8) -> Option<Arc<ValidatedCert>> {
        self.anchors.get(id).cloned()
    }

    /// How many anchors it holds.
    pub fn len(&self) -> usize {
        self.anchors.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.anchors.is_empty()
    }
}

/// Reads a certificate file, with its path in the error: no more than
/// [`MAX_ENCODED_LEN`] bytes whatever it is (`/dev/zero`, a huge file), since nothing longer
/// decodes.
fn read(path: &Path) -> Result<Vec<u8>> {
    vss_hsm::read_bounded(path, MAX_ENCODED_LEN as u64).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_read_only_up_to_the_bound() {
        let err = TrustStore::new()
            .add_file(Path::new("/dev/zero"))
            .expect_err("not a certificate");
        assert!(
            err.to_string()
                .contains("/dev/zero: larger than 1048576 bytes"),
            "{err}"
        );
    }
}

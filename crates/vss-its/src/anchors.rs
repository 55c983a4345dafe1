//! Trust anchors: the certificates a validator trusts without an issuer, from files or a
//! directory (`*.oer`, `*.cert`, `*.coer`); and, for anchors that are root CAs of the C-ITS
//! trust model, what their lists say (TS 102 941 §6.3): the EAs and AAs on the root's CTL,
//! those on its CRL, and when that CRL is due.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use crate::cache::ValidatedCert;
use crate::cert::Issuer;
use crate::hashing::HashedId8;
use crate::{Cert, CertFileError, Error, ItsTime, Result};

/// The trusted certificates, by HashedId8, and the lists of those that are root CAs.
#[derive(Debug, Clone, Default)]
pub struct TrustAnchors {
    anchors: HashMap<HashedId8, Arc<ValidatedCert>>,
    lists: HashMap<HashedId8, AnchorLists>,
    issuers: HashMap<HashedId8, Cert>,
    stale_crl: StaleCrlPolicy,
}

/// What a root CA's lists say, verified by whoever built the store: a certificate the root
/// issued is accepted only when its CTL lists it and its CRL does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnchorLists {
    /// The EA and AA certificates on the root's CTL.
    pub listed: HashSet<HashedId8>,
    /// The certificates on the root's CRL.
    pub revoked: HashSet<HashedId8>,
    /// When the root's next CRL is due; after it the CRL is stale.
    pub crl_next_update: ItsTime,
}

/// What validation does with a chain through a root whose CRL is past its next update;
/// written `refuse` or `warn` (configuration, command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaleCrlPolicy {
    /// Refuse it (`UnlistedCa`): revocation since the last CRL cannot be ruled out.
    #[default]
    Refuse,
    /// Accept it; the caller warns ([`TrustAnchors::stale_crls`]).
    Warn,
}

impl std::str::FromStr for StaleCrlPolicy {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        match text {
            "refuse" => Ok(StaleCrlPolicy::Refuse),
            "warn" => Ok(StaleCrlPolicy::Warn),
            _ => Err(format!("'{text}': refuse or warn")),
        }
    }
}

/// The file extensions read from a trust directory.
const EXTENSIONS: [&str; 3] = ["oer", "cert", "coer"];

impl TrustAnchors {
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
        let cert = Cert::read(path).map_err(|e| match e {
            CertFileError::Read { path, source } => Error::Io {
                path: path.display().to_string(),
                source,
            },
            CertFileError::Decode { .. } => Error::InvalidRequest(e.to_string()),
        })?;
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

    /// The curves of the anchors' keys (one per anchor).
    pub(crate) fn curves(&self) -> impl Iterator<Item = vss_crypto::Curve> + '_ {
        self.anchors.values().map(|a| a.key.public_key().curve())
    }

    /// Records what the lists of the anchor `root` say: from now on a certificate it issued
    /// must be on its CTL and not on its CRL.
    pub fn set_lists(&mut self, root: HashedId8, lists: AnchorLists) -> Result<()> {
        if !self.anchors.contains_key(&root) {
            return Err(Error::InvalidRequest(format!(
                "lists for {root}, which is not a trust anchor"
            )));
        }
        self.lists.insert(root, lists);
        Ok(())
    }

    /// Knows `cert` as an issuer (an EA or AA from a trust list): not trusted, but validated
    /// up to an anchor when a chain needs it, as if the message had carried it.
    pub fn add_issuer(&mut self, cert: Cert) {
        self.issuers.insert(cert.hashed_id8(), cert);
    }

    /// The issuer named `id`, when one is known ([`TrustAnchors::add_issuer`]).
    pub fn issuer(&self, id: &HashedId8) -> Option<&Cert> {
        self.issuers.get(id)
    }

    /// The lists of the anchor `root`, when it has any.
    pub fn lists(&self, root: &HashedId8) -> Option<&AnchorLists> {
        self.lists.get(root)
    }

    /// The same store with another policy for stale CRLs.
    pub fn with_stale_crl(mut self, policy: StaleCrlPolicy) -> Self {
        self.stale_crl = policy;
        self
    }

    /// The policy for stale CRLs.
    pub fn stale_crl(&self) -> StaleCrlPolicy {
        self.stale_crl
    }

    /// The anchors whose CRL is past its next update at `now`, sorted.
    pub fn stale_crls(&self, now: ItsTime) -> Vec<HashedId8> {
        let mut stale: Vec<HashedId8> = self
            .lists
            .iter()
            .filter(|(_, l)| l.crl_next_update <= now)
            .map(|(id, _)| *id)
            .collect();
        stale.sort();
        stale
    }

    /// The first time after `now` at which a CRL becomes stale, when the policy refuses
    /// then: certificates validated before it must be validated again after it.
    pub fn next_crl_due(&self, now: ItsTime) -> Option<ItsTime> {
        if self.stale_crl == StaleCrlPolicy::Warn {
            return None;
        }
        self.lists
            .values()
            .map(|l| l.crl_next_update)
            .filter(|due| *due > now)
            .min()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_read_only_up_to_the_bound() {
        let err = TrustAnchors::new()
            .add_file(Path::new("/dev/zero"))
            .expect_err("not a certificate");
        assert!(
            err.to_string()
                .contains("/dev/zero: larger than 1048576 bytes"),
            "{err}"
        );
    }
}

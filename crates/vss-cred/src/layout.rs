//! Where a credential system keeps its files: one directory (`vss cred setup --dir DIR`)
//! holding the system parameters and one directory per role, and in each role's directory
//! the files that role keeps. Every reader and writer of these files (the roles, the
//! operations of [`crate::system`], the scenario, the services) takes its paths from here.
//!
//! ```text
//! DIR/system.json                      the system parameters
//! DIR/issuer/store/                    the issuer's key store (its key, under the roles' PIN)
//! DIR/issuer/parameters.json           its public parameters
//! DIR/issuer/offers/NONCE.json         its open offers
//! DIR/revocation/store/                the revocation authority's key store
//! DIR/revocation/state.json            its accumulator, live handles and removal log
//! DIR/revocation/public.json           the accumulator's public state
//! DIR/inspector/store/                 the inspector's key store
//! DIR/inspector/public.json            its public key
//! DIR/verifier/policies/NONCE.json     the verifier's open policies
//! DIR/verifier/range-parameters.json   its range parameters
//! ```

use std::path::{Path, PathBuf};

/// The name of a role's secret key in its key store.
pub const ROLE_KEY: &str = "role-key";

/// A credential system's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemDir {
    root: PathBuf,
}

impl SystemDir {
    /// The credential system in `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        SystemDir { root: root.into() }
    }

    /// `system.json`: the system parameters.
    pub fn system_parameters(&self) -> PathBuf {
        self.root.join("system.json")
    }

    /// The issuer's directory.
    pub fn issuer(&self) -> PathBuf {
        self.root.join("issuer")
    }

    /// The revocation authority's directory.
    pub fn revocation(&self) -> PathBuf {
        self.root.join("revocation")
    }

    /// The inspector's directory.
    pub fn inspector(&self) -> PathBuf {
        self.root.join("inspector")
    }

    /// The verifier's directory.
    pub fn verifier(&self) -> PathBuf {
        self.root.join("verifier")
    }

    /// The verifier's range parameters.
    pub fn range_parameters(&self) -> PathBuf {
        range_parameters(&self.verifier())
    }
}

/// A role's key store in its directory (issuer, inspector, revocation authority).
pub fn key_store(role: &Path) -> PathBuf {
    role.join("store")
}

/// The issuer's public parameters in its directory.
pub fn issuer_parameters(issuer: &Path) -> PathBuf {
    issuer.join("parameters.json")
}

/// The issuer's open offers in its directory, one file per nonce.
pub fn offers(issuer: &Path) -> PathBuf {
    issuer.join("offers")
}

/// The public part of a role in its directory: the inspector's key, the revocation
/// authority's accumulator state.
pub fn public(role: &Path) -> PathBuf {
    role.join("public.json")
}

/// The revocation authority's whole state in its directory.
pub fn revocation_state(revocation: &Path) -> PathBuf {
    revocation.join("state.json")
}

/// The verifier's open policies in its directory, one file per nonce.
pub fn policies(verifier: &Path) -> PathBuf {
    verifier.join("policies")
}

/// The verifier's range parameters in its directory.
pub fn range_parameters(verifier: &Path) -> PathBuf {
    verifier.join("range-parameters.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_the_documented_one() {
        let dir = SystemDir::new("/d");
        assert_eq!(dir.system_parameters(), Path::new("/d/system.json"));
        assert_eq!(key_store(&dir.issuer()), Path::new("/d/issuer/store"));
        assert_eq!(
            issuer_parameters(&dir.issuer()),
            Path::new("/d/issuer/parameters.json")
        );
        assert_eq!(offers(&dir.issuer()), Path::new("/d/issuer/offers"));
        assert_eq!(
            revocation_state(&dir.revocation()),
            Path::new("/d/revocation/state.json")
        );
        assert_eq!(
            public(&dir.inspector()),
            Path::new("/d/inspector/public.json")
        );
        assert_eq!(policies(&dir.verifier()), Path::new("/d/verifier/policies"));
        assert_eq!(
            dir.range_parameters(),
            Path::new("/d/verifier/range-parameters.json")
        );
    }
}

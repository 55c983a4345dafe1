//! What the integration tests share: the built module and a soft key store to point it at.

// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The user PIN of every test store.
pub const PIN: &str = "1234";
/// The PUK of every test store.
pub const PUK: &str = "12345678";

/// `libvss_pkcs11.so` as cargo built it for this test run: beside the test binary (in
/// `deps/`) or one level up, whatever the target directory and profile.
pub fn module_path() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps directory");
    [deps, deps.parent().unwrap_or(deps)]
        .iter()
        .map(|dir| dir.join("libvss_pkcs11.so"))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("libvss_pkcs11.so not built beside {}", deps.display()))
}

/// A fresh soft key store in a temporary directory (removed on drop).
pub struct Store {
    dir: tempfile::TempDir,
}

impl Store {
    /// A new store with [`PIN`] and [`PUK`].
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = dir.path().join("store");
        vss_hsm::SoftHsm::init(&store, PIN, PUK).expect("init store");
        Store { dir }
    }

    /// The store directory (what `VSS_STORE` names).
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("store")
    }

    /// A scratch directory beside the store.
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }

    /// Wrong PINs still allowed.
    pub fn pin_tries_left(&self) -> u8 {
        vss_hsm::SoftHsm::status(&self.path())
            .expect("status")
            .pin_tries_left
    }

    /// The labels `vss keys list` shows.
    pub fn labels(&self) -> Vec<String> {
        vss_hsm::open(&self.path(), PIN)
            .expect("open store")
            .keys()
            .expect("keys")
            .into_iter()
            .map(|k| k.label)
            .collect()
    }
}

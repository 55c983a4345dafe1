//! What the integration tests share: the built module and a soft key store to point it at.

// Each test file uses a different subset of these helpers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cryptoki::context::{CInitializeArgs, CInitializeFlags, Pkcs11};
use cryptoki::error::{Error, RvError};
use cryptoki::session::{Session, UserType};
use cryptoki::types::AuthPin;

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

/// The module's state is per process and `VSS_STORE` is read at `C_Initialize`: one test
/// at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Holds the one-test-at-a-time lock (for tests that initialise the module themselves).
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `test` with the module initialised over `store`.
pub fn with_module(store: &Store, test: impl FnOnce(&Pkcs11)) {
    with_env(&[("VSS_STORE", Some(store.path()))], test);
}

/// Runs `test` with the module initialised over the stores listed in `conf`
/// (`VSS_PKCS11_CONF`).
pub fn with_conf(conf: &Path, test: impl FnOnce(&Pkcs11)) {
    with_env(&[("VSS_PKCS11_CONF", Some(conf.to_path_buf()))], test);
}

/// Runs `test` with the module initialised in the environment `vars` sets (`None`: unset),
/// each of `VSS_STORE` and `VSS_PKCS11_CONF` unset unless named.
pub fn with_env(vars: &[(&str, Option<PathBuf>)], test: impl FnOnce(&Pkcs11)) {
    let _serial = serial();
    for name in ["VSS_STORE", "VSS_PKCS11_CONF"] {
        std::env::remove_var(name);
    }
    for (name, value) in vars {
        if let Some(value) = value {
            std::env::set_var(name, value);
        }
    }
    let module = Pkcs11::new(module_path()).expect("load module");
    module
        .initialize(CInitializeArgs::new(CInitializeFlags::OS_LOCKING_OK))
        .expect("C_Initialize");
    // A failed test still finalizes, so that the next test can initialise.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(&module)));
    let finalized = module.finalize();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
    finalized.expect("C_Finalize");
}

/// The `CKR_*` code of a failed call.
pub fn rv<T: std::fmt::Debug>(result: Result<T, Error>) -> RvError {
    match result {
        Err(Error::Pkcs11(rv, _)) => rv,
        other => panic!("expected a CKR_ error, got {other:?}"),
    }
}

/// A read/write session on the first slot with a token.
pub fn session(module: &Pkcs11) -> Session {
    let slot = module.get_slots_with_token().expect("slots")[0];
    module.open_rw_session(slot).expect("C_OpenSession")
}

/// Logs the user in with [`PIN`].
pub fn login(session: &Session) {
    session
        .login(UserType::User, Some(&AuthPin::from(PIN)))
        .expect("C_Login");
}

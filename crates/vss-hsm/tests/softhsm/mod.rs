//! SoftHSMv2 for the tests: a private token directory per test binary, a fresh token per test.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use vss_hsm::{Pkcs11Hsm, TokenRef};

/// The user PIN of every test token.
pub const PIN: &str = "123456";
/// The SO PIN of every test token.
pub const SO_PIN: &str = "12345678";

/// The SoftHSMv2 module: $VSS_PKCS11_MODULE, else Debian's path.
pub fn module() -> PathBuf {
    let path = std::env::var_os("VSS_PKCS11_MODULE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/softhsm/libsofthsm2.so"));
    assert!(
        path.is_file(),
        "{} is missing: install softhsm2 (scripts/test does)",
        path.display()
    );
    path
}

/// Points SoftHSM at a temporary token directory, once per process, before it is loaded.
fn configure() {
    static CONF: OnceLock<tempfile::TempDir> = OnceLock::new();
    CONF.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let tokens = dir.path().join("tokens");
        std::fs::create_dir(&tokens).expect("token dir");
        let conf = dir.path().join("softhsm2.conf");
        std::fs::write(
            &conf,
            format!(
                "directories.tokendir = {}\nobjectstore.backend = file\nlog.level = ERROR\n",
                tokens.display()
            ),
        )
        .expect("conf");
        std::env::set_var("SOFTHSM2_CONF", &conf);
        dir
    });
}

/// A new, initialised token with the given label.
pub fn token(label: &str) -> TokenRef {
    static INIT: Mutex<()> = Mutex::new(());
    configure();
    let token = TokenRef {
        module: module(),
        token_label: label.to_owned(),
    };
    let _serial = INIT.lock().expect("init lock");
    Pkcs11Hsm::init_token(&token, SO_PIN, PIN).expect("init token");
    token
}

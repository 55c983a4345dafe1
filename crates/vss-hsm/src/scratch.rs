//! Throw-away key stores, for tests, benchmarks and the testbed: a soft store or a SoftHSMv2
//! token in a temporary directory, with a generated PIN, and the SoftHSM configuration that
//! keeps a run's tokens in its own directory.

use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use crate::{Backend, Error, Hsm, Pkcs11Hsm, Result, SoftHsm, StoreConfig, TokenRef};

/// A key store made for one run in a temporary directory of its own, with a generated PIN;
/// removed, tokens and all, when dropped.
pub struct ScratchStore {
    dir: tempfile::TempDir,
    store: PathBuf,
    pin: Zeroizing<String>,
}

impl ScratchStore {
    /// Makes a store of `backend` in `<new temporary directory>/<store>`, the directory's
    /// name starting with `prefix`; `module` is the PKCS#11 module of a token (SoftHSMv2,
    /// whose configuration is pointed at the directory through `SOFTHSM2_CONF`).
    pub fn create(prefix: &str, store: &str, backend: Backend, module: &Path) -> Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(Error::io(Path::new(prefix)))?;
        let pin = generated_pin()?;
        let path = dir.path().join(store);
        if backend == Backend::Pkcs11 {
            let conf = softhsm_config(dir.path())?;
            // Read by SoftHSM when the module is loaded, which has not happened yet.
            std::env::set_var("SOFTHSM2_CONF", &conf);
        }
        let label = dir
            .path()
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| prefix.to_string());
        init_store(&path, backend, module, &label, &pin, &puk_for(&pin))?;
        Ok(ScratchStore {
            dir,
            store: path,
            pin,
        })
    }

    /// The temporary directory (the store is inside it).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The store directory, as `vss --store` and [`crate::open`] take it.
    pub fn store(&self) -> &Path {
        &self.store
    }

    /// The generated user PIN.
    pub fn pin(&self) -> &str {
        &self.pin
    }

    /// Opens the store with its PIN.
    pub fn open(&self) -> Result<Box<dyn Hsm>> {
        crate::open(&self.store, &self.pin)
    }
}

/// A fresh random PIN: 32 hexadecimal digits.
pub fn generated_pin() -> Result<Zeroizing<String>> {
    let mut bytes = Zeroizing::new([0u8; 16]);
    vss_crypto::random_bytes(bytes.as_mut())?;
    Ok(Zeroizing::new(hex::encode(bytes.as_ref())))
}

/// The PUK (soft store) or SO PIN (token) that goes with a generated PIN.
fn puk_for(pin: &str) -> Zeroizing<String> {
    Zeroizing::new(format!("{pin}-puk"))
}

/// Makes a new store of `backend` at `path` with `pin` and `puk` (a token's SO PIN): a soft
/// store, or a new token labelled `token_label` of the PKCS#11 `module` and the store's
/// configuration naming it.
pub fn init_store(
    path: &Path,
    backend: Backend,
    module: &Path,
    token_label: &str,
    pin: &str,
    puk: &str,
) -> Result<()> {
    match backend {
        Backend::Soft => SoftHsm::init(path, pin, puk),
        Backend::Pkcs11 => {
            let token = TokenRef {
                module: module.to_path_buf(),
                token_label: token_label.to_string(),
            };
            Pkcs11Hsm::init_token(&token, puk, pin)?;
            StoreConfig::create_pkcs11(path, &token)
        }
    }
}

/// Writes a SoftHSMv2 configuration with its token directory in `dir` and returns its path
/// (for `SOFTHSM2_CONF`, set before the module is loaded), so a run's tokens go with `dir`.
pub fn softhsm_config(dir: &Path) -> Result<PathBuf> {
    let tokens = dir.join("softhsm-tokens");
    std::fs::create_dir_all(&tokens).map_err(Error::io(&tokens))?;
    let conf = dir.join("softhsm2.conf");
    let text = format!(
        "directories.tokendir = {}\nlog.level = ERROR\n",
        tokens.display()
    );
    std::fs::write(&conf, text).map_err(Error::io(&conf))?;
    Ok(conf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GenerateKeyRequest;

    #[test]
    fn a_soft_scratch_store_opens_with_its_pin_only_and_goes_when_dropped() {
        let scratch = ScratchStore::create("vss-scratch-", "store", Backend::Soft, Path::new(""))
            .expect("scratch store");
        assert_eq!(scratch.pin().len(), 32);
        let hsm = scratch.open().expect("open");
        assert_eq!(hsm.backend(), Backend::Soft);
        hsm.generate_key(&GenerateKeyRequest::new("k", vss_crypto::Curve::P256))
            .expect("key");
        assert!(crate::open(scratch.store(), "not-the-pin").is_err());
        let dir = scratch.dir().to_path_buf();
        drop(hsm);
        drop(scratch);
        assert!(!dir.exists());
    }

    #[test]
    fn generated_pins_differ() {
        assert_ne!(
            *generated_pin().expect("pin"),
            *generated_pin().expect("pin")
        );
    }
}

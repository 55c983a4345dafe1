//! The token: the VSS key store named by `VSS_STORE`, its `CK_TOKEN_INFO`, and the login
//! (PKCS#11 logs in the application, not a session: one opened store serves every session).

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use cryptoki_sys::*;
use vss_hsm::{Hsm, StoreConfig};

use crate::error::{Error, Result};
use crate::{padded, version};

/// The shortest and longest user PIN the token reports (the soft store's policy).
const PIN_LEN: (CK_ULONG, CK_ULONG) = (4, 64);

/// The longest PIN tried at all: a longer one is refused without costing a try.
const MAX_PIN_TRIED: usize = 1024;

/// The key store behind the slot, and the user's login to it.
pub(crate) struct Token {
    /// The store directory, if one is named (`VSS_STORE`, else the user's default).
    dir: Option<PathBuf>,
    /// The store opened with the user PIN, while the user is logged in.
    login: RwLock<Option<Arc<dyn Hsm>>>,
}

impl Token {
    /// The token of the store in `dir` (`None`: no directory could be named; the slot then
    /// has no token).
    pub(crate) fn new(dir: Option<PathBuf>) -> Self {
        Token {
            dir,
            login: RwLock::new(None),
        }
    }

    /// The store directory, when it holds a key store.
    pub(crate) fn dir(&self) -> Result<&PathBuf> {
        match &self.dir {
            Some(dir) if StoreConfig::read(dir).is_ok() => Ok(dir),
            _ => Err(Error::TokenNotPresent),
        }
    }

    /// The slot's description of where its token lives.
    pub(crate) fn description(&self) -> String {
        match &self.dir {
            Some(dir) => format!("VSS key store {}", dir.display()),
            None => "VSS key store (none named: set VSS_STORE)".to_owned(),
        }
    }

    /// Whether the user is logged in.
    pub(crate) fn logged_in(&self) -> Result<bool> {
        Ok(self.login.read().map_err(|_| Error::Internal)?.is_some())
    }

    /// The opened store, or [`Error::UserNotLoggedIn`].
    pub(crate) fn hsm(&self) -> Result<Arc<dyn Hsm>> {
        self.login
            .read()
            .map_err(|_| Error::Internal)?
            .clone()
            .ok_or(Error::UserNotLoggedIn)
    }

    /// Opens the store with the user PIN: a wrong PIN costs one of the store's tries.
    pub(crate) fn login(&self, pin: &[u8]) -> Result<()> {
        let mut login = self.login.write().map_err(|_| Error::Internal)?;
        if login.is_some() {
            return Err(Error::UserAlreadyLoggedIn);
        }
        if pin.is_empty() || pin.len() > MAX_PIN_TRIED {
            return Err(Error::PinLenRange);
        }
        // A PIN that is not UTF-8 is no store's PIN: refused without a try.
        let pin = std::str::from_utf8(pin).map_err(|_| Error::PinIncorrect)?;
        *login = Some(Arc::from(vss_hsm::open(self.dir()?, pin)?));
        Ok(())
    }

    /// Forgets the opened store.
    pub(crate) fn logout(&self) -> Result<()> {
        self.login
            .write()
            .map_err(|_| Error::Internal)?
            .take()
            .map(drop)
            .ok_or(Error::UserNotLoggedIn)
    }

    /// `CK_TOKEN_INFO`; `sessions` and `rw_sessions` are the open sessions.
    pub(crate) fn info(&self, sessions: usize, rw_sessions: usize) -> Result<CK_TOKEN_INFO> {
        let dir = self.dir()?;
        let backend = StoreConfig::read(dir)?.location.backend();
        let pin = vss_hsm::pin_status(dir)?;
        let mut flags =
            CKF_RNG | CKF_LOGIN_REQUIRED | CKF_USER_PIN_INITIALIZED | CKF_TOKEN_INITIALIZED;
        for (set, flag) in [
            (pin.count_low, CKF_USER_PIN_COUNT_LOW),
            (pin.final_try, CKF_USER_PIN_FINAL_TRY),
            (pin.locked, CKF_USER_PIN_LOCKED),
        ] {
            if set {
                flags |= flag;
            }
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(CK_TOKEN_INFO {
            label: padded(&format!("VSS {name}")),
            manufacturerID: padded("VSS"),
            model: padded(match backend {
                vss_hsm::Backend::Soft => "soft store",
                vss_hsm::Backend::Pkcs11 => "pkcs11 store",
            }),
            serialNumber: padded(&serial(dir)),
            flags,
            ulMaxSessionCount: CK_EFFECTIVELY_INFINITE,
            ulSessionCount: sessions as CK_ULONG,
            ulMaxRwSessionCount: CK_EFFECTIVELY_INFINITE,
            ulRwSessionCount: rw_sessions as CK_ULONG,
            ulMaxPinLen: PIN_LEN.1,
            ulMinPinLen: PIN_LEN.0,
            ulTotalPublicMemory: CK_UNAVAILABLE_INFORMATION,
            ulFreePublicMemory: CK_UNAVAILABLE_INFORMATION,
            ulTotalPrivateMemory: CK_UNAVAILABLE_INFORMATION,
            ulFreePrivateMemory: CK_UNAVAILABLE_INFORMATION,
            hardwareVersion: version(),
            firmwareVersion: version(),
            utcTime: [b' '; 16],
        })
    }
}

/// A serial number that tells stores apart: 16 hex digits of the SHA-256 of the store's
/// absolute path.
fn serial(dir: &std::path::Path) -> String {
    let path = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let digest = vss_crypto::HashAlg::Sha256.digest(path.as_os_str().as_encoded_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_store_is_no_token_and_no_login() {
        let dir = tempfile::tempdir().expect("tempdir");
        for token in [Token::new(None), Token::new(Some(dir.path().into()))] {
            assert!(matches!(token.dir(), Err(Error::TokenNotPresent)));
            assert!(matches!(token.info(0, 0), Err(Error::TokenNotPresent)));
            assert!(matches!(token.login(b"1234"), Err(Error::TokenNotPresent)));
            assert!(matches!(token.hsm(), Err(Error::UserNotLoggedIn)));
        }
    }

    #[test]
    fn serial_numbers_are_16_hex_digits_and_differ_between_stores() {
        let a = serial(std::path::Path::new("/a"));
        assert_eq!(a.len(), 16);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, serial(std::path::Path::new("/b")));
    }
}

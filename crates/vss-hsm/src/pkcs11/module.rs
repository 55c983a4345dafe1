//! Loading a PKCS#11 module once per process, and finding a token in it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use cryptoki::context::{CInitializeArgs, CInitializeFlags, Pkcs11};
use cryptoki::error::RvError;
use cryptoki::slot::Slot;

use super::ckr;
use crate::{Error, Result};

/// A module is initialised once and kept for the life of the process: PKCS#11 allows one
/// `C_Initialize` per process, and finalising under other users' sessions would break them.
fn loaded() -> &'static Mutex<HashMap<PathBuf, Pkcs11>> {
    static MODULES: OnceLock<Mutex<HashMap<PathBuf, Pkcs11>>> = OnceLock::new();
    MODULES.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Shared by every use of a token in this process, taken alone to create or destroy
/// objects: SoftHSMv2 fails object creation at random while other calls run concurrently
/// (softhsm/SoftHSMv2#573), so creation waits for the token to be idle. Signatures and key
/// agreement still run side by side.
pub(crate) fn token_access() -> &'static std::sync::RwLock<()> {
    static ACCESS: std::sync::RwLock<()> = std::sync::RwLock::new(());
    &ACCESS
}

/// The module at `path`, loaded and initialised.
pub(crate) fn load(path: &Path) -> Result<Pkcs11> {
    let mut modules = loaded()
        .lock()
        .map_err(|_| Error::Unsupported("PKCS#11 module table poisoned".into()))?;
    if let Some(module) = modules.get(path) {
        return Ok(module.clone());
    }
    if !path.is_file() {
        return Err(Error::ModuleNotFound(path.to_path_buf()));
    }
    let module = Pkcs11::new(path).map_err(|e| Error::ModuleLoad {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    match module.initialize(CInitializeArgs::new(CInitializeFlags::OS_LOCKING_OK)) {
        Ok(()) => {}
        Err(cryptoki::error::Error::Pkcs11(RvError::CryptokiAlreadyInitialized, _)) => {}
        Err(e) => return Err(ckr("C_Initialize")(e)),
    }
    modules.insert(path.to_path_buf(), module.clone());
    Ok(module)
}

/// The slot holding the initialised token with this label.
pub(crate) fn find_token(module: &Pkcs11, module_path: &Path, label: &str) -> Result<Slot> {
    for slot in module
        .get_slots_with_initialized_token()
        .map_err(ckr("C_GetSlotList"))?
    {
        let info = module.get_token_info(slot).map_err(ckr("C_GetTokenInfo"))?;
        if info.label().trim_end() == label {
            return Ok(slot);
        }
    }
    Err(Error::TokenNotFound {
        label: label.to_owned(),
        module: module_path.to_path_buf(),
    })
}

/// A slot whose token is present but not yet initialised (SoftHSM always offers one).
pub(crate) fn free_slot(module: &Pkcs11, module_path: &Path) -> Result<Slot> {
    for slot in module
        .get_slots_with_token()
        .map_err(ckr("C_GetSlotList"))?
    {
        let info = module.get_token_info(slot).map_err(ckr("C_GetTokenInfo"))?;
        if !info.token_initialized() {
            return Ok(slot);
        }
    }
    Err(Error::Unsupported(format!(
        "{} offers no uninitialised token to initialise",
        module_path.display()
    )))
}

/// PKCS#11 logs in the whole process, so a second `C_Login` answers "already logged in"
/// whatever PIN it is given. To keep every open checking its PIN, the process remembers a
/// keyed hash of the PIN each token was logged in with.
type LoginTable = Mutex<HashMap<(PathBuf, Slot), [u8; 32]>>;

fn logins() -> &'static LoginTable {
    static LOGINS: OnceLock<LoginTable> = OnceLock::new();
    LOGINS.get_or_init(|| Mutex::new(HashMap::new()))
}

fn pin_tag(pin: &str) -> Result<[u8; 32]> {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    let key = match KEY.get() {
        Some(key) => key,
        None => {
            let mut fresh = [0u8; 32];
            vss_crypto::random_bytes(&mut fresh)?;
            KEY.get_or_init(|| fresh)
        }
    };
    Ok(vss_crypto::hmac_sha256(key, pin.as_bytes()))
}

/// Records that `pin` logged the token in `slot` in.
pub(crate) fn remember_login(module: &Path, slot: Slot, pin: &str) -> Result<()> {
    let tag = pin_tag(pin)?;
    logins()
        .lock()
        .map_err(|_| Error::Unsupported("PKCS#11 login table poisoned".into()))?
        .insert((module.to_path_buf(), slot), tag);
    Ok(())
}

/// Whether `pin` is the PIN the token in `slot` was logged in with (in constant time).
pub(crate) fn is_login_pin(module: &Path, slot: Slot, pin: &str) -> Result<bool> {
    let tag = pin_tag(pin)?;
    let logins = logins()
        .lock()
        .map_err(|_| Error::Unsupported("PKCS#11 login table poisoned".into()))?;
    Ok(logins
        .get(&(module.to_path_buf(), slot))
        .is_some_and(|known| vss_crypto::constant_time_eq(known, &tag)))
}

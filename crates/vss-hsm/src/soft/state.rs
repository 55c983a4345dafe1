//! `soft-store.json`: the master key wrapped under the PIN and under the PUK, and the retry
//! counters, as a smart card keeps them.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use argon2::{Algorithm, Argon2, Params, Version};
use serde::{Deserialize, Serialize};
use vss_crypto::AesGcm;
use zeroize::Zeroizing;

use crate::{atomic, Error, Result};

/// Wrong PINs allowed before the PIN blocks.
pub const PIN_TRIES: u8 = 3;
/// Wrong PUKs allowed before the store locks for good.
pub const PUK_TRIES: u8 = 10;

const STATE_FILE: &str = "soft-store.json";
const LOCK_FILE: &str = ".lock";

/// The 32-byte key that encrypts every key file.
pub(crate) type MasterKey = Zeroizing<[u8; 32]>;

/// Argon2id cost: OWASP's recommended minimum (19 MiB, 2 passes, 1 lane).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct KdfParams {
    m_kib: u32,
    t: u32,
    p: u32,
}

const DEFAULT_KDF: KdfParams = KdfParams {
    m_kib: 19 * 1024,
    t: 2,
    p: 1,
};

/// The Argon2id memory cost a store may ask for, in KiB: 8 MiB to 1 GiB.
pub const KDF_MEMORY_KIB: std::ops::RangeInclusive<u32> = 8 * 1024..=1024 * 1024;
/// The Argon2id passes a store may ask for.
pub const KDF_PASSES: std::ops::RangeInclusive<u32> = 1..=16;
/// The Argon2id lanes a store may ask for.
pub const KDF_LANES: std::ops::RangeInclusive<u32> = 1..=16;

impl KdfParams {
    /// Why the parameters are out of the ranges above, if they are: a state file that asks
    /// for 4 TB of memory or a billion passes is refused before the KDF runs.
    fn out_of_range(&self) -> Option<String> {
        let check = |what: &str, value: u32, range: &std::ops::RangeInclusive<u32>| {
            (!range.contains(&value)).then(|| {
                format!(
                    "KDF {what} {value} outside {}..={}",
                    range.start(),
                    range.end()
                )
            })
        };
        check("m_kib", self.m_kib, &KDF_MEMORY_KIB)
            .or_else(|| check("t", self.t, &KDF_PASSES))
            .or_else(|| check("p", self.p, &KDF_LANES))
    }
}

/// The master key encrypted under a key derived from a secret (PIN or PUK).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Wrapped {
    #[serde(with = "hex::serde")]
    salt: Vec<u8>,
    #[serde(with = "hex::serde")]
    nonce: Vec<u8>,
    #[serde(with = "hex::serde")]
    wrapped_key: Vec<u8>,
    tries_left: u8,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct State {
    version: u32,
    kdf: KdfParams,
    pin: Wrapped,
    puk: Wrapped,
}

/// Which secret a wrapping belongs to; also the associated data of the wrapping.
#[derive(Clone, Copy)]
enum Role {
    Pin,
    Puk,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Pin => "PIN",
            Role::Puk => "PUK",
        }
    }

    fn aad(self) -> &'static [u8] {
        match self {
            Role::Pin => b"vss soft store v1: master key under PIN",
            Role::Puk => b"vss soft store v1: master key under PUK",
        }
    }
}

/// PIN and PUK counters as `vss hsm status` shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SoftStoreStatus {
    /// Wrong PINs still allowed (0: blocked).
    pub pin_tries_left: u8,
    /// Wrong PUKs still allowed (0: locked for good).
    pub puk_tries_left: u8,
}

impl SoftStoreStatus {
    /// The counters as a token's user-PIN flags: a wrong PIN since the last success, one
    /// try left, or no try left (the PIN blocked, or the store locked for good).
    pub fn pin_flags(&self) -> crate::TokenPinStatus {
        let locked = self.pin_tries_left == 0 || self.puk_tries_left == 0;
        crate::TokenPinStatus {
            count_low: !locked && self.pin_tries_left < PIN_TRIES,
            final_try: !locked && self.pin_tries_left == 1,
            locked,
        }
    }
}

/// The state file of one store, with the store's lock held for as long as this lives.
pub(crate) struct StateFile {
    path: PathBuf,
    state: State,
    _lock: File,
}

pub(crate) fn check_pin_policy(pin: &str) -> Result<()> {
    if !(4..=64).contains(&pin.len()) {
        return Err(Error::WeakSecret("a PIN has 4 to 64 characters"));
    }
    Ok(())
}

pub(crate) fn check_puk_policy(puk: &str) -> Result<()> {
    if !(8..=64).contains(&puk.len()) {
        return Err(Error::WeakSecret("a PUK has 8 to 64 characters"));
    }
    Ok(())
}

/// Takes the store's exclusive lock (released when the file is dropped).
pub(crate) fn lock(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(Error::io(&path))?;
    file.lock().map_err(Error::io(&path))?;
    Ok(file)
}

impl StateFile {
    /// Creates the state of a new store with a fresh master key.
    pub(crate) fn create(dir: &Path, pin: &str, puk: &str) -> Result<MasterKey> {
        check_pin_policy(pin)?;
        check_puk_policy(puk)?;
        let mut master: MasterKey = Zeroizing::new([0u8; 32]);
        vss_crypto::random_bytes(master.as_mut())?;
        let state = State {
            version: 1,
            kdf: DEFAULT_KDF,
            pin: wrap(DEFAULT_KDF, Role::Pin, pin, &master, PIN_TRIES)?,
            puk: wrap(DEFAULT_KDF, Role::Puk, puk, &master, PUK_TRIES)?,
        };
        let file = StateFile {
            path: dir.join(STATE_FILE),
            state,
            _lock: lock(dir)?,
        };
        file.save()?;
        Ok(master)
    }

    /// Reads the state with the store's lock held.
    pub(crate) fn load(dir: &Path) -> Result<Self> {
        let lock = lock(dir)?;
        let path = dir.join(STATE_FILE);
        let bytes = crate::atomic::read_store_file(&path)?;
        let corrupt = |reason: String| Error::CorruptFile {
            path: path.clone(),
            reason,
        };
        let state: State = serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
        if state.version != 1 {
            return Err(corrupt(format!("unknown version {}", state.version)));
        }
        if let Some(reason) = state.kdf.out_of_range() {
            return Err(corrupt(reason));
        }
        Ok(StateFile {
            path,
            state,
            _lock: lock,
        })
    }

    pub(crate) fn status(&self) -> SoftStoreStatus {
        SoftStoreStatus {
            pin_tries_left: self.state.pin.tries_left,
            puk_tries_left: self.state.puk.tries_left,
        }
    }

    /// Verifies the PIN and returns the master key. The counter is decremented on disk
    /// before the check and restored only after a success, so killing the process in the
    /// middle of a check costs a try, as on a card.
    pub(crate) fn verify_pin(&mut self, pin: &str) -> Result<MasterKey> {
        if self.state.puk.tries_left == 0 {
            return Err(Error::Locked);
        }
        if self.state.pin.tries_left == 0 {
            return Err(Error::PinBlocked);
        }
        match self.verify(Role::Pin, pin)? {
            Some(master) => Ok(master),
            None => Err(Error::WrongPin {
                tries_left: self.state.pin.tries_left,
            }),
        }
    }

    /// Verifies the PUK, then sets `new_pin` and resets both counters.
    pub(crate) fn unblock(&mut self, puk: &str, new_pin: &str) -> Result<()> {
        check_pin_policy(new_pin)?;
        if self.state.puk.tries_left == 0 {
            return Err(Error::Locked);
        }
        match self.verify(Role::Puk, puk)? {
            Some(master) => self.set_pin(&master, new_pin),
            None => Err(Error::WrongPuk {
                tries_left: self.state.puk.tries_left,
            }),
        }
    }

    /// Wraps the master key under a new PIN and resets the PIN counter.
    pub(crate) fn set_pin(&mut self, master: &MasterKey, new_pin: &str) -> Result<()> {
        check_pin_policy(new_pin)?;
        self.state.pin = wrap(self.state.kdf, Role::Pin, new_pin, master, PIN_TRIES)?;
        self.save()
    }

    fn verify(&mut self, role: Role, secret: &str) -> Result<Option<MasterKey>> {
        if secret.is_empty() {
            return Err(Error::EmptySecret(role.name()));
        }
        let kdf = self.state.kdf;
        let (wrapped, full) = match role {
            Role::Pin => (&mut self.state.pin, PIN_TRIES),
            Role::Puk => (&mut self.state.puk, PUK_TRIES),
        };
        wrapped.tries_left -= 1;
        let attempt = wrapped.clone();
        self.save()?;
        let Some(master) =
            unwrap(kdf, role, secret, &attempt).map_err(|reason| Error::CorruptFile {
                path: self.path.clone(),
                reason: reason.into(),
            })?
        else {
            return Ok(None);
        };
        match role {
            Role::Pin => self.state.pin.tries_left = full,
            Role::Puk => {
                self.state.puk.tries_left = full;
                self.state.pin.tries_left = PIN_TRIES;
            }
        }
        self.save()?;
        Ok(Some(master))
    }

    fn save(&self) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(&self.state)
            .map_err(|e| Error::Unsupported(e.to_string()))?;
        atomic::write_atomic(&self.path, &bytes)
    }
}

fn derive(
    kdf: KdfParams,
    secret: &str,
    salt: &[u8],
) -> std::result::Result<Zeroizing<[u8; 32]>, &'static str> {
    let params =
        Params::new(kdf.m_kib, kdf.t, kdf.p, Some(32)).map_err(|_| "bad KDF parameters")?;
    let mut key = Zeroizing::new([0u8; 32]);
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password_into(secret.as_bytes(), salt, key.as_mut())
        .map_err(|_| "bad KDF parameters")?;
    Ok(key)
}

fn wrap(
    kdf: KdfParams,
    role: Role,
    secret: &str,
    master: &MasterKey,
    tries: u8,
) -> Result<Wrapped> {
    let mut salt = vec![0u8; 16];
    let mut nonce = vec![0u8; vss_crypto::NONCE_LEN];
    vss_crypto::random_bytes(&mut salt)?;
    vss_crypto::random_bytes(&mut nonce)?;
    let key = derive(kdf, secret, &salt).map_err(|e| Error::Unsupported(e.into()))?;
    let wrapped_key = AesGcm::new(key.as_ref())?.seal(&nonce, role.aad(), master.as_ref())?;
    Ok(Wrapped {
        salt,
        nonce,
        wrapped_key,
        tries_left: tries,
    })
}

/// `Ok(None)`: wrong secret. `Err`: the stored wrapping cannot be right for any secret.
fn unwrap(
    kdf: KdfParams,
    role: Role,
    secret: &str,
    wrapped: &Wrapped,
) -> std::result::Result<Option<MasterKey>, &'static str> {
    if wrapped.salt.len() < 16 || wrapped.nonce.len() != vss_crypto::NONCE_LEN {
        return Err("malformed salt or nonce");
    }
    if wrapped.wrapped_key.len() != 32 + vss_crypto::TAG_LEN {
        return Err("malformed wrapped key");
    }
    let key = derive(kdf, secret, &wrapped.salt)?;
    let cipher = AesGcm::new(key.as_ref()).map_err(|_| "cipher")?;
    match cipher.open(&wrapped.nonce, role.aad(), &wrapped.wrapped_key) {
        Ok(plain) => {
            let plain = Zeroizing::new(plain);
            let mut master: MasterKey = Zeroizing::new([0u8; 32]);
            master.copy_from_slice(&plain);
            Ok(Some(master))
        }
        Err(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_become_the_token_pin_flags() {
        let flags = |pin_tries_left, puk_tries_left| {
            let f = SoftStoreStatus {
                pin_tries_left,
                puk_tries_left,
            }
            .pin_flags();
            (f.count_low, f.final_try, f.locked)
        };
        assert_eq!(flags(PIN_TRIES, PUK_TRIES), (false, false, false));
        assert_eq!(flags(2, PUK_TRIES), (true, false, false));
        assert_eq!(flags(1, PUK_TRIES), (true, true, false));
        assert_eq!(flags(0, PUK_TRIES), (false, false, true));
        assert_eq!(flags(PIN_TRIES, 0), (false, false, true));
    }
}

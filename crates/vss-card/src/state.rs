//! The card's state in one file, encrypted at rest.
//!
//! The file `FILE` is `MAGIC ‖ nonce (12) ‖ ChaCha20-Poly1305(plaintext)` with the magic as
//! associated data, under a 32-byte device key in the sibling file `FILE.key` (mode 0600,
//! created on first start). The key file stands for a secure element's key: on a real card
//! it would never leave the chip. The nonce is fresh from the operating system for every
//! write.
//!
//! The plaintext (version 1) is `01 ‖ PIN tries ‖ PUK tries ‖ initialized (0/1)
//! [‖ PIN (8, padded with FF) ‖ PUK (8) ‖ secret (32)] ‖ system parameters ‖ 16 slots`,
//! each data object as a 2-byte big-endian length and its bytes (length 0: not set).
//! Every write goes to `FILE.tmp`, is synced, renamed over `FILE`, and the directory synced.

use crate::params::MAX_SYSTEM_PARAMETERS;
use chacha20poly1305::aead::{Aead, KeyInit, OsRng, Payload};
use chacha20poly1305::{AeadCore, ChaCha20Poly1305, Key, Nonce};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// The number of credential slots (tags `02 00`..=`02 0F`).
pub const SLOTS: usize = 16;
/// The longest credential blob a slot holds, in bytes.
pub const MAX_SLOT_LEN: usize = 4096;
/// PIN tries after initialization and after every correct PIN.
pub const PIN_TRIES: u8 = 3;
/// PUK tries; a correct PUK restores them.
pub const PUK_TRIES: u8 = 10;
/// The stored length of a PIN (shorter ones padded with `FF`) and of the PUK.
pub const CODE_LEN: usize = 8;
/// The octets of the secret.
pub const SECRET_LEN: usize = 32;
/// The largest state file read: every data object at its bound, and room to spare.
pub const MAX_STATE_FILE: usize = 128 * 1024;
/// The state file's magic and format version, also the AEAD's associated data.
const MAGIC: &[u8; 16] = b"VSS-CARD-STATE-1";
/// The plaintext layout version.
const PLAINTEXT_VERSION: u8 = 1;
/// The octets of a ChaCha20-Poly1305 nonce.
const NONCE_LEN: usize = 12;
/// The octets of the device key.
const KEY_LEN: usize = 32;

/// Why the state could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The state file exists but its key file does not.
    #[error("{0}: the state file's key file is missing")]
    MissingKey(PathBuf),
    /// The key file is not 32 bytes or others may read it.
    #[error("{0}: the key file must be 32 bytes with mode 0600")]
    BadKey(PathBuf),
    /// The state file is longer than [`MAX_STATE_FILE`].
    #[error("the state file is {0} bytes, at most {MAX_STATE_FILE} are allowed")]
    TooLarge(u64),
    /// The state file does not decrypt under the key (corrupted, tampered with, other key).
    #[error("the state file is corrupted or was tampered with")]
    Tampered,
    /// The decrypted state is not a state this card writes.
    #[error("the state is malformed")]
    Malformed,
}

/// The PIN, the PUK and the secret, set once by INITIALIZE.
#[derive(Clone)]
pub struct Credentials {
    /// The PIN, padded with `FF` to [`CODE_LEN`].
    pub pin: Zeroizing<[u8; CODE_LEN]>,
    /// The PUK.
    pub puk: Zeroizing<[u8; CODE_LEN]>,
    /// The secret's stored form.
    pub secret: Zeroizing<[u8; SECRET_LEN]>,
}

/// Everything the card keeps across power cycles.
#[derive(Clone, Default)]
pub struct CardState {
    /// PIN tries left.
    pub pin_tries: u8,
    /// PUK tries left.
    pub puk_tries: u8,
    /// The PIN, PUK and secret, once initialized.
    pub credentials: Option<Credentials>,
    /// The system parameters, as stored by PUT DATA.
    pub system_parameters: Option<Vec<u8>>,
    /// The credential slots.
    pub slots: [Option<Vec<u8>>; SLOTS],
}

/// Where the applet writes its state after every change.
pub trait Store {
    /// Stores `state` durably before returning.
    fn save(&mut self, state: &CardState) -> Result<(), StateError>;
}

/// No storage: the state lives as long as the process (the in-process software card).
pub struct Volatile;

impl Store for Volatile {
    fn save(&mut self, _state: &CardState) -> Result<(), StateError> {
        Ok(())
    }
}

/// The encrypted state file and its key.
pub struct StateFile {
    path: PathBuf,
    key: Zeroizing<[u8; KEY_LEN]>,
}

impl StateFile {
    /// Opens the state at `path`, creating the key (and an empty state) on first start.
    pub fn open(path: &Path) -> Result<(Self, CardState), StateError> {
        let key_path = sibling(path, ".key");
        let exists = path.exists();
        let key = if key_path.exists() {
            read_key(&key_path)?
        } else if exists {
            return Err(StateError::MissingKey(key_path));
        } else {
            create_key(&key_path)?
        };
        let mut file = StateFile {
            path: path.to_path_buf(),
            key,
        };
        if exists {
            let state = file.load()?;
            Ok((file, state))
        } else {
            let state = CardState::default();
            file.save(&state)?;
            Ok((file, state))
        }
    }

    fn load(&self) -> Result<CardState, StateError> {
        let io = |source| StateError::Io {
            path: self.path.clone(),
            source,
        };
        let file = File::open(&self.path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len > MAX_STATE_FILE as u64 {
            return Err(StateError::TooLarge(len));
        }
        let mut bytes = Vec::new();
        file.take(MAX_STATE_FILE as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let body = bytes.strip_prefix(MAGIC).ok_or(StateError::Tampered)?;
        if body.len() < NONCE_LEN {
            return Err(StateError::Tampered);
        }
        let (nonce, ciphertext) = body.split_at(NONCE_LEN);
        let plaintext = Zeroizing::new(
            self.cipher()
                .decrypt(
                    Nonce::from_slice(nonce),
                    Payload {
                        msg: ciphertext,
                        aad: MAGIC,
                    },
                )
                .map_err(|_| StateError::Tampered)?,
        );
        decode(&plaintext)
    }

    fn cipher(&self) -> ChaCha20Poly1305 {
        ChaCha20Poly1305::new(Key::from_slice(&self.key[..]))
    }
}

impl Store for StateFile {
    fn save(&mut self, state: &CardState) -> Result<(), StateError> {
        let plaintext = encode(state);
        let nonce = ChaCha20Poly1305::generate_nonce(&mut OsRng);
        let ciphertext = self
            .cipher()
            .encrypt(
                &nonce,
                Payload {
                    msg: &plaintext,
                    aad: MAGIC,
                },
            )
            .map_err(|_| StateError::Malformed)?;
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&ciphertext);
        write_atomically(&self.path, &bytes)
    }
}

/// `path` with `suffix` appended to its file name.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> StateError + '_ {
    move |source| StateError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn read_key(path: &Path) -> Result<Zeroizing<[u8; KEY_LEN]>, StateError> {
    let file = File::open(path).map_err(io_error(path))?;
    let meta = file.metadata().map_err(io_error(path))?;
    if meta.len() != KEY_LEN as u64 || meta.permissions().mode() & 0o077 != 0 {
        return Err(StateError::BadKey(path.to_path_buf()));
    }
    let mut key = Zeroizing::new([0u8; KEY_LEN]);
    let mut file = file;
    file.read_exact(&mut key[..]).map_err(io_error(path))?;
    Ok(key)
}

fn create_key(path: &Path) -> Result<Zeroizing<[u8; KEY_LEN]>, StateError> {
    let generated = ChaCha20Poly1305::generate_key(&mut OsRng);
    let mut key = Zeroizing::new([0u8; KEY_LEN]);
    key.copy_from_slice(&generated);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io_error(path))?;
    file.write_all(&key[..]).map_err(io_error(path))?;
    file.sync_all().map_err(io_error(path))?;
    sync_dir(path)?;
    Ok(key)
}

/// Writes `FILE.tmp`, syncs it, renames it over `path` and syncs the directory.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    let tmp = sibling(path, ".tmp");
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io_error(&tmp))?;
    file.write_all(bytes).map_err(io_error(&tmp))?;
    file.sync_all().map_err(io_error(&tmp))?;
    fs::rename(&tmp, path).map_err(io_error(path))?;
    sync_dir(path)
}

fn sync_dir(path: &Path) -> Result<(), StateError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_error(dir))
}

fn push_object(out: &mut Vec<u8>, object: Option<&[u8]>) {
    let object = object.unwrap_or_default();
    out.extend_from_slice(&(object.len() as u16).to_be_bytes());
    out.extend_from_slice(object);
}

fn encode(state: &CardState) -> Zeroizing<Vec<u8>> {
    // Room for every object at its bound, so that no reallocation leaves a copy behind.
    let capacity = 4
        + 2 * CODE_LEN
        + SECRET_LEN
        + (SLOTS + 1) * 2
        + MAX_SYSTEM_PARAMETERS
        + SLOTS * MAX_SLOT_LEN;
    let mut out = Zeroizing::new(Vec::with_capacity(capacity));
    out.extend_from_slice(&[PLAINTEXT_VERSION, state.pin_tries, state.puk_tries]);
    match &state.credentials {
        None => out.push(0),
        Some(c) => {
            out.push(1);
            out.extend_from_slice(&c.pin[..]);
            out.extend_from_slice(&c.puk[..]);
            out.extend_from_slice(&c.secret[..]);
        }
    }
    push_object(&mut out, state.system_parameters.as_deref());
    for slot in &state.slots {
        push_object(&mut out, slot.as_deref());
    }
    out
}

/// A cursor over the plaintext; running out is [`StateError::Malformed`].
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], StateError> {
        if self.0.len() < n {
            return Err(StateError::Malformed);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, StateError> {
        Ok(self.take(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<Zeroizing<[u8; N]>, StateError> {
        let mut out = Zeroizing::new([0u8; N]);
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn object(&mut self, max: usize) -> Result<Option<Vec<u8>>, StateError> {
        let len = self.take(2)?;
        let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
        if len > max {
            return Err(StateError::Malformed);
        }
        let bytes = self.take(len)?;
        Ok((len > 0).then(|| bytes.to_vec()))
    }
}

fn decode(plaintext: &[u8]) -> Result<CardState, StateError> {
    let mut r = Reader(plaintext);
    if r.byte()? != PLAINTEXT_VERSION {
        return Err(StateError::Malformed);
    }
    let pin_tries = r.byte()?.min(PIN_TRIES);
    let puk_tries = r.byte()?.min(PUK_TRIES);
    let credentials = match r.byte()? {
        0 => None,
        1 => Some(Credentials {
            pin: r.array()?,
            puk: r.array()?,
            secret: r.array()?,
        }),
        _ => return Err(StateError::Malformed),
    };
    let system_parameters = r.object(MAX_SYSTEM_PARAMETERS)?;
    let mut slots: [Option<Vec<u8>>; SLOTS] = Default::default();
    for slot in &mut slots {
        *slot = r.object(MAX_SLOT_LEN)?;
    }
    if !r.0.is_empty() {
        return Err(StateError::Malformed);
    }
    Ok(CardState {
        pin_tries,
        puk_tries,
        credentials,
        system_parameters,
        slots,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CardState {
        let mut state = CardState {
            pin_tries: 2,
            puk_tries: 9,
            credentials: Some(Credentials {
                pin: Zeroizing::new(*b"1234\xff\xff\xff\xff"),
                puk: Zeroizing::new(*b"12345678"),
                secret: Zeroizing::new([7; SECRET_LEN]),
            }),
            system_parameters: Some(vec![1; 49]),
            slots: Default::default(),
        };
        state.slots[3] = Some(vec![5; MAX_SLOT_LEN]);
        state
    }

    fn same(a: &CardState, b: &CardState) -> bool {
        encode(a) == encode(b)
    }

    #[test]
    fn the_state_survives_a_restart_and_the_key_is_private() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("card.state");
        let (mut file, fresh) = StateFile::open(&path).expect("first start");
        assert!(fresh.credentials.is_none());
        let mode = fs::metadata(sibling(&path, ".key"))
            .expect("key file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        file.save(&sample()).expect("save");
        let (_, loaded) = StateFile::open(&path).expect("restart");
        assert!(same(&loaded, &sample()));
        assert!(!sibling(&path, ".tmp").exists());
    }

    #[test]
    fn a_tampered_truncated_or_keyless_state_file_is_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("card.state");
        let (mut file, _) = StateFile::open(&path).expect("first start");
        file.save(&sample()).expect("save");
        let good = fs::read(&path).expect("read");
        for i in [0, MAGIC.len(), MAGIC.len() + NONCE_LEN, good.len() - 1] {
            let mut bad = good.clone();
            bad[i] ^= 0x01;
            fs::write(&path, &bad).expect("write");
            assert!(matches!(StateFile::open(&path), Err(StateError::Tampered)));
        }
        fs::write(&path, &good[..20]).expect("write");
        assert!(matches!(StateFile::open(&path), Err(StateError::Tampered)));
        fs::write(&path, vec![0; MAX_STATE_FILE + 1]).expect("write");
        assert!(matches!(
            StateFile::open(&path),
            Err(StateError::TooLarge(_))
        ));
        fs::remove_file(sibling(&path, ".key")).expect("remove key");
        assert!(matches!(
            StateFile::open(&path),
            Err(StateError::MissingKey(_))
        ));
    }

    #[test]
    fn malformed_plaintexts_are_refused_not_panicked_on() {
        let good = encode(&sample());
        for end in 0..good.len() {
            assert!(decode(&good[..end]).is_err(), "{end}");
        }
        let mut longer = good.to_vec();
        longer.push(0);
        assert!(decode(&longer).is_err());
        let mut version = good.to_vec();
        version[0] = 2;
        assert!(decode(&version).is_err());
        assert!(same(&decode(&good).expect("decodes"), &sample()));
    }
}

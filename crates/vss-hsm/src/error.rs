//! The one error type of `vss-hsm`.

use std::path::PathBuf;

/// Why a key-store operation could not be carried out.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The PIN was wrong; `tries_left` more wrong PINs are allowed before the PIN blocks.
    #[error("wrong PIN ({tries_left} {} left{})", tries(*tries_left), blocked_hint(*tries_left))]
    WrongPin {
        /// Attempts left before the PIN is blocked.
        tries_left: u8,
    },
    /// The PIN is blocked after too many wrong attempts; the PUK unblocks it.
    #[error("PIN blocked after too many wrong attempts: unblock it with the PUK")]
    PinBlocked,
    /// The PUK was wrong; `tries_left` more wrong PUKs are allowed before the store locks.
    #[error("wrong PUK ({tries_left} {} left{})", tries(*tries_left), locked_hint(*tries_left))]
    WrongPuk {
        /// Attempts left before the store is locked for good.
        tries_left: u8,
    },
    /// Too many wrong PUKs: the store is locked for good.
    #[error("key store locked for good after too many wrong PUKs")]
    Locked,
    /// An empty PIN or PUK ("PIN", "PUK"): refused before it is tried, so it costs no try.
    #[error("the {0} is empty: nothing was tried")]
    EmptySecret(&'static str),
    /// A new PIN or PUK does not meet the policy.
    #[error("{0}")]
    WeakSecret(&'static str),
    /// No key has this label.
    #[error("no key labelled '{0}'")]
    KeyNotFound(String),
    /// The key is of another kind than the operation needs (an RSA key asked for ECDSA).
    #[error("key '{label}' is a {algorithm} key: this operation needs {needs}")]
    WrongKeyType {
        /// The key's label.
        label: String,
        /// What the key is.
        algorithm: vss_crypto::KeyAlgorithm,
        /// What the operation needs: "an EC key", "an RSA key".
        needs: &'static str,
    },
    /// No secret has this name.
    #[error("no secret named '{0}'")]
    SecretNotFound(String),
    /// A secret longer than a store keeps.
    #[error("a secret of {len} bytes is larger than the {max} bytes a store keeps")]
    SecretTooLarge {
        /// The secret's length.
        len: usize,
        /// The most a store keeps.
        max: usize,
    },
    /// A key with this label exists already.
    #[error("a key labelled '{0}' exists already")]
    KeyExists(String),
    /// The label is not 1–64 characters of `A-Z a-z 0-9 . _ -` (not starting with `.`).
    #[error(
        "invalid key label '{0}': use 1-64 characters of A-Z a-z 0-9 . _ - (not starting with '.')"
    )]
    InvalidLabel(String),
    /// The directory is not an initialised key store.
    #[error("{} is not an initialised key store (run `vss hsm init`)", .0.display())]
    NotAStore(PathBuf),
    /// `VSS_STORE` is set to the empty string.
    #[error("VSS_STORE is set but empty: name a key-store directory, or unset it")]
    EmptyStoreEnv,
    /// No store directory was named and there is no user data directory to default to.
    #[error("no key-store directory named and no user data directory to default to")]
    NoStoreDir,
    /// The directory holds a key store, or other files, already.
    #[error("{} is not empty: refusing to initialise a key store there", .0.display())]
    NotEmpty(PathBuf),
    /// A file of the store is corrupt, truncated or was tampered with.
    #[error("corrupt file {}: {reason}", path.display())]
    CorruptFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A token refused the PIN (`CKR_PIN_INCORRECT`); the token keeps its own count.
    #[error("wrong PIN (the token refused it; it keeps its own count of tries)")]
    TokenPinIncorrect,
    /// The PKCS#11 module file does not exist.
    #[error("PKCS#11 module {} not found (for SoftHSM: apt-get install softhsm2)", .0.display())]
    ModuleNotFound(PathBuf),
    /// The PKCS#11 module could not be loaded.
    #[error("cannot load PKCS#11 module {}: {reason}", path.display())]
    ModuleLoad {
        /// The module file.
        path: PathBuf,
        /// What the loader said.
        reason: String,
    },
    /// No initialised token has this label in the module.
    #[error("no token labelled '{label}' in PKCS#11 module {}", module.display())]
    TokenNotFound {
        /// The token label looked for.
        label: String,
        /// The module searched.
        module: PathBuf,
    },
    /// A PKCS#11 call failed with a code that has no more specific meaning here.
    #[error("PKCS#11 {function} failed: {code}")]
    Pkcs11 {
        /// The PKCS#11 function.
        function: &'static str,
        /// The CKR_* code (or loader error).
        code: String,
    },
    /// The store names a backend this build does not have.
    #[error("{0}")]
    Unsupported(String),
    /// An output path holds something other than a regular file (a device such as
    /// `/dev/null`, a FIFO, a socket, a directory): replacing it would put a file in its place.
    #[error("{} is not a regular file: refusing to replace it", .0.display())]
    NotAFile(PathBuf),
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The cryptographic operation itself failed.
    #[error(transparent)]
    Crypto(#[from] vss_crypto::Error),
}

fn tries(n: u8) -> &'static str {
    if n == 1 {
        "try"
    } else {
        "tries"
    }
}

fn blocked_hint(n: u8) -> &'static str {
    if n == 0 {
        "; the PIN is now blocked: unblock it with the PUK"
    } else {
        ""
    }
}

fn locked_hint(n: u8) -> &'static str {
    if n == 0 {
        "; the store is now locked for good"
    } else {
        ""
    }
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}

/// The result type of `vss-hsm`.
pub type Result<T> = std::result::Result<T, Error>;

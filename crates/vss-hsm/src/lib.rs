//! Keys behind handles: the [`Hsm`] trait and its backends.
//!
//! A caller opens a key store once (the backend is recorded in the store's directory) and
//! receives a `Box<dyn Hsm>`; it never learns which backend it uses.
//!
//! ```
//! use vss_crypto::{Curve, HashAlg};
//! use vss_hsm::{GenerateKeyRequest, SoftHsm};
//!
//! let dir = tempfile::tempdir()?;
//! SoftHsm::init(dir.path(), "1234", "12345678")?;
//! let hsm = vss_hsm::open(dir.path(), "1234")?;
//! let key = hsm.generate_key(&GenerateKeyRequest::new("station", Curve::P256))?;
//! let digest = HashAlg::Sha256.digest(b"CAM");
//! let signature = hsm.sign_digest(&key.handle, &digest)?;
//! let public = hsm.public_key(&key.handle)?;
//! assert!(public.verifying_key()?.verify_digest(&digest, &signature));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod atomic;
mod backend;
mod config;
mod error;
mod label;
mod objects;
pub mod pin;
mod pkcs11;
mod public_copies;
#[cfg(feature = "scratch")]
pub mod scratch;
mod soft;

use vss_crypto::{
    KeyAlgorithm, PrivateKey, PublicKey, RsaEncryptionPadding, RsaPublicKey, RsaSignatureScheme,
    Signature,
};
use zeroize::Zeroizing;

#[cfg(unix)]
pub use atomic::replace_link;
pub use atomic::{read_bounded, sync_dir, write_atomic, TooLarge};
pub use backend::{Backend, UnknownBackend};
pub use config::{default_store_dir, open, pin_status, KeyLocation, StoreConfig, STORE_ENV};
pub use error::{Error, Result};
pub use label::{check_label, printable, MAX_LABEL_LEN};
pub use objects::{
    ObjectKind, ObjectStore, StoredObject, MAX_OBJECTS, MAX_OBJECT_ID_LEN, MAX_OBJECT_LABEL_LEN,
    MAX_OBJECT_LEN,
};
pub use pkcs11::{ec as pkcs11_ec, Pkcs11Hsm, TokenPinStatus, TokenRef, DEFAULT_PKCS11_MODULE};
pub use public_copies::{PublicCopies, PublicCopy};
pub use soft::{
    SoftHsm, SoftStoreStatus, KDF_LANES, KDF_MEMORY_KIB, KDF_PASSES, MAX_SECRET_LEN, PIN_TRIES,
    PUK_TRIES,
};

/// An opaque reference to a key inside one HSM; only that HSM can use it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyHandle(String);

impl KeyHandle {
    /// A handle carrying a backend-specific identifier (for the soft backend: the label).
    pub fn new(id: impl Into<String>) -> Self {
        KeyHandle(id.into())
    }

    /// The backend-specific identifier.
    pub fn id(&self) -> &str {
        &self.0
    }
}

/// What an HSM tells about one of its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// The handle to use the key with.
    pub handle: KeyHandle,
    /// The label the key was created with, unique within the HSM.
    pub label: String,
    /// The key's algorithm and size: a curve, or an RSA modulus length.
    pub algorithm: KeyAlgorithm,
}

impl KeyInfo {
    /// The curve of an EC key; [`Error::WrongKeyType`] for an RSA key.
    pub fn ec_curve(&self) -> Result<vss_crypto::Curve> {
        self.algorithm.curve().ok_or_else(|| Error::WrongKeyType {
            label: self.label.clone(),
            algorithm: self.algorithm,
            needs: "an EC key",
        })
    }
}

/// Ask the HSM to create a new key pair.
#[derive(Debug, Clone)]
pub struct GenerateKeyRequest {
    /// Label of the new key: 1–64 characters of `A-Z a-z 0-9 . _ -`.
    pub label: String,
    /// Algorithm of the new key: a curve (`Curve::P256.into()`) or an RSA size.
    pub algorithm: KeyAlgorithm,
}

impl GenerateKeyRequest {
    /// A request for a key with `label` of `algorithm` (a [`vss_crypto::Curve`] or a
    /// [`vss_crypto::RsaBits`]).
    pub fn new(label: impl Into<String>, algorithm: impl Into<KeyAlgorithm>) -> Self {
        GenerateKeyRequest {
            label: label.into(),
            algorithm: algorithm.into(),
        }
    }
}

/// Ask the HSM to take an existing private key under a label.
#[derive(Debug)]
pub struct ImportKeyRequest<'a> {
    /// Label of the imported key.
    pub label: String,
    /// The key; its curve is the key's curve.
    pub private_key: &'a PrivateKey,
}

/// Keys behind opaque handles. Implemented by every backend (soft, PKCS#11, remote card);
/// an opened `Hsm` is logged in, and is safe to share between threads.
pub trait Hsm: Send + Sync {
    /// The kind of key store this is.
    fn backend(&self) -> Backend;

    /// Creates a key pair inside the HSM.
    fn generate_key(&self, request: &GenerateKeyRequest) -> Result<KeyInfo>;

    /// Stores an existing private key inside the HSM.
    fn import_key(&self, request: &ImportKeyRequest<'_>) -> Result<KeyInfo>;

    /// Every key, in label order.
    fn keys(&self) -> Result<Vec<KeyInfo>>;

    /// The key with this label, or [`Error::KeyNotFound`].
    fn key(&self, label: &str) -> Result<KeyInfo>;

    /// The public half of an EC key ([`Error::WrongKeyType`] for RSA).
    fn public_key(&self, key: &KeyHandle) -> Result<PublicKey>;

    /// ECDSA signature of a digest with an EC key (random nonce).
    fn sign_digest(&self, key: &KeyHandle, digest: &[u8]) -> Result<Signature>;

    /// ECDH with an EC key: the x coordinate of the shared point.
    fn ecdh(&self, key: &KeyHandle, peer: &PublicKey) -> Result<Zeroizing<Vec<u8>>>;

    /// The public half of an RSA key ([`Error::WrongKeyType`] for EC).
    fn rsa_public_key(&self, key: &KeyHandle) -> Result<RsaPublicKey>;

    /// RSA signature of a digest of `scheme`'s hash.
    fn rsa_sign_digest(
        &self,
        key: &KeyHandle,
        scheme: RsaSignatureScheme,
        digest: &[u8],
    ) -> Result<Vec<u8>>;

    /// PKCS #1 v1.5 signature of `data` as given (type-1 padding, no hashing, at most the
    /// modulus length less 11 bytes): PKCS#11's `CKM_RSA_PKCS`, whose caller encodes it.
    fn rsa_sign_pkcs1_raw(&self, key: &KeyHandle, data: &[u8]) -> Result<Vec<u8>>;

    /// RSA decryption of a short secret (a TLS premaster secret, a wrapped key).
    fn rsa_decrypt(
        &self,
        key: &KeyHandle,
        padding: RsaEncryptionPadding,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>>;

    /// Removes a key for good.
    fn delete_key(&self, key: &KeyHandle) -> Result<()>;
}

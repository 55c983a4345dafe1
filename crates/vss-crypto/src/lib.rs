//! Stateless cryptographic algorithms for VSS.
//!
//! Curves `p224 p256 p384 bp256 bp384`, RSA 2048–4096 (PKCS #1 v1.5, PSS, OAEP), ECDSA (DER and P1363 signatures, on a message or a
//! digest), ECDH, SHA-2, HMAC-SHA256 and MAC1, KDF2, AES-128-CCM and AES-GCM. The arithmetic
//! is AWS-LC's for P-256 and P-384 and OpenSSL's for the other curves; a [`PreparedKey`]
//! (P-256, P-384, bp256, bp384) verifies a signer heard again and again with its own
//! fixed-base table, in portable Rust.
//!
//! ```
//! use vss_crypto::{Curve, HashAlg, PrivateKey};
//!
//! let key = PrivateKey::generate(Curve::P256)?;
//! let signature = key.sign(HashAlg::Sha256, b"CAM")?;
//! let verifier = key.public_key().verifying_key()?;
//! assert!(verifier.verify(HashAlg::Sha256, b"CAM", &signature));
//! # Ok::<(), vss_crypto::Error>(())
//! ```

mod aead;
mod backend;
mod curve;
mod error;
mod hash;
mod kdf;
pub mod kem;
mod key_algorithm;
mod mac;
mod point;
mod prepared;
mod private_key;
mod public_key;
mod rsa;
mod signature;
mod verifying_key;

pub use aead::{AesCcm, AesGcm, NONCE_LEN, TAG_LEN};
pub use curve::Curve;
pub use error::{Error, Result};
pub use hash::{HashAlg, Hasher};
pub use kdf::kdf2;
pub use key_algorithm::KeyAlgorithm;
pub use mac::{constant_time_eq, hmac_sha256, hmac_sha256_verify, mac1, MAC1_TAG_LEN};
pub use prepared::PreparedKey;
pub use private_key::PrivateKey;
pub use public_key::PublicKey;
pub use rsa::{
    digest_info, parse_digest_info, RsaBits, RsaEncryptionPadding, RsaPrivateKey, RsaPublicKey,
    RsaSignatureScheme, RSA_PUBLIC_EXPONENT,
};
pub use signature::Signature;
pub use verifying_key::VerifyingKey;

/// Fills `out` from the operating system's cryptographic random generator.
pub fn random_bytes(out: &mut [u8]) -> Result<()> {
    use aws_lc_rs::rand::SecureRandom;
    aws_lc_rs::rand::SystemRandom::new()
        .fill(out)
        .map_err(|_| Error::Library("SystemRandom::fill"))
}

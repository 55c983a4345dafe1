//! Authenticated encryption: AES-128-CCM as IEEE 1609.2 uses it, and AES-GCM.

use aes::Aes128;
use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM, AES_256_GCM};
use ccm::aead::{Aead, KeyInit, Payload};
use ccm::consts::{U12, U16};
use ccm::Ccm;

use crate::{Error, Result};

/// Nonce length of both ciphers, in bytes.
pub const NONCE_LEN: usize = 12;
/// Tag length of both ciphers, in bytes.
pub const TAG_LEN: usize = 16;

fn check_nonce(nonce: &[u8]) -> Result<[u8; NONCE_LEN]> {
    nonce.try_into().map_err(|_| Error::InvalidLength {
        what: "nonce",
        expected: "12",
        got: nonce.len(),
    })
}

/// AES-128-CCM with a 12-byte nonce and a 16-byte tag (IEEE 1609.2 `AesCcmCiphertext`).
pub struct AesCcm {
    cipher: Ccm<Aes128, U16, U12>,
}

impl AesCcm {
    /// A cipher under a 16-byte key.
    pub fn new(key: &[u8]) -> Result<Self> {
        let cipher = Ccm::new_from_slice(key).map_err(|_| Error::InvalidLength {
            what: "AES-128-CCM key",
            expected: "16",
            got: key.len(),
        })?;
        Ok(AesCcm { cipher })
    }

    /// Encrypts `plaintext`; returns ciphertext ‖ tag.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        let nonce = check_nonce(nonce)?;
        self.cipher
            .encrypt(
                &nonce.into(),
                Payload {
                    msg: plaintext,
                    aad,
                },
            )
            .map_err(|_| Error::Library("AES-CCM encrypt"))
    }

    /// Decrypts ciphertext ‖ tag; fails without output if anything was altered.
    pub fn open(&self, nonce: &[u8], aad: &[u8], ciphertext_and_tag: &[u8]) -> Result<Vec<u8>> {
        let nonce = check_nonce(nonce)?;
        self.cipher
            .decrypt(
                &nonce.into(),
                Payload {
                    msg: ciphertext_and_tag,
                    aad,
                },
            )
            .map_err(|_| Error::AuthenticationFailed)
    }
}

/// AES-GCM (128- or 256-bit key) with a 12-byte nonce and a 16-byte tag.
pub struct AesGcm {
    key: LessSafeKey,
}

impl AesGcm {
    /// A cipher under a 16- or 32-byte key.
    pub fn new(key: &[u8]) -> Result<Self> {
        let alg = match key.len() {
            16 => &AES_128_GCM,
            32 => &AES_256_GCM,
            got => {
                return Err(Error::InvalidLength {
                    what: "AES-GCM key",
                    expected: "16 or 32",
                    got,
                })
            }
        };
        let key = UnboundKey::new(alg, key).map_err(|_| Error::Library("AES-GCM key"))?;
        Ok(AesGcm {
            key: LessSafeKey::new(key),
        })
    }

    /// Encrypts `plaintext`; returns ciphertext ‖ tag. Never reuse a nonce under one key.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        let nonce = Nonce::assume_unique_for_key(check_nonce(nonce)?);
        let mut in_out = plaintext.to_vec();
        self.key
            .seal_in_place_append_tag(nonce, Aad::from(aad), &mut in_out)
            .map_err(|_| Error::Library("AES-GCM seal"))?;
        Ok(in_out)
    }

    /// Decrypts ciphertext ‖ tag; fails without output if anything was altered.
    pub fn open(&self, nonce: &[u8], aad: &[u8], ciphertext_and_tag: &[u8]) -> Result<Vec<u8>> {
        let nonce = Nonce::assume_unique_for_key(check_nonce(nonce)?);
        let mut in_out = ciphertext_and_tag.to_vec();
        let len = self
            .key
            .open_in_place(nonce, Aad::from(aad), &mut in_out)
            .map_err(|_| Error::AuthenticationFailed)?
            .len();
        in_out.truncate(len);
        Ok(in_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ccm_and_gcm_round_trip_and_detect_tampering() {
        let ccm = AesCcm::new(&[7u8; 16]).expect("ccm");
        let gcm = AesGcm::new(&[7u8; 32]).expect("gcm");
        let nonce = [1u8; 12];
        for (seal, open) in [
            (
                Box::new(|a: &[u8], p: &[u8]| ccm.seal(&nonce, a, p))
                    as Box<dyn Fn(&[u8], &[u8]) -> Result<Vec<u8>>>,
                Box::new(|a: &[u8], c: &[u8]| ccm.open(&nonce, a, c))
                    as Box<dyn Fn(&[u8], &[u8]) -> Result<Vec<u8>>>,
            ),
            (
                Box::new(|a: &[u8], p: &[u8]| gcm.seal(&nonce, a, p)),
                Box::new(|a: &[u8], c: &[u8]| gcm.open(&nonce, a, c)),
            ),
        ] {
            let sealed = seal(b"hdr", b"frame payload").expect("seal");
            assert_eq!(sealed.len(), 13 + TAG_LEN);
            assert_eq!(open(b"hdr", &sealed).expect("open"), b"frame payload");
            let mut tampered = sealed.clone();
            tampered[0] ^= 1;
            assert_eq!(open(b"hdr", &tampered), Err(Error::AuthenticationFailed));
            assert_eq!(open(b"hdR", &sealed), Err(Error::AuthenticationFailed));
            assert_eq!(
                open(b"hdr", &sealed[..10]),
                Err(Error::AuthenticationFailed)
            );
        }
    }

    #[test]
    fn wrong_key_and_nonce_lengths_are_refused() {
        assert!(AesCcm::new(&[0u8; 32]).is_err());
        assert!(AesGcm::new(&[0u8; 24]).is_err());
        let ccm = AesCcm::new(&[0u8; 16]).expect("ccm");
        assert!(matches!(
            ccm.seal(&[0u8; 13], b"", b"x"),
            Err(Error::InvalidLength { got: 13, .. })
        ));
    }
}

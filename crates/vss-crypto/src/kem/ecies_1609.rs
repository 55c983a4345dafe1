//! ECIES of IEEE 1609.2 (§5.3.5): a 16-byte AES-128 key encrypted to a recipient's key, and
//! the AES-128-CCM data encryption around it.
//!
//! Ephemeral V (sent compressed); Z = x(v × R); KDF2-SHA256(Z, P1) = k1 (16) ‖ k2 (32);
//! c = K ⊕ k1; t = HMAC-SHA256(k2, c) cut to 16 bytes. P1 is the hash of the recipient's
//! certificate (or of the empty string).

use zeroize::Zeroizing;

use super::KnownAnswerSeed;
use crate::{
    hmac_sha256_verify, kdf2, mac1, AesCcm, Curve, Error, HashAlg, PrivateKey, PublicKey, Result,
    NONCE_LEN,
};

/// Octets of the AES-128 key that ECIES carries.
pub const KEY_LEN: usize = 16;
/// Octets of the tag t.
pub const TAG_LEN: usize = 16;

/// An encrypted AES key: `EciesP256EncryptedKey` / `EciesBrainpoolP256r1EncryptedKey`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptedKey {
    /// The sender's ephemeral public key V.
    pub v: PublicKey,
    /// The masked key c.
    pub c: [u8; KEY_LEN],
    /// The tag t.
    pub t: [u8; TAG_LEN],
}

/// Refuses curves other than the two that IEEE 1609.2 encrypts with, p256 and bp256.
pub fn check_curve(curve: Curve) -> Result<()> {
    match curve {
        Curve::P256 | Curve::Bp256 => Ok(()),
        _ => Err(Error::InvalidParameters(
            "IEEE 1609.2 ECIES uses p256 or bp256",
        )),
    }
}

/// k1 ‖ k2 from the shared x coordinate and P1.
fn keys(z: &[u8], p1: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    kdf2(HashAlg::Sha256, z, p1, KEY_LEN + 32)
}

impl EncryptedKey {
    /// Encrypts `key` to `recipient` with a fresh ephemeral key.
    pub fn encrypt(recipient: &PublicKey, key: &[u8; KEY_LEN], p1: &[u8]) -> Result<Self> {
        let ephemeral = PrivateKey::generate(recipient.curve())?;
        Self::encrypt_with_ephemeral(recipient, key, p1, &ephemeral)
    }

    /// Encrypts with the ephemeral private key of a known-answer test ([`KnownAnswerSeed`]:
    /// **tests only**, a repeated or guessable key gives the AES key away).
    pub fn encrypt_known_answer(
        recipient: &PublicKey,
        key: &[u8; KEY_LEN],
        p1: &[u8],
        ephemeral: &KnownAnswerSeed,
    ) -> Result<Self> {
        let ephemeral = PrivateKey::from_scalar(recipient.curve(), ephemeral.bytes())?;
        Self::encrypt_with_ephemeral(recipient, key, p1, &ephemeral)
    }

    fn encrypt_with_ephemeral(
        recipient: &PublicKey,
        key: &[u8; KEY_LEN],
        p1: &[u8],
        ephemeral: &PrivateKey,
    ) -> Result<Self> {
        check_curve(recipient.curve())?;
        if ephemeral.curve() != recipient.curve() {
            return Err(Error::InvalidPrivateKey(
                "ephemeral key is on another curve",
            ));
        }
        let z = ephemeral.diffie_hellman(recipient)?;
        let k = keys(&z, p1)?;
        let mut c = [0u8; KEY_LEN];
        for (i, byte) in c.iter_mut().enumerate() {
            *byte = key[i] ^ k[i];
        }
        Ok(EncryptedKey {
            v: ephemeral.public_key().clone(),
            t: mac1(&k[KEY_LEN..], &c),
            c,
        })
    }

    /// Decrypts with the recipient's ECDH (the HSM's); the tag is checked, in constant time,
    /// before anything is unmasked.
    pub fn decrypt<E: From<Error>>(
        &self,
        p1: &[u8],
        ecdh: impl FnOnce(&PublicKey) -> std::result::Result<Zeroizing<Vec<u8>>, E>,
    ) -> std::result::Result<Zeroizing<[u8; KEY_LEN]>, E> {
        check_curve(self.v.curve())?;
        let z = ecdh(&self.v)?;
        let k = keys(&z, p1)?;
        if !hmac_sha256_verify(&k[KEY_LEN..], &self.c, &self.t) {
            return Err(Error::KemRejected("ECIES tag mismatch").into());
        }
        let mut key = Zeroizing::new([0u8; KEY_LEN]);
        for (i, byte) in key.iter_mut().enumerate() {
            *byte = self.c[i] ^ k[i];
        }
        Ok(key)
    }

    /// Wire form: V compressed ‖ c ‖ t.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.v.to_sec1_compressed().to_vec();
        out.extend_from_slice(&self.c);
        out.extend_from_slice(&self.t);
        out
    }

    /// Parses the wire form for a curve; V must be on the curve.
    pub fn from_bytes(curve: Curve, bytes: &[u8]) -> Result<Self> {
        check_curve(curve)?;
        let point_len = 1 + curve.scalar_len();
        if bytes.len() != point_len + KEY_LEN + TAG_LEN {
            return Err(Error::InvalidLength {
                what: "ECIES encrypted key",
                expected: "33 + 16 + 16",
                got: bytes.len(),
            });
        }
        let v = PublicKey::from_sec1(curve, &bytes[..point_len])
            .map_err(|_| Error::KemRejected("V is not a point of the curve"))?;
        let mut c = [0u8; KEY_LEN];
        let mut t = [0u8; TAG_LEN];
        c.copy_from_slice(&bytes[point_len..point_len + KEY_LEN]);
        t.copy_from_slice(&bytes[point_len + KEY_LEN..]);
        Ok(EncryptedKey { v, c, t })
    }
}

/// Data encrypted for one recipient: the encrypted AES key and the AES-128-CCM ciphertext.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptedData {
    /// The AES key, encrypted to the recipient.
    pub key: EncryptedKey,
    /// The CCM nonce.
    pub nonce: [u8; NONCE_LEN],
    /// CCM ciphertext ‖ tag.
    pub ciphertext: Vec<u8>,
}

impl EncryptedData {
    /// Encrypts `plaintext` under a fresh AES key and nonce, and the key to `recipient`.
    pub fn seal(recipient: &PublicKey, p1: &[u8], plaintext: &[u8]) -> Result<Self> {
        let mut key = Zeroizing::new([0u8; KEY_LEN]);
        let mut nonce = [0u8; NONCE_LEN];
        crate::random_bytes(key.as_mut())?;
        crate::random_bytes(&mut nonce)?;
        let ciphertext = AesCcm::new(key.as_ref())?.seal(&nonce, &[], plaintext)?;
        Ok(EncryptedData {
            key: EncryptedKey::encrypt(recipient, &key, p1)?,
            nonce,
            ciphertext,
        })
    }

    /// Recovers the AES key with the recipient's ECDH, then decrypts and authenticates.
    pub fn open<E: From<Error>>(
        &self,
        p1: &[u8],
        ecdh: impl FnOnce(&PublicKey) -> std::result::Result<Zeroizing<Vec<u8>>, E>,
    ) -> std::result::Result<Vec<u8>, E> {
        let key = self.key.decrypt(p1, ecdh)?;
        Ok(AesCcm::new(key.as_ref())?.open(&self.nonce, &[], &self.ciphertext)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_and_data_round_trip_and_tampering_is_rejected() {
        for curve in [Curve::P256, Curve::Bp256] {
            let recipient = PrivateKey::generate(curve).expect("key");
            let ecdh = |p: &PublicKey| recipient.diffie_hellman(p);
            let sealed =
                EncryptedData::seal(recipient.public_key(), b"P1", b"frame").expect("seal");
            assert_eq!(sealed.open(b"P1", ecdh).expect("open"), b"frame");
            assert!(sealed.open(b"P2", ecdh).is_err(), "wrong P1");
            let mut bytes = sealed.key.to_bytes();
            assert_eq!(bytes.len(), 33 + 32);
            assert_eq!(
                EncryptedKey::from_bytes(curve, &bytes).expect("parse"),
                sealed.key
            );
            bytes[40] ^= 1;
            let tampered = EncryptedKey::from_bytes(curve, &bytes).expect("parse");
            assert!(matches!(
                tampered.decrypt(b"P1", ecdh),
                Err(Error::KemRejected(_))
            ));
        }
        let other = PrivateKey::generate(Curve::P384).expect("p384");
        assert!(EncryptedKey::encrypt(other.public_key(), &[0; 16], b"").is_err());
    }
}

//! PSEC-KEM of ISO/IEC 18033-2 (§10.3): KDF2 over SHA-256, SeedLen 32, EG compressed.

use openssl::ec::PointConversionForm;
use zeroize::Zeroizing;

use super::{
    encode, multiply, reduce_mod_order, x_coordinate, xor, Encapsulation, KnownAnswerSeed,
};
use crate::{constant_time_eq, kdf2, Curve, Error, HashAlg, PrivateKey, PublicKey, Result};

/// Octets of the seed r.
pub const SEED_LEN: usize = 32;
/// The default length of the encapsulated key, in octets.
pub const DEFAULT_KEY_LEN: usize = 32;
/// The largest key length accepted.
pub const MAX_KEY_LEN: usize = 1024;

/// PSEC-KEM on one curve with one key length.
#[derive(Debug, Clone, Copy)]
pub struct PsecKem {
    curve: Curve,
    key_len: usize,
}

/// ISO/IEC 18033-2's KDF: KDF2 over SHA-256 (`Hash(x ‖ I2OSP(counter, 4))`, counter from 1).
fn kdf(input: &[u8], len: usize) -> Result<Zeroizing<Vec<u8>>> {
    kdf2(HashAlg::Sha256, input, &[], len)
}

impl PsecKem {
    /// PSEC-KEM on `curve` producing `key_len`-octet keys (1 to [`MAX_KEY_LEN`]).
    pub fn new(curve: Curve, key_len: usize) -> Result<Self> {
        if !(1..=MAX_KEY_LEN).contains(&key_len) {
            return Err(Error::InvalidLength {
                what: "PSEC-KEM key",
                expected: "1 to 1024",
                got: key_len,
            });
        }
        Ok(PsecKem { curve, key_len })
    }

    /// The curve.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// Octets of a ciphertext: compressed EG, then v.
    pub fn ciphertext_len(&self) -> usize {
        1 + self.curve.scalar_len() + SEED_LEN
    }

    /// t = KDF(I2OSP(0, 4) ‖ r, L(μ) + 16 + KeyLen), split into u′ and K; u = OS2IP(u′) mod μ.
    fn derive(&self, seed: &[u8]) -> Result<(openssl::bn::BigNum, Zeroizing<Vec<u8>>)> {
        let mut input = Zeroizing::new(vec![0u8; 4]);
        input.extend_from_slice(seed);
        let u_len = self.curve.scalar_len() + 16;
        let t = kdf(&input, u_len + self.key_len)?;
        let u = reduce_mod_order(self.curve, &t[..u_len])?;
        Ok((u, Zeroizing::new(t[u_len..].to_vec())))
    }

    /// KDF(I2OSP(1, 4) ‖ EG ‖ PEH, SeedLen), the mask of r.
    fn mask(eg: &[u8], peh: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let mut input = Zeroizing::new(vec![0, 0, 0, 1]);
        input.extend_from_slice(eg);
        input.extend_from_slice(peh);
        kdf(&input, SEED_LEN)
    }

    /// Encapsulates a fresh key to `recipient` with a random seed.
    pub fn encapsulate(&self, recipient: &PublicKey) -> Result<Encapsulation> {
        let mut seed = Zeroizing::new([0u8; SEED_LEN]);
        crate::random_bytes(seed.as_mut())?;
        self.encapsulate_seeded(recipient, seed.as_ref())
    }

    /// Encapsulates with the seed r of a known-answer test ([`KnownAnswerSeed`]: **tests
    /// only**, a repeated or guessable seed gives the key away).
    pub fn encapsulate_known_answer(
        &self,
        recipient: &PublicKey,
        seed: &KnownAnswerSeed,
    ) -> Result<Encapsulation> {
        self.encapsulate_seeded(recipient, seed.bytes())
    }

    fn encapsulate_seeded(&self, recipient: &PublicKey, seed: &[u8]) -> Result<Encapsulation> {
        if recipient.curve() != self.curve {
            return Err(Error::InvalidPublicKey("recipient key is on another curve"));
        }
        if seed.len() != SEED_LEN {
            return Err(Error::InvalidLength {
                what: "PSEC-KEM seed",
                expected: "32",
                got: seed.len(),
            });
        }
        let (u, key) = self.derive(seed)?;
        let recipient_point = recipient.to_point()?;
        let h_tilde = multiply(self.curve, Some(&recipient_point), &u)?;
        let g_tilde = multiply(self.curve, None, &u)?;
        let eg = encode(self.curve, &g_tilde, PointConversionForm::COMPRESSED)?;
        let peh = x_coordinate(self.curve, &h_tilde)?;
        let v = xor(seed, &Self::mask(&eg, &peh)?);
        let mut ciphertext = eg;
        ciphertext.extend_from_slice(&v);
        Ok(Encapsulation { ciphertext, key })
    }

    /// Decapsulates `ciphertext`; `ecdh` returns the x coordinate of `x × point` for the
    /// recipient's private key x (the HSM's ECDH). Any tampering is rejected.
    pub fn decapsulate<E: From<Error>>(
        &self,
        ciphertext: &[u8],
        ecdh: impl FnOnce(&PublicKey) -> std::result::Result<Zeroizing<Vec<u8>>, E>,
    ) -> std::result::Result<Zeroizing<Vec<u8>>, E> {
        if ciphertext.len() != self.ciphertext_len() {
            return Err(Error::InvalidLength {
                what: "PSEC-KEM ciphertext",
                expected: "1 + field length + 32",
                got: ciphertext.len(),
            }
            .into());
        }
        let (eg, v) = ciphertext.split_at(1 + self.curve.scalar_len());
        let g_tilde = PublicKey::from_sec1(self.curve, eg)
            .map_err(|_| Error::KemRejected("EG is not a point of the curve"))?;
        let peh = ecdh(&g_tilde)?;
        let seed = Zeroizing::new(xor(v, &Self::mask(eg, &peh)?));
        let (u, key) = self.derive(&seed)?;
        let expected = multiply(self.curve, None, &u)?;
        let expected = encode(self.curve, &expected, PointConversionForm::COMPRESSED)?;
        if !constant_time_eq(&expected, eg) {
            return Err(Error::KemRejected("u × G differs from EG").into());
        }
        Ok(key)
    }

    /// Decapsulates with a private key held in memory.
    pub fn decapsulate_with_key(
        &self,
        ciphertext: &[u8],
        key: &PrivateKey,
    ) -> Result<Zeroizing<Vec<u8>>> {
        self.decapsulate(ciphertext, |point| key.diffie_hellman(point))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejection_on_every_curve() {
        for curve in Curve::ALL {
            let kem = PsecKem::new(curve, DEFAULT_KEY_LEN).expect("kem");
            let recipient = PrivateKey::generate(curve).expect("key");
            let sent = kem.encapsulate(recipient.public_key()).expect("encap");
            assert_eq!(sent.ciphertext.len(), kem.ciphertext_len());
            let got = kem
                .decapsulate_with_key(&sent.ciphertext, &recipient)
                .expect("decap");
            assert_eq!(got, sent.key, "{curve}");
            let mut tampered = sent.ciphertext.clone();
            *tampered.last_mut().expect("byte") ^= 1;
            assert!(matches!(
                kem.decapsulate_with_key(&tampered, &recipient),
                Err(Error::KemRejected(_))
            ));
            assert!(matches!(
                kem.decapsulate_with_key(&sent.ciphertext[1..], &recipient),
                Err(Error::InvalidLength { .. })
            ));
        }
    }

    #[test]
    fn fixed_seed_is_deterministic_and_key_len_is_honoured() {
        let recipient = PrivateKey::generate(Curve::K283).expect("key");
        let kem = PsecKem::new(Curve::K283, 48).expect("kem");
        let seed = KnownAnswerSeed::known_answer_test_only(&[7u8; 32]);
        let a = kem
            .encapsulate_known_answer(recipient.public_key(), &seed)
            .expect("a");
        let b = kem
            .encapsulate_known_answer(recipient.public_key(), &seed)
            .expect("b");
        assert_eq!(a.ciphertext, b.ciphertext);
        assert_eq!(a.key.len(), 48);
        assert!(PsecKem::new(Curve::K283, 0).is_err());
        let short = KnownAnswerSeed::known_answer_test_only(&[7u8; 31]);
        assert!(kem
            .encapsulate_known_answer(recipient.public_key(), &short)
            .is_err());
    }
}

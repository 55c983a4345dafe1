//! One key-encapsulation scheme chosen by name ([`Scheme`]) with its parameters
//! ([`KemParams`]): what the CLI's `vss kem` and the daemon's Encap/Decap dispatch on.
//! Encapsulation runs in software; decapsulation asks the caller's ECDH (the HSM's).

use zeroize::Zeroizing;

use super::ecies_1609::{self, EncryptedKey};
use super::ecies_kem::{EciesKem, EciesKemParams, Kdf, KdfHash, PointFormat};
use super::psec_kem::{self, PsecKem};
use super::{named, Encapsulation, KnownAnswerSeed};
use crate::{Curve, Error, HashAlg, PublicKey, Result};

/// A key-encapsulation scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// PSEC-KEM of ISO/IEC 18033-2 (KDF2-SHA256, SeedLen 32, EG compressed).
    PsecKem,
    /// ECIES-KEM of ISO/IEC 18033-2 (parameters from [`KemParams`]).
    EciesKem,
    /// ECIES of IEEE 1609.2: a 16-octet AES key encrypted with P1 (p256 and bp256).
    Ecies1609,
}

impl Scheme {
    /// The three schemes, in a stable order.
    pub const ALL: [Scheme; 3] = [Scheme::PsecKem, Scheme::EciesKem, Scheme::Ecies1609];

    /// The name on the command line: `psec-kem`, `ecies-kem`, `ecies-1609`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::PsecKem => "psec-kem",
            Scheme::EciesKem => "ecies-kem",
            Scheme::Ecies1609 => "ecies-1609",
        }
    }
}

named!(Scheme, "KEM scheme");

/// The parameters of a scheme; `None` and `false` take the scheme's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KemParams {
    /// Octets of the encapsulated key, 1-1024 (psec-kem, ecies-kem; default 32).
    pub key_len: Option<usize>,
    /// ecies-kem: key-derivation function (default KDF2).
    pub kdf: Option<Kdf>,
    /// ecies-kem: hash of the KDF (default SHA-256).
    pub hash: Option<KdfHash>,
    /// ecies-kem: encoding of EG (default compressed).
    pub point_format: Option<PointFormat>,
    /// ecies-kem: CofactorMode.
    pub cofactor_mode: bool,
    /// ecies-kem: OldCofactorMode.
    pub old_cofactor_mode: bool,
    /// ecies-kem: CheckMode.
    pub check_mode: bool,
    /// ecies-kem: SingleHashMode.
    pub single_hash_mode: bool,
    /// ecies-1609: P1, the hash of the recipient's certificate (default SHA-256 of the empty
    /// string, as for a key not identified by a certificate).
    pub p1: Option<Vec<u8>>,
}

impl KemParams {
    fn ecies_kem_options(&self) -> bool {
        self.kdf.is_some()
            || self.hash.is_some()
            || self.point_format.is_some()
            || self.cofactor_mode
            || self.old_cofactor_mode
            || self.check_mode
            || self.single_hash_mode
    }

    fn ecies_kem(&self) -> EciesKemParams {
        let default = EciesKemParams::default();
        EciesKemParams {
            kdf: self.kdf.unwrap_or(default.kdf),
            hash: self.hash.unwrap_or(default.hash),
            format: self.point_format.unwrap_or(default.format),
            cofactor_mode: self.cofactor_mode,
            old_cofactor_mode: self.old_cofactor_mode,
            check_mode: self.check_mode,
            single_hash_mode: self.single_hash_mode,
            key_len: self.key_len.unwrap_or(default.key_len),
        }
    }
}

/// One scheme on one curve with its parameters.
pub enum Kem {
    /// PSEC-KEM.
    Psec(PsecKem),
    /// ECIES-KEM.
    Ecies(EciesKem),
    /// IEEE 1609.2 ECIES with its P1.
    Ieee1609 {
        /// p256 or bp256.
        curve: Curve,
        /// The recipient-certificate hash.
        p1: Vec<u8>,
    },
}

impl Kem {
    /// `scheme` on `curve`; refuses parameters that belong to another scheme
    /// (`Error::InvalidParameters`).
    pub fn new(scheme: Scheme, curve: Curve, params: &KemParams) -> Result<Kem> {
        if scheme != Scheme::EciesKem && params.ecies_kem_options() {
            return Err(Error::InvalidParameters(
                "the KDF, its hash, the point format and the modes apply to ecies-kem only",
            ));
        }
        if scheme != Scheme::Ecies1609 && params.p1.is_some() {
            return Err(Error::InvalidParameters("P1 applies to ecies-1609 only"));
        }
        Ok(match scheme {
            Scheme::PsecKem => Kem::Psec(PsecKem::new(
                curve,
                params.key_len.unwrap_or(psec_kem::DEFAULT_KEY_LEN),
            )?),
            Scheme::EciesKem => Kem::Ecies(EciesKem::new(curve, params.ecies_kem())?),
            Scheme::Ecies1609 => {
                ecies_1609::check_curve(curve)?;
                if params.key_len.is_some_and(|n| n != ecies_1609::KEY_LEN) {
                    return Err(Error::InvalidParameters(
                        "ecies-1609 always carries a 16-octet AES-128 key: no key length",
                    ));
                }
                let p1 = match &params.p1 {
                    Some(p1) => p1.clone(),
                    None => HashAlg::Sha256.digest(b"").to_vec(),
                };
                Kem::Ieee1609 { curve, p1 }
            }
        })
    }

    /// Encapsulates a fresh key to `recipient` with fresh randomness; `aes_key` is the
    /// 16-octet key that ecies-1609 encrypts (default random).
    pub fn encapsulate(
        &self,
        recipient: &PublicKey,
        aes_key: Option<&[u8]>,
    ) -> Result<Encapsulation> {
        self.encapsulate_with(recipient, None, aes_key)
    }

    /// Encapsulates as [`Kem::encapsulate`] does, but with the fixed randomness of a
    /// known-answer test ([`KnownAnswerSeed`]: **tests only**, never in production): r for
    /// psec-kem, the scalar r for ecies-kem, the ephemeral private key for ecies-1609.
    pub fn encapsulate_known_answer(
        &self,
        recipient: &PublicKey,
        seed: &KnownAnswerSeed,
        aes_key: Option<&[u8]>,
    ) -> Result<Encapsulation> {
        self.encapsulate_with(recipient, Some(seed), aes_key)
    }

    fn encapsulate_with(
        &self,
        recipient: &PublicKey,
        seed: Option<&KnownAnswerSeed>,
        aes_key: Option<&[u8]>,
    ) -> Result<Encapsulation> {
        if aes_key.is_some() && !matches!(self, Kem::Ieee1609 { .. }) {
            return Err(Error::InvalidParameters(
                "an AES key applies to ecies-1609 only",
            ));
        }
        Ok(match (self, seed) {
            (Kem::Psec(kem), None) => kem.encapsulate(recipient)?,
            (Kem::Psec(kem), Some(seed)) => kem.encapsulate_known_answer(recipient, seed)?,
            (Kem::Ecies(kem), None) => kem.encapsulate(recipient)?,
            (Kem::Ecies(kem), Some(r)) => kem.encapsulate_known_answer(recipient, r)?,
            (Kem::Ieee1609 { p1, .. }, seed) => {
                let mut key = Zeroizing::new([0u8; ecies_1609::KEY_LEN]);
                match aes_key {
                    Some(given) => {
                        if given.len() != ecies_1609::KEY_LEN {
                            return Err(Error::InvalidLength {
                                what: "AES key",
                                expected: "16",
                                got: given.len(),
                            });
                        }
                        key.copy_from_slice(given);
                    }
                    None => crate::random_bytes(key.as_mut())?,
                }
                let encrypted = match seed {
                    None => EncryptedKey::encrypt(recipient, &key, p1)?,
                    Some(ephemeral) => {
                        EncryptedKey::encrypt_known_answer(recipient, &key, p1, ephemeral)?
                    }
                };
                Encapsulation {
                    ciphertext: encrypted.to_bytes(),
                    key: Zeroizing::new(key.to_vec()),
                }
            }
        })
    }

    /// Decapsulates `ciphertext`; `ecdh` returns the x coordinate of `x × point` for the
    /// recipient's private key x (the HSM's ECDH).
    pub fn decapsulate<E: From<Error>>(
        &self,
        ciphertext: &[u8],
        ecdh: impl FnOnce(&PublicKey) -> std::result::Result<Zeroizing<Vec<u8>>, E>,
    ) -> std::result::Result<Zeroizing<Vec<u8>>, E> {
        Ok(match self {
            Kem::Psec(kem) => kem.decapsulate(ciphertext, ecdh)?,
            Kem::Ecies(kem) => kem.decapsulate(ciphertext, ecdh)?,
            Kem::Ieee1609 { curve, p1 } => {
                let encrypted = EncryptedKey::from_bytes(*curve, ciphertext)?;
                Zeroizing::new(encrypted.decrypt(p1, ecdh)?.to_vec())
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PrivateKey;

    #[test]
    fn every_scheme_round_trips_through_its_ecdh() {
        for scheme in Scheme::ALL {
            let recipient = PrivateKey::generate(Curve::P256).expect("key");
            let kem = Kem::new(scheme, Curve::P256, &KemParams::default()).expect("kem");
            let sent = kem
                .encapsulate(recipient.public_key(), None)
                .expect("encap");
            let key = kem
                .decapsulate::<Error>(&sent.ciphertext, |p| recipient.diffie_hellman(p))
                .expect("decap");
            assert_eq!(*key, *sent.key, "{scheme}");
            assert_eq!(scheme.name().parse::<Scheme>(), Ok(scheme));
        }
    }

    #[test]
    fn parameters_of_another_scheme_are_refused() {
        let ecies_only = KemParams {
            check_mode: true,
            ..KemParams::default()
        };
        let p1 = KemParams {
            p1: Some(vec![1; 32]),
            ..KemParams::default()
        };
        let long_1609 = KemParams {
            key_len: Some(32),
            ..KemParams::default()
        };
        for (scheme, params) in [
            (Scheme::PsecKem, &ecies_only),
            (Scheme::EciesKem, &p1),
            (Scheme::Ecies1609, &long_1609),
        ] {
            assert!(matches!(
                Kem::new(scheme, Curve::P256, params),
                Err(Error::InvalidParameters(_))
            ));
        }
        assert!("rsa-kem".parse::<Scheme>().is_err());
    }
}

//! The mechanism table: what `C_GetMechanismList` lists, `C_GetMechanismInfo` tells, and
//! the key-generation, sign, verify, decrypt and derive functions accept; and the reading of
//! each mechanism's parameter.

use cryptoki_sys::*;
use vss_crypto::{Curve, HashAlg, RsaBits, RsaEncryptionPadding, RsaSignatureScheme};

use crate::error::{Error, Result};

/// A mechanism this module implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mechanism {
    /// `CKM_EC_KEY_PAIR_GEN`: an EC key pair made in the store.
    EcKeyPairGen,
    /// `CKM_RSA_PKCS_KEY_PAIR_GEN`: an RSA key pair made in the store.
    RsaKeyPairGen,
    /// `CKM_ECDSA`: ECDSA of a digest the application computed; `r || s` out.
    Ecdsa,
    /// `CKM_ECDSA_SHA*`: ECDSA of data hashed by the module.
    EcdsaHash(HashAlg),
    /// `CKM_RSA_PKCS`: PKCS #1 v1.5 of data the application encoded (a DigestInfo);
    /// decryption.
    RsaPkcs,
    /// `CKM_SHA*_RSA_PKCS`: PKCS #1 v1.5 of data hashed by the module.
    RsaPkcsHash(HashAlg),
    /// `CKM_RSA_PKCS_PSS`: PSS of a digest the application computed.
    RsaPss,
    /// `CKM_SHA*_RSA_PKCS_PSS`: PSS of data hashed by the module.
    RsaPssHash(HashAlg),
    /// `CKM_RSA_PKCS_OAEP`: OAEP decryption.
    RsaOaep,
    /// `CKM_ECDH1_DERIVE`: ECDH with a private key, the shared x coordinate as a secret.
    Ecdh1Derive,
}

/// Every mechanism, in the order `C_GetMechanismList` lists them.
pub(crate) const ALL: [Mechanism; 17] = [
    Mechanism::EcKeyPairGen,
    Mechanism::RsaKeyPairGen,
    Mechanism::Ecdsa,
    Mechanism::EcdsaHash(HashAlg::Sha224),
    Mechanism::EcdsaHash(HashAlg::Sha256),
    Mechanism::EcdsaHash(HashAlg::Sha384),
    Mechanism::EcdsaHash(HashAlg::Sha512),
    Mechanism::RsaPkcs,
    Mechanism::RsaPkcsHash(HashAlg::Sha256),
    Mechanism::RsaPkcsHash(HashAlg::Sha384),
    Mechanism::RsaPkcsHash(HashAlg::Sha512),
    Mechanism::RsaPss,
    Mechanism::RsaPssHash(HashAlg::Sha256),
    Mechanism::RsaPssHash(HashAlg::Sha384),
    Mechanism::RsaPssHash(HashAlg::Sha512),
    Mechanism::RsaOaep,
    Mechanism::Ecdh1Derive,
];

/// The longest input the raw mechanisms (`CKM_ECDSA`, `CKM_RSA_PKCS`, `CKM_RSA_PKCS_PSS`)
/// take: a digest or a DigestInfo, with room for any hash.
pub(crate) const MAX_RAW_INPUT: usize = 1024;

/// What a mechanism is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Function {
    /// `C_GenerateKeyPair`.
    GenerateKeyPair,
    /// `C_Sign*` and `C_Verify*`.
    SignVerify,
    /// `C_Decrypt*`.
    Decrypt,
    /// `C_DeriveKey`.
    Derive,
}

/// A mechanism's parameter, as [`crate::ffi`] read it from the application's structure.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Param {
    /// No parameter.
    #[default]
    None,
    /// `CK_RSA_PKCS_PSS_PARAMS`.
    Pss {
        /// `hashAlg` (`CKM_SHA256`…).
        hash: CK_MECHANISM_TYPE,
        /// `mgf` (`CKG_MGF1_SHA256`…).
        mgf: CK_RSA_PKCS_MGF_TYPE,
        /// `sLen`.
        salt_len: CK_ULONG,
    },
    /// `CK_RSA_PKCS_OAEP_PARAMS`.
    Oaep {
        /// `hashAlg`.
        hash: CK_MECHANISM_TYPE,
        /// `mgf`.
        mgf: CK_RSA_PKCS_MGF_TYPE,
        /// `pSourceData` (the label); must be empty.
        label: Vec<u8>,
    },
    /// `CK_ECDH1_DERIVE_PARAMS`.
    Ecdh1 {
        /// `kdf`: only `CKD_NULL`.
        kdf: CK_EC_KDF_TYPE,
        /// `pSharedData`: must be empty with `CKD_NULL`.
        shared_data: Vec<u8>,
        /// `pPublicData`: the peer's point, raw or as a DER OCTET STRING.
        public_data: Vec<u8>,
    },
    /// A parameter of some other shape or length.
    Other,
}

/// The hash of a `CKM_SHA*` type and its `CKG_MGF1_SHA*` mask generation function.
fn hash_of(ckm: CK_MECHANISM_TYPE, mgf: CK_RSA_PKCS_MGF_TYPE) -> Option<HashAlg> {
    let hash = match ckm {
        CKM_SHA224 => HashAlg::Sha224,
        CKM_SHA256 => HashAlg::Sha256,
        CKM_SHA384 => HashAlg::Sha384,
        CKM_SHA512 => HashAlg::Sha512,
        _ => return None,
    };
    let want = match hash {
        HashAlg::Sha224 => CKG_MGF1_SHA224,
        HashAlg::Sha256 => CKG_MGF1_SHA256,
        HashAlg::Sha384 => CKG_MGF1_SHA384,
        HashAlg::Sha512 => CKG_MGF1_SHA512,
    };
    (mgf == want).then_some(hash)
}

/// What an operation does, with its parameter checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// Generate a key pair.
    GenerateKeyPair,
    /// ECDSA; `None`: of a digest given, `Some`: of data hashed here.
    Ecdsa(Option<HashAlg>),
    /// PKCS #1 v1.5 of data given as is (`CKM_RSA_PKCS`: a DigestInfo the caller encoded).
    RsaRaw,
    /// An RSA scheme; `hashed`: over data hashed here, else over a digest given.
    Rsa {
        /// The scheme and its hash.
        scheme: RsaSignatureScheme,
        /// Whether the module hashes the data.
        hashed: bool,
    },
    /// RSA decryption with this padding.
    Decrypt(RsaEncryptionPadding),
    /// ECDH with the peer point given.
    Ecdh {
        /// The peer's point (SEC1, or a DER OCTET STRING holding it).
        public_data: Vec<u8>,
    },
}

impl Mechanism {
    /// The mechanism with this `CKM_*` type, if the module has it.
    pub(crate) fn from_ckm(ckm: CK_MECHANISM_TYPE) -> Option<Self> {
        ALL.into_iter().find(|m| m.ckm() == ckm)
    }

    /// The mechanism `ckm` with parameter `param`, for `function`, resolved: a mechanism this
    /// module lacks for the function is `CKR_MECHANISM_INVALID`, a parameter it does not take
    /// `CKR_MECHANISM_PARAM_INVALID`.
    pub(crate) fn resolve(
        ckm: CK_MECHANISM_TYPE,
        param: &Param,
        function: Function,
    ) -> Result<(Self, Resolved)> {
        let mechanism = Self::from_ckm(ckm)
            .filter(|m| m.functions().contains(&function))
            .ok_or(Error::MechanismInvalid)?;
        let bad = Err(Error::MechanismParamInvalid);
        let resolved = match (mechanism, function, param) {
            (Mechanism::EcKeyPairGen | Mechanism::RsaKeyPairGen, _, Param::None) => {
                Resolved::GenerateKeyPair
            }
            (Mechanism::Ecdsa, _, Param::None) => Resolved::Ecdsa(None),
            (Mechanism::EcdsaHash(hash), _, Param::None) => Resolved::Ecdsa(Some(hash)),
            (Mechanism::RsaPkcs, Function::Decrypt, Param::None) => {
                Resolved::Decrypt(RsaEncryptionPadding::Pkcs1)
            }
            (Mechanism::RsaPkcs, _, Param::None) => Resolved::RsaRaw,
            (Mechanism::RsaPkcsHash(hash), _, Param::None) => Resolved::Rsa {
                scheme: RsaSignatureScheme::Pkcs1(hash),
                hashed: true,
            },
            (
                Mechanism::RsaPss | Mechanism::RsaPssHash(_),
                _,
                &Param::Pss {
                    hash,
                    mgf,
                    salt_len,
                },
            ) => {
                let Some(hash) = hash_of(hash, mgf) else {
                    return bad;
                };
                let hashed = match mechanism {
                    Mechanism::RsaPssHash(own) if own != hash => return bad,
                    Mechanism::RsaPssHash(_) => true,
                    _ => false,
                };
                if salt_len as usize != hash.output_len() || hash == HashAlg::Sha224 {
                    return bad;
                }
                Resolved::Rsa {
                    scheme: RsaSignatureScheme::Pss(hash),
                    hashed,
                }
            }
            (Mechanism::RsaOaep, _, Param::Oaep { hash, mgf, label }) => {
                if !label.is_empty() {
                    return bad;
                }
                match (*hash, *mgf) {
                    (CKM_SHA_1, CKG_MGF1_SHA1) => Resolved::Decrypt(RsaEncryptionPadding::OaepSha1),
                    (CKM_SHA256, CKG_MGF1_SHA256) => {
                        Resolved::Decrypt(RsaEncryptionPadding::OaepSha256)
                    }
                    _ => return bad,
                }
            }
            (
                Mechanism::Ecdh1Derive,
                _,
                Param::Ecdh1 {
                    kdf,
                    shared_data,
                    public_data,
                },
            ) => {
                if *kdf != CKD_NULL || !shared_data.is_empty() || public_data.is_empty() {
                    return bad;
                }
                Resolved::Ecdh {
                    public_data: public_data.clone(),
                }
            }
            _ => return bad,
        };
        Ok((mechanism, resolved))
    }

    /// The `CKM_*` type.
    pub(crate) fn ckm(self) -> CK_MECHANISM_TYPE {
        match self {
            Mechanism::EcKeyPairGen => CKM_EC_KEY_PAIR_GEN,
            Mechanism::RsaKeyPairGen => CKM_RSA_PKCS_KEY_PAIR_GEN,
            Mechanism::Ecdsa => CKM_ECDSA,
            Mechanism::EcdsaHash(HashAlg::Sha224) => CKM_ECDSA_SHA224,
            Mechanism::EcdsaHash(HashAlg::Sha256) => CKM_ECDSA_SHA256,
            Mechanism::EcdsaHash(HashAlg::Sha384) => CKM_ECDSA_SHA384,
            Mechanism::EcdsaHash(HashAlg::Sha512) => CKM_ECDSA_SHA512,
            Mechanism::RsaPkcs => CKM_RSA_PKCS,
            Mechanism::RsaPkcsHash(HashAlg::Sha224) => CKM_SHA224_RSA_PKCS,
            Mechanism::RsaPkcsHash(HashAlg::Sha256) => CKM_SHA256_RSA_PKCS,
            Mechanism::RsaPkcsHash(HashAlg::Sha384) => CKM_SHA384_RSA_PKCS,
            Mechanism::RsaPkcsHash(HashAlg::Sha512) => CKM_SHA512_RSA_PKCS,
            Mechanism::RsaPss => CKM_RSA_PKCS_PSS,
            Mechanism::RsaPssHash(HashAlg::Sha224) => CKM_SHA224_RSA_PKCS_PSS,
            Mechanism::RsaPssHash(HashAlg::Sha256) => CKM_SHA256_RSA_PKCS_PSS,
            Mechanism::RsaPssHash(HashAlg::Sha384) => CKM_SHA384_RSA_PKCS_PSS,
            Mechanism::RsaPssHash(HashAlg::Sha512) => CKM_SHA512_RSA_PKCS_PSS,
            Mechanism::RsaOaep => CKM_RSA_PKCS_OAEP,
            Mechanism::Ecdh1Derive => CKM_ECDH1_DERIVE,
        }
    }

    /// The functions the mechanism serves.
    pub(crate) fn functions(self) -> &'static [Function] {
        match self {
            Mechanism::EcKeyPairGen | Mechanism::RsaKeyPairGen => &[Function::GenerateKeyPair],
            Mechanism::RsaPkcs => &[Function::SignVerify, Function::Decrypt],
            Mechanism::RsaOaep => &[Function::Decrypt],
            Mechanism::Ecdh1Derive => &[Function::Derive],
            Mechanism::Ecdsa
            | Mechanism::EcdsaHash(_)
            | Mechanism::RsaPkcsHash(_)
            | Mechanism::RsaPss
            | Mechanism::RsaPssHash(_) => &[Function::SignVerify],
        }
    }

    /// Whether the mechanism works with RSA keys (else EC keys).
    pub(crate) fn is_rsa(self) -> bool {
        matches!(
            self,
            Mechanism::RsaKeyPairGen
                | Mechanism::RsaPkcs
                | Mechanism::RsaPkcsHash(_)
                | Mechanism::RsaPss
                | Mechanism::RsaPssHash(_)
                | Mechanism::RsaOaep
        )
    }

    /// `CK_MECHANISM_INFO`'s flags.
    pub(crate) fn flags(self) -> CK_FLAGS {
        let curves = if self.is_rsa() {
            0
        } else {
            CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS
        };
        let functions = self.functions().iter().fold(0, |flags, f| {
            flags
                | match f {
                    Function::GenerateKeyPair => CKF_GENERATE_KEY_PAIR,
                    Function::SignVerify => CKF_SIGN | CKF_VERIFY,
                    Function::Decrypt => CKF_DECRYPT,
                    Function::Derive => CKF_DERIVE,
                }
        });
        functions | curves
    }

    /// The smallest and largest key, in bits (`ulMinKeySize`, `ulMaxKeySize`).
    pub(crate) fn key_sizes(self) -> (CK_ULONG, CK_ULONG) {
        let sizes: Vec<CK_ULONG> = if self.is_rsa() {
            RsaBits::ALL.iter().map(|b| b.bits() as CK_ULONG).collect()
        } else {
            Curve::ECDSA
                .iter()
                .map(|c| 8 * c.scalar_len() as CK_ULONG)
                .collect()
        };
        let min = sizes.iter().copied().min().unwrap_or(0);
        let max = sizes.iter().copied().max().unwrap_or(0);
        (min, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pss(hash: CK_MECHANISM_TYPE, mgf: CK_RSA_PKCS_MGF_TYPE, salt_len: CK_ULONG) -> Param {
        Param::Pss {
            hash,
            mgf,
            salt_len,
        }
    }

    #[test]
    fn every_mechanism_round_trips_and_refuses_other_functions() {
        for m in ALL {
            assert_eq!(Mechanism::from_ckm(m.ckm()), Some(m));
            for f in [
                Function::GenerateKeyPair,
                Function::SignVerify,
                Function::Decrypt,
                Function::Derive,
            ] {
                if !m.functions().contains(&f) {
                    assert!(matches!(
                        Mechanism::resolve(m.ckm(), &Param::None, f),
                        Err(Error::MechanismInvalid)
                    ));
                }
            }
        }
        assert!(matches!(
            Mechanism::resolve(CKM_RSA_X_509, &Param::None, Function::SignVerify),
            Err(Error::MechanismInvalid)
        ));
        assert!(matches!(
            Mechanism::resolve(CKM_ECDSA, &Param::Other, Function::SignVerify),
            Err(Error::MechanismParamInvalid)
        ));
    }

    #[test]
    fn rsa_pkcs_signs_raw_data_and_decrypts() {
        assert_eq!(
            Mechanism::resolve(CKM_RSA_PKCS, &Param::None, Function::SignVerify)
                .ok()
                .map(|r| r.1),
            Some(Resolved::RsaRaw)
        );
        assert_eq!(
            Mechanism::resolve(CKM_RSA_PKCS, &Param::None, Function::Decrypt)
                .ok()
                .map(|r| r.1),
            Some(Resolved::Decrypt(RsaEncryptionPadding::Pkcs1))
        );
    }

    #[test]
    fn pss_parameters_must_agree_with_the_mechanism_and_the_hash() {
        let sign =
            |ckm, param: &Param| Mechanism::resolve(ckm, param, Function::SignVerify).map(|r| r.1);
        assert_eq!(
            sign(
                CKM_SHA384_RSA_PKCS_PSS,
                &pss(CKM_SHA384, CKG_MGF1_SHA384, 48)
            )
            .ok(),
            Some(Resolved::Rsa {
                scheme: RsaSignatureScheme::Pss(HashAlg::Sha384),
                hashed: true
            })
        );
        assert_eq!(
            sign(CKM_RSA_PKCS_PSS, &pss(CKM_SHA256, CKG_MGF1_SHA256, 32)).ok(),
            Some(Resolved::Rsa {
                scheme: RsaSignatureScheme::Pss(HashAlg::Sha256),
                hashed: false
            })
        );
        for bad in [
            pss(CKM_SHA256, CKG_MGF1_SHA384, 32),
            pss(CKM_SHA256, CKG_MGF1_SHA256, 0),
            pss(CKM_SHA_1, CKG_MGF1_SHA1, 20),
        ] {
            assert!(matches!(
                sign(CKM_RSA_PKCS_PSS, &bad),
                Err(Error::MechanismParamInvalid)
            ));
        }
        assert!(matches!(
            sign(
                CKM_SHA256_RSA_PKCS_PSS,
                &pss(CKM_SHA384, CKG_MGF1_SHA384, 48)
            ),
            Err(Error::MechanismParamInvalid)
        ));
        assert!(matches!(
            sign(CKM_RSA_PKCS_PSS, &Param::None),
            Err(Error::MechanismParamInvalid)
        ));
    }

    #[test]
    fn oaep_takes_sha1_or_sha256_without_a_label() {
        let decrypt = |hash, mgf, label: &[u8]| {
            Mechanism::resolve(
                CKM_RSA_PKCS_OAEP,
                &Param::Oaep {
                    hash,
                    mgf,
                    label: label.to_vec(),
                },
                Function::Decrypt,
            )
            .map(|r| r.1)
        };
        assert_eq!(
            decrypt(CKM_SHA_1, CKG_MGF1_SHA1, b"").ok(),
            Some(Resolved::Decrypt(RsaEncryptionPadding::OaepSha1))
        );
        assert_eq!(
            decrypt(CKM_SHA256, CKG_MGF1_SHA256, b"").ok(),
            Some(Resolved::Decrypt(RsaEncryptionPadding::OaepSha256))
        );
        assert!(decrypt(CKM_SHA256, CKG_MGF1_SHA256, b"label").is_err());
        assert!(decrypt(CKM_SHA384, CKG_MGF1_SHA384, b"").is_err());
    }

    #[test]
    fn ecdh_takes_the_null_kdf_and_a_peer_point() {
        let derive = |kdf, shared: &[u8], public: &[u8]| {
            Mechanism::resolve(
                CKM_ECDH1_DERIVE,
                &Param::Ecdh1 {
                    kdf,
                    shared_data: shared.to_vec(),
                    public_data: public.to_vec(),
                },
                Function::Derive,
            )
        };
        assert!(derive(CKD_NULL, b"", &[4, 1, 2]).is_ok());
        assert!(derive(CKD_SHA256_KDF, b"", &[4, 1, 2]).is_err());
        assert!(derive(CKD_NULL, b"x", &[4, 1, 2]).is_err());
        assert!(derive(CKD_NULL, b"", b"").is_err());
    }

    #[test]
    fn key_sizes_follow_the_key_type() {
        assert_eq!(Mechanism::Ecdsa.key_sizes(), (224, 384));
        assert_eq!(Mechanism::RsaPkcs.key_sizes(), (2048, 4096));
    }
}

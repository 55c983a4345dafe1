//! The mechanism table: what `C_GetMechanismList` lists, `C_GetMechanismInfo` tells, and
//! the sign, verify and key-generation functions accept.

use cryptoki_sys::*;
use vss_crypto::{Curve, HashAlg};

use crate::error::{Error, Result};

/// A mechanism this module implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mechanism {
    /// `CKM_EC_KEY_PAIR_GEN`: a key pair made in the store.
    EcKeyPairGen,
    /// `CKM_ECDSA`: ECDSA of a digest the application computed; `r || s` out.
    Ecdsa,
    /// `CKM_ECDSA_SHA*`: ECDSA of data hashed by the module.
    EcdsaHash(HashAlg),
}

/// Every mechanism, in the order `C_GetMechanismList` lists them.
pub(crate) const ALL: [Mechanism; 6] = [
    Mechanism::EcKeyPairGen,
    Mechanism::Ecdsa,
    Mechanism::EcdsaHash(HashAlg::Sha224),
    Mechanism::EcdsaHash(HashAlg::Sha256),
    Mechanism::EcdsaHash(HashAlg::Sha384),
    Mechanism::EcdsaHash(HashAlg::Sha512),
];

/// The longest input `CKM_ECDSA` takes: a digest, with room for any hash.
pub(crate) const MAX_ECDSA_INPUT: usize = 1024;

/// What a mechanism is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Function {
    /// `C_GenerateKeyPair`.
    GenerateKeyPair,
    /// `C_Sign*` and `C_Verify*`.
    SignVerify,
}

impl Mechanism {
    /// The mechanism with this `CKM_*` type, if the module has it.
    pub(crate) fn from_ckm(ckm: CK_MECHANISM_TYPE) -> Option<Self> {
        ALL.into_iter().find(|m| m.ckm() == ckm)
    }

    /// The mechanism `ckm` with parameter `param`, for `function`: a mechanism this module
    /// lacks is `CKR_MECHANISM_INVALID`; these mechanisms take no parameter.
    pub(crate) fn for_function(
        ckm: CK_MECHANISM_TYPE,
        param: &[u8],
        function: Function,
    ) -> Result<Self> {
        let mechanism = Self::from_ckm(ckm)
            .filter(|m| m.function() == function)
            .ok_or(Error::MechanismInvalid)?;
        if !param.is_empty() {
            return Err(Error::MechanismParamInvalid);
        }
        Ok(mechanism)
    }

    /// The `CKM_*` type.
    pub(crate) fn ckm(self) -> CK_MECHANISM_TYPE {
        match self {
            Mechanism::EcKeyPairGen => CKM_EC_KEY_PAIR_GEN,
            Mechanism::Ecdsa => CKM_ECDSA,
            Mechanism::EcdsaHash(HashAlg::Sha224) => CKM_ECDSA_SHA224,
            Mechanism::EcdsaHash(HashAlg::Sha256) => CKM_ECDSA_SHA256,
            Mechanism::EcdsaHash(HashAlg::Sha384) => CKM_ECDSA_SHA384,
            Mechanism::EcdsaHash(HashAlg::Sha512) => CKM_ECDSA_SHA512,
        }
    }

    /// The function the mechanism serves.
    pub(crate) fn function(self) -> Function {
        match self {
            Mechanism::EcKeyPairGen => Function::GenerateKeyPair,
            Mechanism::Ecdsa | Mechanism::EcdsaHash(_) => Function::SignVerify,
        }
    }

    /// `CK_MECHANISM_INFO`'s flags.
    pub(crate) fn flags(self) -> CK_FLAGS {
        let curves = CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS;
        match self.function() {
            Function::GenerateKeyPair => CKF_GENERATE_KEY_PAIR | curves,
            Function::SignVerify => CKF_SIGN | CKF_VERIFY | curves,
        }
    }

    /// The smallest and largest key, in bits (`ulMinKeySize`, `ulMaxKeySize`).
    pub(crate) fn key_sizes(self) -> (CK_ULONG, CK_ULONG) {
        let bits = |c: Curve| 8 * c.scalar_len() as CK_ULONG;
        let sizes = Curve::ECDSA.map(bits);
        let min = sizes.iter().copied().min().unwrap_or(0);
        let max = sizes.iter().copied().max().unwrap_or(0);
        (min, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mechanism_round_trips_and_serves_one_function() {
        for m in ALL {
            assert_eq!(Mechanism::from_ckm(m.ckm()), Some(m));
            let other = match m.function() {
                Function::GenerateKeyPair => Function::SignVerify,
                Function::SignVerify => Function::GenerateKeyPair,
            };
            assert!(matches!(
                Mechanism::for_function(m.ckm(), &[], other),
                Err(Error::MechanismInvalid)
            ));
            assert_eq!(
                Mechanism::for_function(m.ckm(), &[], m.function()).ok(),
                Some(m)
            );
        }
        assert!(matches!(
            Mechanism::for_function(CKM_RSA_PKCS, &[], Function::SignVerify),
            Err(Error::MechanismInvalid)
        ));
        assert!(matches!(
            Mechanism::for_function(CKM_ECDSA, &[1], Function::SignVerify),
            Err(Error::MechanismParamInvalid)
        ));
    }

    #[test]
    fn key_sizes_span_p224_to_p384() {
        assert_eq!(Mechanism::Ecdsa.key_sizes(), (224, 384));
    }
}

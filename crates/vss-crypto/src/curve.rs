//! The named curves VSS supports.

use std::fmt;
use std::str::FromStr;

use openssl::nid::Nid;

use crate::{Error, HashAlg};

/// A named elliptic curve. The names are the same everywhere: CLI, configuration, JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Curve {
    /// NIST P-224 (secp224r1).
    P224,
    /// NIST P-256 (secp256r1, prime256v1), the curve of IEEE 1609.2.
    P256,
    /// NIST P-384 (secp384r1).
    P384,
    /// brainpoolP256r1 (RFC 5639).
    Bp256,
    /// brainpoolP384r1 (RFC 5639).
    Bp384,
}

impl Curve {
    /// Every supported curve, in a stable order.
    pub const ALL: [Curve; 5] = [
        Curve::P224,
        Curve::P256,
        Curve::P384,
        Curve::Bp256,
        Curve::Bp384,
    ];

    /// The VSS name: `p224 p256 p384 bp256 bp384`.
    pub fn name(self) -> &'static str {
        match self {
            Curve::P224 => "p224",
            Curve::P256 => "p256",
            Curve::P384 => "p384",
            Curve::Bp256 => "bp256",
            Curve::Bp384 => "bp384",
        }
    }

    /// Length in bytes of a field element, of a scalar and of one half of a P1363 signature.
    /// (For every supported curve the group order has as many bits as the field.)
    pub fn scalar_len(self) -> usize {
        match self {
            Curve::P224 => 28,
            Curve::P256 | Curve::Bp256 => 32,
            Curve::P384 | Curve::Bp384 => 48,
        }
    }

    /// The hash that IEEE 1609.2 and common practice pair with the curve.
    pub fn default_hash(self) -> HashAlg {
        match self {
            Curve::P224 => HashAlg::Sha224,
            Curve::P256 | Curve::Bp256 => HashAlg::Sha256,
            Curve::P384 | Curve::Bp384 => HashAlg::Sha384,
        }
    }

    /// The dotted object identifier of the curve's named domain parameters.
    pub fn oid(self) -> &'static str {
        match self {
            Curve::P224 => "1.3.132.0.33",
            Curve::P256 => "1.2.840.10045.3.1.7",
            Curve::P384 => "1.3.132.0.34",
            Curve::Bp256 => "1.3.36.3.3.2.8.1.1.7",
            Curve::Bp384 => "1.3.36.3.3.2.8.1.1.11",
        }
    }

    pub(crate) fn nid(self) -> Nid {
        match self {
            Curve::P224 => Nid::SECP224R1,
            Curve::P256 => Nid::X9_62_PRIME256V1,
            Curve::P384 => Nid::SECP384R1,
            Curve::Bp256 => Nid::BRAINPOOL_P256R1,
            Curve::Bp384 => Nid::BRAINPOOL_P384R1,
        }
    }

    pub(crate) fn group(self) -> crate::Result<openssl::ec::EcGroup> {
        openssl::ec::EcGroup::from_curve_name(self.nid()).map_err(|_| Error::Library("EcGroup"))
    }
}

impl fmt::Display for Curve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Curve {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Curve::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| Error::UnknownCurve(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for c in Curve::ALL {
            assert_eq!(c.name().parse::<Curve>(), Ok(c));
        }
        assert_eq!(
            "p521".parse::<Curve>(),
            Err(Error::UnknownCurve("p521".into()))
        );
    }

    #[test]
    fn scalar_len_matches_the_group_order() {
        for c in Curve::ALL {
            let group = c.group().expect("group");
            let mut ctx = openssl::bn::BigNumContext::new().expect("ctx");
            let mut order = openssl::bn::BigNum::new().expect("bn");
            group.order(&mut order, &mut ctx).expect("order");
            assert_eq!(order.num_bits() as usize, 8 * c.scalar_len(), "{c}");
        }
    }
}

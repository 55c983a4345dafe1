//! The named curves VSS supports.

use std::fmt;
use std::str::FromStr;

use std::sync::OnceLock;

use openssl::ec::EcGroup;
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
    /// NIST K-283 (sect283k1), a Koblitz curve over GF(2^283): key encapsulation only.
    K283,
    /// NIST B-283 (sect283r1), a random curve over GF(2^283): key encapsulation only.
    B283,
    /// NIST P-192 (prime192v1): key encapsulation only, for the ISO/IEC 18033-2 vectors.
    P192,
}

impl Curve {
    /// Every supported curve, in a stable order.
    pub const ALL: [Curve; 8] = [
        Curve::P224,
        Curve::P256,
        Curve::P384,
        Curve::Bp256,
        Curve::Bp384,
        Curve::K283,
        Curve::B283,
        Curve::P192,
    ];

    /// The curves VSS signs and verifies on (ECDSA).
    pub const ECDSA: [Curve; 5] = [
        Curve::P224,
        Curve::P256,
        Curve::P384,
        Curve::Bp256,
        Curve::Bp384,
    ];

    /// Whether VSS does ECDSA on this curve (the others are for key encapsulation only).
    pub fn supports_ecdsa(self) -> bool {
        Curve::ECDSA.contains(&self)
    }

    /// Whether the curve is over a binary field (k283, b283), where a compressed point's
    /// bit is not y's parity (SEC1 2.3.3).
    pub fn is_binary(self) -> bool {
        matches!(self, Curve::K283 | Curve::B283)
    }

    /// The VSS name: `p224 p256 p384 bp256 bp384 k283 b283 p192`.
    pub fn name(self) -> &'static str {
        match self {
            Curve::P224 => "p224",
            Curve::P256 => "p256",
            Curve::P384 => "p384",
            Curve::Bp256 => "bp256",
            Curve::Bp384 => "bp384",
            Curve::K283 => "k283",
            Curve::B283 => "b283",
            Curve::P192 => "p192",
        }
    }

    /// Length in octets of a field element, of a scalar (the group order's octet length
    /// L(μ)) and of one half of a P1363 signature: the three agree on every supported curve.
    pub fn scalar_len(self) -> usize {
        match self {
            Curve::P192 => 24,
            Curve::P224 => 28,
            Curve::P256 | Curve::Bp256 => 32,
            Curve::K283 | Curve::B283 => 36,
            Curve::P384 | Curve::Bp384 => 48,
        }
    }

    /// The hash that IEEE 1609.2 and common practice pair with the curve.
    pub fn default_hash(self) -> HashAlg {
        match self {
            Curve::P224 => HashAlg::Sha224,
            Curve::P256 | Curve::Bp256 | Curve::K283 | Curve::B283 | Curve::P192 => HashAlg::Sha256,
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
            Curve::K283 => "1.3.132.0.16",
            Curve::B283 => "1.3.132.0.17",
            Curve::P192 => "1.2.840.10045.3.1.1",
        }
    }

    pub(crate) fn nid(self) -> Nid {
        match self {
            Curve::P224 => Nid::SECP224R1,
            Curve::P256 => Nid::X9_62_PRIME256V1,
            Curve::P384 => Nid::SECP384R1,
            Curve::Bp256 => Nid::BRAINPOOL_P256R1,
            Curve::Bp384 => Nid::BRAINPOOL_P384R1,
            Curve::K283 => Nid::SECT283K1,
            Curve::B283 => Nid::SECT283R1,
            Curve::P192 => Nid::X9_62_PRIME192V1,
        }
    }

    /// OpenSSL's group for the curve, built once per process.
    pub(crate) fn group(self) -> crate::Result<&'static openssl::ec::EcGroupRef> {
        static GROUPS: OnceLock<Vec<Option<EcGroup>>> = OnceLock::new();
        let groups = GROUPS.get_or_init(|| {
            Curve::ALL
                .iter()
                .map(|c| EcGroup::from_curve_name(c.nid()).ok())
                .collect()
        });
        let index = Curve::ALL.iter().position(|&c| c == self);
        index
            .and_then(|i| groups[i].as_deref())
            .ok_or(Error::Library("EcGroup"))
    }

    /// The group order μ.
    pub(crate) fn order(self) -> crate::Result<openssl::bn::BigNum> {
        let mut ctx =
            openssl::bn::BigNumContext::new().map_err(|_| Error::Library("BigNumContext"))?;
        let mut order = openssl::bn::BigNum::new().map_err(|_| Error::Library("BigNum"))?;
        self.group()?
            .order(&mut order, &mut ctx)
            .map_err(|_| Error::Library("EcGroup::order"))?;
        Ok(order)
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
    fn scalar_len_matches_the_group_order_and_the_field() {
        for c in Curve::ALL {
            let order = c.order().expect("order");
            let bits = order.num_bits() as usize;
            assert_eq!(bits.div_ceil(8), c.scalar_len(), "{c} order");
            assert_eq!(
                (c.group().expect("group").degree() as usize).div_ceil(8),
                c.scalar_len(),
                "{c} field"
            );
            if c.supports_ecdsa() {
                // fit_digest relies on byte-aligned orders for the ECDSA curves.
                assert_eq!(bits, 8 * c.scalar_len(), "{c}");
            }
        }
    }
}

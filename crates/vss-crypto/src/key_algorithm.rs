//! What a key is: an elliptic-curve key on a named curve, or an RSA key of a size.

use std::fmt;
use std::str::FromStr;

use crate::{Curve, Error, RsaBits};

/// The algorithm and size of a key pair. Names: the curve's (`p256`) or `rsa2048`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyAlgorithm {
    /// An elliptic-curve key (ECDSA, ECDH).
    Ec(Curve),
    /// An RSA key (PKCS #1 signatures and decryption).
    Rsa(RsaBits),
}

impl KeyAlgorithm {
    /// The curve of an EC key; `None` for RSA.
    pub fn curve(self) -> Option<Curve> {
        match self {
            KeyAlgorithm::Ec(curve) => Some(curve),
            KeyAlgorithm::Rsa(_) => None,
        }
    }

    /// The VSS name: `p256`, `bp384`, `rsa2048`…
    pub fn name(self) -> &'static str {
        match self {
            KeyAlgorithm::Ec(curve) => curve.name(),
            KeyAlgorithm::Rsa(bits) => bits.name(),
        }
    }
}

impl From<Curve> for KeyAlgorithm {
    fn from(curve: Curve) -> Self {
        KeyAlgorithm::Ec(curve)
    }
}

impl From<RsaBits> for KeyAlgorithm {
    fn from(bits: RsaBits) -> Self {
        KeyAlgorithm::Rsa(bits)
    }
}

impl fmt::Display for KeyAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for KeyAlgorithm {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.starts_with("rsa") {
            return s.parse().map(KeyAlgorithm::Rsa);
        }
        s.parse()
            .map(KeyAlgorithm::Ec)
            .map_err(|_| Error::UnknownKeyAlgorithm(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_rsa_1024_says_why_it_is_refused() {
        for name in ["p256", "bp384", "k283", "rsa2048", "rsa4096"] {
            assert_eq!(name.parse::<KeyAlgorithm>().expect("ok").name(), name);
        }
        let err = "rsa1024".parse::<KeyAlgorithm>().expect_err("refused");
        assert_eq!(err, Error::UnsupportedRsaSize(1024));
        assert!(err.to_string().contains("no longer safe"));
        assert!(matches!(
            "ed25519".parse::<KeyAlgorithm>(),
            Err(Error::UnknownKeyAlgorithm(_))
        ));
    }
}

//! The hashing rules of IEEE 1609.2 (6.3.29, 6.4.3, 5.3.1): HashedId8 and HashedId3 of a
//! certificate, and the signing input `Hash(Hash(tbsData) ‖ Hash(signer))`.

use std::fmt;
use std::str::FromStr;

use rasn::types::FixedOctetString;
use vss_crypto::HashAlg;

use crate::asn::{self, HashAlgorithm};
use crate::{Error, Result};

/// The low-order eight bytes of a hash: how 1609.2 names a certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HashedId8(pub [u8; 8]);

/// The low-order three bytes of a hash: the short name used in peer-to-peer requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HashedId3(pub [u8; 3]);

impl HashedId8 {
    /// The last eight bytes of a digest.
    pub fn of_digest(digest: &[u8]) -> Self {
        let mut id = [0; 8];
        id.copy_from_slice(&digest[digest.len() - 8..]);
        HashedId8(id)
    }

    /// The HashedId3 of the same digest (its last three bytes).
    pub fn hashed_id3(&self) -> HashedId3 {
        HashedId3([self.0[5], self.0[6], self.0[7]])
    }

    /// As the ASN.1 type.
    pub fn to_asn(self) -> asn::HashedId8 {
        asn::HashedId8(FixedOctetString::new(self.0))
    }

    /// From the ASN.1 type.
    pub fn from_asn(id: &asn::HashedId8) -> Self {
        HashedId8(*id.0)
    }
}

impl HashedId3 {
    /// As the ASN.1 type.
    pub fn to_asn(self) -> asn::HashedId3 {
        asn::HashedId3(FixedOctetString::new(self.0))
    }

    /// From the ASN.1 type.
    pub fn from_asn(id: &asn::HashedId3) -> Self {
        HashedId3(*id.0)
    }
}

impl fmt::Display for HashedId8 {
    /// Upper-case hex, as the EU trust lists name certificates.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", hex::encode_upper(self.0))
    }
}

impl fmt::Display for HashedId3 {
    /// Upper-case hex.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", hex::encode_upper(self.0))
    }
}

impl FromStr for HashedId8 {
    type Err = Error;

    /// Sixteen hex digits, either case.
    fn from_str(s: &str) -> Result<Self> {
        let bytes = hex::decode(s)
            .ok()
            .and_then(|b| <[u8; 8]>::try_from(b).ok());
        bytes.map(HashedId8).ok_or_else(|| Error::Malformed {
            what: "HashedId8",
            detail: format!("'{s}' is not sixteen hex digits"),
        })
    }
}

/// The hash function of a 1609.2 `HashAlgorithm`.
pub fn hash_alg(alg: HashAlgorithm) -> Result<HashAlg> {
    match alg {
        HashAlgorithm::Sha256 => Ok(HashAlg::Sha256),
        HashAlgorithm::Sha384 => Ok(HashAlg::Sha384),
        _ => Err(Error::Unsupported(
            "a hash algorithm other than SHA-256 or SHA-384".into(),
        )),
    }
}

/// The 1609.2 `HashAlgorithm` of a hash function.
pub fn hash_algorithm(hash: HashAlg) -> Result<HashAlgorithm> {
    match hash {
        HashAlg::Sha256 => Ok(HashAlgorithm::Sha256),
        HashAlg::Sha384 => Ok(HashAlgorithm::Sha384),
        other => Err(Error::Unsupported(format!(
            "{} in 1609.2 (sha256 or sha384)",
            other.name()
        ))),
    }
}

/// The digest that is signed (5.3.1.2.2): `Hash(Hash(tbs) ‖ Hash(signer))`, where `signer` is
/// the canonical encoding of the signer's certificate, or `None` when self-signed (the
/// empty string is hashed).
pub fn signing_digest(hash: HashAlg, tbs: &[u8], signer: Option<&[u8]>) -> Vec<u8> {
    let mut input = hash.digest(tbs);
    input.extend_from_slice(&hash.digest(signer.unwrap_or_default()));
    hash.digest(&input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_ids_are_the_low_order_bytes() {
        let digest = HashAlg::Sha256.digest(b"");
        let id = HashedId8::of_digest(&digest);
        // SHA-256("") ends in ...a495991b7852b855.
        assert_eq!(id.to_string(), "A495991B7852B855");
        assert_eq!(id.hashed_id3(), HashedId3([0x52, 0xb8, 0x55]));
        assert_eq!(
            "a495991b7852b855".parse::<HashedId8>().expect("test setup"),
            id
        );
        assert!("a495991b".parse::<HashedId8>().is_err());
        assert_eq!(HashedId8::from_asn(&id.to_asn()), id);
    }

    #[test]
    fn self_signed_input_hashes_the_empty_string() {
        let h = HashAlg::Sha256;
        let expected = h.digest(&[h.digest(b"tbs"), h.digest(b"")].concat());
        assert_eq!(signing_digest(h, b"tbs", None), expected);
        let with_signer = h.digest(&[h.digest(b"tbs"), h.digest(b"cert")].concat());
        assert_eq!(signing_digest(h, b"tbs", Some(b"cert")), with_signer);
    }
}

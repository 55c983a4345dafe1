//! SHA-2 digests.

use std::fmt;
use std::str::FromStr;

use aws_lc_rs::digest;

use crate::Error;

/// A SHA-2 hash function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashAlg {
    /// SHA-224.
    Sha224,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

impl HashAlg {
    /// Every supported hash, in a stable order.
    pub const ALL: [HashAlg; 4] = [
        HashAlg::Sha224,
        HashAlg::Sha256,
        HashAlg::Sha384,
        HashAlg::Sha512,
    ];

    /// The lower-case name used in the CLI and JSON: `sha256`.
    pub fn name(self) -> &'static str {
        match self {
            HashAlg::Sha224 => "sha224",
            HashAlg::Sha256 => "sha256",
            HashAlg::Sha384 => "sha384",
            HashAlg::Sha512 => "sha512",
        }
    }

    /// Length of the digest in bytes.
    pub fn output_len(self) -> usize {
        self.algorithm().output_len()
    }

    /// The digest of `data`.
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        digest::digest(self.algorithm(), data).as_ref().to_vec()
    }

    /// An incremental hash: feed it with [`Hasher::update`], read it with
    /// [`Hasher::finish`].
    pub fn hasher(self) -> Hasher {
        Hasher(digest::Context::new(self.algorithm()))
    }

    pub(crate) fn algorithm(self) -> &'static digest::Algorithm {
        match self {
            HashAlg::Sha224 => &digest::SHA224,
            HashAlg::Sha256 => &digest::SHA256,
            HashAlg::Sha384 => &digest::SHA384,
            HashAlg::Sha512 => &digest::SHA512,
        }
    }
}

/// A hash computed over data given in parts (from [`HashAlg::hasher`]).
#[derive(Clone)]
pub struct Hasher(digest::Context);

impl Hasher {
    /// Adds the next part of the data.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest of every part given.
    pub fn finish(self) -> Vec<u8> {
        self.0.finish().as_ref().to_vec()
    }
}

impl fmt::Debug for Hasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Hasher").field(&self.0.algorithm()).finish()
    }
}

impl fmt::Display for HashAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HashAlg {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HashAlg::ALL
            .into_iter()
            .find(|h| h.name() == s)
            .ok_or_else(|| Error::UnknownHash(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_in_parts_equals_the_hash_in_one() {
        for alg in HashAlg::ALL {
            let mut hasher = alg.hasher();
            for part in [&b"a"[..], b"", b"bc"] {
                hasher.update(part);
            }
            assert_eq!(hasher.finish(), alg.digest(b"abc"), "{alg}");
        }
    }

    #[test]
    fn fips_180_abc_digests() {
        let cases = [
            (
                HashAlg::Sha224,
                "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
            ),
            (
                HashAlg::Sha256,
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
            (
                HashAlg::Sha384,
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            ),
        ];
        for (alg, want) in cases {
            let got: String = alg
                .digest(b"abc")
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(got, want, "{alg}");
            assert_eq!(alg.output_len() * 2, want.len());
        }
    }

    #[test]
    fn unknown_hash_is_refused() {
        assert!("md5".parse::<HashAlg>().is_err());
        assert_eq!("sha384".parse::<HashAlg>(), Ok(HashAlg::Sha384));
    }
}

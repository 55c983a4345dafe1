//! RSA (PKCS #1 v2.2, RFC 8017) on AWS-LC: key pairs of 2048, 3072 and 4096 bits, PKCS #1
//! v1.5 and PSS signatures of a digest, OAEP and PKCS #1 v1.5 decryption.
//!
//! RSA-1024 is refused: it no longer gives the security a key store promises.

use std::fmt;
use std::str::FromStr;

use aws_lc_rs::digest::Digest;
use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::{
    KeyPair, KeySize, OaepPrivateDecryptingKey, OaepPublicEncryptingKey, Pkcs1PrivateDecryptingKey,
    Pkcs1PublicEncryptingKey, PrivateDecryptingKey, PublicEncryptingKey, OAEP_SHA1_MGF1SHA1,
    OAEP_SHA256_MGF1SHA256,
};
use aws_lc_rs::signature::{self as sig, KeyPair as _, RsaPublicKeyComponents};
use zeroize::Zeroizing;

use crate::{Error, HashAlg, Result};

/// The public exponent of every key VSS generates (F4).
pub const RSA_PUBLIC_EXPONENT: u32 = 65_537;

/// An RSA modulus size VSS generates and accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RsaBits {
    /// 2048-bit modulus.
    B2048,
    /// 3072-bit modulus.
    B3072,
    /// 4096-bit modulus.
    B4096,
}

impl RsaBits {
    /// Every supported size, smallest first.
    pub const ALL: [RsaBits; 3] = [RsaBits::B2048, RsaBits::B3072, RsaBits::B4096];

    /// The modulus length in bits.
    pub fn bits(self) -> u32 {
        match self {
            RsaBits::B2048 => 2048,
            RsaBits::B3072 => 3072,
            RsaBits::B4096 => 4096,
        }
    }

    /// The size for a modulus length; anything else (1024 in particular) is refused.
    pub fn from_bits(bits: u64) -> Result<Self> {
        RsaBits::ALL
            .into_iter()
            .find(|b| u64::from(b.bits()) == bits)
            .ok_or(Error::UnsupportedRsaSize(bits))
    }

    /// The VSS name: `rsa2048 rsa3072 rsa4096`.
    pub fn name(self) -> &'static str {
        match self {
            RsaBits::B2048 => "rsa2048",
            RsaBits::B3072 => "rsa3072",
            RsaBits::B4096 => "rsa4096",
        }
    }

    fn key_size(self) -> KeySize {
        match self {
            RsaBits::B2048 => KeySize::Rsa2048,
            RsaBits::B3072 => KeySize::Rsa3072,
            RsaBits::B4096 => KeySize::Rsa4096,
        }
    }
}

impl fmt::Display for RsaBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RsaBits {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let bits = s
            .strip_prefix("rsa")
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| Error::UnknownKeyAlgorithm(s.to_owned()))?;
        RsaBits::from_bits(bits)
    }
}

/// How a digest becomes an RSA signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RsaSignatureScheme {
    /// RSASSA-PKCS1-v1_5 (the DigestInfo of the hash, padded).
    Pkcs1(HashAlg),
    /// RSASSA-PSS with MGF1 of the same hash and a salt as long as the digest.
    Pss(HashAlg),
}

impl RsaSignatureScheme {
    /// The hash whose digest the scheme signs.
    pub fn hash(self) -> HashAlg {
        match self {
            RsaSignatureScheme::Pkcs1(h) | RsaSignatureScheme::Pss(h) => h,
        }
    }

    /// AWS-LC's encoding (to sign) and parameters (to verify) of the scheme.
    fn aws_lc(
        self,
    ) -> Result<(
        &'static sig::RsaSignatureEncoding,
        &'static sig::RsaParameters,
    )> {
        use RsaSignatureScheme::{Pkcs1, Pss};
        Ok(match self {
            Pkcs1(HashAlg::Sha256) => (&sig::RSA_PKCS1_SHA256, &sig::RSA_PKCS1_2048_8192_SHA256),
            Pkcs1(HashAlg::Sha384) => (&sig::RSA_PKCS1_SHA384, &sig::RSA_PKCS1_2048_8192_SHA384),
            Pkcs1(HashAlg::Sha512) => (&sig::RSA_PKCS1_SHA512, &sig::RSA_PKCS1_2048_8192_SHA512),
            Pss(HashAlg::Sha256) => (&sig::RSA_PSS_SHA256, &sig::RSA_PSS_2048_8192_SHA256),
            Pss(HashAlg::Sha384) => (&sig::RSA_PSS_SHA384, &sig::RSA_PSS_2048_8192_SHA384),
            Pss(HashAlg::Sha512) => (&sig::RSA_PSS_SHA512, &sig::RSA_PSS_2048_8192_SHA512),
            Pkcs1(HashAlg::Sha224) | Pss(HashAlg::Sha224) => {
                return Err(Error::InvalidParameters(
                    "RSA signs SHA-256, SHA-384 or SHA-512 digests",
                ))
            }
        })
    }
}

/// The DER prefix of a PKCS #1 v1.5 DigestInfo (RFC 8017 §9.2, note 1) for each hash RSA signs.
fn digest_info_prefix(hash: HashAlg) -> &'static [u8] {
    match hash {
        HashAlg::Sha224 => &[
            0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x04, 0x05, 0x00, 0x04, 0x1c,
        ],
        HashAlg::Sha256 => &[
            0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x01, 0x05, 0x00, 0x04, 0x20,
        ],
        HashAlg::Sha384 => &[
            0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x02, 0x05, 0x00, 0x04, 0x30,
        ],
        HashAlg::Sha512 => &[
            0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
            0x03, 0x05, 0x00, 0x04, 0x40,
        ],
    }
}

/// Splits a DER DigestInfo (the input of a raw PKCS #1 v1.5 signature, as TLS 1.2 and
/// PKCS#11's `CKM_RSA_PKCS` give it) into its hash and digest.
pub fn parse_digest_info(digest_info: &[u8]) -> Result<(HashAlg, &[u8])> {
    HashAlg::ALL
        .into_iter()
        .find_map(|hash| {
            let prefix = digest_info_prefix(hash);
            digest_info
                .strip_prefix(prefix)
                .filter(|rest| rest.len() == hash.output_len())
                .map(|rest| (hash, rest))
        })
        .ok_or(Error::InvalidParameters(
            "not a DigestInfo of SHA-224, SHA-256, SHA-384 or SHA-512",
        ))
}

/// The DER DigestInfo of a digest: what PKCS #1 v1.5 pads and signs.
pub fn digest_info(hash: HashAlg, digest: &[u8]) -> Result<Vec<u8>> {
    check_digest(hash, digest)?;
    Ok([digest_info_prefix(hash), digest].concat())
}

fn check_digest(hash: HashAlg, digest: &[u8]) -> Result<()> {
    if digest.len() != hash.output_len() {
        return Err(Error::InvalidLength {
            what: "digest",
            expected: "the hash's output length",
            got: digest.len(),
        });
    }
    Ok(())
}

fn import_digest(hash: HashAlg, digest: &[u8]) -> Result<Digest> {
    check_digest(hash, digest)?;
    Digest::import_less_safe(digest, hash.algorithm())
        .map_err(|_| Error::Library("Digest::import_less_safe"))
}

/// How an RSA ciphertext was padded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RsaEncryptionPadding {
    /// RSAES-PKCS1-v1_5, for legacy TLS 1.2 key exchange only.
    Pkcs1,
    /// RSAES-OAEP with SHA-1 and MGF1-SHA-1, empty label (older clients).
    OaepSha1,
    /// RSAES-OAEP with SHA-256 and MGF1-SHA-256, empty label.
    OaepSha256,
}

/// An RSA public key: modulus and public exponent.
#[derive(Clone, PartialEq, Eq)]
pub struct RsaPublicKey {
    bits: RsaBits,
    modulus: Vec<u8>,
    exponent: Vec<u8>,
    spki: Vec<u8>,
}

impl RsaPublicKey {
    /// The key from a big-endian modulus and exponent (leading zeros allowed).
    pub fn from_components(modulus: &[u8], exponent: &[u8]) -> Result<Self> {
        let modulus = strip_zeros(modulus);
        let exponent = strip_zeros(exponent);
        let bits = RsaBits::from_bits(modulus.len() as u64 * 8)?;
        let invalid = |_| Error::InvalidPublicKey("not an RSA key");
        let rsa = openssl::rsa::Rsa::from_public_components(
            openssl::bn::BigNum::from_slice(modulus).map_err(invalid)?,
            openssl::bn::BigNum::from_slice(exponent).map_err(invalid)?,
        )
        .map_err(invalid)?;
        let spki = openssl::pkey::PKey::from_rsa(rsa)
            .and_then(|key| key.public_key_to_der())
            .map_err(|_| Error::Library("PKey::public_key_to_der"))?;
        // AWS-LC's own checks of the key (exponent range, modulus) before it is used.
        public_encrypting_key(&spki)?;
        Ok(RsaPublicKey {
            bits,
            modulus: modulus.to_vec(),
            exponent: exponent.to_vec(),
            spki,
        })
    }

    /// The modulus size.
    pub fn bits(&self) -> RsaBits {
        self.bits
    }

    /// The big-endian modulus `n`, without leading zeros.
    pub fn modulus(&self) -> &[u8] {
        &self.modulus
    }

    /// The big-endian public exponent `e`, without leading zeros.
    pub fn public_exponent(&self) -> &[u8] {
        &self.exponent
    }

    /// The X.509 SubjectPublicKeyInfo DER encoding.
    pub fn to_spki_der(&self) -> &[u8] {
        &self.spki
    }

    /// The SubjectPublicKeyInfo as PEM (`-----BEGIN PUBLIC KEY-----`), as OpenSSL reads it.
    pub fn to_spki_pem(&self) -> Result<String> {
        crate::public_key::spki_pem(&self.spki)
    }

    /// The length of a signature or ciphertext with this key, in bytes.
    pub fn modulus_len(&self) -> usize {
        self.modulus.len()
    }

    /// Whether `signature` is a valid signature of `digest` under `scheme`.
    pub fn verify_digest(
        &self,
        scheme: RsaSignatureScheme,
        digest: &[u8],
        signature: &[u8],
    ) -> bool {
        let (Ok((_, params)), Ok(digest)) = (scheme.aws_lc(), import_digest(scheme.hash(), digest))
        else {
            return false;
        };
        RsaPublicKeyComponents {
            n: &self.modulus,
            e: &self.exponent,
        }
        .to_parsed_public_key(params)
        .is_ok_and(|key| key.verify_digest_sig(&digest, signature).is_ok())
    }

    /// Whether `signature` is a valid signature of `message` under `scheme`.
    pub fn verify(&self, scheme: RsaSignatureScheme, message: &[u8], signature: &[u8]) -> bool {
        let digest = scheme.hash().digest(message);
        self.verify_digest(scheme, &digest, signature)
    }

    /// Whether `signature` is a PKCS #1 v1.5 signature of `data` as given (the inverse of
    /// [`RsaPrivateKey::sign_pkcs1_raw`]).
    pub fn verify_pkcs1_raw(&self, data: &[u8], signature: &[u8]) -> bool {
        let Ok(n) = openssl::bn::BigNum::from_slice(&self.modulus) else {
            return false;
        };
        let Ok(e) = openssl::bn::BigNum::from_slice(&self.exponent) else {
            return false;
        };
        let Ok(rsa) = openssl::rsa::Rsa::from_public_components(n, e) else {
            return false;
        };
        if signature.len() != self.modulus.len() {
            return false;
        }
        let mut out = vec![0u8; self.modulus.len()];
        // Public data both: a plain comparison is fine.
        rsa.public_decrypt(signature, &mut out, openssl::rsa::Padding::PKCS1)
            .is_ok_and(|len| out.get(..len) == Some(data))
    }

    /// Encrypts a short secret to this key.
    pub fn encrypt(&self, padding: RsaEncryptionPadding, plaintext: &[u8]) -> Result<Vec<u8>> {
        let key = public_encrypting_key(&self.spki)?;
        let mut out = vec![0u8; self.modulus.len()];
        let too_long = || Error::InvalidLength {
            what: "plaintext",
            expected: "shorter than the modulus less the padding",
            got: plaintext.len(),
        };
        let written = match padding {
            RsaEncryptionPadding::Pkcs1 => Pkcs1PublicEncryptingKey::new(key)
                .map_err(|_| Error::Library("Pkcs1PublicEncryptingKey"))?
                .encrypt(plaintext, &mut out)
                .map_err(|_| too_long())?
                .len(),
            RsaEncryptionPadding::OaepSha1 | RsaEncryptionPadding::OaepSha256 => {
                OaepPublicEncryptingKey::new(key)
                    .map_err(|_| Error::Library("OaepPublicEncryptingKey"))?
                    .encrypt(oaep_algorithm(padding), plaintext, &mut out, None)
                    .map_err(|_| too_long())?
                    .len()
            }
        };
        out.truncate(written);
        Ok(out)
    }
}

impl fmt::Debug for RsaPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPublicKey")
            .field("bits", &self.bits())
            .finish_non_exhaustive()
    }
}

fn strip_zeros(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    &bytes[start..]
}

fn oaep_algorithm(padding: RsaEncryptionPadding) -> &'static aws_lc_rs::rsa::OaepAlgorithm {
    match padding {
        RsaEncryptionPadding::OaepSha1 => &OAEP_SHA1_MGF1SHA1,
        _ => &OAEP_SHA256_MGF1SHA256,
    }
}

/// AWS-LC's form of a public key, from its SubjectPublicKeyInfo.
fn public_encrypting_key(spki: &[u8]) -> Result<PublicEncryptingKey> {
    PublicEncryptingKey::from_der(spki).map_err(|_| Error::InvalidPublicKey("not an RSA key"))
}

/// An RSA private key, parsed once for signing and for decryption. The PKCS #8 encoding is
/// zeroized on drop; `Debug` prints only the size.
pub struct RsaPrivateKey {
    pkcs8: Zeroizing<Vec<u8>>,
    signing: KeyPair,
    decrypting: PrivateDecryptingKey,
    /// OpenSSL's form, for PKCS #1 v1.5 signatures of data given as is (`CKM_RSA_PKCS`),
    /// which AWS-LC's API does not make.
    raw: openssl::rsa::Rsa<openssl::pkey::Private>,
    public: RsaPublicKey,
}

impl RsaPrivateKey {
    /// A fresh key pair with public exponent 65537.
    pub fn generate(bits: RsaBits) -> Result<Self> {
        let key = KeyPair::generate(bits.key_size())
            .map_err(|_| Error::Library("rsa::KeyPair::generate"))?;
        let pkcs8 = Zeroizing::new(
            key.as_der()
                .map_err(|_| Error::Library("rsa::KeyPair::as_der"))?
                .as_ref()
                .to_vec(),
        );
        Self::from_pkcs8(&pkcs8)
    }

    /// The key from its PKCS #8 (RFC 5208) DER encoding; sizes other than 2048, 3072 and
    /// 4096 bits are refused.
    pub fn from_pkcs8(der: &[u8]) -> Result<Self> {
        let signing =
            KeyPair::from_pkcs8(der).map_err(|_| Error::InvalidPrivateKey("not an RSA key"))?;
        let decrypting = PrivateDecryptingKey::from_pkcs8(der)
            .map_err(|_| Error::InvalidPrivateKey("not an RSA key"))?;
        let raw = openssl::pkey::PKey::private_key_from_pkcs8(der)
            .and_then(|key| key.rsa())
            .map_err(|_| Error::InvalidPrivateKey("not an RSA key"))?;
        let public = signing.public_key();
        let public = RsaPublicKey::from_components(
            public.modulus().big_endian_without_leading_zero(),
            public.exponent().big_endian_without_leading_zero(),
        )?;
        Ok(RsaPrivateKey {
            pkcs8: Zeroizing::new(der.to_vec()),
            signing,
            decrypting,
            raw,
            public,
        })
    }

    /// The PKCS #8 DER encoding. Handle with care: this is the secret.
    pub fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }

    /// The matching public key.
    pub fn public_key(&self) -> &RsaPublicKey {
        &self.public
    }

    /// The signature of a digest of `scheme`'s hash.
    pub fn sign_digest(&self, scheme: RsaSignatureScheme, digest: &[u8]) -> Result<Vec<u8>> {
        let digest = import_digest(scheme.hash(), digest)?;
        let mut signature = vec![0u8; self.signing.public_modulus_len()];
        self.signing
            .sign_digest(scheme.aws_lc()?.0, &digest, &mut signature)
            .map_err(|_| Error::Library("rsa::KeyPair::sign_digest"))?;
        Ok(signature)
    }

    /// The signature of `message` under `scheme` (hashed here).
    pub fn sign(&self, scheme: RsaSignatureScheme, message: &[u8]) -> Result<Vec<u8>> {
        self.sign_digest(scheme, &scheme.hash().digest(message))
    }

    /// A PKCS #1 v1.5 signature of a DER DigestInfo given whole (TLS 1.2, `CKM_RSA_PKCS`).
    pub fn sign_digest_info(&self, digest_info: &[u8]) -> Result<Vec<u8>> {
        let (hash, digest) = parse_digest_info(digest_info)?;
        self.sign_digest(RsaSignatureScheme::Pkcs1(hash), digest)
    }

    /// PKCS #1 v1.5 type-1 padding of `data` as given, then the private-key operation
    /// (PKCS#11's `CKM_RSA_PKCS`): the caller encodes what is signed, a DigestInfo of any
    /// hash or TLS 1.0's MD5 ‖ SHA-1. At most the modulus length less 11 bytes.
    pub fn sign_pkcs1_raw(&self, data: &[u8]) -> Result<Vec<u8>> {
        let k = self.public.modulus_len();
        if data.len() + 11 > k {
            return Err(Error::InvalidLength {
                what: "PKCS #1 v1.5 input",
                expected: "at most the modulus length less 11 bytes",
                got: data.len(),
            });
        }
        let mut out = vec![0u8; k];
        let n = self
            .raw
            .private_encrypt(data, &mut out, openssl::rsa::Padding::PKCS1)
            .map_err(|_| Error::Library("RSA_private_encrypt"))?;
        out.truncate(n);
        Ok(out)
    }

    /// Decrypts a ciphertext; any padding failure is one error, whatever its cause.
    pub fn decrypt(
        &self,
        padding: RsaEncryptionPadding,
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        let mut out = Zeroizing::new(vec![0u8; self.public.modulus_len()]);
        let rejected = || Error::KemRejected("RSA decryption failed");
        let key = self.decrypting.clone();
        let written = match padding {
            RsaEncryptionPadding::Pkcs1 => Pkcs1PrivateDecryptingKey::new(key)
                .map_err(|_| Error::Library("Pkcs1PrivateDecryptingKey"))?
                .decrypt(ciphertext, &mut out)
                .map_err(|_| rejected())?
                .len(),
            RsaEncryptionPadding::OaepSha1 | RsaEncryptionPadding::OaepSha256 => {
                OaepPrivateDecryptingKey::new(key)
                    .map_err(|_| Error::Library("OaepPrivateDecryptingKey"))?
                    .decrypt(oaep_algorithm(padding), ciphertext, &mut out, None)
                    .map_err(|_| rejected())?
                    .len()
            }
        };
        out.truncate(written);
        Ok(out)
    }
}

impl fmt::Debug for RsaPrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPrivateKey")
            .field("bits", &self.public.bits())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha1(data: &[u8]) -> Vec<u8> {
        aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY, data)
            .as_ref()
            .to_vec()
    }

    fn key() -> &'static RsaPrivateKey {
        static KEY: std::sync::OnceLock<RsaPrivateKey> = std::sync::OnceLock::new();
        KEY.get_or_init(|| RsaPrivateKey::generate(RsaBits::B2048).expect("ok"))
    }

    #[test]
    fn rsa_1024_and_odd_sizes_are_refused_by_name_and_by_bits() {
        assert_eq!(
            "rsa1024".parse::<RsaBits>(),
            Err(Error::UnsupportedRsaSize(1024))
        );
        assert_eq!("rsa3072".parse::<RsaBits>(), Ok(RsaBits::B3072));
        assert!(RsaBits::from_bits(8192).is_err());
        assert!("rsa".parse::<RsaBits>().is_err());
    }

    #[test]
    fn every_scheme_signs_and_verifies_and_a_changed_digest_fails() {
        let key = key();
        for hash in [HashAlg::Sha256, HashAlg::Sha384, HashAlg::Sha512] {
            for scheme in [
                RsaSignatureScheme::Pkcs1(hash),
                RsaSignatureScheme::Pss(hash),
            ] {
                let signature = key.sign(scheme, b"TLS").expect("ok");
                assert_eq!(signature.len(), 256);
                assert!(key.public_key().verify(scheme, b"TLS", &signature));
                assert!(!key.public_key().verify(scheme, b"TLs", &signature));
            }
        }
        assert!(key
            .sign(RsaSignatureScheme::Pss(HashAlg::Sha224), b"x")
            .is_err());
    }

    #[test]
    fn a_digest_info_signature_equals_the_pkcs1_signature() {
        let key = key();
        let digest = HashAlg::Sha256.digest(b"handshake");
        let info = digest_info(HashAlg::Sha256, &digest).expect("ok");
        assert_eq!(
            key.sign_digest_info(&info).expect("ok"),
            key.sign_digest(RsaSignatureScheme::Pkcs1(HashAlg::Sha256), &digest)
                .expect("ok")
        );
        assert!(key.sign_digest_info(&info[..info.len() - 1]).is_err());
        assert!(key.sign_digest_info(&digest).is_err());
    }

    #[test]
    fn raw_pkcs1_signs_any_short_data_and_equals_the_digest_info_signature() {
        let key = key();
        let digest = HashAlg::Sha256.digest(b"x");
        let info = digest_info(HashAlg::Sha256, &digest).expect("info");
        let raw = key.sign_pkcs1_raw(&info).expect("raw");
        assert_eq!(raw, key.sign_digest_info(&info).expect("info"));
        // TLS 1.0's MD5 || SHA-1: 36 bytes that are no DigestInfo.
        let md5_sha1 = [7u8; 36];
        let signature = key.sign_pkcs1_raw(&md5_sha1).expect("raw");
        assert!(key.public_key().verify_pkcs1_raw(&md5_sha1, &signature));
        assert!(!key
            .public_key()
            .verify_pkcs1_raw(&md5_sha1[1..], &signature));
        assert!(!key.public_key().verify_pkcs1_raw(&[8u8; 36], &signature));
        assert!(key.sign_pkcs1_raw(&[0u8; 246]).is_err());
        assert!(key.sign_pkcs1_raw(&[0u8; 245]).is_ok());
    }

    #[test]
    fn openssl_verifies_our_signatures_and_parses_our_public_key() {
        use openssl::hash::MessageDigest;
        use openssl::pkey::PKey;
        use openssl::rsa::Padding;
        use openssl::sign::{RsaPssSaltlen, Verifier};
        let key = key();
        let public = PKey::public_key_from_der(key.public_key().to_spki_der()).expect("ok");
        let pkcs1 = key
            .sign(RsaSignatureScheme::Pkcs1(HashAlg::Sha384), b"m")
            .expect("ok");
        let mut verifier = Verifier::new(MessageDigest::sha384(), &public).expect("ok");
        assert!(verifier.verify_oneshot(&pkcs1, b"m").expect("ok"));
        let pss = key
            .sign(RsaSignatureScheme::Pss(HashAlg::Sha256), b"m")
            .expect("ok");
        let mut verifier = Verifier::new(MessageDigest::sha256(), &public).expect("ok");
        verifier.set_rsa_padding(Padding::PKCS1_PSS).expect("ok");
        verifier
            .set_rsa_pss_saltlen(RsaPssSaltlen::DIGEST_LENGTH)
            .expect("ok");
        assert!(verifier.verify_oneshot(&pss, b"m").expect("ok"));
    }

    #[test]
    fn each_padding_decrypts_what_was_encrypted_and_refuses_tampering() {
        let key = key();
        let secret = sha1(b"premaster");
        for padding in [
            RsaEncryptionPadding::Pkcs1,
            RsaEncryptionPadding::OaepSha1,
            RsaEncryptionPadding::OaepSha256,
        ] {
            let mut ciphertext = key.public_key().encrypt(padding, &secret).expect("ok");
            assert_eq!(
                &key.decrypt(padding, &ciphertext).expect("ok")[..],
                &secret[..]
            );
            ciphertext[10] ^= 1;
            assert!(key.decrypt(padding, &ciphertext).is_err(), "{padding:?}");
        }
        assert!(key
            .public_key()
            .encrypt(RsaEncryptionPadding::OaepSha256, &[0u8; 250])
            .is_err());
    }

    #[test]
    fn components_round_trip_and_pkcs8_round_trips() {
        let key = key();
        let public = key.public_key();
        assert_eq!(
            public.public_exponent(),
            &RSA_PUBLIC_EXPONENT.to_be_bytes()[1..]
        );
        let mut padded = vec![0u8];
        padded.extend_from_slice(public.modulus());
        assert_eq!(
            &RsaPublicKey::from_components(&padded, public.public_exponent()).expect("ok"),
            public
        );
        let again = RsaPrivateKey::from_pkcs8(key.pkcs8()).expect("ok");
        assert_eq!(again.public_key(), public);
        assert!(RsaPublicKey::from_components(&[0xff; 128], &[1, 0, 1]).is_err());
        let pem = public.to_spki_pem().expect("ok");
        let parsed = openssl::pkey::PKey::public_key_from_pem(pem.as_bytes()).expect("ok");
        assert_eq!(parsed.rsa().expect("ok").n().to_vec(), public.modulus());
        assert!(RsaPrivateKey::from_pkcs8(b"not a key").is_err());
    }
}

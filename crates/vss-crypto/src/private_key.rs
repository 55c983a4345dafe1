//! Private keys: ECDSA signing and ECDH.

use std::sync::OnceLock;

use aws_lc_rs::agreement;
use aws_lc_rs::digest::Digest;
use aws_lc_rs::signature::EcdsaKeyPair;
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcKey, EcPoint};
use openssl::ecdsa::EcdsaSig;
use openssl::pkey::Private;
use zeroize::Zeroizing;

use crate::backend::{fit_digest, Backend};
use crate::point;
use crate::{Curve, Error, HashAlg, PublicKey, Result, Signature};

/// An elliptic-curve private key: a scalar `0 < d < n` with its public point.
///
/// The scalar is zeroized when the key is dropped; `Debug` never prints it.
pub struct PrivateKey {
    curve: Curve,
    scalar: Zeroizing<Vec<u8>>,
    public: PublicKey,
    engine: Engine,
}

/// The library that does a key's arithmetic, in its own form of the key.
enum Engine {
    /// AWS-LC (P-256, P-384): its ECDH key, and its signing key made at the first signature
    /// (keys that only agree, such as ECIES's ephemeral ones, never make one).
    AwsLc {
        agreement: agreement::PrivateKey,
        signing: OnceLock<EcdsaKeyPair>,
    },
    /// OpenSSL (the other curves): signs, and does ECDH.
    OpenSsl(EcKey<Private>),
}

impl PrivateKey {
    /// A fresh random key from the operating system's generator.
    pub fn generate(curve: Curve) -> Result<Self> {
        if let Backend::AwsLc { .. } = Backend::for_curve(curve) {
            // A uniform scalar in 1..n-1: random bytes, drawn again when out of range (for
            // P-256 and P-384 about once in 2^32 draws, so a few draws always suffice).
            let mut scalar = Zeroizing::new(vec![0u8; curve.scalar_len()]);
            let mut refused = Error::Library("no scalar in range");
            for _ in 0..8 {
                crate::random_bytes(&mut scalar)?;
                match Self::from_scalar(curve, &scalar) {
                    Err(e @ Error::InvalidPrivateKey(_)) => refused = e,
                    key => return key,
                }
            }
            return Err(refused);
        }
        let group = curve.group()?;
        let key = EcKey::generate(group).map_err(|_| Error::Library("EcKey::generate"))?;
        let scalar = Zeroizing::new(
            key.private_key()
                .to_vec_padded(curve.scalar_len() as i32)
                .map_err(|_| Error::Library("BigNum::to_vec_padded"))?,
        );
        Self::from_scalar(curve, &scalar)
    }

    /// The key with the given big-endian scalar (shorter inputs are left-padded).
    ///
    /// Refuses 0, values ≥ n, and inputs longer than the curve's scalar length.
    pub fn from_scalar(curve: Curve, scalar: &[u8]) -> Result<Self> {
        let n = curve.scalar_len();
        if scalar.len() > n {
            return Err(Error::InvalidPrivateKey("longer than the curve's scalar"));
        }
        let mut padded = Zeroizing::new(vec![0u8; n]);
        padded[n - scalar.len()..].copy_from_slice(scalar);
        let (public, engine) = match Backend::for_curve(curve) {
            Backend::AwsLc {
                agreement: algorithm,
                ..
            } => {
                // AWS-LC refuses 0 and values ≥ n itself.
                let agreement = agreement::PrivateKey::from_private_key(algorithm, &padded)
                    .map_err(|_| Error::InvalidPrivateKey("not in the range 1..n-1"))?;
                let point = agreement
                    .compute_public_key()
                    .map_err(|_| Error::Library("PrivateKey::compute_public_key"))?;
                let public = PublicKey::from_uncompressed(curve, point.as_ref())?;
                let signing = OnceLock::new();
                (public, Engine::AwsLc { agreement, signing })
            }
            Backend::OpenSsl => {
                let openssl = openssl_private_key(curve, &padded)?;
                let public = PublicKey::from_point(curve, openssl.public_key())?;
                (public, Engine::OpenSsl(openssl))
            }
        };
        Ok(PrivateKey {
            curve,
            scalar: padded,
            public,
            engine,
        })
    }

    /// The curve of this key.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// The big-endian scalar, `scalar_len` bytes. Handle with care: this is the secret.
    pub fn scalar(&self) -> &[u8] {
        &self.scalar
    }

    /// The matching public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// ECDSA signature of a digest (any length: longer digests are truncated to the order's
    /// bit length, shorter ones taken as integers, as FIPS 186 says). A random nonce each time.
    pub fn sign_digest(&self, digest: &[u8]) -> Result<Signature> {
        if !self.curve.supports_ecdsa() {
            return Err(Error::NotForSignatures(self.curve));
        }
        match &self.engine {
            Engine::AwsLc { signing, .. } => {
                let Backend::AwsLc {
                    signing: algorithm,
                    digest_alg,
                    ..
                } = Backend::for_curve(self.curve)
                else {
                    return Err(Error::Library("backend mismatch"));
                };
                let key_pair = match signing.get() {
                    Some(key_pair) => key_pair,
                    None => {
                        let made = EcdsaKeyPair::from_private_key_and_public_key(
                            algorithm,
                            &self.scalar,
                            self.public.to_sec1_uncompressed(),
                        )
                        .map_err(|_| Error::Library("EcdsaKeyPair"))?;
                        signing.get_or_init(|| made)
                    }
                };
                let fitted = fit_digest(self.curve, digest);
                let digest = Digest::import_less_safe(&fitted, digest_alg)
                    .map_err(|_| Error::Library("Digest::import_less_safe"))?;
                let sig = key_pair
                    .sign_digest(&digest)
                    .map_err(|_| Error::Library("EcdsaKeyPair::sign_digest"))?;
                Signature::from_p1363(self.curve, sig.as_ref())
            }
            Engine::OpenSsl(openssl) => {
                let sig =
                    EcdsaSig::sign(digest, openssl).map_err(|_| Error::Library("ECDSA_do_sign"))?;
                let n = self.curve.scalar_len() as i32;
                let mut r_s = sig
                    .r()
                    .to_vec_padded(n)
                    .map_err(|_| Error::Library("BigNum::to_vec_padded"))?;
                r_s.extend(
                    sig.s()
                        .to_vec_padded(n)
                        .map_err(|_| Error::Library("BigNum::to_vec_padded"))?,
                );
                Signature::from_p1363(self.curve, &r_s)
            }
        }
    }

    /// ECDSA signature of `message` hashed with `hash`.
    pub fn sign(&self, hash: HashAlg, message: &[u8]) -> Result<Signature> {
        self.sign_digest(&hash.digest(message))
    }

    /// ECDH (SEC1 §3.3.1): the x coordinate of `d × peer`, `scalar_len` bytes.
    ///
    /// `peer` is on the curve and not the identity ([`PublicKey`] guarantees it), which is
    /// the whole check on the cofactor-1 curves. On k283 and b283 (cofactors 4 and 2) the
    /// point may carry a small-subgroup component; the protocols that use them check
    /// membership themselves (PSEC-KEM's `u × G = g̃`), as ISO/IEC 18033-2 specifies.
    ///
    /// On P-256 and P-384 AWS-LC's ECDH computes the product (constant time); on the other
    /// curves OpenSSL's `EC_POINT_mul` of a variable point, the constant-time ladder that its
    /// own ECDH runs, called directly to spare converting both keys into provider objects.
    pub fn diffie_hellman(&self, peer: &PublicKey) -> Result<Zeroizing<Vec<u8>>> {
        if peer.curve() != self.curve {
            return Err(Error::InvalidPublicKey("peer key is on another curve"));
        }
        match &self.engine {
            Engine::AwsLc { agreement, .. } => {
                let peer = agreement::UnparsedPublicKey::new(
                    agreement.algorithm(),
                    peer.to_sec1_uncompressed(),
                );
                agreement::agree(
                    agreement,
                    peer,
                    Error::InvalidPublicKey("refused by ECDH"),
                    |x| Ok(Zeroizing::new(x.to_vec())),
                )
            }
            Engine::OpenSsl(openssl) => {
                let peer_point = peer.to_point()?;
                let shared = point::times(self.curve, Some(&peer_point), openssl.private_key())?
                    .ok_or(Error::InvalidPublicKey(
                        "the shared point is the point at infinity",
                    ))?;
                point::x_coordinate(self.curve, &shared)
            }
        }
    }
}

/// OpenSSL's form of the key with the given fixed-width scalar; refuses 0 and values ≥ n.
fn openssl_private_key(curve: Curve, scalar: &[u8]) -> Result<EcKey<Private>> {
    let group = curve.group()?;
    let mut ctx = BigNumContext::new_secure().map_err(|_| Error::Library("BigNumContext"))?;
    // A secure BigNum: the scalar is secret, and it is cleared when freed.
    let mut d = BigNum::new_secure().map_err(|_| Error::Library("BigNum"))?;
    d.copy_from_slice(scalar)
        .map_err(|_| Error::Library("BigNum::copy_from_slice"))?;
    if d.num_bits() == 0 || d >= curve.order()? {
        return Err(Error::InvalidPrivateKey("not in the range 1..n-1"));
    }
    let mut point = EcPoint::new(group).map_err(|_| Error::Library("EcPoint"))?;
    point
        .mul_generator2(group, &d, &mut ctx)
        .map_err(|_| Error::Library("EcPoint::mul_generator"))?;
    EcKey::from_private_components(group, &d, &point)
        .map_err(|_| Error::Library("EcKey::from_private_components"))
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateKey")
            .field("curve", &self.curve)
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_verify_round_trip_on_every_curve_and_hash() {
        for curve in Curve::ECDSA {
            let key = PrivateKey::generate(curve).expect("generate");
            let verifier = key.public_key().verifying_key().expect("verifier");
            for hash in HashAlg::ALL {
                let sig = key.sign(hash, b"V2X message").expect("sign");
                assert!(
                    verifier.verify(hash, b"V2X message", &sig),
                    "{curve} {hash}"
                );
                assert!(
                    !verifier.verify(hash, b"V2X messagf", &sig),
                    "{curve} {hash}"
                );
            }
        }
    }

    #[test]
    fn scalar_round_trips_and_range_is_enforced() {
        for curve in Curve::ALL {
            let key = PrivateKey::generate(curve).expect("generate");
            let again = PrivateKey::from_scalar(curve, key.scalar()).expect("from_scalar");
            assert_eq!(again.public_key(), key.public_key());
            assert!(PrivateKey::from_scalar(curve, &[0]).is_err());
            assert!(PrivateKey::from_scalar(curve, &vec![0xff; curve.scalar_len()]).is_err());
            assert!(PrivateKey::from_scalar(curve, &vec![1; curve.scalar_len() + 1]).is_err());
        }
        // The order itself is refused and one less taken, on the curves AWS-LC checks.
        let p256_n = hex_bytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
        assert!(matches!(
            PrivateKey::from_scalar(Curve::P256, &p256_n),
            Err(Error::InvalidPrivateKey(_))
        ));
        let mut below = p256_n.clone();
        below[31] -= 1;
        assert!(PrivateKey::from_scalar(Curve::P256, &below).is_ok());
        let one = PrivateKey::from_scalar(Curve::P256, &[1]).expect("d = 1");
        assert_eq!(
            one.public_key().x(),
            &hex_bytes("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")[..]
        );
    }

    #[test]
    fn binary_curve_keys_do_ecdh_but_refuse_to_sign() {
        let key = PrivateKey::generate(Curve::K283).expect("k283 key");
        assert_eq!(
            key.sign(HashAlg::Sha256, b"x").expect_err("no ECDSA"),
            Error::NotForSignatures(Curve::K283)
        );
        assert!(key.public_key().verifying_key().is_err());
    }

    #[test]
    fn ecdh_agrees_both_ways_and_refuses_other_curves() {
        for curve in Curve::ALL {
            let a = PrivateKey::generate(curve).expect("a");
            let b = PrivateKey::generate(curve).expect("b");
            let ab = a.diffie_hellman(b.public_key()).expect("ab");
            let ba = b.diffie_hellman(a.public_key()).expect("ba");
            assert_eq!(ab, ba);
            assert_eq!(ab.len(), curve.scalar_len());
        }
        let a = PrivateKey::generate(Curve::P256).expect("a");
        let b = PrivateKey::generate(Curve::Bp256).expect("b");
        assert!(a.diffie_hellman(b.public_key()).is_err());
    }

    #[test]
    fn small_order_peer_on_k283_gives_a_clear_error_not_a_secret() {
        // (0, 1) is the point of order 2 on sect283k1 (b = 1).
        let mut sec1 = vec![0x04];
        sec1.extend(std::iter::repeat_n(0u8, 36));
        sec1.extend(std::iter::repeat_n(0u8, 35));
        sec1.push(1);
        let order_two = PublicKey::from_sec1(Curve::K283, &sec1).expect("on the curve");
        let even = PrivateKey::from_scalar(Curve::K283, &[2]).expect("d = 2");
        assert_eq!(
            even.diffie_hellman(&order_two).expect_err("2 × P = O"),
            Error::InvalidPublicKey("the shared point is the point at infinity")
        );
        let odd = PrivateKey::from_scalar(Curve::K283, &[3]).expect("d = 3");
        assert_eq!(
            &odd.diffie_hellman(&order_two).expect("3 × P = P")[..],
            &[0u8; 36]
        );
    }

    #[test]
    fn debug_does_not_print_the_scalar() {
        let key = PrivateKey::from_scalar(Curve::P256, &[0x42; 32]).expect("key");
        let shown = format!("{key:?}");
        assert!(!shown.contains(&"42".repeat(32)), "{shown}");
    }

    fn hex_bytes(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    }
}

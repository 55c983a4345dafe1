//! BLS12-381 as the BBS drafts use it: scalars and points in their octet encodings
//! (I2OSP big-endian scalars, compressed points in the ZCash format), `expand_message_xmd`
//! with SHA-256 (RFC 9380 §5.3.1), `hash_to_scalar` and `hash_to_curve` into G1
//! (BLS12381G1_XMD:SHA-256_SSWU_RO_).

use ark_bls12_381::{g1, Bls12_381, G1Affine, G1Projective, G2Affine};
use ark_ec::hashing::curve_maps::wb::WBMap;
use ark_ec::hashing::map_to_curve_hasher::MapToCurveBasedHasher;
use ark_ec::hashing::HashToCurve;
use ark_ec::pairing::{Pairing, PairingOutput};
use ark_ec::AffineRepr;
use ark_ff::field_hashers::DefaultFieldHasher;
use ark_ff::{BigInteger, PrimeField, UniformRand, Zero};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use sha2::{Digest, Sha256};

/// An element of the scalar field of BLS12-381 (the group order r).
pub type Scalar = ark_bls12_381::Fr;
/// A point of G1 in projective coordinates.
pub type G1 = G1Projective;
/// A point of G2 in affine coordinates.
pub type G2 = G2Affine;

/// Octets in an encoded scalar.
pub const SCALAR_LEN: usize = 32;
/// Octets in a compressed G1 point.
pub const G1_LEN: usize = 48;
/// Octets in a compressed G2 point.
pub const G2_LEN: usize = 96;
/// Octets `hash_to_scalar` expands to before the reduction mod r (the drafts' expand_len).
const EXPAND_LEN: usize = 48;
/// SHA-256's input block in octets (RFC 9380's r_in_bytes).
const SHA256_BLOCK: usize = 64;
/// SHA-256's output in octets (RFC 9380's b_in_bytes).
const SHA256_OUT: usize = 32;

/// Why bytes are not a scalar or a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EncodingError {
    /// The bytes have the wrong length for what they should encode.
    #[error("expected {expected} bytes, got {got}")]
    Length {
        /// The length the encoding has.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A scalar's integer is r or larger.
    #[error("scalar is not below the group order")]
    ScalarRange,
    /// The bytes are not a point of the prime-order subgroup (or not on the curve).
    #[error("not a point of the prime-order subgroup")]
    Point,
    /// The point is the identity where a generator or a key is needed.
    #[error("point is the identity")]
    Identity,
}

/// I2OSP(s, 32): the scalar as 32 big-endian octets.
pub fn scalar_to_bytes(s: &Scalar) -> [u8; SCALAR_LEN] {
    let mut out = [0u8; SCALAR_LEN];
    out.copy_from_slice(&s.into_bigint().to_bytes_be());
    out
}

/// OS2IP of 32 big-endian octets, refusing an integer that is not below r.
pub fn scalar_from_bytes(bytes: &[u8]) -> Result<Scalar, EncodingError> {
    if bytes.len() != SCALAR_LEN {
        return Err(EncodingError::Length {
            expected: SCALAR_LEN,
            got: bytes.len(),
        });
    }
    let s = Scalar::from_be_bytes_mod_order(bytes);
    if scalar_to_bytes(&s) != bytes {
        return Err(EncodingError::ScalarRange);
    }
    Ok(s)
}

/// A point of G1 compressed into 48 octets.
pub fn g1_to_bytes(p: &G1) -> [u8; G1_LEN] {
    let mut out = [0u8; G1_LEN];
    G1Affine::from(*p)
        .serialize_compressed(&mut out[..])
        .expect("a G1 point compresses into 48 bytes");
    out
}

/// A compressed G1 point, checked to be on the curve and in the prime-order subgroup.
pub fn g1_from_bytes(bytes: &[u8]) -> Result<G1, EncodingError> {
    if bytes.len() != G1_LEN {
        return Err(EncodingError::Length {
            expected: G1_LEN,
            got: bytes.len(),
        });
    }
    G1Affine::deserialize_compressed(bytes)
        .map(G1::from)
        .map_err(|_| EncodingError::Point)
}

/// Like [`g1_from_bytes`], also refusing the identity.
pub fn g1_nonzero_from_bytes(bytes: &[u8]) -> Result<G1, EncodingError> {
    let p = g1_from_bytes(bytes)?;
    if p.is_zero() {
        return Err(EncodingError::Identity);
    }
    Ok(p)
}

/// A point of G2 compressed into 96 octets.
pub fn g2_to_bytes(p: &G2) -> [u8; G2_LEN] {
    let mut out = [0u8; G2_LEN];
    p.serialize_compressed(&mut out[..])
        .expect("a G2 point compresses into 96 bytes");
    out
}

/// A compressed G2 point, checked to be in the prime-order subgroup and not the identity.
pub fn g2_from_bytes(bytes: &[u8]) -> Result<G2, EncodingError> {
    if bytes.len() != G2_LEN {
        return Err(EncodingError::Length {
            expected: G2_LEN,
            got: bytes.len(),
        });
    }
    let p = G2Affine::deserialize_compressed(bytes).map_err(|_| EncodingError::Point)?;
    if p.is_zero() {
        return Err(EncodingError::Identity);
    }
    Ok(p)
}

/// I2OSP(n, len) for a length or an index.
pub fn i2osp(n: u64, len: usize) -> Vec<u8> {
    n.to_be_bytes()[8 - len..].to_vec()
}

/// expand_message_xmd with SHA-256 (RFC 9380 §5.3.1). `len` is at most 255·32 and the DST
/// at most 255 bytes; callers pass the drafts' constants.
pub fn expand_message_xmd(msg: &[u8], dst: &[u8], len: usize) -> Vec<u8> {
    let ell = len.div_ceil(SHA256_OUT);
    assert!(
        ell <= 255 && len <= 65_535 && dst.len() <= 255,
        "expand_message_xmd bounds"
    );
    let dst_prime = [dst, &[dst.len() as u8]].concat();
    let b0 = Sha256::new()
        .chain_update([0u8; SHA256_BLOCK])
        .chain_update(msg)
        .chain_update(i2osp(len as u64, 2))
        .chain_update([0u8])
        .chain_update(&dst_prime)
        .finalize();
    let mut bi = Sha256::new()
        .chain_update(b0)
        .chain_update([1u8])
        .chain_update(&dst_prime)
        .finalize();
    let mut out = bi.to_vec();
    for i in 2..=ell {
        let xored: Vec<u8> = b0.iter().zip(bi.iter()).map(|(a, b)| a ^ b).collect();
        bi = Sha256::new()
            .chain_update(xored)
            .chain_update([i as u8])
            .chain_update(&dst_prime)
            .finalize();
        out.extend_from_slice(&bi);
    }
    out.truncate(len);
    out
}

/// hash_to_scalar of the BBS drafts: 48 expanded octets reduced mod r.
pub fn hash_to_scalar(msg: &[u8], dst: &[u8]) -> Scalar {
    Scalar::from_be_bytes_mod_order(&expand_message_xmd(msg, dst, EXPAND_LEN))
}

/// hash_to_curve into G1 with the suite BLS12381G1_XMD:SHA-256_SSWU_RO_ and the given DST.
pub fn hash_to_curve_g1(msg: &[u8], dst: &[u8]) -> G1 {
    let hasher =
        MapToCurveBasedHasher::<G1, DefaultFieldHasher<Sha256, 128>, WBMap<g1::Config>>::new(dst)
            .expect("the SSWU map of BLS12-381 G1 is defined");
    hasher
        .hash(msg)
        .expect("hash_to_curve of BLS12-381 G1 is total")
        .into()
}

/// A uniformly random non-zero scalar from the operating system's generator.
pub fn random_scalar() -> Scalar {
    let mut rng = rand::rngs::OsRng;
    loop {
        let s = Scalar::rand(&mut rng);
        if !s.is_zero() {
            return s;
        }
    }
}

/// The product of pairings e(p_1, q_1)·…·e(p_n, q_n), with one final exponentiation.
pub fn multi_pairing(g1s: &[G1], g2s: &[G2]) -> PairingOutput<Bls12_381> {
    let g1s: Vec<G1Affine> = g1s.iter().map(|p| G1Affine::from(*p)).collect();
    Bls12_381::multi_pairing(g1s, g2s.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9380 Appendix K.1, expand_message_xmd(SHA-256), msg "abc", len 0x20.
    #[test]
    fn expand_message_xmd_matches_rfc9380() {
        let dst = b"QUUX-V01-CS02-with-expander-SHA256-128";
        let out = expand_message_xmd(b"abc", dst, 0x20);
        assert_eq!(
            hex::encode(out),
            "d8ccab23b5985ccea865c6c97b6e5b8350e794e603b4b97902f53a8a0d605615"
        );
        let long = expand_message_xmd(b"", dst, 0x80);
        assert_eq!(
            hex::encode(long),
            "af84c27ccfd45d41914fdff5df25293e221afc53d8ad2ac06d5e3e29485dadbee0d121587713a3e0dd4d5e69e93eb7cd4f5df4cd103e188cf60cb02edc3edf18eda8576c412b18ffb658e3dd6ec849469b979d444cf7b26911a08e63cf31f9dcc541708d3491184472c2c29bb749d4286b004ceb5ee6b9a7fa5b646c993f0ced"
        );
    }

    /// RFC 9380 Appendix J.9.1, BLS12381G1_XMD:SHA-256_SSWU_RO_, msg "".
    #[test]
    fn hash_to_curve_g1_matches_rfc9380() {
        let p = hash_to_curve_g1(b"", b"QUUX-V01-CS02-with-BLS12381G1_XMD:SHA-256_SSWU_RO_");
        let affine = G1Affine::from(p);
        assert_eq!(
            affine.x.to_string(),
            ark_bls12_381::Fq::from_be_bytes_mod_order(&hex::decode("052926add2207b76ca4fa57a8734416c8dc95e24501772c814278700eed6d1e4e8cf62d9c09db0fac349612b759e79a1").expect("test value")).to_string()
        );
    }

    #[test]
    fn scalars_and_points_round_trip_and_refuse_bad_bytes() {
        let s = random_scalar();
        assert_eq!(scalar_from_bytes(&scalar_to_bytes(&s)), Ok(s));
        assert_eq!(
            scalar_from_bytes(&[0xff; 32]),
            Err(EncodingError::ScalarRange)
        );
        assert!(matches!(
            scalar_from_bytes(&[0; 31]),
            Err(EncodingError::Length { .. })
        ));
        let p = hash_to_curve_g1(b"x", b"DST");
        assert_eq!(g1_from_bytes(&g1_to_bytes(&p)), Ok(p));
        let mut bad = g1_to_bytes(&p);
        bad[47] ^= 1;
        assert!(g1_from_bytes(&bad).is_err() || g1_from_bytes(&bad) != Ok(p));
        assert_eq!(g1_from_bytes(&[0u8; 48]), Err(EncodingError::Point));
        assert_eq!(
            g1_nonzero_from_bytes(&g1_to_bytes(&G1::zero())),
            Err(EncodingError::Identity)
        );
    }
}

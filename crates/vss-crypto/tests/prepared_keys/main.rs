//! Prepared verification keys give the library's verdict: on Wycheproof's ECDSA files of
//! the four curves they serve, on random keys and signatures (valid, and with one bit
//! flipped), and on the edge cases of the arithmetic (u1 = 0, R the identity, x(R) ≥ n,
//! r or s out of range, digests longer or shorter than n).

#[path = "../common/mod.rs"]
mod common;
mod edges;
mod random;
mod wycheproof;

use openssl::bn::{BigNum, BigNumContext};
use vss_crypto::{Curve, PreparedKey, Signature};

/// The curves with prepared keys.
const CURVES: [Curve; 4] = [Curve::P256, Curve::P384, Curve::Bp256, Curve::Bp384];

/// Random bytes from the library's generator.
fn random(len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    vss_crypto::random_bytes(&mut out).expect("random");
    out
}

/// The prepared key's verdict and the library's on the same inputs, asserted equal.
fn verdict(prepared: &PreparedKey, digest: &[u8], sig: &Signature) -> bool {
    let library = prepared
        .public_key()
        .verifying_key()
        .expect("verifying key");
    let ours = prepared.verify_digest(digest, sig);
    assert_eq!(
        ours,
        library.verify_digest(digest, sig),
        "{:?} digest {digest:02x?} {sig:?}",
        prepared.public_key()
    );
    ours
}

/// `bytes` with bit `bit` flipped.
fn flipped(bytes: &[u8], bit: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[bit / 8 % bytes.len()] ^= 1 << (bit % 8);
    out
}

/// The curve's order n, big-endian.
fn order(curve: Curve) -> Vec<u8> {
    let group = openssl_group(curve);
    let mut n = BigNum::new().expect("bn");
    group
        .order(&mut n, &mut BigNumContext::new().expect("ctx"))
        .expect("order");
    n.to_vec_padded(curve.scalar_len() as i32).expect("pad")
}

fn openssl_group(curve: Curve) -> openssl::ec::EcGroup {
    let nid = match curve {
        Curve::P256 => openssl::nid::Nid::X9_62_PRIME256V1,
        Curve::P384 => openssl::nid::Nid::SECP384R1,
        Curve::Bp256 => openssl::nid::Nid::BRAINPOOL_P256R1,
        _ => openssl::nid::Nid::BRAINPOOL_P384R1,
    };
    openssl::ec::EcGroup::from_curve_name(nid).expect("group")
}

fn sig_of(curve: Curve, r: &[u8], s: &[u8]) -> Signature {
    Signature::from_p1363(curve, &[r, s].concat()).expect("p1363")
}

/// A scalar in [1, n − 1] for every curve: random, top byte cleared.
fn scalar_below_n(len: usize) -> Vec<u8> {
    let mut s = random(len);
    s[0] &= 0x7f;
    s[len - 1] |= 1;
    s
}

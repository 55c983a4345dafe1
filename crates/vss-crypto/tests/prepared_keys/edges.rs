//! The edge cases of the arithmetic, built with OpenSSL's scalars and points: u1 = 0, R the
//! identity, x(R) ≥ n, and u1·G = u2·Q (the final sum doubles).

use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcPoint, PointConversionForm};
use vss_crypto::{Curve, PreparedKey, PrivateKey, PublicKey, Signature};

use crate::{openssl_group, order, random, scalar_below_n, sig_of, verdict, CURVES};

/// Modular arithmetic modulo a curve's order, on big-endian bytes, by OpenSSL.
struct Scalars {
    n: BigNum,
    len: usize,
    ctx: BigNumContext,
}

impl Scalars {
    fn new(curve: Curve) -> Self {
        Scalars {
            n: BigNum::from_slice(&order(curve)).expect("n"),
            len: curve.scalar_len(),
            ctx: BigNumContext::new().expect("ctx"),
        }
    }

    fn bytes(&self, x: &BigNum) -> Vec<u8> {
        x.to_vec_padded(self.len as i32).expect("pad")
    }

    /// a·b mod n, with `invert_b` b⁻¹ in place of b, and `negate` the negative.
    fn mul(&mut self, a: &[u8], b: &[u8], invert_b: bool, negate: bool) -> BigNum {
        let (a, mut b) = (
            BigNum::from_slice(a).expect("a"),
            BigNum::from_slice(b).expect("b"),
        );
        if invert_b {
            let mut inv = BigNum::new().expect("bn");
            inv.mod_inverse(&b, &self.n, &mut self.ctx)
                .expect("inverse");
            b = inv;
        }
        let mut out = BigNum::new().expect("bn");
        out.mod_mul(&a, &b, &self.n, &mut self.ctx)
            .expect("mod_mul");
        if negate && out.num_bits() > 0 {
            let mut neg = BigNum::new().expect("bn");
            neg.checked_sub(&self.n, &out).expect("sub");
            out = neg;
        }
        out
    }

    /// [`mul`](Self::mul), as big-endian bytes.
    fn mul_bytes(&mut self, a: &[u8], b: &[u8], invert_b: bool, negate: bool) -> Vec<u8> {
        let x = self.mul(a, b, invert_b, negate);
        self.bytes(&x)
    }
}

#[test]
fn u1_zero_and_the_identity_as_r() {
    for curve in CURVES {
        let len = curve.scalar_len();
        let key = PrivateKey::generate(curve).expect("key");
        let prepared = PreparedKey::new(key.public_key()).expect("prepared");
        // e ≡ 0 (mod n): u1 = 0, R = u2·Q alone; the digest n reduces to the same e.
        let zero = vec![0u8; len];
        let sig = key.sign_digest(&zero).expect("sign");
        assert!(verdict(&prepared, &zero, &sig), "{curve} e = 0");
        assert!(verdict(&prepared, &order(curve), &sig), "{curve} e = n");
        assert!(
            verdict(&prepared, &[], &sig),
            "{curve} an empty digest is e = 0"
        );
        // e = −r·d: u1·G = −u2·Q, so R is the identity, whatever r and s.
        let mut scalars = Scalars::new(curve);
        let other = key.sign_digest(&random(len)).expect("sign");
        let e = scalars.mul(other.r(), key.scalar(), false, true);
        let digest = scalars.bytes(&e);
        assert!(!verdict(&prepared, &digest, &other), "{curve} R = identity");
    }
}

/// A key and a valid signature (r, s) of `digest` whose R has x = r + n (x(R) ≥ n): R is
/// chosen first, then Q = u2⁻¹·(R − u1·G).
fn large_x_signature(curve: Curve, digest: &[u8]) -> Option<(PublicKey, Signature, Vec<u8>)> {
    let group = openssl_group(curve);
    let mut scalars = Scalars::new(curve);
    let mut ctx = BigNumContext::new().expect("ctx");
    let len = curve.scalar_len();
    let (x, r) = (1u32..64).find_map(|r| {
        let r = BigNum::from_u32(r).expect("r");
        let mut x = BigNum::new().expect("x");
        x.checked_add(&r, &scalars.n).expect("add");
        let compressed = [&[2u8][..], &x.to_vec_padded(len as i32).ok()?].concat();
        EcPoint::from_bytes(&group, &compressed, &mut ctx)
            .ok()
            .map(|point| (point, scalars.bytes(&r)))
    })?;
    let s = scalar_below_n(len);
    let e = BigNum::from_slice(&digest[..len.min(digest.len())]).expect("e");
    let e = scalars.bytes(&e);
    let k = scalars.mul(&s, &r, true, false); // u2⁻¹ = s/r
    let u1 = scalars.mul(&e, &s, true, false);
    let t = scalars.mul(&scalars.bytes(&u1), &scalars.bytes(&k), false, true); // −u1·u2⁻¹
    let mut q = EcPoint::new(&group).expect("point");
    q.mul_full(&group, &t, &x, &k, &mut ctx).expect("mul");
    let q = q
        .to_bytes(&group, PointConversionForm::UNCOMPRESSED, &mut ctx)
        .expect("bytes");
    let key = PublicKey::from_sec1(curve, &q).ok()?;
    Some((
        key,
        sig_of(curve, &r, &s),
        scalars.bytes(&{
            let mut r_plus_n = BigNum::new().expect("bn");
            r_plus_n
                .checked_add(&BigNum::from_slice(&r).expect("r"), &scalars.n)
                .expect("add");
            r_plus_n
        }),
    ))
}

#[test]
fn x_of_r_at_or_above_n_is_compared_as_r_plus_n() {
    for curve in CURVES {
        let digest = random(64);
        let (key, sig, r_plus_n) =
            large_x_signature(curve, &digest).expect("a point with x = r + n");
        for window in [2, 5] {
            let prepared = PreparedKey::with_window(&key, window).expect("prepared");
            assert!(verdict(&prepared, &digest, &sig), "{curve} x(R) = r + n");
            let as_r = sig_of(curve, &r_plus_n, sig.s());
            assert!(!verdict(&prepared, &digest, &as_r), "{curve} r + n ≥ n");
        }
    }
}

/// x(k·G) mod n.
fn r_of(curve: Curve, k: &BigNum, scalars: &mut Scalars) -> Vec<u8> {
    let group = openssl_group(curve);
    let mut ctx = BigNumContext::new().expect("ctx");
    let mut point = EcPoint::new(&group).expect("point");
    point.mul_generator2(&group, k, &mut ctx).expect("k·G");
    let (mut x, mut y) = (BigNum::new().expect("x"), BigNum::new().expect("y"));
    point
        .affine_coordinates(&group, &mut x, &mut y, &mut ctx)
        .expect("affine");
    let mut r = BigNum::new().expect("r");
    r.nnmod(&x, &scalars.n, &mut scalars.ctx).expect("mod n");
    scalars.bytes(&r)
}

#[test]
fn u1_g_equal_to_u2_q_doubles_in_the_sum() {
    for curve in CURVES {
        let len = curve.scalar_len();
        let key = PrivateKey::generate(curve).expect("key");
        let mut scalars = Scalars::new(curve);
        // R = k·G, e = r·d and s = 2·r·d/k: u1 = k/2 and u2·Q = k/(2d)·d·G, the same point.
        let k = scalar_below_n(len);
        let r = r_of(curve, &BigNum::from_slice(&k).expect("k"), &mut scalars);
        let e = scalars.mul_bytes(&r, key.scalar(), false, false);
        let two_e = scalars.mul_bytes(&e, &[2], false, false);
        let s = scalars.mul_bytes(&two_e, &k, true, false);
        for window in [3, 6] {
            let prepared = PreparedKey::with_window(key.public_key(), window).expect("prepared");
            assert!(
                verdict(&prepared, &e, &sig_of(curve, &r, &s)),
                "{curve} u1·G = u2·Q"
            );
        }
    }
}

//! The fields against OpenSSL's big numbers and algebraic identities, on every modulus.

use openssl::bn::{BigNum, BigNumContext};

use super::*;
use crate::prepared::curves::{Bp256Fn, Bp256Fp, Bp384Fn, Bp384Fp, P256Fn, P256Fp, P384Fn, P384Fp};

/// Deterministic pseudo-random limbs (xorshift64).
fn limbs_from<const N: usize>(seed: &mut u64) -> [u64; N] {
    std::array::from_fn(|_| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    })
}

/// `a^e` by square-and-multiply, bit by bit: the reference for the inversion.
fn pow<M: Modulus<N>, const N: usize>(a: Fe<M, N>, e: &[u64; N]) -> Fe<M, N> {
    let mut acc = Fe::ONE;
    for bit in (0..64 * N).rev() {
        acc = acc * acc;
        if limbs::bits(e, bit, 1) == 1 {
            acc = acc * a;
        }
    }
    acc
}

fn bn(bytes: &[u8]) -> BigNum {
    BigNum::from_slice(bytes).expect("bn")
}

fn padded<const N: usize>(x: &BigNum) -> Vec<u8> {
    x.to_vec_padded(8 * N as i32).expect("pad")
}

/// Elements to test with: small values, p − 1, p − 2, and pseudo-random ones.
fn samples<M: Modulus<N>, const N: usize>() -> Vec<Fe<M, N>> {
    let mut seed = 0x9e37_79b9_7f4a_7c15;
    let mut out: Vec<Fe<M, N>> = [0u64, 1, 2, 3]
        .iter()
        .map(|&v| Fe::from_canonical(&limbs::small(v)))
        .collect();
    out.push(-Fe::ONE);
    out.push(-Fe::ONE.double());
    out.extend((0..24).map(|_| Fe::reduce(&limbs_from(&mut seed))));
    out
}

fn check_modulus<M: Modulus<N>, const N: usize>() {
    let mut ctx = BigNumContext::new().expect("ctx");
    let p = bn(&limbs::to_be_bytes(&M::P));
    assert_eq!(M::P[0].wrapping_mul(M::INV), u64::MAX, "P·INV = −1 mod 2⁶⁴");
    assert_eq!(Fe::<M, N>::ONE.to_canonical(), limbs::small(1));
    let one = Fe::<M, N>::ONE;
    let xs = samples::<M, N>();
    for (i, &a) in xs.iter().enumerate() {
        let b = xs[(i * 7 + 3) % xs.len()];
        let (a_bn, b_bn) = (bn(&a.to_be_bytes()), bn(&b.to_be_bytes()));
        let mut want = BigNum::new().expect("bn");
        want.mod_mul(&a_bn, &b_bn, &p, &mut ctx).expect("mod_mul");
        assert_eq!((a * b).to_be_bytes(), padded::<N>(&want), "a·b");
        want.mod_add(&a_bn, &b_bn, &p, &mut ctx).expect("mod_add");
        assert_eq!((a + b).to_be_bytes(), padded::<N>(&want), "a + b");
        want.mod_sub(&a_bn, &b_bn, &p, &mut ctx).expect("mod_sub");
        assert_eq!((a - b).to_be_bytes(), padded::<N>(&want), "a − b");
        assert_eq!((a + b).square(), a.square() + (a * b).double() + b.square());
        assert_eq!(a + (-a), Fe::ZERO);
        if !a.is_zero() {
            assert_eq!(a * a.invert(), one, "a·a⁻¹");
            let p_minus_2 = limbs::sub(&M::P, &limbs::small(2)).0;
            assert_eq!(a.invert(), pow(a, &p_minus_2), "a⁻¹ = a^(p−2)");
            assert_eq!(a.square(), a * a, "a² = a·a");
        }
        assert_eq!(
            Fe::<M, N>::from_be_bytes(&a.to_be_bytes()),
            Some(a),
            "bytes"
        );
        let raw = limbs::from_be_bytes::<N>(&b.to_be_bytes()).expect("limbs");
        assert_eq!(
            a.mul_canonical(&raw),
            (a * b).to_canonical(),
            "mul_canonical"
        );
    }
    assert_eq!(Fe::<M, N>::ZERO.invert(), Fe::ZERO);
}

fn check_edges<M: Modulus<N>, const N: usize>() {
    let mut ctx = BigNumContext::new().expect("ctx");
    let p_bytes = limbs::to_be_bytes(&M::P);
    let p = bn(&p_bytes);
    let minus_one = limbs::sub(&M::P, &limbs::small(1)).0;
    assert_eq!(
        Fe::<M, N>::from_be_bytes(&p_bytes),
        None,
        "p is not a field element"
    );
    assert_eq!(
        Fe::<M, N>::from_be_bytes(&[0xff; 64][..8 * N]),
        None,
        "2^(64N) − 1"
    );
    assert_eq!(
        Fe::<M, N>::from_be_bytes(&vec![0; 8 * N + 1]),
        None,
        "too long"
    );
    let top = Fe::<M, N>::new(&minus_one).expect("p − 1");
    assert_eq!(top, -Fe::ONE);
    assert_eq!(top + Fe::ONE, Fe::ZERO);
    assert_eq!(top.square(), Fe::ONE, "(p − 1)² = 1");
    assert_eq!(
        Fe::<M, N>::from_be_bytes(&[1]),
        Some(Fe::ONE),
        "short input"
    );
    assert_eq!(Fe::<M, N>::reduce(&M::P), Fe::ZERO);
    let max = [u64::MAX; N];
    let mut want = BigNum::new().expect("bn");
    want.nnmod(&bn(&limbs::to_be_bytes(&max)), &p, &mut ctx)
        .expect("nnmod");
    assert_eq!(
        Fe::<M, N>::reduce(&max).to_be_bytes(),
        padded::<N>(&want),
        "reduce"
    );
}

/// Inversion on many values: pseudo-random ones, every power of two, and p − k, k small.
fn check_inversion<M: Modulus<N>, const N: usize>() {
    let mut seed = 0x2545_f491_4f6c_dd1d;
    let mut values: Vec<[u64; N]> = (0..300).map(|_| limbs_from(&mut seed)).collect();
    values.extend((0..64 * N).map(|bit| {
        let mut x = [0u64; N];
        x[bit / 64] = 1 << (bit % 64);
        x
    }));
    values.extend((1..40).map(|k| limbs::sub(&M::P, &limbs::small(k)).0));
    for x in values {
        let a = Fe::<M, N>::reduce(&x);
        if !a.is_zero() {
            assert_eq!(a * a.invert(), Fe::ONE, "{x:016x?}");
        }
    }
}

macro_rules! modulus_tests {
    ($($name:ident: $m:ty, $n:literal;)*) => {$(
        #[test]
        fn $name() {
            check_modulus::<$m, $n>();
            check_edges::<$m, $n>();
            check_inversion::<$m, $n>();
        }
    )*};
}

modulus_tests! {
    p256_field: P256Fp, 4;
    p256_scalars: P256Fn, 4;
    p384_field: P384Fp, 6;
    p384_scalars: P384Fn, 6;
    bp256_field: Bp256Fp, 4;
    bp256_scalars: Bp256Fn, 4;
    bp384_field: Bp384Fp, 6;
    bp384_scalars: Bp384Fn, 6;
}

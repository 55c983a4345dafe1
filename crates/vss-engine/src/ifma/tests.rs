//! The lanes' arithmetic against plain integer arithmetic, and the verifier's own verdicts
//! (before any library fallback) on valid, invalid and exceptional signatures. These tests
//! are ignored, with the reason, where the CPU that built them has no AVX-512 IFMA
//! (build.rs); run on such a CPU anyway, they fail.

use vss_crypto::{Curve, HashAlg, PrivateKey};

use super::field::{gather_lanes, scatter_lanes, Fe, Field, Modulus};
use super::scalar::{self, U256};
use super::verify::{self, CurveParams, Lane};
use super::{available, lane};
use crate::{staging, VerifyJob};

/// Runs `check`, which needs AVX-512 IFMA; fails on a CPU without it.
fn on_ifma(check: impl FnOnce()) {
    assert!(
        available(),
        "this CPU has no AVX-512 IFMA (the test was built on one that has, or run with --include-ignored)"
    );
    check();
}

fn random_below(m: &U256) -> U256 {
    loop {
        let mut bytes = [0u8; 32];
        vss_crypto::random_bytes(&mut bytes).expect("random");
        let v = scalar::from_be(&bytes);
        if scalar::lt(&v, m) {
            return v;
        }
    }
}

fn add_mod(a: &U256, b: &U256, m: &U256) -> U256 {
    let (s, carry) = scalar::add(a, b);
    if carry || !scalar::lt(&s, m) {
        scalar::sub(&s, m).0
    } else {
        s
    }
}

/// `a·b mod m` by shifts and additions: the reference.
fn mul_mod(a: &U256, b: &U256, m: &U256) -> U256 {
    let mut acc = [0u64; 4];
    for bit in (0..256).rev() {
        acc = add_mod(&acc, &acc, m);
        if (b[bit / 64] >> (bit % 64)) & 1 == 1 {
            acc = add_mod(&acc, a, m);
        }
    }
    acc
}

/// Eight lanes of values below m, as integers.
fn lanes_of(values: &[U256]) -> [U256; 8] {
    std::array::from_fn(|i| values[i % values.len()])
}

#[target_feature(enable = "avx512f,avx512ifma")]
fn check_field(m: &U256) {
    let field = Field::new(&Modulus::new(m));
    let m_minus_1 = scalar::sub(m, &[1, 0, 0, 0]).0;
    let edges = [[0u64; 4], [1, 0, 0, 0], m_minus_1, [2, 0, 0, 0]];
    for round in 0..40 {
        let a: [U256; 8] = if round == 0 {
            lanes_of(&edges)
        } else {
            std::array::from_fn(|_| random_below(m))
        };
        let b: [U256; 8] = std::array::from_fn(|_| random_below(m));
        let fa = field.to_mont(&gather_lanes(&a.map(|v| scalar::to_limbs(&v))));
        let fb = field.to_mont(&gather_lanes(&b.map(|v| scalar::to_limbs(&v))));
        let out = |x: Fe| scatter_lanes(&field.out_of_mont(&x)).map(|l| scalar::from_limbs(&l));

        let product = out(field.mul(&fa, &fb));
        let square = out(field.sqr(&fa));
        let sum = out(field.add(&fa, &fb));
        let difference = out(field.sub(&fa, &fb));
        // A lazy sum or difference (below 4m) is a valid input of a product.
        let lazy = out(field.mul(&field.add_lazy(&fa, &fb), &field.sub_lazy(&fa, &fb)));
        let inverse = out(field.mul(&field.invert(&fa), &fa));
        let half = field.half(&fa);
        let twice_half = out(field.add(&half, &half));
        for lane in 0..8 {
            let (x, y) = (&a[lane], &b[lane]);
            assert_eq!(product[lane], mul_mod(x, y, m), "a·b");
            assert_eq!(square[lane], mul_mod(x, x, m), "a²");
            assert_eq!(sum[lane], add_mod(x, y, m), "a + b");
            let minus_y = scalar::sub(m, y).0;
            assert_eq!(difference[lane], add_mod(x, &minus_y, m), "a − b");
            let lazy_expected = mul_mod(&add_mod(x, y, m), &add_mod(x, &minus_y, m), m);
            assert_eq!(lazy[lane], lazy_expected, "(a + b)(a − b)");
            let expected_inverse = if *x == [0; 4] { [0; 4] } else { [1, 0, 0, 0] };
            assert_eq!(inverse[lane], expected_inverse, "a·a⁻¹");
            assert_eq!(twice_half[lane], *x, "a/2 + a/2");
        }
        let equal = field.eq(&field.add(&fa, &field.neg(&fb)), &field.sub(&fa, &fb));
        assert_eq!(equal, 0xff, "a + (−b) = a − b");
    }
}

#[test]
#[cfg_attr(
    not(vss_avx512ifma),
    ignore = "no AVX-512 IFMA on the CPU that built the tests"
)]
fn lane_arithmetic_matches_integer_arithmetic_modulo_both_primes_and_orders() {
    on_ifma(|| {
        for params in [CurveParams::p256(), CurveParams::bp256()] {
            for m in [params.p(), params.n()] {
                // SAFETY: `on_ifma` checked that the CPU has AVX-512 F and IFMA.
                unsafe { check_field(m) };
            }
        }
    });
}

/// The lanes of `jobs`, all of which must pass staging.
fn staged_lanes(jobs: &[VerifyJob<'_>]) -> Vec<Lane> {
    let mut verdicts = vec![false; jobs.len()];
    let staged = staging::stage(jobs, &mut verdicts, staging::KeyCheck::Library).jobs;
    assert_eq!(staged.len(), jobs.len(), "every job is in range");
    staged.iter().map(lane).collect()
}

/// Lanes for `count` signatures of random digests by one random key, with the digests
/// changed after signing when `tamper`.
fn signed_lanes(curve: Curve, count: usize, tamper: bool) -> Vec<Lane> {
    let key = PrivateKey::generate(curve).expect("key");
    let signed: Vec<(Vec<u8>, Vec<u8>)> = (0..count)
        .map(|i| {
            let mut digest = HashAlg::Sha256.digest(&i.to_be_bytes());
            let signature = key.sign_digest(&digest).expect("sign");
            if tamper {
                digest[i % 32] ^= 1;
            }
            (digest, signature.to_p1363().to_vec())
        })
        .collect();
    let jobs: Vec<VerifyJob<'_>> = signed
        .iter()
        .map(|(digest, signature)| VerifyJob {
            curve,
            public_key: key.public_key().to_sec1_uncompressed(),
            digest,
            signature,
        })
        .collect();
    staged_lanes(&jobs)
}

#[test]
#[cfg_attr(
    not(vss_avx512ifma),
    ignore = "no AVX-512 IFMA on the CPU that built the tests"
)]
fn the_lanes_decide_valid_and_invalid_signatures_themselves() {
    on_ifma(|| {
        for curve in [Curve::P256, Curve::Bp256] {
            let params = super::params(curve);
            for tamper in [false, true] {
                let lanes = signed_lanes(curve, 21, tamper);
                // SAFETY: `on_ifma` checked that the CPU has AVX-512 F and IFMA.
                let groups = unsafe { verify::verify_lanes(params, &lanes) };
                assert_eq!(groups.len(), 3);
                for group in &groups {
                    assert_eq!(
                        group.exceptional, 0,
                        "{curve:?}: no lane left to the library"
                    );
                    assert_eq!(group.valid, if tamper { 0 } else { 0xff }, "{curve:?}");
                }
            }
        }
    });
}

#[test]
#[cfg_attr(
    not(vss_avx512ifma),
    ignore = "no AVX-512 IFMA on the CPU that built the tests"
)]
fn equal_and_opposite_sums_are_left_to_the_library() {
    on_ifma(|| {
        for curve in [Curve::P256, Curve::Bp256] {
            let params = super::params(curve);
            // Q = G (private key 1): with e = r, u1 = u2 and u1·G = u2·Q; with e = n − r,
            // u1·G = −u2·Q and the sum is the point at infinity.
            let one = PrivateKey::from_scalar(curve, &[1]).expect("key 1");
            let q = one.public_key().to_sec1_compressed().to_vec();
            let r = random_below(params.n());
            let s = random_below(params.n());
            let be = |v: &U256| {
                let mut out = [0u8; 32];
                for (i, w) in v.iter().enumerate() {
                    out[32 - 8 * (i + 1)..32 - 8 * i].copy_from_slice(&w.to_be_bytes());
                }
                out
            };
            let signature = [be(&r), be(&s)].concat();
            let digests = [be(&r), be(&scalar::sub(params.n(), &r).0)];
            let jobs: Vec<VerifyJob<'_>> = digests
                .iter()
                .map(|digest| VerifyJob {
                    curve,
                    public_key: &q,
                    digest,
                    signature: &signature,
                })
                .collect();
            let lanes = staged_lanes(&jobs);
            // SAFETY: `on_ifma` checked that the CPU has AVX-512 F and IFMA.
            let groups = unsafe { verify::verify_lanes(params, &lanes) };
            assert_eq!(groups[0].exceptional & 0b11, 0b11, "{curve:?}");
            assert_eq!(groups[0].valid & 0b11, 0, "{curve:?}");
            let mut verdicts = vec![true; jobs.len()];
            super::verify(&jobs, &mut verdicts);
            let library: Vec<bool> = jobs.iter().map(VerifyJob::verify_one).collect();
            assert_eq!(verdicts, library, "{curve:?}");
        }
    });
}

//! The GPU kernel's arithmetic, built for the host, against OpenSSL on both of its curves:
//! constants, field and scalar operations on random and edge values, point addition,
//! doubling and multiplication (the point at infinity, P + P, P + (−P)), u1·G + u2·Q; then
//! whole verifications against the library's verdict on valid signatures and every kind of
//! invalid one, including sums built to meet the point at infinity, to double, or to land
//! on an x(R) above n.

use openssl::bn::{BigNum, BigNumContext, BigNumRef};
use openssl::ec::{EcGroup, EcPoint, EcPointRef};
use openssl::nid::Nid;
use vss_crypto::{Curve, PrivateKey};
use vss_engine::kernel::{
    limbs_from_be, limbs_to_be, AffinePoint, JacobianPoint, KernelCurve, Limbs, Modulus,
};
use vss_engine::{HostKernelEngine, KeyTableConfig, VerifyEngine, VerifyJob};

mod common;

use common::{constructed, mixed_batch, valid_cases, Case};

const CURVES: [(Curve, Nid); 2] = [
    (Curve::P256, Nid::X9_62_PRIME256V1),
    (Curve::Bp256, Nid::BRAINPOOL_P256R1),
];

/// Everything OpenSSL knows about one curve, and the kernel's curve.
struct Setup {
    kernel: &'static KernelCurve,
    group: EcGroup,
    p: BigNum,
    n: BigNum,
    ctx: BigNumContext,
}

impl Setup {
    fn new(curve: Curve, nid: Nid) -> Setup {
        let group = EcGroup::from_curve_name(nid).expect("group");
        let mut ctx = BigNumContext::new().expect("ctx");
        let (mut p, mut a, mut b, mut n) = (bn(0), bn(0), bn(0), bn(0));
        group
            .components_gfp(&mut p, &mut a, &mut b, &mut ctx)
            .expect("components");
        group.order(&mut n, &mut ctx).expect("order");
        Setup {
            kernel: KernelCurve::get(curve).expect("a kernel curve"),
            group,
            p,
            n,
            ctx,
        }
    }

    fn random_below(&self, m: &BigNumRef) -> BigNum {
        let mut x = bn(0);
        m.rand_range(&mut x).expect("rand");
        x
    }

    /// k·G by OpenSSL.
    fn mul_g(&mut self, k: &BigNumRef) -> EcPoint {
        common::generator_mul(&self.group, k, &mut self.ctx)
    }

    /// The plain affine coordinates of an OpenSSL point; `None` for the point at infinity.
    fn coordinates(&mut self, point: &EcPointRef) -> Option<(Limbs, Limbs)> {
        if point.is_infinity(&self.group) {
            return None;
        }
        let (mut x, mut y) = (bn(0), bn(0));
        point
            .affine_coordinates(&self.group, &mut x, &mut y, &mut self.ctx)
            .expect("affine");
        Some((limbs(&x), limbs(&y)))
    }

    /// The OpenSSL point as the kernel's affine point.
    fn affine(&mut self, point: &EcPointRef) -> AffinePoint {
        let (x, y) = self.coordinates(point).expect("not infinity");
        self.kernel.point(&x, &y)
    }

    /// The OpenSSL point in Jacobian coordinates with a random Z (X = xZ², Y = yZ³), or
    /// the kernel's infinity.
    fn jacobian(&mut self, point: &EcPointRef) -> JacobianPoint {
        if point.is_infinity(&self.group) {
            return self.kernel.infinity();
        }
        let q = self.affine(point);
        let f = self.kernel.params().field();
        let z = f.to_montgomery(&limbs(&(self.random_below(&self.p.to_owned().expect("p")))));
        let z = if z == [0; 8] { f.one() } else { z };
        let z2 = f.mul(&z, &z);
        let z3 = f.mul(&z2, &z);
        JacobianPoint {
            x: f.mul(&q.x, &z2),
            y: f.mul(&q.y, &z3),
            z,
        }
    }

    fn add(&mut self, a: &EcPointRef, b: &EcPointRef) -> EcPoint {
        common::point_add(&self.group, a, b, &mut self.ctx)
    }

    fn negate(&mut self, a: &EcPointRef) -> EcPoint {
        common::point_negate(&self.group, a, &mut self.ctx)
    }
}

fn copy(x: &BigNumRef) -> BigNum {
    x.to_owned().expect("copy")
}

fn bn(x: u32) -> BigNum {
    BigNum::from_u32(x).expect("bn")
}

fn limbs(x: &BigNumRef) -> Limbs {
    limbs_from_be(&x.to_vec()).expect("at most 256 bits")
}

fn big(x: &Limbs) -> BigNum {
    BigNum::from_slice(&limbs_to_be(x)).expect("bn")
}

fn mod_mul(a: &BigNumRef, b: &BigNumRef, m: &BigNumRef, ctx: &mut BigNumContext) -> BigNum {
    let mut r = bn(0);
    r.mod_mul(a, b, m, ctx).expect("mod_mul");
    r
}

fn mod_inv(a: &BigNumRef, m: &BigNumRef, ctx: &mut BigNumContext) -> BigNum {
    let mut r = bn(0);
    r.mod_inverse(a, m, ctx).expect("mod_inverse");
    r
}

fn mod_sub(a: &BigNumRef, b: &BigNumRef, m: &BigNumRef, ctx: &mut BigNumContext) -> BigNum {
    let mut r = bn(0);
    r.mod_sub(a, b, m, ctx).expect("mod_sub");
    r
}

/// 2^256.
fn two_256() -> BigNum {
    let mut r = bn(0);
    r.lshift(&bn(1), 256).expect("shift");
    r
}

#[test]
fn limbs_round_trip_through_bytes() {
    let bytes: Vec<u8> = (1..=32).collect();
    let x = limbs_from_be(&bytes).expect("32 bytes");
    assert_eq!(x[0], 0x1d1e1f20);
    assert_eq!(x[7], 0x01020304);
    assert_eq!(limbs_to_be(&x).to_vec(), bytes);
    assert_eq!(limbs_from_be(&[1, 2]), Some([0x0102, 0, 0, 0, 0, 0, 0, 0]));
    assert_eq!(limbs_from_be(&[0; 33]), None);
}

#[test]
fn constants_match_openssl() {
    for (curve, nid) in CURVES {
        let mut s = Setup::new(curve, nid);
        let params = s.kernel.params();
        assert_eq!(s.kernel.curve(), curve);
        let (mut p, mut a, mut b) = (bn(0), bn(0), bn(0));
        s.group
            .components_gfp(&mut p, &mut a, &mut b, &mut s.ctx)
            .expect("components");
        for (m, expected) in [(params.field(), &s.p), (params.order(), &s.n)] {
            assert_eq!(big(&m.modulus()), **expected, "{curve} modulus");
            let mut r = bn(0);
            r.nnmod(&two_256(), expected, &mut s.ctx).expect("mod");
            assert_eq!(big(&m.one()), r, "{curve} R mod m");
            assert_eq!(
                big(&m.r2()),
                mod_mul(&r, &r, expected, &mut s.ctx),
                "{curve} R^2"
            );
            assert_eq!(
                m.minv().wrapping_mul(m.modulus()[0]),
                u32::MAX,
                "{curve} -1/m"
            );
        }
        let f = params.field();
        assert_eq!(big(&f.from_montgomery(&params.a())), a, "{curve} a");
        assert_eq!(big(&f.from_montgomery(&params.b())), b, "{curve} b");
        assert_eq!(params.a_is_minus_3(), curve == Curve::P256);
        // P-256's field takes the reduction by shifts and adds; every other modulus the
        // generic one, so the arithmetic tests below cover both.
        assert_eq!(params.field().is_p256_prime(), curve == Curve::P256);
        assert!(!params.order().is_p256_prime());
        let g = s
            .group
            .generator_opt()
            .expect("G")
            .to_owned(&s.group)
            .expect("G");
        assert_eq!(s.affine(&g), params.generator(), "{curve} G");
        assert!(s.kernel.on_curve(&params.generator()));
    }
}

/// Checks every operation of `m` (modulus `modulus`) on `a`, `b` (below m) against OpenSSL.
fn check_modulus(m: &Modulus, modulus: &BigNumRef, a: &BigNumRef, b: &BigNumRef, what: &str) {
    let mut ctx = BigNumContext::new().expect("ctx");
    let r_inv = mod_inv(&two_256(), modulus, &mut ctx);
    let (la, lb) = (limbs(a), limbs(b));
    // The raw Montgomery product, and products through the Montgomery form.
    let raw = mod_mul(&mod_mul(a, b, modulus, &mut ctx), &r_inv, modulus, &mut ctx);
    assert_eq!(big(&m.mul(&la, &lb)), raw, "{what}: a b / R");
    let (ma, mb) = (m.to_montgomery(&la), m.to_montgomery(&lb));
    let product = m.from_montgomery(&m.mul(&ma, &mb));
    assert_eq!(
        big(&product),
        mod_mul(a, b, modulus, &mut ctx),
        "{what}: a b"
    );
    let mut sum = bn(0);
    sum.mod_add(a, b, modulus, &mut ctx).expect("add");
    assert_eq!(big(&m.add(&la, &lb)), sum, "{what}: a + b");
    assert_eq!(
        big(&m.sub(&la, &lb)),
        mod_sub(a, b, modulus, &mut ctx),
        "{what}: a - b"
    );
    let inverse = m.from_montgomery(&m.inv(&ma));
    if a.num_bits() == 0 {
        assert_eq!(inverse, [0; 8], "{what}: 1/0");
    } else {
        assert_eq!(big(&inverse), mod_inv(a, modulus, &mut ctx), "{what}: 1/a");
    }
}

#[test]
fn field_and_scalar_arithmetic_match_openssl() {
    for (curve, nid) in CURVES {
        let mut s = Setup::new(curve, nid);
        let params = s.kernel.params();
        for (m, modulus, name) in [(params.field(), &s.p, "p"), (params.order(), &s.n, "n")] {
            let what = format!("{curve} mod {name}");
            let mut edges = vec![bn(0), bn(1), bn(2)];
            for k in [1, 2] {
                let mut x = copy(modulus);
                x.sub_word(k).expect("sub");
                edges.push(x);
            }
            edges.push(big(&m.one()));
            let mut half = bn(0);
            half.rshift1(modulus).expect("half");
            edges.push(half);
            for a in &edges {
                for b in &edges {
                    check_modulus(m, modulus, a, b, &what);
                }
            }
            for _ in 0..600 {
                let (a, b) = (s.random_below(modulus), s.random_below(modulus));
                check_modulus(m, modulus, &a, &b, &what);
            }
            // The verifier's reduction of e (any value below 2^256) times a value below m.
            for _ in 0..200 {
                let e = s.random_below(&two_256());
                let w = s.random_below(modulus);
                let r_inv = mod_inv(&two_256(), modulus, &mut s.ctx);
                let expected = mod_mul(
                    &mod_mul(&e, &w, modulus, &mut s.ctx),
                    &r_inv,
                    modulus,
                    &mut s.ctx,
                );
                assert_eq!(
                    big(&m.mul(&limbs(&e), &limbs(&w))),
                    expected,
                    "{what}: e w / R"
                );
            }
            let all_ones = [u32::MAX; 8];
            let r_inv = mod_inv(&two_256(), modulus, &mut s.ctx);
            let mut top = two_256();
            top.sub_word(1).expect("sub");
            let expected = mod_mul(
                &mod_mul(&top, &bn(7), modulus, &mut s.ctx),
                &r_inv,
                modulus,
                &mut s.ctx,
            );
            assert_eq!(
                big(&m.mul(&all_ones, &[7, 0, 0, 0, 0, 0, 0, 0])),
                expected,
                "{what}: (2^256-1) 7 / R"
            );
        }
    }
}

#[test]
fn point_arithmetic_matches_openssl() {
    for (curve, nid) in CURVES {
        let mut s = Setup::new(curve, nid);
        let k = s.kernel;
        let infinity = EcPoint::new(&s.group).expect("infinity");
        for round in 0..120 {
            let (a, b) = (
                s.random_below(&s.n.to_owned().expect("n")),
                s.random_below(&s.n.to_owned().expect("n")),
            );
            let pa = s.mul_g(&a);
            let pb = s.mul_g(&b);
            let minus_a = s.negate(&pa);
            let (ja, jb) = (s.jacobian(&pa), s.jacobian(&pb));
            let (aa, ab) = (s.affine(&pa), s.affine(&pb));
            assert!(k.on_curve(&aa));

            let sum = s.add(&pa, &pb);
            let expected = s.coordinates(&sum);
            assert_eq!(k.coordinates(&k.add(&ja, &jb)), expected, "{curve} P + Q");
            assert_eq!(
                k.coordinates(&k.add_mixed(&ja, &ab)),
                expected,
                "{curve} P + Q mixed"
            );
            let twice = s.add(&pa, &pa);
            let expected = s.coordinates(&twice);
            assert_eq!(k.coordinates(&k.double(&ja)), expected, "{curve} 2P");
            let ja2 = s.jacobian(&pa);
            assert_eq!(k.coordinates(&k.add(&ja, &ja2)), expected, "{curve} P + P");
            assert_eq!(
                k.coordinates(&k.add_mixed(&ja, &aa)),
                expected,
                "{curve} P + P mixed"
            );
            let jminus = s.jacobian(&minus_a);
            let aminus = s.affine(&minus_a);
            assert_eq!(k.coordinates(&k.add(&ja, &jminus)), None, "{curve} P - P");
            assert_eq!(
                k.coordinates(&k.add_mixed(&ja, &aminus)),
                None,
                "{curve} P - P mixed"
            );
            let inf = k.infinity();
            let expected = s.coordinates(&pa);
            assert_eq!(k.coordinates(&k.add(&inf, &ja)), expected, "{curve} O + P");
            assert_eq!(k.coordinates(&k.add(&ja, &inf)), expected, "{curve} P + O");
            assert_eq!(
                k.coordinates(&k.add_mixed(&inf, &aa)),
                expected,
                "{curve} O + P mixed"
            );
            assert_eq!(k.coordinates(&k.add(&inf, &inf)), None, "{curve} O + O");
            assert_eq!(k.coordinates(&k.double(&inf)), None, "{curve} 2 O");
            assert!(s.coordinates(&infinity).is_none());

            // k Q with random, and edge, scalars; u1 G + u2 Q.
            let scalar = match round {
                0 => bn(0),
                1 => bn(1),
                2 => bn(2),
                3 => s.n.to_owned().expect("n"),
                4 => {
                    let mut x = s.n.to_owned().expect("n");
                    x.sub_word(1).expect("sub");
                    x
                }
                5 => {
                    let mut x = two_256();
                    x.sub_word(1).expect("sub");
                    x
                }
                _ => s.random_below(&two_256()),
            };
            let mut expected = EcPoint::new(&s.group).expect("point");
            expected
                .mul2(&s.group, &pb, &scalar, &mut s.ctx)
                .expect("mul");
            let expected = s.coordinates(&expected);
            assert_eq!(
                k.coordinates(&k.mul(&limbs(&scalar), &ab)),
                expected,
                "{curve} k Q ({round})"
            );

            let u1 = if round == 7 {
                bn(0)
            } else {
                s.random_below(&s.n.to_owned().expect("n"))
            };
            let u2 = s.random_below(&s.n.to_owned().expect("n"));
            let mut expected = EcPoint::new(&s.group).expect("point");
            expected
                .mul_full(&s.group, &u1, &pb, &u2, &mut s.ctx)
                .expect("mul_full");
            let expected = s.coordinates(&expected);
            assert_eq!(
                k.coordinates(&k.mul_add(&limbs(&u1), &limbs(&u2), &ab)),
                expected,
                "{curve} u1 G + u2 Q"
            );

            // u1 G = -u2 Q (Q = b G, u1 = -u2 b): the point at infinity.
            let n = s.n.to_owned().expect("n");
            let u2b = mod_mul(&u2, &b, &n, &mut s.ctx);
            let u1 = mod_sub(&bn(0), &u2b, &n, &mut s.ctx);
            assert_eq!(
                k.coordinates(&k.mul_add(&limbs(&u1), &limbs(&u2), &ab)),
                None,
                "{curve} u1 G = -u2 Q"
            );
            // u1 G = u2 Q: 2 u1 G.
            let twice_u1 = mod_mul(&u2b, &bn(2), &n, &mut s.ctx);
            let twice = s.mul_g(&twice_u1);
            let expected = s.coordinates(&twice);
            assert_eq!(
                k.coordinates(&k.mul_add(&limbs(&u2b), &limbs(&u2), &ab)),
                expected,
                "{curve} u1 G = u2 Q"
            );
        }
        // The table: d 2^(8w) G.
        for (w, d) in [
            (0usize, 1u32),
            (0, 255),
            (1, 1),
            (5, 77),
            (17, 128),
            (31, 1),
            (31, 255),
        ] {
            let mut scalar = bn(0);
            scalar.lshift(&bn(d), 8 * w as i32).expect("shift");
            let point = s.mul_g(&scalar);
            assert_eq!(
                s.affine(&point),
                k.g_table()[w * 255 + d as usize - 1],
                "{curve} table {w} {d}"
            );
        }
        // A prepared key's table: d 2^(8w) Q, the same layout.
        let q_scalar = s.random_below(&s.n);
        let q = s.mul_g(&q_scalar);
        let q = s.affine(&q);
        let table = k.table_of(&q);
        for (w, d) in [(0usize, 1u32), (0, 2), (3, 200), (31, 255)] {
            let mut scalar = bn(0);
            scalar.lshift(&bn(d), 8 * w as i32).expect("shift");
            let mut product = BigNum::new().expect("bn");
            product
                .mod_mul(&scalar, &q_scalar, &s.n, &mut s.ctx)
                .expect("mul");
            let expected = s.mul_g(&product);
            assert_eq!(
                s.affine(&expected),
                table[w * 255 + d as usize - 1],
                "{curve} key table {w} {d}"
            );
        }
    }
}

#[test]
fn the_kernel_agrees_with_the_library_on_valid_and_every_kind_of_invalid_signature() {
    for (curve, _) in CURVES {
        let mut all = mixed_batch(curve, 4, 40);
        all.extend(constructed(curve));
        // Other curves in the same batch go to the library.
        all.extend(valid_cases(Curve::P384, 1, 3));
        let mut bad = valid_cases(Curve::Bp384, 1, 2);
        bad[1].digest[0] ^= 1;
        bad[1].valid = false;
        all.extend(bad);
        let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
        let verdicts = HostKernelEngine::default().verify_batch(&jobs);
        assert_eq!(verdicts.len(), jobs.len());
        for (i, (case, verdict)) in all.iter().zip(&verdicts).enumerate() {
            assert_eq!(
                *verdict,
                case.job().verify_one(),
                "{curve} job {i}: the library"
            );
            assert_eq!(*verdict, case.valid, "{curve} job {i}");
        }
    }
}

#[test]
fn prepared_keys_give_the_generic_paths_verdicts() {
    // Every case twice, so each key signs at least two jobs and gets a table: valid
    // signatures and every kind of invalid one, and the sums built to meet the point at
    // infinity or land above n, through the prepared kernel.
    let engine = HostKernelEngine::with_key_tables(KeyTableConfig {
        slots: 64,
        prepare_after: 2,
    })
    .expect("config");
    for (curve, _) in CURVES {
        let mut all = mixed_batch(curve, 4, 20);
        all.extend(constructed(curve));
        let twice: Vec<&Case> = all.iter().chain(all.iter()).collect();
        let jobs: Vec<VerifyJob<'_>> = twice.iter().map(|c| c.job()).collect();
        let expected: Vec<bool> = twice.iter().map(|c| c.valid).collect();
        assert_eq!(HostKernelEngine::default().verify_batch(&jobs), expected);
        let before = engine.prepared_keys();
        assert_eq!(
            engine.verify_batch(&jobs),
            expected,
            "{curve}: tables built"
        );
        assert!(
            engine.prepared_keys() > before,
            "{curve}: no key was prepared"
        );
        // Again, the tables already there.
        assert_eq!(engine.verify_batch(&jobs), expected, "{curve}: tables kept");
    }
}

#[test]
fn keys_off_the_curve_never_get_a_table() {
    // Uncompressed keys reach the kernel unchecked (it checks them itself); one that is
    // not a point of the curve must never get a table, which the prepared kernel trusts.
    let engine = HostKernelEngine::with_key_tables(KeyTableConfig {
        slots: 8,
        prepare_after: 2,
    })
    .expect("config");
    for (curve, _) in CURVES {
        let valid = valid_cases(curve, 1, 4);
        let p = KernelCurve::get(curve)
            .expect("kernel curve")
            .params()
            .field()
            .modulus();
        let mut off_curve = valid[0].key.clone();
        let last = off_curve.len() - 1;
        off_curve[last] ^= 1;
        let mut x_above_p = valid[0].key.clone();
        x_above_p[1..33].copy_from_slice(&limbs_to_be(&p));
        let mut y_above_p = valid[0].key.clone();
        y_above_p[33..].copy_from_slice(&[0xff; 32]);
        for key in [off_curve, x_above_p, y_above_p] {
            let cases: Vec<Case> = valid
                .iter()
                .map(|c| Case {
                    curve,
                    key: key.clone(),
                    digest: c.digest.clone(),
                    signature: c.signature.clone(),
                    valid: false,
                })
                .collect();
            let jobs: Vec<VerifyJob<'_>> = cases.iter().map(Case::job).collect();
            assert_eq!(engine.verify_batch(&jobs), vec![false; jobs.len()]);
            assert_eq!(engine.prepared_keys(), 0, "{curve}: a bad key got a table");
        }
    }
}

#[test]
fn more_busy_keys_than_slots_share_them() {
    // Five signers, two slots: three signers take the generic path in each batch, and the
    // slots change hands between batches; every verdict stays right.
    let engine = HostKernelEngine::with_key_tables(KeyTableConfig {
        slots: 2,
        prepare_after: 3,
    })
    .expect("config");
    let all = mixed_batch(Curve::P256, 5, 8);
    let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
    let expected: Vec<bool> = all.iter().map(|c| c.valid).collect();
    for round in 0..3 {
        let part = &jobs[round * 7..];
        assert_eq!(
            engine.verify_batch(part),
            expected[round * 7..],
            "round {round}"
        );
        assert_eq!(engine.prepared_keys(), 2);
    }
    assert!(HostKernelEngine::with_key_tables(KeyTableConfig {
        slots: 1,
        prepare_after: 1,
    })
    .is_none());
}

#[test]
fn the_kernel_itself_refuses_out_of_range_scalars_and_keys_off_the_curve() {
    for (curve, nid) in CURVES {
        let s = Setup::new(curve, nid);
        let k = s.kernel;
        let key = PrivateKey::generate(curve).expect("key");
        let digest = curve.default_hash().digest(b"range");
        let signature = key.sign_digest(&digest).expect("sign").to_p1363().to_vec();
        let qx = limbs_from_be(key.public_key().x()).expect("x");
        let qy = limbs_from_be(key.public_key().y()).expect("y");
        let e = limbs_from_be(&digest).expect("e");
        let r = limbs_from_be(&signature[..32]).expect("r");
        let sig_s = limbs_from_be(&signature[32..]).expect("s");
        assert!(k.verify(&qx, &qy, &e, &r, &sig_s));
        let n = k.params().order().modulus();
        let p = k.params().field().modulus();
        let mut n_plus_1 = big(&n);
        n_plus_1.add_word(1).expect("add");
        let n_plus_1 = limbs(&n_plus_1);
        for bad in [[0u32; 8], n, n_plus_1, [u32::MAX; 8]] {
            assert!(!k.verify(&qx, &qy, &e, &bad, &sig_s), "{curve} r");
            assert!(!k.verify(&qx, &qy, &e, &r, &bad), "{curve} s");
        }
        let mut y_off = qy;
        y_off[0] ^= 1;
        assert!(
            !k.verify(&qx, &y_off, &e, &r, &sig_s),
            "{curve} off the curve"
        );
        // y + p is the same residue, but not a reduced coordinate.
        let mut y_plus_p = big(&qy);
        y_plus_p.checked_add(&big(&qy), &s.p).expect("add");
        if y_plus_p.num_bits() <= 256 {
            assert!(
                !k.verify(&qx, &limbs(&y_plus_p), &e, &r, &sig_s),
                "{curve} y + p"
            );
        }
        assert!(!k.verify(&p, &qy, &e, &r, &sig_s), "{curve} x = p");
        // e + n is the same scalar: the kernel reduces e.
        let mut e_plus_n = big(&e);
        e_plus_n.checked_add(&big(&e), &s.n).expect("add");
        if e_plus_n.num_bits() <= 256 {
            assert!(
                k.verify(&qx, &qy, &limbs(&e_plus_n), &r, &sig_s),
                "{curve} e + n"
            );
        }
    }
}

#[test]
fn empty_and_single_batches() {
    assert!(HostKernelEngine::default().verify_batch(&[]).is_empty());
    assert_eq!(HostKernelEngine::default().name(), "kernel-host");
    let one = valid_cases(Curve::Bp256, 1, 1);
    assert_eq!(
        HostKernelEngine::default().verify_batch(&[one[0].job()]),
        [true]
    );
}

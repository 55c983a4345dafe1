//! Jobs shared by the engine tests: valid signatures from several signers, every kind of
//! invalid job made from them, and signatures built with OpenSSL so that a verifier's sum
//! u1·G + u2·Q meets the point at infinity, goes through a doubling, or has x(R) ≥ n.

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use openssl::bn::{BigNum, BigNumContext, BigNumContextRef, BigNumRef};
use openssl::ec::{EcGroup, EcGroupRef, EcPoint, EcPointRef, PointConversionForm};
use openssl::nid::Nid;
use vss_crypto::{Curve, HashAlg, PrivateKey};
use vss_engine::{CpuEngine, CpuPath, VerifyJob};

/// Owned bytes of one job, and whether it must verify.
pub struct Case {
    pub curve: Curve,
    pub key: Vec<u8>,
    pub digest: Vec<u8>,
    pub signature: Vec<u8>,
    pub valid: bool,
}

impl Case {
    /// The job borrowing this case's bytes.
    pub fn job(&self) -> VerifyJob<'_> {
        VerifyJob {
            curve: self.curve,
            public_key: &self.key,
            digest: &self.digest,
            signature: &self.signature,
        }
    }
}

/// The CPU engine on `path` with `threads` threads. The tests of the AVX-512 IFMA path are
/// ignored where the CPU that built them has no IFMA (build.rs); run on one anyway, they fail
/// here.
pub fn cpu_engine(threads: usize, path: CpuPath) -> CpuEngine {
    CpuEngine::with_path(threads, path).unwrap_or_else(|| {
        panic!(
            "the {} path is not on this CPU (the test was built on one that has it, or run with --include-ignored)",
            path.name()
        )
    })
}

/// Valid signatures of `per_signer` digests by each of `signers` keys: keys alternately
/// uncompressed and compressed; digests of the curve's hash, of SHA-384 (longer than the
/// order) and of 20 bytes (shorter).
pub fn valid_cases(curve: Curve, signers: usize, per_signer: usize) -> Vec<Case> {
    let mut out = Vec::new();
    for k in 0..signers {
        let key = PrivateKey::generate(curve).expect("key");
        for i in 0..per_signer {
            let message = format!("message {k}/{i}");
            let digest = match i % 4 {
                0 => HashAlg::Sha384.digest(message.as_bytes()),
                1 => HashAlg::Sha256.digest(message.as_bytes())[..20].to_vec(),
                _ => curve.default_hash().digest(message.as_bytes()),
            };
            let signature = key.sign_digest(&digest).expect("sign").to_p1363().to_vec();
            let public = if i % 2 == 0 {
                key.public_key().to_sec1_uncompressed().to_vec()
            } else {
                key.public_key().to_sec1_compressed().to_vec()
            };
            out.push(Case {
                curve,
                key: public,
                digest,
                signature,
                valid: true,
            });
        }
    }
    out
}

/// The group order of `curve` (big-endian, the curve's scalar length).
pub fn order(curve: Curve) -> Vec<u8> {
    let mut ctx = BigNumContext::new().expect("ctx");
    let mut n = BigNum::new().expect("bn");
    group(curve).order(&mut n, &mut ctx).expect("order");
    n.to_vec_padded(curve.scalar_len() as i32).expect("pad")
}

fn group(curve: Curve) -> EcGroup {
    let nid = match curve {
        Curve::P256 => Nid::X9_62_PRIME256V1,
        Curve::Bp256 => Nid::BRAINPOOL_P256R1,
        Curve::P384 => Nid::SECP384R1,
        Curve::Bp384 => Nid::BRAINPOOL_P384R1,
        other => panic!("no ECDSA test group for {other:?}"),
    };
    EcGroup::from_curve_name(nid).expect("group")
}

/// Every kind of invalid job made from the valid `case` and another signer's key: r, s or
/// the digest changed; the other key; r or s zero, n, n + 1 or all ones; a key off the
/// curve; a truncated key or signature; an empty key.
pub fn broken(case: &Case, other_key: &[u8]) -> Vec<Case> {
    let len = case.signature.len() / 2;
    let with = |key: &[u8], digest: &[u8], signature: Vec<u8>| Case {
        curve: case.curve,
        key: key.to_vec(),
        digest: digest.to_vec(),
        signature,
        valid: false,
    };
    let (r, s) = case.signature.split_at(len);
    let mut flipped_r = case.signature.clone();
    flipped_r[3] ^= 0x10;
    let mut flipped_s = case.signature.clone();
    flipped_s[len + 5] ^= 0x01;
    let mut digest = case.digest.clone();
    digest[0] ^= 0x80;
    let mut off_curve = PrivateKey::generate(case.curve)
        .expect("key")
        .public_key()
        .to_sec1_uncompressed()
        .to_vec();
    let last = off_curve.len() - 1;
    off_curve[last] ^= 0x01;
    let n = order(case.curve);
    let mut n_plus_1 = n.clone();
    n_plus_1[len - 1] += 1;
    let mut out = vec![
        with(&case.key, &case.digest, flipped_r),
        with(&case.key, &case.digest, flipped_s),
        with(&case.key, &digest, case.signature.clone()),
        with(other_key, &case.digest, case.signature.clone()),
        with(&off_curve, &case.digest, case.signature.clone()),
        with(
            &case.key[..case.key.len() - 1],
            &case.digest,
            case.signature.clone(),
        ),
        with(&case.key, &case.digest, case.signature[1..].to_vec()),
        with(&[], &case.digest, case.signature.clone()),
    ];
    for bad in [vec![0u8; len], vec![0xffu8; len], n, n_plus_1] {
        out.push(with(&case.key, &case.digest, [&bad[..], s].concat()));
        out.push(with(&case.key, &case.digest, [r, &bad[..]].concat()));
    }
    out
}

/// Valid cases of `curve` with broken copies of every tenth mixed in (three valid, one
/// broken, in turn), so every share of a batch mixes signers, kinds and verdicts.
pub fn mixed_batch(curve: Curve, signers: usize, per_signer: usize) -> Vec<Case> {
    let valid = valid_cases(curve, signers, per_signer);
    let mut bad: Vec<Case> = Vec::new();
    for (i, case) in valid.iter().enumerate() {
        if i % 10 == 0 {
            bad.extend(broken(case, &valid[(i + per_signer) % valid.len()].key));
        }
    }
    let mut out = Vec::with_capacity(valid.len() + bad.len());
    let mut bad = bad.into_iter();
    for (i, case) in valid.into_iter().enumerate() {
        out.push(case);
        if i % 3 == 2 {
            out.extend(bad.next());
        }
    }
    out.extend(bad);
    out
}

/// k·G by OpenSSL.
pub fn generator_mul(group: &EcGroupRef, k: &BigNumRef, ctx: &mut BigNumContextRef) -> EcPoint {
    let mut point = EcPoint::new(group).expect("point");
    point.mul_generator2(group, k, ctx).expect("mul");
    point
}

/// a + b by OpenSSL.
pub fn point_add(
    group: &EcGroupRef,
    a: &EcPointRef,
    b: &EcPointRef,
    ctx: &mut BigNumContextRef,
) -> EcPoint {
    let mut sum = EcPoint::new(group).expect("point");
    sum.add(group, a, b, ctx).expect("add");
    sum
}

/// −a by OpenSSL.
pub fn point_negate(group: &EcGroupRef, a: &EcPointRef, ctx: &mut BigNumContextRef) -> EcPoint {
    let mut minus = a.to_owned(group).expect("copy");
    minus.invert2(group, ctx).expect("invert");
    minus
}

/// OpenSSL's arithmetic on one curve, for building signatures from scalars.
struct Group {
    group: EcGroup,
    n: BigNum,
    ctx: BigNumContext,
}

impl Group {
    fn new(curve: Curve) -> Group {
        let group = group(curve);
        let mut ctx = BigNumContext::new().expect("ctx");
        let mut n = BigNum::new().expect("bn");
        group.order(&mut n, &mut ctx).expect("order");
        Group { group, n, ctx }
    }

    fn random_scalar(&self) -> BigNum {
        let mut x = BigNum::new().expect("bn");
        self.n.rand_range(&mut x).expect("rand");
        x
    }

    fn mul_g(&mut self, k: &BigNumRef) -> EcPoint {
        generator_mul(&self.group, k, &mut self.ctx)
    }

    fn mul(&mut self, point: &EcPointRef, k: &BigNumRef) -> EcPoint {
        let mut out = EcPoint::new(&self.group).expect("point");
        out.mul2(&self.group, point, k, &mut self.ctx).expect("mul");
        out
    }

    fn add(&mut self, a: &EcPointRef, b: &EcPointRef) -> EcPoint {
        point_add(&self.group, a, b, &mut self.ctx)
    }

    fn negate(&mut self, a: &EcPointRef) -> EcPoint {
        point_negate(&self.group, a, &mut self.ctx)
    }

    fn x(&mut self, point: &EcPointRef) -> BigNum {
        let (mut x, mut y) = (BigNum::new().expect("bn"), BigNum::new().expect("bn"));
        point
            .affine_coordinates(&self.group, &mut x, &mut y, &mut self.ctx)
            .expect("affine");
        x
    }

    fn mod_n(&mut self, op: impl FnOnce(&mut BigNum, &BigNumRef, &mut BigNumContext)) -> BigNum {
        let mut r = BigNum::new().expect("bn");
        op(&mut r, &self.n, &mut self.ctx);
        r
    }

    fn mul_n(&mut self, a: &BigNumRef, b: &BigNumRef) -> BigNum {
        self.mod_n(|r, n, ctx| r.mod_mul(a, b, n, ctx).expect("mod_mul"))
    }

    fn inv_n(&mut self, a: &BigNumRef) -> BigNum {
        self.mod_n(|r, n, ctx| r.mod_inverse(a, n, ctx).expect("mod_inverse"))
    }

    fn neg_n(&mut self, a: &BigNumRef) -> BigNum {
        let zero = BigNum::new().expect("bn");
        self.mod_n(|r, n, ctx| r.mod_sub(&zero, a, n, ctx).expect("mod_sub"))
    }

    fn case(&mut self, curve: Curve, q: &EcPointRef, e: &BigNumRef, rs: [&BigNumRef; 2]) -> Case {
        let len = curve.scalar_len() as i32;
        let pad = |x: &BigNumRef| x.to_vec_padded(len).expect("pad");
        Case {
            curve,
            key: q
                .to_bytes(
                    &self.group,
                    PointConversionForm::UNCOMPRESSED,
                    &mut self.ctx,
                )
                .expect("bytes"),
            digest: pad(e),
            signature: [pad(rs[0]), pad(rs[1])].concat(),
            valid: false,
        }
    }
}

/// Signatures built from scalars on purpose (six rounds of each kind): u1·G + u2·Q is the
/// point at infinity; u1·G = u2·Q (a verifier's last addition must double; valid with
/// r = x(10G)); u1·G = −u2·Q; and x(R) = n + t for a small t, valid with r = t (the check
/// against r + n). Each valid one comes with a copy whose r is off by one.
pub fn constructed(curve: Curve) -> Vec<Case> {
    let mut g = Group::new(curve);
    let one = BigNum::from_u32(1).expect("bn");
    let five = BigNum::from_u32(5).expect("bn");
    let mut out = Vec::new();
    let mut valid_and_off_by_one =
        |g: &mut Group, q: &EcPoint, e: &BigNum, r: &BigNum, s: &BigNum| {
            let mut valid = g.case(curve, q, e, [r, s]);
            valid.valid = true;
            out.push(valid);
            let mut r1 = BigNum::new().expect("bn");
            r1.checked_add(r, &one).expect("add");
            out.push(g.case(curve, q, e, [&r1, s]));
        };
    let mut invalid = Vec::new();
    for round in 0..6u32 {
        let d = g.random_scalar();
        let q = g.mul_g(&d);

        // e = −r·d: u1·G + u2·Q = (e + r·d)/s · G = O.
        let (r, s) = (g.random_scalar(), g.random_scalar());
        let rd = g.mul_n(&r, &d);
        let e = g.neg_n(&rd);
        invalid.push(g.case(curve, &q, &e, [&r, &s]));

        // u1 = 5 and u2·Q = 5G: r = x(10G) mod n, s = r·d/5, e = 5s.
        let ten_g = g.mul_g(&BigNum::from_u32(10).expect("bn"));
        let x = g.x(&ten_g);
        let r = g.mod_n(|r, n, ctx| r.nnmod(&x, n, ctx).expect("mod"));
        let inv5 = g.inv_n(&five);
        let rd = g.mul_n(&r, &d);
        let s = g.mul_n(&rd, &inv5);
        let e = g.mul_n(&five, &s);
        valid_and_off_by_one(&mut g, &q, &e, &r, &s);

        // u1 = 5 and u2·Q = −5G.
        let minus_s = g.neg_n(&s);
        let e = g.mul_n(&five, &minus_s);
        invalid.push(g.case(curve, &q, &e, [&r, &minus_s]));

        // x(R) = n + t: R on the curve with that x, Q = (R − u1·G)/u2 for random e and s.
        let mut x = g.n.to_owned().expect("copy");
        x.add_word(1 + round).expect("add");
        let point = loop {
            let mut bytes = vec![0x02];
            bytes.extend(x.to_vec_padded(curve.scalar_len() as i32).expect("pad"));
            if let Ok(point) = EcPoint::from_bytes(&g.group, &bytes, &mut g.ctx) {
                break point;
            }
            x.add_word(1).expect("add");
        };
        let mut r = BigNum::new().expect("bn");
        r.checked_sub(&x, &g.n).expect("sub");
        let (e, s) = (g.random_scalar(), g.random_scalar());
        let w = g.inv_n(&s);
        let u1 = g.mul_n(&e, &w);
        let u2 = g.mul_n(&r, &w);
        let u1g = g.mul_g(&u1);
        let minus_u1g = g.negate(&u1g);
        let diff = g.add(&point, &minus_u1g);
        let u2_inv = g.inv_n(&u2);
        let q = g.mul(&diff, &u2_inv);
        valid_and_off_by_one(&mut g, &q, &e, &r, &s);
    }
    out.extend(invalid);
    out
}

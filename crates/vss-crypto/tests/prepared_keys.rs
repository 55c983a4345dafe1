//! Prepared verification keys give the library's verdict: on Wycheproof's ECDSA files of
//! the four curves they serve, on random keys and signatures (valid, and with one bit
//! flipped), and on the edge cases of the arithmetic (u1 = 0, R the identity, x(R) ≥ n,
//! r or s out of range, digests longer or shorter than n).

mod common;

use common::{hash_alg, hex, load_json, wycheproof_curve, Expect, Failures, Tally, WycheproofFile};
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcPoint, PointConversionForm};
use serde::Deserialize;
use vss_crypto::{Curve, HashAlg, PreparedKey, PrivateKey, PublicKey, Signature};

/// The curves with prepared keys.
const CURVES: [Curve; 4] = [Curve::P256, Curve::P384, Curve::Bp256, Curve::Bp384];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Group {
    sha: String,
    public_key: GroupKey,
    tests: Vec<Test>,
}

#[derive(Debug, Deserialize)]
struct GroupKey {
    curve: String,
    uncompressed: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    tc_id: u32,
    comment: String,
    msg: String,
    sig: String,
    result: String,
}

/// Runs one Wycheproof file: every verdict of the prepared key equals the file's
/// expectation and `VerifyingKey`'s. The window changes from group to group (2 to 7 bits).
fn run_file(file: &str, p1363: bool) {
    let data: WycheproofFile<Group> = load_json(&format!("wycheproof/{file}"));
    let mut tally = Tally::default();
    let mut failures = Failures::new();
    for (index, group) in data.test_groups.iter().enumerate() {
        let curve = wycheproof_curve(&group.public_key.curve);
        let hash = hash_alg(&group.sha);
        let key = PublicKey::from_sec1(curve, &hex(&group.public_key.uncompressed)).expect("key");
        let library = key.verifying_key().expect("verifying key");
        let window = 2 + (index % 6) as u32;
        let prepared = PreparedKey::with_window(&key, window).expect("prepared key");
        for test in &group.tests {
            let expect = Expect::parse(&test.result);
            tally.count(expect);
            let bytes = hex(&test.sig);
            let parsed = if p1363 {
                Signature::from_p1363(curve, &bytes)
            } else {
                Signature::from_der(curve, &bytes)
            };
            let msg = hex(&test.msg);
            let (ours, theirs) = match &parsed {
                Ok(sig) => (
                    prepared.verify(hash, &msg, sig),
                    library.verify(hash, &msg, sig),
                ),
                Err(_) => (false, false),
            };
            failures.check(
                ours == theirs,
                file,
                test.tc_id,
                &test.comment,
                format!("prepared {ours}, library {theirs}"),
            );
            let agrees = match expect {
                Expect::Valid => ours,
                Expect::Invalid => !ours,
                Expect::Acceptable => true,
            };
            failures.check(
                agrees,
                file,
                test.tc_id,
                &test.comment,
                format!("prepared {ours}, file {expect:?}"),
            );
        }
    }
    println!("{file}: {tally}, {} failure(s)", failures.len());
    assert_eq!(tally.total(), data.number_of_tests, "{file}: tests run");
    failures.assert_none(file);
}

macro_rules! wycheproof_tests {
    ($($name:ident => $file:literal, $p1363:literal;)*) => {$(
        #[test]
        fn $name() {
            run_file($file, $p1363);
        }
    )*};
}

wycheproof_tests! {
    wycheproof_p256_sha256 => "ecdsa_secp256r1_sha256_test.json", false;
    wycheproof_p256_sha256_p1363 => "ecdsa_secp256r1_sha256_p1363_test.json", true;
    wycheproof_p256_sha512 => "ecdsa_secp256r1_sha512_test.json", false;
    wycheproof_p384_sha384 => "ecdsa_secp384r1_sha384_test.json", false;
    wycheproof_p384_sha384_p1363 => "ecdsa_secp384r1_sha384_p1363_test.json", true;
    wycheproof_p384_sha256 => "ecdsa_secp384r1_sha256_test.json", false;
    wycheproof_bp256_sha256 => "ecdsa_brainpoolP256r1_sha256_test.json", false;
    wycheproof_bp256_sha256_p1363 => "ecdsa_brainpoolP256r1_sha256_p1363_test.json", true;
    wycheproof_bp384_sha384 => "ecdsa_brainpoolP384r1_sha384_test.json", false;
    wycheproof_bp384_sha384_p1363 => "ecdsa_brainpoolP384r1_sha384_p1363_test.json", true;
}

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

#[test]
fn random_signatures_and_their_one_bit_changes() {
    for curve in CURVES {
        let len = curve.scalar_len();
        for round in 0..4 {
            let key = PrivateKey::generate(curve).expect("key");
            let prepared = PreparedKey::with_window(key.public_key(), 3 + round).expect("prepared");
            let other =
                PreparedKey::with_window(PrivateKey::generate(curve).expect("key").public_key(), 4)
                    .expect("prepared");
            for digest_len in [len, 20, 64] {
                let digest = random(digest_len);
                let sig = key.sign_digest(&digest).expect("sign");
                assert!(verdict(&prepared, &digest, &sig), "{curve} valid");
                assert!(!verdict(&other, &digest, &sig), "{curve} another key");
                let bit = usize::from(random(2)[0]) * 8 + usize::from(random(1)[0] % 8);
                let p1363 = sig.to_p1363();
                for changed in [
                    flipped(p1363, bit % (8 * len)),
                    flipped(p1363, 8 * len + bit % (8 * len)),
                ] {
                    let changed = Signature::from_p1363(curve, &changed).expect("p1363");
                    assert!(
                        !verdict(&prepared, &digest, &changed),
                        "{curve} r or s flipped"
                    );
                }
                let digest_changed = flipped(&digest, bit % (8 * digest.len().min(len)));
                assert!(
                    !verdict(&prepared, &digest_changed, &sig),
                    "{curve} digest flipped"
                );
                let point = flipped(
                    key.public_key().to_sec1_uncompressed(),
                    8 + bit % (16 * len),
                );
                assert!(
                    PreparedKey::from_sec1(curve, &point).is_err(),
                    "{curve} key flipped: off the curve"
                );
            }
        }
    }
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

#[test]
fn scalars_out_of_range_are_refused() {
    for curve in CURVES {
        let len = curve.scalar_len();
        let key = PrivateKey::generate(curve).expect("key");
        let prepared = PreparedKey::new(key.public_key()).expect("prepared");
        let digest = random(len);
        let sig = key.sign_digest(&digest).expect("sign");
        let (r, s) = (sig.r(), sig.s());
        let n = order(curve);
        let mut n_plus_1 = n.clone();
        *n_plus_1.last_mut().expect("n") += 1;
        let zero = vec![0u8; len];
        for (r, s) in [
            (&n[..], s),
            (r, &n[..]),
            (&zero[..], s),
            (r, &zero[..]),
            (&n_plus_1[..], s),
            (r, &n_plus_1[..]),
            (&[0xff; 48][..len], s),
        ] {
            assert!(
                !verdict(&prepared, &digest, &sig_of(curve, r, s)),
                "{curve}"
            );
            assert!(!prepared.verify_prehashed(&digest, r, s), "{curve}");
        }
        assert!(
            !prepared.verify_prehashed(&digest, &[&[0u8][..], r].concat(), s),
            "{curve} a longer r"
        );
        assert!(
            !prepared.verify_prehashed(&digest, &r[1..], s),
            "{curve} a shorter r"
        );
        assert!(prepared.verify_prehashed(&digest, r, s), "{curve}");
        let foreign = Signature::from_p1363(Curve::P224, &[1u8; 56]).expect("p224");
        assert!(
            !prepared.verify_digest(&digest, &foreign),
            "{curve} another curve's signature"
        );
    }
}

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
    let s = key_less_scalar(len);
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

/// A scalar in [1, n − 1] for every curve: random, top byte cleared.
fn key_less_scalar(len: usize) -> Vec<u8> {
    let mut s = random(len);
    s[0] &= 0x7f;
    s[len - 1] |= 1;
    s
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

#[test]
fn windows_out_of_range_and_other_curves_are_refused() {
    let key = PrivateKey::generate(Curve::P256).expect("key");
    for window in [0, 1, 11] {
        assert!(
            PreparedKey::with_window(key.public_key(), window).is_err(),
            "window {window}"
        );
    }
    let p224 = PrivateKey::generate(Curve::P224).expect("key");
    assert!(PreparedKey::new(p224.public_key()).is_err());
    assert!(
        CURVES.iter().all(|&c| PreparedKey::supports(c)) && !PreparedKey::supports(Curve::P224)
    );
    let prepared = PreparedKey::with_window(key.public_key(), 4).expect("prepared");
    assert_eq!(prepared.window(), 4);
    assert_eq!(
        prepared.memory_bytes(),
        64 * 8 * 64,
        "P-256, 4 bits: 64 sub-tables of 8 points"
    );
    assert_eq!(prepared.public_key(), key.public_key());
    let sig = key.sign(HashAlg::Sha256, b"CAM").expect("sign");
    assert!(prepared.verify(HashAlg::Sha256, b"CAM", &sig));
    assert!(!prepared.verify(HashAlg::Sha256, b"DENM", &sig));
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
        let k = key_less_scalar(len);
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

//! The CPU engine against the one-at-a-time library verdict: random valid signatures from
//! several signers on every curve, and invalid ones of every kind (wrong r, s, digest or
//! key; r or s zero or not below n; a key off the curve; bytes of the wrong length), in
//! mixed batches split over threads; verdicts come back in order.

use vss_crypto::{Curve, HashAlg, PrivateKey};
use vss_engine::{CpuEngine, CpuPath, VerifyEngine, VerifyJob};

/// The group orders of P-256 and brainpoolP256r1.
const N_P256: &str = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";
const N_BP256: &str = "a9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a7";

/// Owned bytes of one job, and whether it must verify.
struct Case {
    curve: Curve,
    key: Vec<u8>,
    digest: Vec<u8>,
    signature: Vec<u8>,
    valid: bool,
}

impl Case {
    fn job(&self) -> VerifyJob<'_> {
        VerifyJob {
            curve: self.curve,
            public_key: &self.key,
            digest: &self.digest,
            signature: &self.signature,
        }
    }
}

fn cases(curve: Curve, signers: usize, per_signer: usize) -> Vec<Case> {
    let hash = curve.default_hash();
    let keys: Vec<PrivateKey> = (0..signers)
        .map(|_| PrivateKey::generate(curve).expect("key"))
        .collect();
    let mut out = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        for i in 0..per_signer {
            let digest = hash.digest(format!("message {k}/{i}").as_bytes());
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

/// Every kind of invalid job made from the valid `case` (and another signer's key).
fn broken(case: &Case, other_key: &[u8], n: Option<&str>) -> Vec<Case> {
    let len = case.signature.len() / 2;
    let with = |key: &[u8], digest: &[u8], signature: Vec<u8>| Case {
        curve: case.curve,
        key: key.to_vec(),
        digest: digest.to_vec(),
        signature,
        valid: false,
    };
    let mut flipped_r = case.signature.clone();
    flipped_r[3] ^= 0x10;
    let mut flipped_s = case.signature.clone();
    flipped_s[len + 5] ^= 0x01;
    let mut digest = case.digest.clone();
    digest[0] ^= 0x80;
    let zero_r = [vec![0u8; len], case.signature[len..].to_vec()].concat();
    let zero_s = [case.signature[..len].to_vec(), vec![0u8; len]].concat();
    let big_r = [vec![0xffu8; len], case.signature[len..].to_vec()].concat();
    let big_s = [case.signature[..len].to_vec(), vec![0xffu8; len]].concat();
    let mut off_curve = PrivateKey::generate(case.curve)
        .expect("key")
        .public_key()
        .to_sec1_uncompressed()
        .to_vec();
    let last = off_curve.len() - 1;
    off_curve[last] ^= 0x01;
    let mut out = vec![
        with(&case.key, &case.digest, flipped_r),
        with(&case.key, &case.digest, flipped_s),
        with(&case.key, &digest, case.signature.clone()),
        with(other_key, &case.digest, case.signature.clone()),
        with(&case.key, &case.digest, zero_r),
        with(&case.key, &case.digest, zero_s),
        with(&case.key, &case.digest, big_r),
        with(&case.key, &case.digest, big_s),
        with(&off_curve, &case.digest, case.signature.clone()),
        with(
            &case.key[..case.key.len() - 1],
            &case.digest,
            case.signature.clone(),
        ),
        with(&case.key, &case.digest, case.signature[1..].to_vec()),
        with(&[], &case.digest, case.signature.clone()),
    ];
    if let Some(n) = n {
        let n = hex_bytes(n);
        out.push(with(
            &case.key,
            &case.digest,
            [n.clone(), case.signature[len..].to_vec()].concat(),
        ));
        out.push(with(
            &case.key,
            &case.digest,
            [case.signature[..len].to_vec(), n].concat(),
        ));
    }
    out
}

fn hex_bytes(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn verdicts_match_the_library_on_every_curve_and_every_kind_of_fault() {
    for (curve, n) in [
        (Curve::P256, Some(N_P256)),
        (Curve::Bp256, Some(N_BP256)),
        (Curve::P384, None),
        (Curve::Bp384, None),
    ] {
        let valid = cases(curve, 5, 40);
        let mut all: Vec<Case> = Vec::new();
        for (i, case) in valid.iter().enumerate() {
            let other = &valid[(i + 40) % valid.len()].key;
            if i % 10 == 0 {
                all.extend(broken(case, other, n));
            }
        }
        let invalid = all.len();
        all.extend(valid);
        // Interleave (three valid, one invalid), so every thread's share mixes signers,
        // kinds and verdicts.
        let mut bad = 0..invalid;
        let mut order: Vec<usize> = Vec::with_capacity(all.len());
        for chunk in (invalid..all.len()).collect::<Vec<_>>().chunks(3) {
            order.extend(chunk);
            order.extend(bad.next());
        }
        order.extend(bad);
        assert_eq!(order.len(), all.len());
        let mixed: Vec<&Case> = order.iter().map(|&i| &all[i]).collect();
        let jobs: Vec<VerifyJob<'_>> = mixed.iter().map(|c| c.job()).collect();
        for (path, threads) in engines() {
            let verdicts = CpuEngine::with_path(threads, path)
                .expect("available")
                .verify_batch(&jobs);
            assert_eq!(verdicts.len(), jobs.len());
            for (i, (case, verdict)) in mixed.iter().zip(&verdicts).enumerate() {
                let on = format!("{curve:?} job {i}, {path:?} on {threads} threads");
                assert_eq!(*verdict, case.valid, "{on}");
                assert_eq!(*verdict, case.job().verify_one(), "{on}");
            }
        }
    }
}

/// Every path this CPU has, on one to three threads; says which are skipped.
fn engines() -> Vec<(CpuPath, usize)> {
    let mut out = Vec::new();
    for path in [CpuPath::Library, CpuPath::Ifma] {
        if !path.is_available() {
            eprintln!("skipped: the {} path (not on this CPU)", path.name());
            continue;
        }
        out.extend([1, 2, 3].map(|threads| (path, threads)));
    }
    out
}

#[test]
fn one_batch_mixes_curves_digest_lengths_and_signers() {
    let mut all: Vec<Case> = Vec::new();
    for curve in [Curve::P256, Curve::Bp256, Curve::P384] {
        all.extend(cases(curve, 3, 7));
    }
    // A P-256 signature over a SHA-384 digest (truncated to 256 bits by ECDSA).
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let digest = HashAlg::Sha384.digest(b"longer digest");
    all.push(Case {
        curve: Curve::P256,
        key: key.public_key().to_sec1_compressed().to_vec(),
        signature: key.sign_digest(&digest).expect("sign").to_p1363().to_vec(),
        digest,
        valid: true,
    });
    // A brainpool job carrying a P-256 key is refused.
    let mut foreign = cases(Curve::P256, 1, 1).remove(0);
    foreign.curve = Curve::Bp256;
    foreign.valid = false;
    all.push(foreign);
    // Deal the cases out like cards, so curves alternate within every share.
    let jobs: Vec<VerifyJob<'_>> = (0..all.len())
        .map(|i| all[(i * 7) % all.len()].job())
        .collect();
    assert_ne!(all.len() % 7, 0, "7 is coprime with the number of cases");
    for (path, threads) in engines() {
        let engine = CpuEngine::with_path(threads, path).expect("available");
        let verdicts = engine.verify_batch(&jobs);
        for (i, job) in jobs.iter().enumerate() {
            let case = &all[(i * 7) % all.len()];
            assert_eq!(
                verdicts[i], case.valid,
                "job {i} ({:?}), {path:?}",
                job.curve
            );
            assert_eq!(verdicts[i], job.verify_one(), "job {i}");
        }
    }
}

#[test]
fn an_empty_batch_and_a_batch_of_one_are_answered() {
    let engine = CpuEngine::default();
    assert!(engine.threads() >= 1);
    assert_eq!(engine.path(), CpuPath::best());
    assert!(engine.device().contains(engine.path().name()));
    assert_eq!(engine.name(), "cpu");
    assert!(engine.verify_batch(&[]).is_empty());
    let one = cases(Curve::P256, 1, 1);
    assert_eq!(engine.verify_batch(&[one[0].job()]), [true]);
    let digest = HashAlg::Sha256.digest(b"x");
    let job = VerifyJob {
        digest: &digest,
        ..one[0].job()
    };
    assert_eq!(engine.verify_batch(&[job]), [false]);
}

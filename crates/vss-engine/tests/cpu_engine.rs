//! The CPU engine against the one-at-a-time library verdict: random valid signatures from
//! several signers on every curve, and invalid ones of every kind (wrong r, s, digest or
//! key; r or s zero or not below n; a key off the curve; bytes of the wrong length), in
//! mixed batches split over threads; verdicts come back in order. The tests of the AVX-512
//! IFMA path are ignored, with the reason, where the CPU that built them has none (build.rs).

mod common;

use common::{constructed, cpu_engine, mixed_batch, valid_cases, Case};
use vss_crypto::{Curve, HashAlg, PrivateKey};
use vss_engine::{CpuEngine, CpuPath, VerifyEngine, VerifyJob};

#[test]
fn verdicts_match_the_library_on_every_curve_and_every_kind_of_fault() {
    every_curve_and_every_kind_of_fault(CpuPath::Library);
}

#[test]
fn prepared_key_verdicts_match_the_library_on_every_curve_and_every_kind_of_fault() {
    every_curve_and_every_kind_of_fault(CpuPath::Prepared);
}

#[test]
#[cfg_attr(
    not(vss_avx512ifma),
    ignore = "no AVX-512 IFMA on the CPU that built the tests"
)]
fn ifma_verdicts_match_the_library_on_every_curve_and_every_kind_of_fault() {
    every_curve_and_every_kind_of_fault(CpuPath::Ifma);
}

/// Mixed batches of valid and broken jobs on every curve, on `path` with one to three
/// threads.
fn every_curve_and_every_kind_of_fault(path: CpuPath) {
    for curve in [Curve::P256, Curve::Bp256, Curve::P384, Curve::Bp384] {
        let mut all = mixed_batch(curve, 5, 40);
        if curve.scalar_len() == 32 {
            all.extend(constructed(curve));
        }
        let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
        for threads in [1, 2, 3] {
            let verdicts = cpu_engine(threads, path).verify_batch(&jobs);
            assert_eq!(verdicts.len(), jobs.len());
            for (i, (case, verdict)) in all.iter().zip(&verdicts).enumerate() {
                let on = format!("{curve:?} job {i}, {path:?} on {threads} threads");
                assert_eq!(*verdict, case.valid, "{on}");
                assert_eq!(*verdict, case.job().verify_one(), "{on}");
            }
        }
    }
}

#[test]
fn one_batch_mixes_curves_digest_lengths_and_signers() {
    mixed_curves_digest_lengths_and_signers(CpuPath::Library);
}

#[test]
fn prepared_one_batch_mixes_curves_digest_lengths_and_signers() {
    mixed_curves_digest_lengths_and_signers(CpuPath::Prepared);
}

#[test]
fn busy_signers_get_prepared_keys_kept_under_their_bound() {
    // Four P-256 signers with 20 valid and broken jobs each, room for two prepared keys.
    let one_key =
        vss_crypto::PreparedKey::from_sec1(Curve::P256, &valid_cases(Curve::P256, 1, 1)[0].key)
            .expect("prepared")
            .memory_bytes();
    let engine = cpu_engine(1, CpuPath::Prepared).with_prepared_bytes(2 * one_key);
    let all = mixed_batch(Curve::P256, 4, 20);
    let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
    let expected: Vec<bool> = all.iter().map(|c| c.valid).collect();
    assert_eq!(engine.verify_batch(&jobs), expected);
    let (keys, bytes) = engine.prepared_usage();
    assert_eq!(
        (keys, bytes),
        (2, 2 * one_key),
        "two kept, the others evicted"
    );
    // Again: the kept keys serve; the bound holds.
    assert_eq!(engine.verify_batch(&jobs), expected);
    assert!(engine.prepared_usage().1 <= 2 * one_key);
    // A signer with fewer jobs than the threshold takes the library: nothing is prepared.
    let few = valid_cases(Curve::Bp256, 2, 5);
    let fresh = cpu_engine(1, CpuPath::Prepared);
    let jobs: Vec<VerifyJob<'_>> = few.iter().map(Case::job).collect();
    assert_eq!(fresh.verify_batch(&jobs), vec![true; jobs.len()]);
    assert_eq!(fresh.prepared_usage(), (0, 0));
    // No room at all: keys are prepared for the batch and dropped.
    let none = cpu_engine(2, CpuPath::Prepared).with_prepared_bytes(0);
    let all = mixed_batch(Curve::Bp384, 2, 30);
    let jobs: Vec<VerifyJob<'_>> = all.iter().map(Case::job).collect();
    let expected: Vec<bool> = all.iter().map(|c| c.valid).collect();
    assert_eq!(none.verify_batch(&jobs), expected);
    assert_eq!(none.prepared_usage(), (0, 0));
}

#[test]
#[cfg_attr(
    not(vss_avx512ifma),
    ignore = "no AVX-512 IFMA on the CPU that built the tests"
)]
fn ifma_one_batch_mixes_curves_digest_lengths_and_signers() {
    mixed_curves_digest_lengths_and_signers(CpuPath::Ifma);
}

/// One batch of three curves, several signers and digest lengths, on `path` with one to three
/// threads.
fn mixed_curves_digest_lengths_and_signers(path: CpuPath) {
    let mut all: Vec<Case> = Vec::new();
    for curve in [Curve::P256, Curve::Bp256, Curve::P384] {
        all.extend(valid_cases(curve, 3, 7));
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
    let mut foreign = valid_cases(Curve::P256, 1, 1).remove(0);
    foreign.curve = Curve::Bp256;
    foreign.valid = false;
    all.push(foreign);
    // Deal the cases out like cards, so curves alternate within every share.
    let jobs: Vec<VerifyJob<'_>> = (0..all.len())
        .map(|i| all[(i * 7) % all.len()].job())
        .collect();
    assert_ne!(all.len() % 7, 0, "7 is coprime with the number of cases");
    for threads in [1, 2, 3] {
        let verdicts = cpu_engine(threads, path).verify_batch(&jobs);
        for (i, job) in jobs.iter().enumerate() {
            let case = &all[(i * 7) % all.len()];
            assert_eq!(
                verdicts[i], case.valid,
                "job {i} ({:?}), {path:?} on {threads} threads",
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
    // Prepared keys beat the library path, not the IFMA lanes.
    assert_eq!(
        engine.prefers_prepared_keys(),
        engine.path() != CpuPath::Ifma
    );
    assert_ne!(
        engine.path(),
        CpuPath::Library,
        "the best path beats the library"
    );
    assert!(engine.verify_batch(&[]).is_empty());
    let one = valid_cases(Curve::P256, 1, 1);
    assert_eq!(engine.verify_batch(&[one[0].job()]), [true]);
    let digest = HashAlg::Sha256.digest(b"x");
    let job = VerifyJob {
        digest: &digest,
        ..one[0].job()
    };
    assert_eq!(engine.verify_batch(&[job]), [false]);
}

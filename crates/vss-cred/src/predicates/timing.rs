//! Prove and verify times and proof sizes of the sub-proofs, printed by
//! `cargo test --release -p vss-cred predicates::timing -- --ignored --nocapture`.

use super::inspection::{InspectionProtocol, InspectorKey, DEFAULT_DECRYPT_BITS};
use super::range::{RangeParams, RangeProtocol, DEFAULT_RANGE_BASE, MAX_RANGE_UPPER};
use super::revocation::{NonRevocationProtocol, RevocationAuthority};
use crate::group::{hash_to_scalar, random_scalar, Scalar};
use std::time::{Duration, Instant};

const RUNS: u32 = 20;

fn challenge(bytes: &[u8]) -> Scalar {
    hash_to_scalar(bytes, b"VSS-CRED-TEST-CHALLENGE")
}

fn report(name: &str, prove: Duration, verify: Duration, size: usize) {
    eprintln!(
        "{name:<40} prove {:>7.2} ms  verify {:>7.2} ms  {size:>5} B",
        prove.as_secs_f64() * 1e3 / f64::from(RUNS),
        verify.as_secs_f64() * 1e3 / f64::from(RUNS),
    );
}

#[test]
#[ignore = "timing report, run with --release --ignored --nocapture"]
fn predicates_timing() {
    let mut ra = RevocationAuthority::new();
    let (h, w) = ra.issue_handle().expect("issue");
    let info = ra.public();
    let (mut tp, mut tv, mut size) = (Duration::ZERO, Duration::ZERO, 0);
    for _ in 0..RUNS {
        let s = Instant::now();
        let proto = NonRevocationProtocol::init(&info, h, &w, random_scalar()).expect("init");
        let mut t = Vec::new();
        proto.challenge_bytes(&mut t);
        let proof = proto.gen_proof(&challenge(&t));
        tp += s.elapsed();
        size = proof.to_bytes().len();
        let s = Instant::now();
        let mut t = Vec::new();
        proof.challenge_bytes(&info, &mut t).expect("bytes");
        proof.verify(&challenge(&t), &info).expect("verify");
        tv += s.elapsed();
    }
    report("non-revocation (VB accumulator, CDH)", tp, tv, size);

    let key = InspectorKey::new();
    let pk = key.public();
    let member = 23_784_638_726u64;
    let (mut tp, mut tv) = (Duration::ZERO, Duration::ZERO);
    let mut last = None;
    for _ in 0..RUNS {
        let s = Instant::now();
        let proto =
            InspectionProtocol::init(&pk, b"grounds", Scalar::from(member), random_scalar())
                .expect("init");
        let mut t = Vec::new();
        proto.challenge_bytes(&mut t);
        let proof = proto.gen_proof(&challenge(&t));
        tp += s.elapsed();
        let s = Instant::now();
        let mut t = Vec::new();
        proof
            .challenge_bytes(&pk, b"grounds", &mut t)
            .expect("bytes");
        proof.verify(&challenge(&t), &pk).expect("verify");
        tv += s.elapsed();
        last = Some(proof);
    }
    let proof = last.expect("a proof");
    report(
        "inspection (ElGamal + Schnorr)",
        tp,
        tv,
        proof.to_bytes().len(),
    );
    let s = Instant::now();
    let m = key
        .decrypt(proof.ciphertext(), DEFAULT_DECRYPT_BITS)
        .expect("decrypt");
    assert_eq!(m, member);
    eprintln!(
        "decrypt {member} over 2^{DEFAULT_DECRYPT_BITS}: {:.0} ms",
        s.elapsed().as_secs_f64() * 1e3
    );

    for base in [DEFAULT_RANGE_BASE, 32, 64] {
        let s = Instant::now();
        let params = RangeParams::new(base).expect("params");
        let gen = s.elapsed();
        let bytes = params.to_bytes();
        let s = Instant::now();
        let params = RangeParams::from_bytes(&bytes).expect("load");
        eprintln!(
            "range params base {base}: generate {:.1} ms, load+check {:.1} ms, {} B",
            gen.as_secs_f64() * 1e3,
            s.elapsed().as_secs_f64() * 1e3,
            bytes.len()
        );
        for (label, min, max, v) in [
            ("date (0..=20089 days)", 0u64, 20_089u64, 7_441u64),
            ("number (1..=2^64-2)", 1, MAX_RANGE_UPPER, member),
        ] {
            let (mut tp, mut tv, mut size) = (Duration::ZERO, Duration::ZERO, 0);
            for _ in 0..RUNS {
                let s = Instant::now();
                let proto =
                    RangeProtocol::init(&params, min, max, Scalar::from(v), random_scalar())
                        .expect("init");
                let mut t = Vec::new();
                proto.challenge_bytes(&mut t);
                let proof = proto.gen_proof(&challenge(&t));
                tp += s.elapsed();
                size = proof.to_bytes().len();
                let s = Instant::now();
                let mut t = Vec::new();
                proof
                    .challenge_bytes(&params, min, max, &mut t)
                    .expect("bytes");
                proof
                    .verify(&challenge(&t), &params, min, max)
                    .expect("verify");
                tv += s.elapsed();
            }
            report(&format!("range base {base} {label}"), tp, tv, size);
        }
    }
}

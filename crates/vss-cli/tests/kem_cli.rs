//! `vss kem keygen | encap | decap` and `vss bench kem`: round trips through a key store on
//! every scheme, known answers with a fixed seed, clear errors for rejected ciphertexts and
//! misused options, and the benchmark's JSON report.

mod common;

use std::path::Path;

use common::{init_store, vss_run, vss_store, PIN};
use serde_json::Value;
use vss_crypto::kem::ecies_1609::EncryptedKey;
use vss_crypto::kem::KnownAnswerSeed;
use vss_crypto::{Curve, HashAlg, PrivateKey};

fn keygen(dir: &Path, scheme: &str, curve: &str, label: &str) -> String {
    let r = vss_store(
        dir,
        PIN,
        &[
            "kem", "keygen", "--scheme", scheme, "--curve", curve, "--label", label, "--format",
            "json",
        ],
    )
    .success();
    let out = r.json();
    assert_eq!(out["label"], label);
    assert_eq!(out["curve"], curve);
    assert_eq!(out["scheme"], scheme);
    out["public_key"].as_str().expect("public_key").to_owned()
}

fn encap(args: &[&str]) -> (String, String) {
    let mut all = vec!["kem", "encap"];
    all.extend_from_slice(args);
    let out = vss_run(&all).success().json();
    let object = out.as_object().expect("object");
    assert_eq!(object.len(), 2, "exactly ciphertext and key: {out}");
    (
        out["ciphertext"].as_str().expect("ciphertext").to_owned(),
        out["key"].as_str().expect("key").to_owned(),
    )
}

fn decap(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["kem", "decap"];
    all.extend_from_slice(args);
    vss_store(dir, PIN, &all)
}

#[test]
fn every_scheme_round_trips_through_the_store_and_tampering_is_rejected() {
    let dir = tempfile::tempdir().expect("tempdir");
    init_store(dir.path());
    let cases: &[(&str, &str, &[&str])] = &[
        ("psec-kem", "k283", &[]),
        ("psec-kem", "b283", &["--key-len", "48"]),
        ("psec-kem", "p256", &[]),
        ("ecies-kem", "k283", &["--cofactor-mode"]),
        ("ecies-kem", "p384", &["--point-format", "uncompressed"]),
        ("ecies-1609", "bp256", &["--p1", "00ff"]),
    ];
    for (i, (scheme, curve, params)) in cases.iter().enumerate() {
        let label = format!("kem-{i}");
        let public = keygen(dir.path(), scheme, curve, &label);
        let mut args = vec![
            "--scheme",
            scheme,
            "--curve",
            curve,
            "--public-key",
            &public,
        ];
        args.extend_from_slice(params);
        let (ciphertext, key) = encap(&args);
        let mut args = vec![
            "--scheme",
            scheme,
            "--label",
            &label,
            "--ciphertext",
            &ciphertext,
        ];
        args.extend_from_slice(params);
        let got = decap(dir.path(), &args).success().json();
        assert_eq!(got["key"], key.as_str(), "{scheme} {curve}");

        // The last byte is in v (PSEC-KEM), the tag (ECIES-1609) or y/x of EG (ECIES-KEM):
        // rejected, or for ECIES-KEM (no integrity check) at least a different key.
        let mut tampered = hex::decode(&ciphertext).expect("hex");
        *tampered.last_mut().expect("byte") ^= 0x01;
        let tampered = hex::encode(tampered);
        args[5] = &tampered;
        let r = decap(dir.path(), &args);
        if *scheme == "ecies-kem" && r.status.success() {
            assert_ne!(r.json()["key"], key.as_str(), "{scheme} {curve}");
        } else {
            let r = r.failure().one_line_stderr();
            assert!(r.stdout.is_empty(), "no key on a rejection: {r:?}");
            assert!(r.stderr.starts_with("vss: "), "{r:?}");
        }
    }
}

#[test]
fn malformed_ciphertexts_get_one_clear_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    init_store(dir.path());
    let public = keygen(dir.path(), "psec-kem", "k283", "k");
    let (ciphertext, _) = encap(&[
        "--scheme",
        "psec-kem",
        "--curve",
        "k283",
        "--public-key",
        &public,
    ]);
    let v = &ciphertext[2 * 37..];
    let truncated = &ciphertext[..ciphertext.len() - 2];
    let infinity = format!("{}{v}", "00".repeat(37));
    let cases = [
        (truncated.to_owned(), "length"),
        (infinity, "not a point of the curve"),
        ("zz".to_owned(), "not hex"),
    ];
    for (bad, expected) in cases {
        let r = decap(
            dir.path(),
            &["--scheme", "psec-kem", "--label", "k", "--ciphertext", &bad],
        )
        .failure();
        assert!(r.stderr.contains(expected), "{expected}: {r:?}");
        assert!(r.stdout.is_empty(), "{r:?}");
    }
}

#[test]
fn psec_kem_with_a_fixed_seed_is_a_known_answer() {
    let recipient = PrivateKey::from_scalar(Curve::K283, &[0x5a; 20]).expect("key");
    let public = hex::encode(recipient.public_key().to_sec1_compressed());
    let seed = "11".repeat(32);
    let args = [
        "--scheme",
        "psec-kem",
        "--curve",
        "k283",
        "--public-key",
        &public,
        "--seed",
        &seed,
    ];
    let (c1, k1) = encap(&args);
    let (c2, k2) = encap(&args);
    assert_eq!((&c1, &k1), (&c2, &k2), "a fixed seed is deterministic");
    assert_eq!(c1.len(), 2 * (37 + 32));
    assert_eq!(k1.len(), 2 * 32);
    let kem = vss_crypto::kem::psec_kem::PsecKem::new(Curve::K283, 32).expect("kem");
    let key = kem
        .decapsulate_with_key(&hex::decode(&c1).expect("hex"), &recipient)
        .expect("decap");
    assert_eq!(hex::encode(key.as_slice()), k1);
}

#[test]
fn ecies_1609_with_seed_and_aes_key_matches_the_library_and_default_p1() {
    let recipient = PrivateKey::generate(Curve::P256).expect("key");
    let ephemeral = PrivateKey::generate(Curve::P256).expect("ephemeral");
    let aes_key = [0x42u8; 16];
    let public = hex::encode(recipient.public_key().to_sec1_uncompressed());
    let seed = hex::encode(ephemeral.scalar());
    let (ciphertext, key) = encap(&[
        "--scheme",
        "ecies-1609",
        "--curve",
        "p256",
        "--public-key",
        &public,
        "--seed",
        &seed,
        "--aes-key",
        &hex::encode(aes_key),
    ]);
    assert_eq!(key, hex::encode(aes_key));
    let empty_hash = HashAlg::Sha256.digest(b"");
    let expected = EncryptedKey::encrypt_known_answer(
        recipient.public_key(),
        &aes_key,
        &empty_hash,
        &KnownAnswerSeed::known_answer_test_only(ephemeral.scalar()),
    )
    .expect("encrypt");
    assert_eq!(ciphertext, hex::encode(expected.to_bytes()));
}

#[test]
fn options_of_another_scheme_and_bad_curves_are_refused() {
    let key = PrivateKey::generate(Curve::P384).expect("key");
    let p384 = hex::encode(key.public_key().to_sec1_uncompressed());
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--scheme",
                "ecies-1609",
                "--curve",
                "p384",
                "--public-key",
                &p384,
            ],
            "p256 or bp256",
        ),
        (
            &[
                "--scheme",
                "psec-kem",
                "--curve",
                "p384",
                "--public-key",
                &p384,
                "--kdf",
                "kdf1",
            ],
            "ecies-kem only",
        ),
        (
            &[
                "--scheme",
                "psec-kem",
                "--curve",
                "p384",
                "--public-key",
                &p384,
                "--p1",
                "00",
            ],
            "ecies-1609 only",
        ),
        (
            &[
                "--scheme",
                "psec-kem",
                "--curve",
                "p256",
                "--public-key",
                &p384,
            ],
            "not a p256 point",
        ),
        (
            &[
                "--scheme",
                "psec-kem",
                "--curve",
                "p384",
                "--public-key",
                &p384,
                "--key-len",
                "0",
            ],
            "key length",
        ),
        (
            &[
                "--scheme",
                "ecies-kem",
                "--curve",
                "p384",
                "--public-key",
                &p384,
                "--check-mode",
                "--cofactor-mode",
            ],
            "at most one",
        ),
        (
            &[
                "--scheme",
                "psec-kem",
                "--curve",
                "p384",
                "--public-key",
                &p384,
                "--seed",
                "00",
            ],
            "seed",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["kem", "encap"];
        all.extend_from_slice(args);
        let r = vss_run(&all).failure().one_line_stderr();
        assert!(
            r.stderr.to_lowercase().contains(expected),
            "{args:?}: expected {expected:?} in {r:?}"
        );
    }
}

#[test]
fn bench_kem_reports_both_operations_and_the_seed_rows() {
    let r = vss_run(&[
        "bench", "kem", "--scheme", "psec-kem", "--curve", "k283", "--runs", "2", "--ops", "5",
        "--format", "json",
    ])
    .success();
    let report: Value = r.json();
    assert_eq!(report["benchmark"], "kem", "{report}");
    assert_eq!(report["scheme"], "psec-kem");
    assert_eq!(report["curve"], "k283");
    assert_eq!(report["success"], true);
    for op in ["encap", "decap"] {
        let latency = report[op]["latency_us"].as_f64().expect("latency");
        let per_second = report[op]["per_second"].as_f64().expect("per second");
        assert!(latency > 0.0 && per_second > 0.0, "{report}");
        let product = latency * per_second / 1e6;
        assert!(
            (0.95..1.05).contains(&product),
            "latency x rate = 1: {report}"
        );
    }
    assert_eq!(report["runs"].as_array().expect("runs").len(), 2);
    let references = report["references"].as_array().expect("references");
    assert!(references
        .iter()
        .any(|r| r["encap"]["latency_us"] == 2890.0 && r["source"] == "seed 004 table 3"));
    assert!(references
        .iter()
        .any(|r| r["encap"]["per_second"] == 12500.0 && r["source"] == "seed 004 table 1"));
}

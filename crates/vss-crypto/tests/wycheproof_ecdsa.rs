//! Wycheproof ECDSA verification vectors (DER and IEEE P1363 signatures) against vss-crypto.

mod common;

use common::ecdsa::{EcdsaGroup as Group, EcdsaTest as Test};
use common::{hash_alg, hex, load_json, wycheproof_curve, Expect, Failures, Tally, WycheproofFile};
use vss_crypto::{Curve, HashAlg, PublicKey, Signature};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Der,
    P1363,
}

/// Every ECDSA file pinned under `tests/vectors/wycheproof/`, with the curve, hash and
/// signature form its name promises.
const FILES: &[(&str, Curve, HashAlg, Form)] = &[
    (
        "ecdsa_secp224r1_sha224_test.json",
        Curve::P224,
        HashAlg::Sha224,
        Form::Der,
    ),
    (
        "ecdsa_secp224r1_sha256_test.json",
        Curve::P224,
        HashAlg::Sha256,
        Form::Der,
    ),
    (
        "ecdsa_secp224r1_sha512_test.json",
        Curve::P224,
        HashAlg::Sha512,
        Form::Der,
    ),
    (
        "ecdsa_secp256r1_sha256_test.json",
        Curve::P256,
        HashAlg::Sha256,
        Form::Der,
    ),
    (
        "ecdsa_secp256r1_sha512_test.json",
        Curve::P256,
        HashAlg::Sha512,
        Form::Der,
    ),
    (
        "ecdsa_secp384r1_sha256_test.json",
        Curve::P384,
        HashAlg::Sha256,
        Form::Der,
    ),
    (
        "ecdsa_secp384r1_sha384_test.json",
        Curve::P384,
        HashAlg::Sha384,
        Form::Der,
    ),
    (
        "ecdsa_secp384r1_sha512_test.json",
        Curve::P384,
        HashAlg::Sha512,
        Form::Der,
    ),
    (
        "ecdsa_brainpoolP256r1_sha256_test.json",
        Curve::Bp256,
        HashAlg::Sha256,
        Form::Der,
    ),
    (
        "ecdsa_brainpoolP384r1_sha384_test.json",
        Curve::Bp384,
        HashAlg::Sha384,
        Form::Der,
    ),
    (
        "ecdsa_secp224r1_sha224_p1363_test.json",
        Curve::P224,
        HashAlg::Sha224,
        Form::P1363,
    ),
    (
        "ecdsa_secp224r1_sha256_p1363_test.json",
        Curve::P224,
        HashAlg::Sha256,
        Form::P1363,
    ),
    (
        "ecdsa_secp224r1_sha512_p1363_test.json",
        Curve::P224,
        HashAlg::Sha512,
        Form::P1363,
    ),
    (
        "ecdsa_secp256r1_sha256_p1363_test.json",
        Curve::P256,
        HashAlg::Sha256,
        Form::P1363,
    ),
    (
        "ecdsa_secp256r1_sha512_p1363_test.json",
        Curve::P256,
        HashAlg::Sha512,
        Form::P1363,
    ),
    (
        "ecdsa_secp384r1_sha384_p1363_test.json",
        Curve::P384,
        HashAlg::Sha384,
        Form::P1363,
    ),
    (
        "ecdsa_secp384r1_sha512_p1363_test.json",
        Curve::P384,
        HashAlg::Sha512,
        Form::P1363,
    ),
    (
        "ecdsa_brainpoolP256r1_sha256_p1363_test.json",
        Curve::Bp256,
        HashAlg::Sha256,
        Form::P1363,
    ),
    (
        "ecdsa_brainpoolP384r1_sha384_p1363_test.json",
        Curve::Bp384,
        HashAlg::Sha384,
        Form::P1363,
    ),
];

/// Why a signature was not accepted.
enum Outcome {
    Accepted,
    Rejected(String),
}

fn verify_one(
    key: &Result<PublicKey, String>,
    curve: Curve,
    hash: HashAlg,
    form: Form,
    test: &Test,
) -> (Outcome, Option<Signature>) {
    let key = match key {
        Ok(key) => key,
        Err(why) => {
            return (
                Outcome::Rejected(format!("public key refused: {why}")),
                None,
            )
        }
    };
    let verifier = match key.verifying_key() {
        Ok(v) => v,
        Err(e) => {
            return (
                Outcome::Rejected(format!("verifying_key refused: {e}")),
                None,
            )
        }
    };
    let sig_bytes = hex(&test.sig);
    let parsed = match form {
        Form::Der => Signature::from_der(curve, &sig_bytes),
        Form::P1363 => Signature::from_p1363(curve, &sig_bytes),
    };
    let sig = match parsed {
        Ok(sig) => sig,
        Err(e) => {
            return (
                Outcome::Rejected(format!("signature parse error: {e}")),
                None,
            )
        }
    };
    let outcome = if verifier.verify(hash, &hex(&test.msg), &sig) {
        Outcome::Accepted
    } else {
        Outcome::Rejected("verify returned false".into())
    };
    (outcome, Some(sig))
}

fn run_file(file: &str, curve: Curve, hash: HashAlg, form: Form) {
    let data: WycheproofFile<Group> = load_json(&format!("wycheproof/{file}"));
    assert_eq!(data.algorithm, "ECDSA", "{file}");
    let mut tally = Tally::default();
    let mut failures = Failures::new();
    for group in &data.test_groups {
        let expected_type = match form {
            Form::Der => "EcdsaVerify",
            Form::P1363 => "EcdsaP1363Verify",
        };
        assert_eq!(group.kind, expected_type, "{file}: group type");
        assert_eq!(
            wycheproof_curve(&group.public_key.curve),
            curve,
            "{file}: group curve"
        );
        assert_eq!(hash_alg(&group.sha), hash, "{file}: group hash");
        let key = PublicKey::from_sec1(curve, &hex(&group.public_key.uncompressed))
            .map_err(|e| e.to_string());
        for test in &group.tests {
            let expect = Expect::parse(&test.result);
            tally.count(expect);
            let (outcome, sig) = verify_one(&key, curve, hash, form, test);
            match (expect, outcome) {
                (Expect::Valid, Outcome::Rejected(why)) => {
                    failures.push(
                        file,
                        test.tc_id,
                        &test.comment,
                        format!("valid but rejected: {why}"),
                    );
                }
                (Expect::Valid, Outcome::Accepted) => {
                    // A valid signature is in canonical form: it must re-encode to the same bytes.
                    let sig = sig.expect("accepted implies parsed");
                    let again = match form {
                        Form::Der => sig.to_der(),
                        Form::P1363 => sig.to_p1363().to_vec(),
                    };
                    failures.check(
                        again == hex(&test.sig),
                        file,
                        test.tc_id,
                        &test.comment,
                        "valid signature does not re-encode to the same bytes",
                    );
                }
                (Expect::Invalid, Outcome::Accepted) => {
                    failures.push(file, test.tc_id, &test.comment, "invalid but accepted");
                }
                (Expect::Invalid, Outcome::Rejected(_)) | (Expect::Acceptable, _) => {}
            }
        }
    }
    println!("{file}: {tally}, {} failure(s)", failures.len());
    assert!(tally.total() > 0, "{file}: no tests run");
    assert_eq!(
        tally.total(),
        data.number_of_tests,
        "{file}: tests run vs numberOfTests"
    );
    failures.assert_none(file);
}

#[test]
fn every_pinned_ecdsa_file_is_covered() {
    let present = common::list_vector_files("wycheproof", "ecdsa_", "_test.json");
    let mut listed: Vec<String> = FILES.iter().map(|(f, ..)| (*f).to_owned()).collect();
    listed.sort();
    assert_eq!(
        present, listed,
        "ECDSA files on disk vs. files this test runs"
    );
}

macro_rules! ecdsa_file_tests {
    ($($name:ident => $index:expr;)*) => {
        $(
            #[test]
            fn $name() {
                let (file, curve, hash, form) = FILES[$index];
                run_file(file, curve, hash, form);
            }
        )*
        const TESTED_FILES: usize = [$($index),*].len();
    };
}

ecdsa_file_tests! {
    secp224r1_sha224_der => 0;
    secp224r1_sha256_der => 1;
    secp224r1_sha512_der => 2;
    secp256r1_sha256_der => 3;
    secp256r1_sha512_der => 4;
    secp384r1_sha256_der => 5;
    secp384r1_sha384_der => 6;
    secp384r1_sha512_der => 7;
    brainpool_p256r1_sha256_der => 8;
    brainpool_p384r1_sha384_der => 9;
    secp224r1_sha224_p1363 => 10;
    secp224r1_sha256_p1363 => 11;
    secp224r1_sha512_p1363 => 12;
    secp256r1_sha256_p1363 => 13;
    secp256r1_sha512_p1363 => 14;
    secp384r1_sha384_p1363 => 15;
    secp384r1_sha512_p1363 => 16;
    brainpool_p256r1_sha256_p1363 => 17;
    brainpool_p384r1_sha384_p1363 => 18;
}

#[test]
fn every_listed_file_has_a_test() {
    assert_eq!(TESTED_FILES, FILES.len());
}

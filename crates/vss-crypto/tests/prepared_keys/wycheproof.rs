//! Wycheproof's ECDSA files of the four curves: the prepared key's verdict is the file's and
//! the library's.

use vss_crypto::{PreparedKey, PublicKey, Signature};

use crate::common::ecdsa::EcdsaGroup as Group;
use crate::common::{
    hash_alg, hex, load_json, wycheproof_curve, Expect, Failures, Tally, WycheproofFile,
};

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

//! Wycheproof RSA vectors against `RsaPublicKey` and `RsaPrivateKey`.
//!
//! - `rsa_signature_*`: RSASSA-PKCS1-v1_5 verification (`verify`, and `verify_pkcs1_raw` with
//!   the DER DigestInfo of the message's digest).
//! - `rsa_pss_*`: RSASSA-PSS verification. VSS's `Pss(hash)` is MGF1 of the same hash with a
//!   salt as long as the digest; groups with other parameters are counted as not applicable
//!   (how many of them VSS accepts anyway is printed, not asserted).
//! - `rsa_oaep_*` / `rsa_pkcs1_2048_test.json`: OAEP and PKCS #1 v1.5 decryption with the
//!   group's PKCS #8 key. OAEP applies with SHA-1/MGF1-SHA-1 and SHA-256/MGF1-SHA-256 and an
//!   empty label only; a labelled case is not applicable as given, but decrypting it with the
//!   empty label must fail (the label hash differs), and that is asserted.
//! - `rsa_pkcs1_*_sig_gen_test.json`: PKCS #1 v1.5 signing is deterministic, so `sign`,
//!   `sign_digest_info` and `sign_pkcs1_raw` must give exactly `sig`.
//!
//! A group whose key size VSS refuses (anything but 2048, 3072 and 4096 bits) must be refused
//! by `RsaPublicKey::from_components` (and `RsaPrivateKey::from_pkcs8` where the group has a
//! private key); its tests are counted as refused. Every test of a file ends in exactly one
//! count, and each file asserts minimum numbers of cases actually checked.

mod common;

use std::fmt;

use common::{hex, load_json, Expect, Failures, Tally, WycheproofFile};
use serde::Deserialize;
use vss_crypto::{
    digest_info, HashAlg, RsaBits, RsaEncryptionPadding, RsaPrivateKey, RsaPublicKey,
    RsaSignatureScheme,
};

/// `publicKey` of a verification group, or `privateKey` of a decryption / generation group
/// (only the public components are read from it).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Components {
    modulus: String,
    public_exponent: String,
}

/// A group of `RsassaPkcs1Verify` or `RsassaPssVerify`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VerifyGroup {
    #[serde(rename = "type")]
    kind: String,
    key_size: u64,
    sha: String,
    public_key: Components,
    /// PSS only.
    mgf: Option<String>,
    /// PSS only.
    mgf_sha: Option<String>,
    /// PSS only.
    s_len: Option<usize>,
    tests: Vec<SigTest>,
}

/// A test of a verification or a generation group.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SigTest {
    tc_id: u32,
    comment: String,
    msg: String,
    sig: String,
    result: String,
}

/// A group of `RsaesOaepDecrypt` or `RsaesPkcs1Decrypt`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DecryptGroup {
    #[serde(rename = "type")]
    kind: String,
    key_size: u64,
    /// OAEP only.
    sha: Option<String>,
    /// OAEP only.
    mgf: Option<String>,
    /// OAEP only.
    mgf_sha: Option<String>,
    private_key: Components,
    private_key_pkcs8: String,
    tests: Vec<DecryptTest>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DecryptTest {
    tc_id: u32,
    comment: String,
    msg: String,
    ct: String,
    /// OAEP only.
    label: Option<String>,
    result: String,
}

/// A group of `RsassaPkcs1Generate`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SigGenGroup {
    #[serde(rename = "type")]
    kind: String,
    key_size: u64,
    sha: String,
    private_key: Components,
    private_key_pkcs8: String,
    tests: Vec<SigTest>,
}

/// The hashes VSS's RSA schemes sign; `None` for every other Wycheproof hash name
/// (SHA-1, SHA-224, SHA-512/256, SHA3-*, ...).
fn rsa_hash(name: &str) -> Option<HashAlg> {
    match name {
        "SHA-256" => Some(HashAlg::Sha256),
        "SHA-384" => Some(HashAlg::Sha384),
        "SHA-512" => Some(HashAlg::Sha512),
        _ => None,
    }
}

/// Where each test of a file ended up. Every test is counted exactly once.
#[derive(Debug, Default)]
struct Counts {
    /// All tests, by expected result.
    tally: Tally,
    /// `valid` tests checked (accepted / decrypted / reproduced as required).
    valid_checked: usize,
    /// `invalid` tests checked (refused as required).
    invalid_checked: usize,
    /// `acceptable` tests that VSS accepted (signatures: also reproduced exactly).
    acceptable_accepted: usize,
    /// `acceptable` tests that VSS refused.
    acceptable_refused: usize,
    /// Tests of groups whose key size VSS refuses; the refusal is asserted.
    size_refused: usize,
    /// Tests whose parameters are not VSS's (hash, MGF hash, salt length, label).
    not_applicable: usize,
    /// Not-applicable tests that still produced an outcome under VSS's nearest scheme
    /// (PSS: verified anyway; OAEP with a label: refused with the empty label, as required).
    not_applicable_note: usize,
    /// Extra checks that passed (`verify_pkcs1_raw`, `sign_digest_info`, `sign_pkcs1_raw`,
    /// verification of a generated signature).
    extra_checks: usize,
}

impl Counts {
    fn accounted(&self) -> usize {
        self.valid_checked
            + self.invalid_checked
            + self.acceptable_accepted
            + self.acceptable_refused
            + self.size_refused
            + self.not_applicable
    }

    /// Counts a checked outcome; a `valid` test refused or an `invalid` one accepted is a
    /// failure, recorded by the caller in `Failures` and counted nowhere here.
    fn record(&mut self, expect: Expect, accepted: bool) {
        match (expect, accepted) {
            (Expect::Valid, true) => self.valid_checked += 1,
            (Expect::Invalid, false) => self.invalid_checked += 1,
            (Expect::Acceptable, true) => self.acceptable_accepted += 1,
            (Expect::Acceptable, false) => self.acceptable_refused += 1,
            (Expect::Valid, false) | (Expect::Invalid, true) => {}
        }
    }
}

/// Minimum counts a file must reach.
#[derive(Debug, Clone, Copy, Default)]
struct Minimum {
    valid: usize,
    invalid: usize,
    size_refused: usize,
}

struct Summary<'a> {
    file: &'a str,
    counts: &'a Counts,
    note: &'a str,
    failures: usize,
}

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.counts;
        write!(
            f,
            "{}: {}; checked valid {}, invalid {}; acceptable accepted {}, refused {}; \
             key size refused {}; not applicable {}",
            self.file,
            c.tally,
            c.valid_checked,
            c.invalid_checked,
            c.acceptable_accepted,
            c.acceptable_refused,
            c.size_refused,
            c.not_applicable,
        )?;
        if !self.note.is_empty() {
            write!(f, " ({} {})", c.not_applicable_note, self.note)?;
        }
        write!(
            f,
            "; extra checks {}; {} failure(s)",
            c.extra_checks, self.failures
        )
    }
}

/// Prints the summary, then asserts the accounting, the minimums and no failure.
fn finish(
    file: &str,
    number_of_tests: usize,
    counts: &Counts,
    note: &str,
    min: Minimum,
    failures: &Failures,
) {
    println!(
        "{}",
        Summary {
            file,
            counts,
            note,
            failures: failures.len()
        }
    );
    failures.assert_none(file);
    assert_eq!(
        counts.tally.total(),
        number_of_tests,
        "{file}: tests run vs numberOfTests"
    );
    assert_eq!(
        counts.accounted(),
        counts.tally.total(),
        "{file}: every test must be checked, refused or not applicable"
    );
    assert!(
        counts.valid_checked >= min.valid,
        "{file}: {} valid tests checked, expected at least {}",
        counts.valid_checked,
        min.valid
    );
    assert!(
        counts.invalid_checked >= min.invalid,
        "{file}: {} invalid tests checked, expected at least {}",
        counts.invalid_checked,
        min.invalid
    );
    assert!(
        counts.size_refused >= min.size_refused,
        "{file}: {} tests of refused key sizes, expected at least {}",
        counts.size_refused,
        min.size_refused
    );
}

/// The public key of a group: `Ok(Some)` for a size VSS supports, `Ok(None)` when the size is
/// refused and `from_components` refused it, `Err` when `from_components` disagrees with the
/// size rule.
fn group_public_key(
    key_size: u64,
    components: &Components,
) -> Result<Option<RsaPublicKey>, String> {
    let built =
        RsaPublicKey::from_components(&hex(&components.modulus), &hex(&components.public_exponent));
    match (RsaBits::from_bits(key_size), built) {
        (Ok(bits), Ok(key)) if key.bits() == bits => Ok(Some(key)),
        (Ok(bits), Ok(key)) => Err(format!(
            "keySize {key_size}: from_components gave {:?}, expected {bits:?}",
            key.bits()
        )),
        (Ok(_), Err(e)) => Err(format!(
            "keySize {key_size} is supported but from_components refused: {e}"
        )),
        (Err(_), Ok(_)) => Err(format!(
            "keySize {key_size} is not supported but from_components accepted the key"
        )),
        (Err(_), Err(_)) => Ok(None),
    }
}

/// The private key of a group, with the same three outcomes as [`group_public_key`]; a
/// supported key must also carry the group's modulus and exponent.
fn group_private_key(
    key_size: u64,
    pkcs8: &str,
    components: &Components,
) -> Result<Option<RsaPrivateKey>, String> {
    let public = group_public_key(key_size, components)?;
    let private = RsaPrivateKey::from_pkcs8(&hex(pkcs8));
    match (public, private) {
        (Some(public), Ok(private)) if private.public_key() == &public => Ok(Some(private)),
        (Some(_), Ok(_)) => Err("from_pkcs8's public key differs from the group's".into()),
        (Some(_), Err(e)) => Err(format!(
            "keySize {key_size} is supported but from_pkcs8 refused: {e}"
        )),
        (None, Ok(_)) => Err(format!(
            "keySize {key_size} is not supported but from_pkcs8 accepted the key"
        )),
        (None, Err(_)) => Ok(None),
    }
}

// ---------------------------------------------------------------------------------------------
// Signature verification (PKCS #1 v1.5 and PSS)
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SigKind {
    Pkcs1,
    Pss,
}

fn run_verify(file: &str, kind: SigKind, min: Minimum) {
    let data: WycheproofFile<VerifyGroup> = load_json(&format!("wycheproof/{file}"));
    let (algorithm, group_type) = match kind {
        SigKind::Pkcs1 => ("RSASSA-PKCS1-v1_5", "RsassaPkcs1Verify"),
        SigKind::Pss => ("RSASSA-PSS", "RsassaPssVerify"),
    };
    assert_eq!(data.algorithm, algorithm, "{file}");
    let mut counts = Counts::default();
    let mut failures = Failures::new();
    for group in &data.test_groups {
        assert_eq!(group.kind, group_type, "{file}: group type");
        for test in &group.tests {
            counts.tally.count(Expect::parse(&test.result));
        }
        let key = match group_public_key(group.key_size, &group.public_key) {
            Ok(Some(key)) => key,
            Ok(None) => {
                counts.size_refused += group.tests.len();
                continue;
            }
            Err(why) => {
                for test in &group.tests {
                    failures.push(file, test.tc_id, &test.comment, &why);
                }
                continue;
            }
        };
        let hash = rsa_hash(&group.sha);
        let scheme = match (kind, hash) {
            (SigKind::Pkcs1, Some(hash)) => Some(RsaSignatureScheme::Pkcs1(hash)),
            (SigKind::Pss, Some(hash))
                if group.mgf.as_deref() == Some("MGF1")
                    && group.mgf_sha.as_deref() == Some(group.sha.as_str())
                    && group.s_len == Some(hash.output_len()) =>
            {
                Some(RsaSignatureScheme::Pss(hash))
            }
            _ => None,
        };
        let Some(scheme) = scheme else {
            counts.not_applicable += group.tests.len();
            // Not asserted: how many of these VSS's PSS with the group's hash accepts anyway.
            if let (SigKind::Pss, Some(hash)) = (kind, hash) {
                for test in &group.tests {
                    if key.verify(
                        RsaSignatureScheme::Pss(hash),
                        &hex(&test.msg),
                        &hex(&test.sig),
                    ) {
                        counts.not_applicable_note += 1;
                    }
                }
            }
            continue;
        };
        for test in &group.tests {
            let expect = Expect::parse(&test.result);
            let (msg, sig) = (hex(&test.msg), hex(&test.sig));
            let accepted = key.verify(scheme, &msg, &sig);
            counts.record(expect, accepted);
            match (expect, accepted) {
                (Expect::Valid, false) => {
                    failures.push(file, test.tc_id, &test.comment, "valid but not verified")
                }
                (Expect::Invalid, true) => {
                    failures.push(file, test.tc_id, &test.comment, "invalid but verified")
                }
                _ => {}
            }
            if let RsaSignatureScheme::Pkcs1(hash) = scheme {
                // The raw path compares the recovered block with the DER DigestInfo: it must
                // agree with `verify` on every valid and invalid case.
                let info = digest_info(hash, &hash.digest(&msg)).expect("digest_info");
                let raw = key.verify_pkcs1_raw(&info, &sig);
                match expect {
                    Expect::Valid | Expect::Invalid => {
                        let want = expect == Expect::Valid;
                        if raw == want {
                            counts.extra_checks += 1;
                        } else {
                            failures.push(
                                file,
                                test.tc_id,
                                &test.comment,
                                format!("verify_pkcs1_raw gave {raw}, expected {want}"),
                            );
                        }
                    }
                    Expect::Acceptable => {}
                }
            }
        }
    }
    let note = match kind {
        SigKind::Pkcs1 => "",
        SigKind::Pss => "of them verified anyway by Pss(group hash), not asserted",
    };
    finish(file, data.number_of_tests, &counts, note, min, &failures);
}

// ---------------------------------------------------------------------------------------------
// Decryption (OAEP and PKCS #1 v1.5)
// ---------------------------------------------------------------------------------------------

fn run_decrypt(file: &str, oaep: bool, min: Minimum) {
    let data: WycheproofFile<DecryptGroup> = load_json(&format!("wycheproof/{file}"));
    let (algorithm, group_type) = if oaep {
        ("RSAES-OAEP", "RsaesOaepDecrypt")
    } else {
        ("RSAES-PKCS1-v1_5", "RsaesPkcs1Decrypt")
    };
    assert_eq!(data.algorithm, algorithm, "{file}");
    let mut counts = Counts::default();
    let mut failures = Failures::new();
    for group in &data.test_groups {
        assert_eq!(group.kind, group_type, "{file}: group type");
        for test in &group.tests {
            counts.tally.count(Expect::parse(&test.result));
        }
        let key =
            match group_private_key(group.key_size, &group.private_key_pkcs8, &group.private_key) {
                Ok(Some(key)) => key,
                Ok(None) => {
                    counts.size_refused += group.tests.len();
                    continue;
                }
                Err(why) => {
                    for test in &group.tests {
                        failures.push(file, test.tc_id, &test.comment, &why);
                    }
                    continue;
                }
            };
        let padding = if oaep {
            match (
                group.sha.as_deref(),
                group.mgf.as_deref(),
                group.mgf_sha.as_deref(),
            ) {
                (Some("SHA-1"), Some("MGF1"), Some("SHA-1")) => {
                    Some(RsaEncryptionPadding::OaepSha1)
                }
                (Some("SHA-256"), Some("MGF1"), Some("SHA-256")) => {
                    Some(RsaEncryptionPadding::OaepSha256)
                }
                _ => None,
            }
        } else {
            Some(RsaEncryptionPadding::Pkcs1)
        };
        let Some(padding) = padding else {
            counts.not_applicable += group.tests.len();
            continue;
        };
        for test in &group.tests {
            let expect = Expect::parse(&test.result);
            let (ct, msg) = (hex(&test.ct), hex(&test.msg));
            let outcome = key.decrypt(padding, &ct);
            if test.label.as_deref().is_some_and(|l| !l.is_empty()) {
                // VSS decrypts with the empty label only: the label hash cannot match.
                counts.not_applicable += 1;
                match outcome {
                    Err(_) => counts.not_applicable_note += 1,
                    Ok(plain) => failures.push(
                        file,
                        test.tc_id,
                        &test.comment,
                        format!(
                            "labelled ciphertext decrypted with the empty label to {}",
                            hex::encode(&plain[..])
                        ),
                    ),
                }
                continue;
            }
            match (expect, outcome) {
                (Expect::Valid | Expect::Acceptable, Ok(plain)) => {
                    if plain[..] == msg[..] {
                        counts.record(expect, true);
                    } else {
                        failures.push(
                            file,
                            test.tc_id,
                            &test.comment,
                            format!(
                                "decrypted to {}, expected {}",
                                hex::encode(&plain[..]),
                                test.msg
                            ),
                        );
                    }
                }
                (Expect::Valid, Err(e)) => failures.push(
                    file,
                    test.tc_id,
                    &test.comment,
                    format!("valid but decryption failed: {e}"),
                ),
                (Expect::Invalid, Ok(plain)) => failures.push(
                    file,
                    test.tc_id,
                    &test.comment,
                    format!(
                        "invalid but decrypted to {} (a wrong plaintext, not an error)",
                        hex::encode(&plain[..])
                    ),
                ),
                (Expect::Invalid | Expect::Acceptable, Err(_)) => counts.record(expect, false),
            }
        }
    }
    let note = if oaep {
        "labelled, of them refused with the empty label as required"
    } else {
        ""
    };
    finish(file, data.number_of_tests, &counts, note, min, &failures);
}

// ---------------------------------------------------------------------------------------------
// Signature generation (PKCS #1 v1.5, deterministic)
// ---------------------------------------------------------------------------------------------

fn run_sig_gen(file: &str, min: Minimum) {
    let data: WycheproofFile<SigGenGroup> = load_json(&format!("wycheproof/{file}"));
    assert_eq!(data.algorithm, "RSASSA-PKCS1-v1_5", "{file}");
    let mut counts = Counts::default();
    let mut failures = Failures::new();
    for group in &data.test_groups {
        assert_eq!(group.kind, "RsassaPkcs1Generate", "{file}: group type");
        for test in &group.tests {
            counts.tally.count(Expect::parse(&test.result));
        }
        let key =
            match group_private_key(group.key_size, &group.private_key_pkcs8, &group.private_key) {
                Ok(Some(key)) => key,
                Ok(None) => {
                    counts.size_refused += group.tests.len();
                    continue;
                }
                Err(why) => {
                    // A supported size whose key VSS cannot load: a failure for valid tests,
                    // an allowed refusal for acceptable ones (e.g. e = 3).
                    for test in &group.tests {
                        match Expect::parse(&test.result) {
                            Expect::Acceptable => counts.acceptable_refused += 1,
                            _ => failures.push(file, test.tc_id, &test.comment, &why),
                        }
                    }
                    continue;
                }
            };
        let Some(hash) = rsa_hash(&group.sha) else {
            counts.not_applicable += group.tests.len();
            if group.sha == "SHA-224" {
                // HashAlg has SHA-224, but RSA refuses to sign it: assert the refusal.
                for test in &group.tests {
                    if key
                        .sign(RsaSignatureScheme::Pkcs1(HashAlg::Sha224), &hex(&test.msg))
                        .is_ok()
                    {
                        failures.push(file, test.tc_id, &test.comment, "SHA-224 was signed");
                    } else {
                        counts.not_applicable_note += 1;
                    }
                }
            }
            continue;
        };
        let scheme = RsaSignatureScheme::Pkcs1(hash);
        for test in &group.tests {
            let expect = Expect::parse(&test.result);
            let (msg, want) = (hex(&test.msg), hex(&test.sig));
            let (id, comment) = (test.tc_id, test.comment.as_str());
            let signature = match (expect, key.sign(scheme, &msg)) {
                (Expect::Invalid, Ok(_)) => {
                    failures.push(file, id, comment, "invalid but signed");
                    continue;
                }
                (Expect::Invalid | Expect::Acceptable, Err(_)) => {
                    counts.record(expect, false);
                    continue;
                }
                (Expect::Valid, Err(e)) => {
                    failures.push(file, id, comment, format!("sign failed: {e}"));
                    continue;
                }
                (Expect::Valid | Expect::Acceptable, Ok(signature)) => signature,
            };
            if signature != want {
                // PKCS #1 v1.5 is deterministic: any signature made must be this one.
                failures.push(
                    file,
                    id,
                    comment,
                    format!("sign gave {}", hex::encode(&signature)),
                );
                continue;
            }
            let info = digest_info(hash, &hash.digest(&msg)).expect("digest_info");
            let extras = [
                (
                    "sign_digest_info",
                    key.sign_digest_info(&info).ok() == Some(want.clone()),
                ),
                (
                    "sign_pkcs1_raw",
                    key.sign_pkcs1_raw(&info).ok() == Some(want.clone()),
                ),
                ("verify", key.public_key().verify(scheme, &msg, &want)),
            ];
            let mut all = true;
            for (what, ok) in extras {
                if ok {
                    counts.extra_checks += 1;
                } else {
                    all = false;
                    failures.push(file, id, comment, format!("{what} disagrees with sig"));
                }
            }
            if all {
                counts.record(expect, true);
            }
        }
    }
    finish(
        file,
        data.number_of_tests,
        &counts,
        "SHA-224, of them refused by sign as required",
        min,
        &failures,
    );
}

// ---------------------------------------------------------------------------------------------
// The files
// ---------------------------------------------------------------------------------------------

/// Every RSA file pinned under `tests/vectors/wycheproof/`.
const FILES: &[&str] = &[
    "rsa_oaep_2048_sha1_mgf1sha1_test.json",
    "rsa_oaep_2048_sha256_mgf1sha256_test.json",
    "rsa_pkcs1_1024_sig_gen_test.json",
    "rsa_pkcs1_2048_sig_gen_test.json",
    "rsa_pkcs1_2048_test.json",
    "rsa_pkcs1_3072_sig_gen_test.json",
    "rsa_pkcs1_4096_sig_gen_test.json",
    "rsa_pss_2048_sha256_mgf1_32_test.json",
    "rsa_pss_3072_sha256_mgf1_32_test.json",
    "rsa_pss_misc_test.json",
    "rsa_signature_2048_sha256_test.json",
    "rsa_signature_3072_sha384_test.json",
    "rsa_signature_4096_sha512_test.json",
];

#[test]
fn every_pinned_rsa_file_is_covered() {
    let present = common::list_vector_files("wycheproof", "rsa_", "_test.json");
    let mut listed: Vec<String> = FILES.iter().map(|f| (*f).to_owned()).collect();
    listed.sort();
    assert_eq!(
        present, listed,
        "RSA files on disk vs. files this test runs"
    );
}

#[test]
fn pkcs1_verify_2048_sha256() {
    run_verify(
        "rsa_signature_2048_sha256_test.json",
        SigKind::Pkcs1,
        Minimum {
            valid: 9,
            invalid: 249,
            ..Minimum::default()
        },
    );
}

#[test]
fn pkcs1_verify_3072_sha384() {
    run_verify(
        "rsa_signature_3072_sha384_test.json",
        SigKind::Pkcs1,
        Minimum {
            valid: 7,
            invalid: 251,
            ..Minimum::default()
        },
    );
}

#[test]
fn pkcs1_verify_4096_sha512() {
    run_verify(
        "rsa_signature_4096_sha512_test.json",
        SigKind::Pkcs1,
        Minimum {
            valid: 7,
            invalid: 251,
            ..Minimum::default()
        },
    );
}

#[test]
fn pss_verify_2048_sha256_mgf1_32() {
    run_verify(
        "rsa_pss_2048_sha256_mgf1_32_test.json",
        SigKind::Pss,
        Minimum {
            valid: 63,
            invalid: 45,
            ..Minimum::default()
        },
    );
}

#[test]
fn pss_verify_3072_sha256_mgf1_32() {
    run_verify(
        "rsa_pss_3072_sha256_mgf1_32_test.json",
        SigKind::Pss,
        Minimum {
            valid: 63,
            invalid: 45,
            ..Minimum::default()
        },
    );
}

#[test]
fn pss_verify_misc_parameters() {
    // 150 single-test groups of 2048-bit keys over hash × MGF hash × salt length; three of
    // them are VSS's schemes (SHA-256/32, SHA-384/48, SHA-512/64).
    run_verify(
        "rsa_pss_misc_test.json",
        SigKind::Pss,
        Minimum {
            valid: 3,
            ..Minimum::default()
        },
    );
}

#[test]
fn oaep_decrypt_2048_sha1_mgf1sha1() {
    run_decrypt(
        "rsa_oaep_2048_sha1_mgf1sha1_test.json",
        true,
        Minimum {
            valid: 10,
            invalid: 19,
            ..Minimum::default()
        },
    );
}

#[test]
fn oaep_decrypt_2048_sha256_mgf1sha256() {
    run_decrypt(
        "rsa_oaep_2048_sha256_mgf1sha256_test.json",
        true,
        Minimum {
            valid: 10,
            invalid: 19,
            ..Minimum::default()
        },
    );
}

#[test]
fn pkcs1_decrypt_2048() {
    run_decrypt(
        "rsa_pkcs1_2048_test.json",
        false,
        Minimum {
            valid: 42,
            invalid: 25,
            ..Minimum::default()
        },
    );
}

#[test]
fn pkcs1_sig_gen_1024_is_refused() {
    run_sig_gen(
        "rsa_pkcs1_1024_sig_gen_test.json",
        Minimum {
            size_refused: 33,
            ..Minimum::default()
        },
    );
}

#[test]
fn pkcs1_sig_gen_2048() {
    run_sig_gen(
        "rsa_pkcs1_2048_sig_gen_test.json",
        Minimum {
            valid: 24,
            ..Minimum::default()
        },
    );
}

#[test]
fn pkcs1_sig_gen_3072() {
    run_sig_gen(
        "rsa_pkcs1_3072_sig_gen_test.json",
        Minimum {
            valid: 24,
            ..Minimum::default()
        },
    );
}

#[test]
fn pkcs1_sig_gen_4096() {
    run_sig_gen(
        "rsa_pkcs1_4096_sig_gen_test.json",
        Minimum {
            valid: 24,
            ..Minimum::default()
        },
    );
}

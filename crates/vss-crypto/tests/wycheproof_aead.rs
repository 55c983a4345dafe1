//! Wycheproof AES-CCM and AES-GCM vectors against vss-crypto's `AesCcm` and `AesGcm`.
//!
//! The API takes only 12-byte nonces and produces 16-byte tags, and `AesCcm` takes only
//! 128-bit keys, `AesGcm` 128- or 256-bit keys. Vectors with other parameters are run as
//! "must be refused" checks: the key size must be refused at construction, the nonce size
//! with `InvalidLength` by both `seal` and `open`, and a shorter tag must never authenticate.

mod common;

use common::{hex, load_json, Expect, Failures, Tally, WycheproofFile};
use serde::Deserialize;
use vss_crypto::{AesCcm, AesGcm, Error, NONCE_LEN, TAG_LEN};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Group {
    #[serde(rename = "type")]
    kind: String,
    key_size: usize,
    iv_size: usize,
    tag_size: usize,
    tests: Vec<Test>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    tc_id: u32,
    comment: String,
    key: String,
    iv: String,
    aad: String,
    msg: String,
    ct: String,
    tag: String,
    result: String,
}

/// One cipher under one key.
enum Cipher {
    Ccm(Box<AesCcm>),
    Gcm(AesGcm),
}

impl Cipher {
    fn seal(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> vss_crypto::Result<Vec<u8>> {
        match self {
            Cipher::Ccm(c) => c.seal(nonce, aad, plaintext),
            Cipher::Gcm(c) => c.seal(nonce, aad, plaintext),
        }
    }

    fn open(&self, nonce: &[u8], aad: &[u8], sealed: &[u8]) -> vss_crypto::Result<Vec<u8>> {
        match self {
            Cipher::Ccm(c) => c.open(nonce, aad, sealed),
            Cipher::Gcm(c) => c.open(nonce, aad, sealed),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Ccm,
    Gcm,
}

impl Algorithm {
    fn file(self) -> &'static str {
        match self {
            Algorithm::Ccm => "aes_ccm_test.json",
            Algorithm::Gcm => "aes_gcm_test.json",
        }
    }

    fn supports_key_bits(self, bits: usize) -> bool {
        match self {
            Algorithm::Ccm => bits == 128,
            Algorithm::Gcm => bits == 128 || bits == 256,
        }
    }

    fn cipher(self, key: &[u8]) -> vss_crypto::Result<Cipher> {
        Ok(match self {
            Algorithm::Ccm => Cipher::Ccm(Box::new(AesCcm::new(key)?)),
            Algorithm::Gcm => Cipher::Gcm(AesGcm::new(key)?),
        })
    }
}

/// What was checked per parameter class, for the printed summary.
#[derive(Default)]
struct Classes {
    /// Supported parameters: full seal/open checks.
    full: Tally,
    /// Unsupported key size: construction must fail.
    key_refused: usize,
    /// Unsupported nonce size: seal and open must fail with `InvalidLength`.
    nonce_refused: usize,
    /// Unsupported (shorter) tag: open of ct ‖ tag must fail.
    tag_refused: usize,
    /// Could not be expressed through the API at all.
    skipped: usize,
}

fn run(alg: Algorithm) {
    let file = alg.file();
    let data: WycheproofFile<Group> = load_json(&format!("wycheproof/{file}"));
    let mut failures = Failures::new();
    let mut classes = Classes::default();
    let mut total = 0;
    for group in &data.test_groups {
        assert_eq!(group.kind, "AeadTest", "{file}: group type");
        for test in &group.tests {
            total += 1;
            let expect = Expect::parse(&test.result);
            let (key, iv, aad, msg, ct, tag) = (
                hex(&test.key),
                hex(&test.iv),
                hex(&test.aad),
                hex(&test.msg),
                hex(&test.ct),
                hex(&test.tag),
            );
            assert_eq!(key.len() * 8, group.key_size, "{file} tcId {}", test.tc_id);
            assert_eq!(iv.len() * 8, group.iv_size, "{file} tcId {}", test.tc_id);
            let mut ct_tag = ct.clone();
            ct_tag.extend_from_slice(&tag);
            let id = test.tc_id;
            let comment = &test.comment;

            // Unsupported key size: construction must refuse it.
            if !alg.supports_key_bits(group.key_size) {
                classes.key_refused += 1;
                match alg.cipher(&key) {
                    Err(Error::InvalidLength { .. }) => {}
                    Err(e) => failures.push(
                        file,
                        id,
                        comment,
                        format!(
                            "key of {} bits refused with the wrong error: {e}",
                            group.key_size
                        ),
                    ),
                    Ok(_) => failures.push(
                        file,
                        id,
                        comment,
                        format!("key of {} bits accepted", group.key_size),
                    ),
                }
                continue;
            }
            let cipher = match alg.cipher(&key) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(file, id, comment, format!("supported key refused: {e}"));
                    continue;
                }
            };

            // Unsupported nonce size: both directions must answer InvalidLength.
            if group.iv_size != 8 * NONCE_LEN {
                classes.nonce_refused += 1;
                let is_len_err = |r: &vss_crypto::Result<Vec<u8>>| matches!(r, Err(Error::InvalidLength { got, .. }) if *got == iv.len());
                let sealed = cipher.seal(&iv, &aad, &msg);
                failures.check(
                    is_len_err(&sealed),
                    file,
                    id,
                    comment,
                    format!("seal with a {}-byte nonce: {sealed:?}", iv.len()),
                );
                let opened = cipher.open(&iv, &aad, &ct_tag);
                failures.check(
                    is_len_err(&opened),
                    file,
                    id,
                    comment,
                    format!("open with a {}-byte nonce: {opened:?}", iv.len()),
                );
                continue;
            }

            // Unsupported (shorter) tag: the API cannot produce it, and must never
            // authenticate ct ‖ short tag.
            if group.tag_size != 8 * TAG_LEN {
                if group.tag_size > 8 * TAG_LEN {
                    classes.skipped += 1;
                    continue;
                }
                classes.tag_refused += 1;
                let opened = cipher.open(&iv, &aad, &ct_tag);
                failures.check(
                    opened.is_err(),
                    file,
                    id,
                    comment,
                    format!("{}-bit tag authenticated: {opened:?}", group.tag_size),
                );
                if alg == Algorithm::Ccm && expect == Expect::Valid {
                    // CCM's counter blocks do not depend on the tag length: the encrypted
                    // part must still match.
                    match cipher.seal(&iv, &aad, &msg) {
                        Ok(sealed) => failures.check(
                            sealed.len() == msg.len() + TAG_LEN && sealed[..ct.len()] == ct[..],
                            file,
                            id,
                            comment,
                            "ciphertext part differs from the vector",
                        ),
                        Err(e) => failures.push(file, id, comment, format!("seal failed: {e}")),
                    }
                }
                continue;
            }

            // Supported parameters.
            classes.full.count(expect);
            let opened = cipher.open(&iv, &aad, &ct_tag);
            match expect {
                Expect::Valid => {
                    match cipher.seal(&iv, &aad, &msg) {
                        Ok(sealed) => failures.check(
                            sealed == ct_tag,
                            file,
                            id,
                            comment,
                            "seal differs from ct ‖ tag",
                        ),
                        Err(e) => failures.push(file, id, comment, format!("seal failed: {e}")),
                    }
                    match opened {
                        Ok(plain) => failures.check(
                            plain == msg,
                            file,
                            id,
                            comment,
                            "open gives another message",
                        ),
                        Err(e) => {
                            failures.push(file, id, comment, format!("valid but open failed: {e}"))
                        }
                    }
                }
                Expect::Invalid => {
                    failures.check(
                        opened.is_err(),
                        file,
                        id,
                        comment,
                        "invalid but open succeeded",
                    );
                }
                Expect::Acceptable => {
                    if let Ok(plain) = opened {
                        failures.check(
                            plain == msg,
                            file,
                            id,
                            comment,
                            "acceptable, opened to another message",
                        );
                    }
                }
            }
        }
    }
    println!(
        "{file}: {total} tests run: 96-bit nonce/128-bit tag/supported key: {}; \
         refused key size: {}; refused nonce size: {}; shorter tag never authenticates: {}; skipped: {}; {} failure(s)",
        classes.full,
        classes.key_refused,
        classes.nonce_refused,
        classes.tag_refused,
        classes.skipped,
        failures.len()
    );
    assert!(
        classes.full.total() > 0,
        "{file}: no supported-parameter tests run"
    );
    assert_eq!(
        total, data.number_of_tests,
        "{file}: tests run vs numberOfTests"
    );
    assert_eq!(
        classes.full.total()
            + classes.key_refused
            + classes.nonce_refused
            + classes.tag_refused
            + classes.skipped,
        total
    );
    failures.assert_none(file);
}

#[test]
fn wycheproof_aes_ccm() {
    run(Algorithm::Ccm);
}

#[test]
fn wycheproof_aes_gcm() {
    run(Algorithm::Gcm);
}

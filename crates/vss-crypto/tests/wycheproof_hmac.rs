//! Wycheproof HMAC-SHA256 vectors against `hmac_sha256`, `hmac_sha256_verify` and `mac1`
//! (the 128-bit truncation IEEE 1609.2 calls MAC1).

mod common;

use common::{hex, load_json, Expect, Failures, Tally, WycheproofFile};
use serde::Deserialize;
use vss_crypto::{hmac_sha256, hmac_sha256_verify, mac1, MAC1_TAG_LEN};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Group {
    #[serde(rename = "type")]
    kind: String,
    key_size: usize,
    tag_size: usize,
    tests: Vec<Test>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    tc_id: u32,
    comment: String,
    key: String,
    msg: String,
    tag: String,
    result: String,
}

#[test]
fn wycheproof_hmac_sha256() {
    let file = "hmac_sha256_test.json";
    let data: WycheproofFile<Group> = load_json(&format!("wycheproof/{file}"));
    assert_eq!(data.algorithm, "HMACSHA256", "{file}");
    let mut failures = Failures::new();
    let (mut full, mut truncated) = (Tally::default(), Tally::default());
    for group in &data.test_groups {
        assert_eq!(group.kind, "MacTest", "{file}: group type");
        assert!(
            group.tag_size == 256 || group.tag_size == 8 * MAC1_TAG_LEN,
            "{file}: unexpected tagSize {}",
            group.tag_size
        );
        for test in &group.tests {
            let expect = Expect::parse(&test.result);
            let (id, comment) = (test.tc_id, test.comment.as_str());
            let (key, msg, tag) = (hex(&test.key), hex(&test.msg), hex(&test.tag));
            assert_eq!(key.len() * 8, group.key_size, "{file} tcId {id}: key size");
            // What our functions compute for this tag size.
            let computed: Vec<u8> = if group.tag_size == 256 {
                full.count(expect);
                hmac_sha256(&key, &msg).to_vec()
            } else {
                truncated.count(expect);
                mac1(&key, &msg).to_vec()
            };
            let verified = hmac_sha256_verify(&key, &msg, &tag);
            match expect {
                Expect::Valid => {
                    failures.check(computed == tag, file, id, comment, "computed tag differs");
                    failures.check(
                        verified,
                        file,
                        id,
                        comment,
                        "hmac_sha256_verify refused a valid tag",
                    );
                }
                Expect::Invalid => {
                    failures.check(
                        computed != tag,
                        file,
                        id,
                        comment,
                        "computed tag equals an invalid tag",
                    );
                    failures.check(
                        !verified,
                        file,
                        id,
                        comment,
                        "hmac_sha256_verify accepted an invalid tag",
                    );
                }
                Expect::Acceptable => {
                    failures.check(
                        verified == (computed == tag),
                        file,
                        id,
                        comment,
                        "verify disagrees with compute",
                    );
                }
            }
        }
    }
    println!(
        "{file}: tagSize 256 (hmac_sha256): {full}; tagSize 128 (mac1): {truncated}; {} failure(s)",
        failures.len()
    );
    assert!(
        full.total() > 0 && truncated.total() > 0,
        "{file}: a tag size was not run"
    );
    assert_eq!(
        full.total() + truncated.total(),
        data.number_of_tests,
        "{file}: tests run vs numberOfTests"
    );
    failures.assert_none(file);
}

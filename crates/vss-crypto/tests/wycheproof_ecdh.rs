//! Wycheproof ECDH vectors against `PublicKey::from_sec1` and `PrivateKey::diffie_hellman`.
//!
//! The `*_ecpoint_test.json` files give the peer key as a SEC1 point and are run directly.
//! The other files (`encoding: "asn"`) give a DER SubjectPublicKeyInfo; a small strict parser
//! in this file takes the point out of it (named curve only). Where that parser refuses the
//! SPKI (malformed ASN.1, explicit curve parameters, another curve's OID) the test counts as
//! rejected by the test harness, not by vss-crypto; the summary line keeps the two apart.

mod common;

use common::{
    hex, load_json, strip_to_width, wycheproof_curve, Expect, Failures, Tally, WycheproofFile,
};
use serde::Deserialize;
use vss_crypto::{Curve, PrivateKey, PublicKey};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Group {
    #[serde(rename = "type")]
    kind: String,
    curve: String,
    encoding: String,
    tests: Vec<Test>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    tc_id: u32,
    comment: String,
    public: String,
    private: String,
    shared: String,
    result: String,
}

/// Where a peer key or an agreement was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// This file's SubjectPublicKeyInfo parser (not vss-crypto).
    Spki,
    /// `PublicKey::from_sec1`.
    FromSec1,
    /// `PrivateKey::diffie_hellman`.
    DiffieHellman,
}

/// Rejection counts by stage.
#[derive(Default)]
struct Rejections {
    spki: usize,
    from_sec1: usize,
    diffie_hellman: usize,
}

impl Rejections {
    fn count(&mut self, stage: Stage) {
        match stage {
            Stage::Spki => self.spki += 1,
            Stage::FromSec1 => self.from_sec1 += 1,
            Stage::DiffieHellman => self.diffie_hellman += 1,
        }
    }
}

/// DER of an OBJECT IDENTIFIER's content octets from its dotted form.
fn oid_content(dotted: &str) -> Vec<u8> {
    let arcs: Vec<u64> = dotted
        .split('.')
        .map(|a| a.parse().expect("numeric arc"))
        .collect();
    let mut out = Vec::new();
    let mut push_base128 = |mut v: u64| {
        let mut tmp = vec![(v & 0x7f) as u8];
        v >>= 7;
        while v > 0 {
            tmp.push(0x80 | (v & 0x7f) as u8);
            v >>= 7;
        }
        tmp.reverse();
        out.extend(tmp);
    };
    push_base128(arcs[0] * 40 + arcs[1]);
    for &arc in &arcs[2..] {
        push_base128(arc);
    }
    out
}

/// Splits one strict-DER TLV with tag `tag` off the front of `bytes`: (content, rest).
fn tlv(bytes: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&t, rest) = bytes.split_first()?;
    if t != tag {
        return None;
    }
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = match first {
        0..=0x7f => (usize::from(first), rest),
        0x81 => {
            let (&l, rest) = rest.split_first()?;
            if l < 0x80 {
                return None;
            }
            (usize::from(l), rest)
        }
        0x82 => {
            if rest.len() < 2 {
                return None;
            }
            let l = usize::from(rest[0]) << 8 | usize::from(rest[1]);
            if l < 0x100 {
                return None;
            }
            (l, &rest[2..])
        }
        _ => return None,
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// The SEC1 point of a strict-DER SubjectPublicKeyInfo
/// `SEQUENCE { SEQUENCE { id-ecPublicKey, namedCurve OID }, BIT STRING }` for `curve`.
fn spki_point(spki: &[u8], curve: Curve) -> Result<&[u8], &'static str> {
    const EC_PUBLIC_KEY: &str = "1.2.840.10045.2.1";
    let (body, rest) = tlv(spki, 0x30).ok_or("outer SEQUENCE")?;
    if !rest.is_empty() {
        return Err("bytes after the SPKI");
    }
    let (alg, body) = tlv(body, 0x30).ok_or("AlgorithmIdentifier")?;
    let (bits, body) = tlv(body, 0x03).ok_or("BIT STRING")?;
    if !body.is_empty() {
        return Err("extra SPKI elements");
    }
    let (alg_oid, alg) = tlv(alg, 0x06).ok_or("algorithm OID")?;
    if alg_oid != oid_content(EC_PUBLIC_KEY) {
        return Err("not id-ecPublicKey");
    }
    let (curve_oid, alg) = tlv(alg, 0x06).ok_or("not a named curve")?;
    if !alg.is_empty() {
        return Err("extra AlgorithmIdentifier elements");
    }
    if curve_oid != oid_content(curve.oid()) {
        return Err("another curve's OID");
    }
    match bits.split_first() {
        Some((0, point)) => Ok(point),
        _ => Err("BIT STRING with unused bits or empty"),
    }
}

fn run(file: &str, expected_curve: Curve, expected_encoding: &str) {
    let data: WycheproofFile<Group> = load_json(&format!("wycheproof/{file}"));
    assert_eq!(data.algorithm, "ECDH", "{file}");
    let mut tally = Tally::default();
    let mut invalid_refused = Rejections::default();
    let mut acceptable_refused = Rejections::default();
    let mut acceptable_agreed = 0;
    let mut failures = Failures::new();
    for group in &data.test_groups {
        let curve = wycheproof_curve(&group.curve);
        assert_eq!(curve, expected_curve, "{file}: group curve");
        assert_eq!(group.encoding, expected_encoding, "{file}: group encoding");
        let expected_type = match expected_encoding {
            "ecpoint" => "EcdhEcpointTest",
            _ => "EcdhTest",
        };
        assert_eq!(group.kind, expected_type, "{file}: group type");
        for test in &group.tests {
            let expect = Expect::parse(&test.result);
            tally.count(expect);
            let (id, comment) = (test.tc_id, test.comment.as_str());
            let private_bytes = hex(&test.private);
            let private = match PrivateKey::from_scalar(
                curve,
                strip_to_width(&private_bytes, curve.scalar_len()),
            ) {
                Ok(k) => k,
                Err(e) => {
                    // Every Wycheproof private key is in range: refusing one is a bug whatever
                    // the test's expected result.
                    failures.push(file, id, comment, format!("private key refused: {e}"));
                    continue;
                }
            };
            let public = hex(&test.public);
            let outcome = (|| {
                let point = match expected_encoding {
                    "ecpoint" => &public[..],
                    _ => spki_point(&public, curve).map_err(|why| (Stage::Spki, why.to_owned()))?,
                };
                let peer = PublicKey::from_sec1(curve, point)
                    .map_err(|e| (Stage::FromSec1, e.to_string()))?;
                private
                    .diffie_hellman(&peer)
                    .map_err(|e| (Stage::DiffieHellman, e.to_string()))
            })();
            let shared = hex(&test.shared);
            match (expect, outcome) {
                (Expect::Valid | Expect::Acceptable, Ok(secret)) => {
                    if expect == Expect::Acceptable {
                        acceptable_agreed += 1;
                    }
                    failures.check(
                        secret[..] == shared[..],
                        file,
                        id,
                        comment,
                        "shared secret differs",
                    );
                }
                (Expect::Valid, Err((stage, why))) => {
                    failures.push(
                        file,
                        id,
                        comment,
                        format!("valid but refused at {stage:?}: {why}"),
                    );
                }
                (Expect::Invalid, Ok(_)) => failures.push(file, id, comment, "invalid but agreed"),
                (Expect::Invalid, Err((stage, _))) => invalid_refused.count(stage),
                (Expect::Acceptable, Err((stage, _))) => acceptable_refused.count(stage),
            }
        }
    }
    println!(
        "{file}: {tally}; invalid refused by the test's SPKI parser {}, by PublicKey::from_sec1 {}, \
         by diffie_hellman {}; acceptable agreed {acceptable_agreed}, refused by the SPKI parser {}, \
         by from_sec1 {}, by diffie_hellman {}; {} failure(s)",
        invalid_refused.spki,
        invalid_refused.from_sec1,
        invalid_refused.diffie_hellman,
        acceptable_refused.spki,
        acceptable_refused.from_sec1,
        acceptable_refused.diffie_hellman,
        failures.len()
    );
    assert!(tally.total() > 0, "{file}: no tests run");
    assert_eq!(
        tally.total(),
        data.number_of_tests,
        "{file}: tests run vs numberOfTests"
    );
    failures.assert_none(file);
}

#[test]
fn oid_encoding_matches_known_der() {
    assert_eq!(oid_content(Curve::P256.oid()), hex("2a8648ce3d030107"));
    assert_eq!(oid_content(Curve::P224.oid()), hex("2b81040021"));
    assert_eq!(oid_content(Curve::Bp256.oid()), hex("2b2403030208010107"));
}

#[test]
fn every_pinned_ecdh_file_is_covered() {
    let present = common::list_vector_files("wycheproof", "ecdh_", "_test.json");
    let mut covered = vec![
        "ecdh_secp224r1_ecpoint_test.json",
        "ecdh_secp256r1_ecpoint_test.json",
        "ecdh_secp384r1_ecpoint_test.json",
        "ecdh_secp224r1_test.json",
        "ecdh_secp256r1_test.json",
        "ecdh_secp384r1_test.json",
        "ecdh_brainpoolP256r1_test.json",
    ];
    covered.sort_unstable();
    assert_eq!(
        present, covered,
        "ECDH files on disk vs. files this test runs"
    );
}

#[test]
fn secp224r1_ecpoint() {
    run("ecdh_secp224r1_ecpoint_test.json", Curve::P224, "ecpoint");
}

#[test]
fn secp256r1_ecpoint() {
    run("ecdh_secp256r1_ecpoint_test.json", Curve::P256, "ecpoint");
}

#[test]
fn secp384r1_ecpoint() {
    run("ecdh_secp384r1_ecpoint_test.json", Curve::P384, "ecpoint");
}

#[test]
fn secp224r1_spki() {
    run("ecdh_secp224r1_test.json", Curve::P224, "asn");
}

#[test]
fn secp256r1_spki() {
    run("ecdh_secp256r1_test.json", Curve::P256, "asn");
}

#[test]
fn secp384r1_spki() {
    run("ecdh_secp384r1_test.json", Curve::P384, "asn");
}

#[test]
fn brainpool_p256r1_spki() {
    run("ecdh_brainpoolP256r1_test.json", Curve::Bp256, "asn");
}

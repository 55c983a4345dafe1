//! The IETF BBS draft's fixtures (tests/vectors/bbs/, suite BLS12-381-SHA-256), replayed
//! against `vss_cred::bbs`: key generation, generators, hashing, and every signature and
//! proof case, valid ones reproduced byte for byte with the draft's mocked randomness.

use serde_json::Value;
use std::path::{Path, PathBuf};
use vss_cred::bbs::{self, Proof, PublicKey, SecretKey, Signature};
use vss_cred::group::{g1_to_bytes, hash_to_scalar, scalar_to_bytes, Scalar};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/bbs")
}

fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(name)).expect("fixture file");
    serde_json::from_str(&text).expect("fixture JSON")
}

fn bytes(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("hex")
}

fn cases(sub: &str) -> Vec<(String, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(dir().join(sub))
        .expect("fixture dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let v = load(&format!("{sub}/{n}"));
            (n, v)
        })
        .collect()
}

fn messages(v: &Value) -> Vec<Scalar> {
    v.as_array()
        .expect("messages")
        .iter()
        .map(|m| bbs::message_to_scalar(&bytes(m)))
        .collect()
}

#[test]
fn key_generation() {
    let f = load("keypair.json");
    let sk = SecretKey::generate(&bytes(&f["keyMaterial"]), &bytes(&f["keyInfo"])).expect("keygen");
    assert_eq!(sk.to_bytes().to_vec(), bytes(&f["keyPair"]["secretKey"]));
    assert_eq!(
        sk.public_key().to_bytes().to_vec(),
        bytes(&f["keyPair"]["publicKey"])
    );
}

#[test]
fn generators_and_p1() {
    let f = load("generators.json");
    assert_eq!(g1_to_bytes(&bbs::p1()).to_vec(), bytes(&f["P1"]));
    let expected = f["MsgGenerators"].as_array().expect("generators");
    let gens = bbs::generators(expected.len() + 1).expect("generators");
    assert_eq!(g1_to_bytes(&gens[0]).to_vec(), bytes(&f["Q1"]));
    for (g, e) in gens[1..].iter().zip(expected) {
        assert_eq!(g1_to_bytes(g).to_vec(), bytes(e));
    }
}

#[test]
fn hashing_and_mocked_scalars() {
    let f = load("h2s.json");
    let s = hash_to_scalar(&bytes(&f["message"]), &bytes(&f["dst"]));
    assert_eq!(scalar_to_bytes(&s).to_vec(), bytes(&f["scalar"]));
    let f = load("MapMessageToScalarAsHash.json");
    for case in f["cases"].as_array().expect("cases") {
        let s = bbs::message_to_scalar(&bytes(&case["message"]));
        assert_eq!(scalar_to_bytes(&s).to_vec(), bytes(&case["scalar"]));
    }
    let f = load("mockedRng.json");
    let count = f["count"].as_u64().expect("count") as usize;
    let got = bbs::seeded_random_scalars(&bytes(&f["seed"]), &bytes(&f["dst"]), count);
    for (s, e) in got
        .iter()
        .zip(f["mockedScalars"].as_array().expect("scalars"))
    {
        assert_eq!(scalar_to_bytes(s).to_vec(), bytes(e));
    }
}

#[test]
fn signature_cases() {
    let all = cases("signature");
    assert_eq!(all.len(), 10);
    for (name, f) in all {
        let pk = PublicKey::from_bytes(&bytes(&f["signerKeyPair"]["publicKey"])).expect("pk");
        let header = bytes(&f["header"]);
        let msgs = messages(&f["messages"]);
        let valid = f["result"]["valid"].as_bool().expect("valid");
        let verdict = Signature::from_bytes(&bytes(&f["signature"]))
            .and_then(|sig| bbs::verify(&pk, &sig, &header, &msgs));
        assert_eq!(verdict.is_ok(), valid, "{name}: {verdict:?}");
        if valid {
            let sk = SecretKey::from_bytes(&bytes(&f["signerKeyPair"]["secretKey"])).expect("sk");
            let sig = bbs::sign(&sk, &pk, &header, &msgs).expect("sign");
            assert_eq!(sig.to_bytes().to_vec(), bytes(&f["signature"]), "{name}");
        }
    }
}

#[test]
fn proof_cases() {
    let all = cases("proof");
    assert_eq!(all.len(), 15);
    let mock_dst = [bbs::API_ID, b"MOCK_RANDOM_SCALARS_DST_"].concat();
    for (name, f) in all {
        let pk = PublicKey::from_bytes(&bytes(&f["signerPublicKey"])).expect("pk");
        let header = bytes(&f["header"]);
        let ph = bytes(&f["presentationHeader"]);
        let msgs = messages(&f["messages"]);
        let disclosed_indexes: Vec<usize> = f["disclosedIndexes"]
            .as_array()
            .expect("indexes")
            .iter()
            .map(|i| i.as_u64().expect("index") as usize)
            .collect();
        let disclosed: Vec<(usize, Scalar)> =
            disclosed_indexes.iter().map(|i| (*i, msgs[*i])).collect();
        let valid = f["result"]["valid"].as_bool().expect("valid");
        let verdict = Proof::from_bytes(&bytes(&f["proof"]))
            .and_then(|proof| bbs::proof_verify(&pk, &proof, &header, &ph, &disclosed));
        assert_eq!(verdict.is_ok(), valid, "{name}: {verdict:?}");
        if valid {
            let sig = Signature::from_bytes(&bytes(&f["signature"])).expect("signature");
            let count = 5 + msgs.len() - disclosed.len();
            let mut mocked =
                bbs::seeded_random_scalars(b"3.141592653589793238462643383279", &mock_dst, count)
                    .into_iter();
            let mut random = || mocked.next().expect("enough mocked scalars");
            let proof = bbs::proof_gen_with(
                &pk,
                &sig,
                &header,
                &ph,
                &msgs,
                &disclosed_indexes,
                &mut random,
            )
            .expect("proof");
            assert_eq!(
                hex::encode(proof.to_bytes()),
                hex::encode(bytes(&f["proof"])),
                "{name}"
            );
        }
    }
}

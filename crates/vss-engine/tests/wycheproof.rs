//! Project Wycheproof's ECDSA P1363 vectors (pinned under `tests/vectors/wycheproof/`),
//! verified in one batch per file by the CPU engine on each of its paths and by the GPU
//! kernel's arithmetic built for the host. Edge cases of r, s, the key and the digest that a
//! hand-written verifier gets wrong are all there. The AVX-512 IFMA path's test is ignored,
//! with the reason, where the CPU that built it has no IFMA (build.rs).

mod common;

use common::cpu_engine;
use serde::Deserialize;
use vss_crypto::{Curve, HashAlg};
use vss_engine::{CpuPath, HostKernelEngine, KeyTableConfig, VerifyEngine, VerifyJob};

#[derive(Deserialize)]
struct File {
    #[serde(rename = "testGroups")]
    groups: Vec<Group>,
}

#[derive(Deserialize)]
struct Group {
    #[serde(rename = "publicKey")]
    key: Key,
    tests: Vec<Test>,
}

#[derive(Deserialize)]
struct Key {
    uncompressed: String,
}

#[derive(Deserialize)]
struct Test {
    #[serde(rename = "tcId")]
    id: u32,
    msg: String,
    sig: String,
    result: String,
}

/// One vector, owned.
struct Vector {
    id: u32,
    key: Vec<u8>,
    digest: Vec<u8>,
    signature: Vec<u8>,
    valid: bool,
}

fn load(name: &str, hash: HashAlg) -> Vec<Vector> {
    let path = format!(
        "{}/../../tests/vectors/wycheproof/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file: File = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for group in file.groups {
        let key = hex::decode(&group.key.uncompressed).expect("hex key");
        for test in group.tests {
            assert!(
                test.result == "valid" || test.result == "invalid",
                "{name} #{}: result {:?} is not handled",
                test.id,
                test.result
            );
            out.push(Vector {
                id: test.id,
                key: key.clone(),
                digest: hash.digest(&hex::decode(&test.msg).expect("hex msg")),
                signature: hex::decode(&test.sig).expect("hex sig"),
                valid: test.result == "valid",
            });
        }
    }
    out
}

/// The vector files: name, curve, hash.
const FILES: [(&str, Curve, HashAlg); 5] = [
    (
        "ecdsa_secp256r1_sha256_p1363_test.json",
        Curve::P256,
        HashAlg::Sha256,
    ),
    (
        "ecdsa_secp256r1_sha512_p1363_test.json",
        Curve::P256,
        HashAlg::Sha512,
    ),
    (
        "ecdsa_brainpoolP256r1_sha256_p1363_test.json",
        Curve::Bp256,
        HashAlg::Sha256,
    ),
    (
        "ecdsa_secp384r1_sha384_p1363_test.json",
        Curve::P384,
        HashAlg::Sha384,
    ),
    (
        "ecdsa_brainpoolP384r1_sha384_p1363_test.json",
        Curve::Bp384,
        HashAlg::Sha384,
    ),
];

/// Every file's vectors in one batch through `engine` (described as `what`): each verdict
/// is Wycheproof's.
fn every_vector_gets_wycheproofs_verdict(engine: &dyn VerifyEngine, what: &str) {
    for (name, curve, hash) in FILES {
        let vectors = load(name, hash);
        assert!(vectors.len() > 200, "{name}: {} vectors", vectors.len());
        let jobs: Vec<VerifyJob<'_>> = vectors
            .iter()
            .map(|v| VerifyJob {
                curve,
                public_key: &v.key,
                digest: &v.digest,
                signature: &v.signature,
            })
            .collect();
        let verdicts = engine.verify_batch(&jobs);
        let wrong: Vec<u32> = vectors
            .iter()
            .zip(&verdicts)
            .filter(|(v, verdict)| v.valid != **verdict)
            .map(|(v, _)| v.id)
            .collect();
        assert!(
            wrong.is_empty(),
            "{name} on {what}: wrong verdicts for {wrong:?}"
        );
    }
}

#[test]
fn every_p1363_vector_gets_wycheproofs_verdict_on_the_library_path() {
    let engine = cpu_engine(2, CpuPath::Library);
    every_vector_gets_wycheproofs_verdict(&engine, &engine.device());
}

#[test]
fn every_p1363_vector_gets_wycheproofs_verdict_on_the_prepared_key_path() {
    // A file's test group shares one key over many vectors: each key is prepared.
    let engine = cpu_engine(2, CpuPath::Prepared);
    every_vector_gets_wycheproofs_verdict(&engine, &engine.device());
    assert!(engine.prepared_usage().0 > 0, "no key was prepared");
}

#[test]
#[cfg_attr(
    not(vss_avx512ifma),
    ignore = "no AVX-512 IFMA on the CPU that built the tests"
)]
fn every_p1363_vector_gets_wycheproofs_verdict_on_the_ifma_path() {
    let engine = cpu_engine(2, CpuPath::Ifma);
    every_vector_gets_wycheproofs_verdict(&engine, &engine.device());
}

#[test]
fn every_p1363_vector_gets_wycheproofs_verdict_in_the_gpu_kernel_built_for_the_host() {
    every_vector_gets_wycheproofs_verdict(
        &HostKernelEngine::default(),
        "the GPU kernel built for the host",
    );
}

#[test]
fn every_p1363_vector_gets_wycheproofs_verdict_with_the_gpu_kernels_prepared_keys() {
    // Every key that signs two vectors of a file gets a table and the prepared kernel.
    let engine = HostKernelEngine::with_key_tables(KeyTableConfig {
        slots: 16,
        prepare_after: 2,
    })
    .expect("config");
    every_vector_gets_wycheproofs_verdict(&engine, "the GPU kernel's prepared keys on the host");
    assert!(engine.prepared_keys() > 0, "no key was prepared");
}

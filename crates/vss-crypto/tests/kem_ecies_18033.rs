//! ISO/IEC 18033-2 Annex C.2.2 and C.2.3 ECIES-KEM vectors through the `kem::ecies_kem` API
//! (encapsulation with the vector's r, decapsulation through an ECDH closure), and the modes
//! that must not change the key on P-192, whose cofactor is 1.

mod common;

use serde::Deserialize;
use vss_crypto::kem::ecies_kem::{EciesKem, EciesKemParams};
use vss_crypto::kem::KnownAnswerSeed;
use vss_crypto::{Curve, PrivateKey, PublicKey};

const FILE: &str = "iso18033-2/ecies_kem.json";

#[derive(Deserialize)]
struct File {
    curve: String,
    domain: Domain,
    vectors: Vec<Vector>,
}

#[derive(Deserialize)]
struct Domain {
    nu: String,
    gx: String,
    gy: String,
}

#[derive(Deserialize)]
struct Vector {
    id: String,
    source: String,
    kdf: String,
    hash: String,
    key_len: usize,
    format: String,
    cofactor_mode: bool,
    old_cofactor_mode: bool,
    check_mode: bool,
    single_hash_mode: bool,
    x: String,
    hx: String,
    hy: String,
    r: String,
    c0: String,
    k: String,
}

impl Vector {
    fn params(&self) -> EciesKemParams {
        EciesKemParams {
            kdf: self.kdf.parse().expect("kdf"),
            hash: self.hash.parse().expect("hash"),
            format: self.format.parse().expect("format"),
            cofactor_mode: self.cofactor_mode,
            old_cofactor_mode: self.old_cofactor_mode,
            check_mode: self.check_mode,
            single_hash_mode: self.single_hash_mode,
            key_len: self.key_len,
        }
    }

    fn label(&self) -> String {
        format!("{} ({})", self.id, self.source)
    }
}

fn load() -> (Curve, Vec<Vector>) {
    let file: File = common::load_json(FILE);
    let curve: Curve = file.curve.parse().expect("curve");
    assert_eq!(curve, Curve::P192);
    assert_eq!(file.domain.nu, "01", "ν = 1 on P-192");
    let generator = PrivateKey::from_scalar(curve, &[1]).expect("G");
    assert_eq!(
        generator.public_key().to_sec1_uncompressed(),
        &common::uncompressed(&common::hex(&file.domain.gx), &common::hex(&file.domain.gy))[..],
        "the file's generator is P-192's"
    );
    assert_eq!(file.vectors.len(), 2);
    (curve, file.vectors)
}

/// Encapsulation with the vector's r and decapsulation of C0 with `params`.
fn encapsulate_and_decapsulate(
    curve: Curve,
    v: &Vector,
    params: EciesKemParams,
) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let label = format!("{} {params:?}", v.label());
    let kem = EciesKem::new(curve, params).expect("kem");
    let recipient = PrivateKey::from_scalar(curve, &common::hex(&v.x)).expect("x");
    let sent = kem
        .encapsulate_known_answer(
            recipient.public_key(),
            &KnownAnswerSeed::known_answer_test_only(&common::hex(&v.r)),
        )
        .unwrap_or_else(|e| panic!("{label}: encapsulate: {e}"));
    let received = kem
        .decapsulate(&common::hex(&v.c0), |p: &PublicKey| {
            recipient.diffie_hellman(p)
        })
        .unwrap_or_else(|e| panic!("{label}: decapsulate: {e}"));
    let with_key = kem
        .decapsulate_with_key(&common::hex(&v.c0), &recipient)
        .unwrap_or_else(|e| panic!("{label}: decapsulate_with_key: {e}"));
    assert_eq!(received, with_key, "{label}");
    (sent.ciphertext, sent.key.to_vec(), received.to_vec())
}

#[test]
fn annex_c_vectors_encapsulate_and_decapsulate() {
    let (curve, vectors) = load();
    for v in &vectors {
        let label = v.label();
        let recipient = PrivateKey::from_scalar(curve, &common::hex(&v.x)).expect("x");
        assert_eq!(
            recipient.public_key().to_sec1_uncompressed(),
            &common::uncompressed(&common::hex(&v.hx), &common::hex(&v.hy))[..],
            "{label}: h = x × G"
        );
        let params = v.params();
        assert_eq!(params.key_len, 128, "{label}");
        let kem = EciesKem::new(curve, params).expect("kem");
        assert_eq!(kem.ciphertext_len(), v.c0.len() / 2, "{label}");
        let (c0, sent_key, received_key) = encapsulate_and_decapsulate(curve, v, params);
        assert_eq!(hex::encode(c0), v.c0, "{label}: C0");
        assert_eq!(hex::encode(sent_key), v.k, "{label}: K (encapsulation)");
        assert_eq!(hex::encode(received_key), v.k, "{label}: K (decapsulation)");
    }
}

#[test]
fn cofactor_and_check_modes_keep_the_p192_key_and_single_hash_mode_changes_it() {
    let (curve, vectors) = load();
    for v in &vectors {
        let base = v.params();
        let modes = [
            EciesKemParams {
                cofactor_mode: true,
                ..base
            },
            EciesKemParams {
                old_cofactor_mode: true,
                ..base
            },
            EciesKemParams {
                check_mode: true,
                ..base
            },
        ];
        for params in modes {
            let label = format!("{} {params:?}", v.label());
            let (c0, sent_key, received_key) = encapsulate_and_decapsulate(curve, v, params);
            assert_eq!(hex::encode(c0), v.c0, "{label}: C0");
            assert_eq!(hex::encode(sent_key), v.k, "{label}: K (encapsulation)");
            assert_eq!(hex::encode(received_key), v.k, "{label}: K (decapsulation)");
        }
        let single = EciesKemParams {
            single_hash_mode: true,
            ..base
        };
        let label = format!("{} single hash", v.label());
        let (c0, sent_key, received_key) = encapsulate_and_decapsulate(curve, v, single);
        assert_eq!(
            hex::encode(c0),
            v.c0,
            "{label}: C0 does not depend on the hash"
        );
        assert_eq!(sent_key, received_key, "{label}");
        assert_ne!(hex::encode(sent_key), v.k, "{label}: K must change");
    }
}

//! IEEE 1609.2 Annex D.6 ECIES vectors through the `kem::ecies_1609` API (encryption with the
//! vector's ephemeral key, decryption through an ECDH closure, wire form round trip).

mod common;

use serde::Deserialize;
use vss_crypto::kem::ecies_1609::EncryptedKey;
use vss_crypto::kem::KnownAnswerSeed;
use vss_crypto::{Curve, PrivateKey, PublicKey};

#[derive(Deserialize)]
struct File {
    ecies: Vec<Vector>,
}

#[derive(Deserialize)]
struct Vector {
    id: String,
    annex_d: bool,
    recipient_private_key: String,
    recipient_public_key_x: String,
    recipient_public_key_y: String,
    ephemeral_private_key: String,
    symmetric_key: String,
    p1: String,
    c: String,
    t: String,
}

fn hex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("hex")
}

#[test]
fn annex_d_ecies_vectors_encrypt_and_decrypt() {
    let file: File = common::load_json("ieee1609dot2/annex_d.json");
    assert!(file.ecies.iter().filter(|v| v.annex_d).count() >= 2);
    for v in &file.ecies {
        let label = format!(
            "{} ({})",
            v.id,
            if v.annex_d { "Annex D" } else { "not Annex D" }
        );
        let recipient = PrivateKey::from_scalar(Curve::P256, &hex(&v.recipient_private_key))
            .expect("recipient");
        let mut point = vec![0x04];
        point.extend(hex(&v.recipient_public_key_x));
        point.extend(hex(&v.recipient_public_key_y));
        assert_eq!(
            recipient.public_key(),
            &PublicKey::from_sec1(Curve::P256, &point).expect("point"),
            "{label}"
        );
        let ephemeral = KnownAnswerSeed::known_answer_test_only(&hex(&v.ephemeral_private_key));
        let key: [u8; 16] = hex(&v.symmetric_key).try_into().expect("16 bytes");
        let p1 = hex(&v.p1);
        let sent =
            EncryptedKey::encrypt_known_answer(recipient.public_key(), &key, &p1, &ephemeral)
                .expect("encrypt");
        assert_eq!(sent.c.to_vec(), hex(&v.c), "{label}: c");
        assert_eq!(sent.t.to_vec(), hex(&v.t), "{label}: t");

        let wire = EncryptedKey::from_bytes(Curve::P256, &sent.to_bytes()).expect("wire");
        let got = wire
            .decrypt(&p1, |p| recipient.diffie_hellman(p))
            .expect("decrypt");
        assert_eq!(got.as_ref(), &key, "{label}: decrypted key");
        let wrong_p1 = wire.decrypt(b"other recipient", |p| recipient.diffie_hellman(p));
        assert!(wrong_p1.is_err(), "{label}: another P1 must fail the tag");
    }
}

#[test]
fn every_bit_flip_of_the_encrypted_key_is_rejected() {
    for curve in [Curve::P256, Curve::Bp256] {
        let recipient = PrivateKey::generate(curve).expect("recipient");
        let key = [0x3cu8; 16];
        let sent = EncryptedKey::encrypt(recipient.public_key(), &key, b"P1").expect("encrypt");
        let wire = sent.to_bytes();
        for bit in 0..8 * wire.len() {
            let mut flipped = wire.clone();
            flipped[bit / 8] ^= 0x80 >> (bit % 8);
            let outcome = EncryptedKey::from_bytes(curve, &flipped)
                .and_then(|k| k.decrypt(b"P1", |p| recipient.diffie_hellman(p)));
            if bit == 7 {
                // 02 <-> 03 turns V into -V, whose product with the recipient's key has the
                // same x: the scheme (x-only Z, V not in the KDF) decrypts it to the same
                // key, never to another one.
                assert_eq!(outcome.expect("-V").as_ref(), &key, "{curve}");
            } else {
                // A flip elsewhere in V leaves the curve (refused when parsed) or moves the
                // point (the tag then fails); a flip in c or t fails the tag.
                assert!(outcome.is_err(), "{curve}: flip of bit {bit} was accepted");
            }
        }
        assert!(EncryptedKey::from_bytes(curve, &wire[..wire.len() - 1]).is_err());
        let mut infinity = wire.clone();
        infinity[..33].fill(0);
        assert!(EncryptedKey::from_bytes(curve, &infinity).is_err());
    }
}

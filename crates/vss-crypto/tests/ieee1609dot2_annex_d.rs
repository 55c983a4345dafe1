//! IEEE 1609.2 cryptographic test vectors (`tests/vectors/ieee1609dot2/annex_d.json`):
//! AES-128-CCM, MAC1, KDF2, the ECIES key wrap on P-256, and P-256 ECDH.
//!
//! Entries with `"annex_d": true` are the Annex D (IEEE 1609.2a-2017) vectors as transcribed
//! by c2c-common; the others (two further CAMP ECIES vectors, the NIST CDH list) are labelled
//! `[not Annex D]` in every message.

mod common;

use common::{hex, load_json, uncompressed, Failures};
use serde::Deserialize;
use vss_crypto::{
    hmac_sha256_verify, kdf2, mac1, AesCcm, Curve, Error, HashAlg, PrivateKey, PublicKey,
};

const FILE: &str = "ieee1609dot2/annex_d.json";

#[derive(Debug, Deserialize)]
struct AnnexD {
    schema_version: u32,
    aes_ccm: Vec<AesCcmVector>,
    ecies: Vec<EciesVector>,
    mac1: Vec<Mac1Vector>,
    kdf2: Vec<Kdf2Vector>,
    ecdh_p256: Vec<EcdhVector>,
}

#[derive(Debug, Deserialize)]
struct AesCcmVector {
    id: String,
    annex_d: bool,
    key: String,
    nonce: String,
    aad: String,
    plaintext: String,
    ciphertext_and_tag: String,
    tag_len: usize,
}

#[derive(Debug, Deserialize)]
struct EciesVector {
    id: String,
    annex_d: bool,
    curve: String,
    recipient_private_key: String,
    recipient_public_key_x: String,
    recipient_public_key_y: String,
    ephemeral_private_key: String,
    ephemeral_public_key_x: String,
    ephemeral_public_key_y: String,
    symmetric_key: String,
    p1: String,
    p1_as_printed_in_standard: String,
    c: String,
    t: String,
}

#[derive(Debug, Deserialize)]
struct Mac1Vector {
    id: String,
    annex_d: bool,
    hash: String,
    key: String,
    msg: String,
    tag: String,
    tag_len: usize,
}

#[derive(Debug, Deserialize)]
struct Kdf2Vector {
    id: String,
    annex_d: bool,
    hash: String,
    z: String,
    param: String,
    length: usize,
    output: String,
}

#[derive(Debug, Deserialize)]
struct EcdhVector {
    id: String,
    annex_d: bool,
    private_key: String,
    peer_public_key_x: String,
    peer_public_key_y: String,
    z: String,
}

fn load() -> AnnexD {
    let data: AnnexD = load_json(FILE);
    assert_eq!(data.schema_version, 1, "{FILE}: schema_version");
    data
}

/// `"D.6.1.1 [Annex D]"` or `"ECIES-2 [not Annex D]"`.
fn label(id: &str, annex_d: bool) -> String {
    if annex_d {
        format!("{id} [Annex D]")
    } else {
        format!("{id} [not Annex D]")
    }
}

fn print_counts(family: &str, labels: &[bool]) {
    let annex = labels.iter().filter(|&&a| a).count();
    println!(
        "{FILE} {family}: {} vectors ({annex} Annex D, {} not Annex D)",
        labels.len(),
        labels.len() - annex
    );
    assert!(!labels.is_empty(), "{FILE}: no {family} vectors");
}

#[test]
fn aes_128_ccm() {
    let data = load();
    let mut failures = Failures::new();
    for v in &data.aes_ccm {
        let id = label(&v.id, v.annex_d);
        assert_eq!(v.tag_len, 16, "{id}: IEEE 1609.2 uses 16-byte CCM tags");
        let (key, nonce, aad) = (hex(&v.key), hex(&v.nonce), hex(&v.aad));
        let (plaintext, expected) = (hex(&v.plaintext), hex(&v.ciphertext_and_tag));
        let ccm = AesCcm::new(&key).expect("16-byte key");
        match ccm.seal(&nonce, &aad, &plaintext) {
            Ok(sealed) => failures.check(
                sealed == expected,
                FILE,
                &id,
                "seal",
                "differs from ciphertext_and_tag",
            ),
            Err(e) => failures.push(FILE, &id, "seal", e),
        }
        match ccm.open(&nonce, &aad, &expected) {
            Ok(opened) => failures.check(
                opened == plaintext,
                FILE,
                &id,
                "open",
                "differs from plaintext",
            ),
            Err(e) => failures.push(FILE, &id, "open", e),
        }
        // One flipped bit in the ciphertext, in the tag, and in the nonce must each fail.
        let last = expected.len() - 1;
        for (what, position) in [("ciphertext bit", 0), ("tag bit", last)] {
            let mut tampered = expected.clone();
            tampered[position] ^= 0x01;
            let opened = ccm.open(&nonce, &aad, &tampered);
            failures.check(
                opened == Err(Error::AuthenticationFailed),
                FILE,
                &id,
                what,
                format!("flipped, open gave {opened:?}"),
            );
        }
        let mut other_nonce = nonce.clone();
        other_nonce[0] ^= 0x80;
        let opened = ccm.open(&other_nonce, &aad, &expected);
        failures.check(
            opened == Err(Error::AuthenticationFailed),
            FILE,
            &id,
            "nonce bit",
            format!("flipped, open gave {opened:?}"),
        );
    }
    print_counts(
        "aes_ccm",
        &data.aes_ccm.iter().map(|v| v.annex_d).collect::<Vec<_>>(),
    );
    failures.assert_none("IEEE 1609.2 AES-128-CCM");
}

#[test]
fn mac1_hmac_sha256_128() {
    let data = load();
    let mut failures = Failures::new();
    for v in &data.mac1 {
        let id = label(&v.id, v.annex_d);
        assert_eq!(v.hash, "sha256", "{id}");
        assert_eq!(v.tag_len, 16, "{id}: MAC1 tags are 16 bytes");
        let (key, msg, tag) = (hex(&v.key), hex(&v.msg), hex(&v.tag));
        failures.check(
            mac1(&key, &msg)[..] == tag[..],
            FILE,
            &id,
            "mac1",
            "differs from tag",
        );
        failures.check(
            hmac_sha256_verify(&key, &msg, &tag),
            FILE,
            &id,
            "hmac_sha256_verify",
            "refused the tag",
        );
        let mut wrong = tag.clone();
        wrong[15] ^= 0x01;
        failures.check(
            !hmac_sha256_verify(&key, &msg, &wrong),
            FILE,
            &id,
            "hmac_sha256_verify",
            "accepted a flipped tag",
        );
    }
    print_counts(
        "mac1",
        &data.mac1.iter().map(|v| v.annex_d).collect::<Vec<_>>(),
    );
    failures.assert_none("IEEE 1609.2 MAC1");
}

#[test]
fn kdf2_sha256() {
    let data = load();
    let mut failures = Failures::new();
    for v in &data.kdf2 {
        let id = label(&v.id, v.annex_d);
        assert_eq!(v.hash, "sha256", "{id}");
        match kdf2(HashAlg::Sha256, &hex(&v.z), &hex(&v.param), v.length) {
            Ok(out) => failures.check(
                out[..] == hex(&v.output)[..],
                FILE,
                &id,
                "kdf2",
                "differs from output",
            ),
            Err(e) => failures.push(FILE, &id, "kdf2", e),
        }
    }
    print_counts(
        "kdf2",
        &data.kdf2.iter().map(|v| v.annex_d).collect::<Vec<_>>(),
    );
    failures.assert_none("IEEE 1609.2 KDF2");
}

/// One ECIES key wrap (IEEE 1609.2 §5.3.5): (C, T) from the shared x coordinate and P1.
fn wrap(shared: &[u8], p1: &[u8], symmetric_key: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let k = kdf2(HashAlg::Sha256, shared, p1, 16 + 32).expect("kdf2");
    let (k1, k2) = k.split_at(16);
    let c: Vec<u8> = symmetric_key.iter().zip(k1).map(|(a, b)| a ^ b).collect();
    let t = mac1(k2, &c);
    (c, t)
}

#[test]
fn ecies_p256_key_wrap() {
    let data = load();
    let mut failures = Failures::new();
    for v in &data.ecies {
        let id = label(&v.id, v.annex_d);
        assert_eq!(v.curve, "P-256", "{id}");
        let curve = Curve::P256;
        let recipient =
            PrivateKey::from_scalar(curve, &hex(&v.recipient_private_key)).expect("recipient key");
        let ephemeral =
            PrivateKey::from_scalar(curve, &hex(&v.ephemeral_private_key)).expect("ephemeral key");
        let recipient_public = PublicKey::from_sec1(
            curve,
            &uncompressed(
                &hex(&v.recipient_public_key_x),
                &hex(&v.recipient_public_key_y),
            ),
        )
        .expect("recipient public key");
        let ephemeral_public = PublicKey::from_sec1(
            curve,
            &uncompressed(
                &hex(&v.ephemeral_public_key_x),
                &hex(&v.ephemeral_public_key_y),
            ),
        )
        .expect("ephemeral public key");
        failures.check(
            recipient.public_key() == &recipient_public,
            FILE,
            &id,
            "recipient key",
            "d×G differs from the given public key",
        );
        failures.check(
            ephemeral.public_key() == &ephemeral_public,
            FILE,
            &id,
            "ephemeral key",
            "v×G differs from V",
        );

        // Sender: Z = x(v × R). Recipient: Z = x(r × V). Both must agree.
        let shared = ephemeral
            .diffie_hellman(&recipient_public)
            .expect("sender ECDH");
        let shared_recipient = recipient
            .diffie_hellman(&ephemeral_public)
            .expect("recipient ECDH");
        failures.check(
            shared == shared_recipient,
            FILE,
            &id,
            "ECDH",
            "sender and recipient secrets differ",
        );

        let (symmetric_key, c_given, t_given) = (hex(&v.symmetric_key), hex(&v.c), hex(&v.t));
        let (c, t) = wrap(&shared, &hex(&v.p1), &symmetric_key);
        failures.check(c == c_given, FILE, &id, "C = k XOR K1", "differs from c");
        failures.check(
            t[..] == t_given[..],
            FILE,
            &id,
            "T = MAC1(K2, C)",
            "differs from t",
        );

        // Recipient side: check T, then unwrap k.
        let k = kdf2(HashAlg::Sha256, &shared_recipient, &hex(&v.p1), 48).expect("kdf2");
        failures.check(
            hmac_sha256_verify(&k[16..], &c_given, &t_given),
            FILE,
            &id,
            "recipient MAC1",
            "T does not verify",
        );
        let unwrapped: Vec<u8> = c_given.iter().zip(&k[..16]).map(|(a, b)| a ^ b).collect();
        failures.check(
            unwrapped == symmetric_key,
            FILE,
            &id,
            "recipient unwrap",
            "C XOR K1 is not k",
        );

        // The notes say the standard prints P1 = k, which does not reproduce C/T; the corrected
        // p1 above does. Confirm the misprint is indeed not what the vectors were made with.
        let (c_misprint, t_misprint) =
            wrap(&shared, &hex(&v.p1_as_printed_in_standard), &symmetric_key);
        failures.check(
            c_misprint != c_given && t_misprint[..] != t_given[..],
            FILE,
            &id,
            "p1_as_printed_in_standard",
            "the misprinted P1 reproduces C/T (notes say it should not)",
        );
    }
    print_counts(
        "ecies",
        &data.ecies.iter().map(|v| v.annex_d).collect::<Vec<_>>(),
    );
    failures.assert_none("IEEE 1609.2 ECIES");
}

#[test]
fn ecdh_p256_nist_cdh_not_annex_d() {
    let data = load();
    let mut failures = Failures::new();
    for v in &data.ecdh_p256 {
        let id = label(&v.id, v.annex_d);
        let private =
            PrivateKey::from_scalar(Curve::P256, &hex(&v.private_key)).expect("private key");
        let peer = match PublicKey::from_sec1(
            Curve::P256,
            &uncompressed(&hex(&v.peer_public_key_x), &hex(&v.peer_public_key_y)),
        ) {
            Ok(p) => p,
            Err(e) => {
                failures.push(FILE, &id, "peer public key", e);
                continue;
            }
        };
        match private.diffie_hellman(&peer) {
            Ok(z) => failures.check(z[..] == hex(&v.z)[..], FILE, &id, "ECDH", "differs from z"),
            Err(e) => failures.push(FILE, &id, "ECDH", e),
        }
    }
    print_counts(
        "ecdh_p256",
        &data.ecdh_p256.iter().map(|v| v.annex_d).collect::<Vec<_>>(),
    );
    failures.assert_none("P-256 ECDH (NIST CDH, not Annex D)");
}

//! The HSM conformance suite against the soft backend.

mod suite;

use std::sync::Arc;

use vss_crypto::RsaEncryptionPadding;
use vss_hsm::{Hsm, SoftHsm};

fn soft() -> (tempfile::TempDir, Box<dyn Hsm>) {
    let dir = tempfile::tempdir().expect("tempdir");
    SoftHsm::init(dir.path(), "1234", "12345678").expect("init");
    let hsm = vss_hsm::open(dir.path(), "1234").expect("open");
    (dir, hsm)
}

#[test]
fn sign_verify_round_trips() {
    let (_dir, hsm) = soft();
    suite::sign_verify_round_trips(hsm.as_ref());
}

#[test]
fn list_find_duplicate_delete() {
    let (_dir, hsm) = soft();
    suite::list_find_duplicate_delete(hsm.as_ref());
}

#[test]
fn missing_key_and_bad_label() {
    let (_dir, hsm) = soft();
    suite::missing_key_and_bad_label(hsm.as_ref());
}

#[test]
fn import_and_ecdh() {
    let (_dir, hsm) = soft();
    suite::import_and_ecdh(hsm.as_ref());
}

#[test]
fn kem_curve_keys_do_ecdh() {
    let (_dir, hsm) = soft();
    suite::kem_curve_keys_do_ecdh(hsm.as_ref());
}

#[test]
fn concurrent_signing() {
    let (_dir, hsm) = soft();
    suite::concurrent_signing(Arc::from(hsm));
}

#[test]
fn rsa_sign_decrypt() {
    let (_dir, hsm) = soft();
    let paddings = [
        RsaEncryptionPadding::Pkcs1,
        RsaEncryptionPadding::OaepSha1,
        RsaEncryptionPadding::OaepSha256,
    ];
    suite::rsa_sign_decrypt(hsm.as_ref(), &paddings);
}

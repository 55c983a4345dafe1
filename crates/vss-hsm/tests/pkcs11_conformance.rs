//! The HSM conformance suite against the pkcs11 backend (SoftHSMv2), and what only a token
//! does: refusing to export keys, wrong PINs, missing modules and tokens.

mod softhsm;
mod suite;

use std::path::PathBuf;
use std::sync::Arc;

use cryptoki::mechanism::Mechanism;
use cryptoki::object::{Attribute, AttributeInfo, AttributeType, KeyType, ObjectClass};
use cryptoki::session::UserType;
use cryptoki::types::AuthPin;
use vss_crypto::{Curve, RsaBits, RsaEncryptionPadding};
use vss_hsm::{Error, GenerateKeyRequest, Hsm, Pkcs11Hsm, TokenRef};

fn hsm(label: &str) -> Box<dyn Hsm> {
    let token = softhsm::token(label);
    Box::new(Pkcs11Hsm::open(&token, softhsm::PIN).expect("open"))
}

#[test]
fn sign_verify_round_trips() {
    suite::sign_verify_round_trips(hsm("rt").as_ref());
}

#[test]
fn list_find_duplicate_delete() {
    suite::list_find_duplicate_delete(hsm("list").as_ref());
}

#[test]
fn missing_key_and_bad_label() {
    suite::missing_key_and_bad_label(hsm("missing").as_ref());
}

#[test]
fn import_and_ecdh() {
    suite::import_and_ecdh(hsm("import").as_ref());
}

#[test]
fn kem_curve_keys_do_ecdh() {
    suite::kem_curve_keys_do_ecdh(hsm("kemcurves").as_ref());
}

#[test]
fn concurrent_signing() {
    suite::concurrent_signing(Arc::from(hsm("concurrent")));
}

#[test]
fn keys_created_on_the_token_cannot_be_exported() {
    let token = softhsm::token("export");
    let hsm = Pkcs11Hsm::open(&token, softhsm::PIN).expect("open");
    hsm.generate_key(&GenerateKeyRequest::new("secret", Curve::P256))
        .expect("generate");

    // Ask the token directly, as any other application could.
    let module = cryptoki::context::Pkcs11::new(&token.module).expect("module");
    let slot = module
        .get_slots_with_initialized_token()
        .expect("slots")
        .into_iter()
        .find(|s| module.get_token_info(*s).expect("info").label().trim_end() == "export")
        .expect("slot");
    let session = module.open_rw_session(slot).expect("session");
    // The login is shared with `hsm` in this process; a second login is refused as redundant.
    let _ = session.login(UserType::User, Some(&AuthPin::from(softhsm::PIN)));
    let key = session
        .find_objects(&[
            Attribute::Class(ObjectClass::PRIVATE_KEY),
            Attribute::Label(b"secret".to_vec()),
        ])
        .expect("find")[0];
    let flags = session
        .get_attributes(key, &[AttributeType::Sensitive, AttributeType::Extractable])
        .expect("flags");
    assert!(flags.contains(&Attribute::Sensitive(true)), "{flags:?}");
    assert!(flags.contains(&Attribute::Extractable(false)), "{flags:?}");
    let info = session
        .get_attribute_info(key, &[AttributeType::Value])
        .expect("info");
    assert!(
        matches!(info.as_slice(), [AttributeInfo::Sensitive]),
        "CKA_VALUE must be refused: {info:?}"
    );

    let wrapping = session
        .generate_key(
            &Mechanism::AesKeyGen,
            &[
                Attribute::Class(ObjectClass::SECRET_KEY),
                Attribute::KeyType(KeyType::AES),
                Attribute::ValueLen(32u64.into()),
                Attribute::Token(false),
                Attribute::Wrap(true),
            ],
        )
        .expect("wrapping key");
    let wrapped = session.wrap_key(&Mechanism::AesKeyWrapPad, wrapping, key);
    let refused = wrapped.expect_err("wrapping a non-extractable key must be refused");
    assert!(
        refused.to_string().to_lowercase().contains("extract")
            || format!("{refused:?}").contains("KeyUnextractable"),
        "{refused:?}"
    );
}

#[test]
fn wrong_pin_missing_token_and_missing_module_are_named() {
    let token = softhsm::token("pins");
    assert!(matches!(
        Pkcs11Hsm::open(&token, "999999"),
        Err(Error::TokenPinIncorrect)
    ));
    let absent = TokenRef {
        module: token.module.clone(),
        token_label: "no-such-token".into(),
    };
    let err = Pkcs11Hsm::open(&absent, softhsm::PIN).expect_err("absent");
    assert!(matches!(&err, Error::TokenNotFound { label, .. } if label == "no-such-token"));
    assert!(err.to_string().contains("no-such-token"), "{err}");
    let missing = TokenRef {
        module: PathBuf::from("/nonexistent/libpkcs11.so"),
        token_label: "x".into(),
    };
    let err = Pkcs11Hsm::open(&missing, softhsm::PIN).expect_err("missing module");
    assert!(matches!(err, Error::ModuleNotFound(_)));
    assert!(
        err.to_string().contains("/nonexistent/libpkcs11.so"),
        "{err}"
    );
    assert!(
        Pkcs11Hsm::init_token(&token, softhsm::SO_PIN, softhsm::PIN).is_err(),
        "a second token with the same label is refused"
    );
}

#[test]
fn a_store_directory_selects_the_token() {
    let token = softhsm::token("store");
    let dir = tempfile::tempdir().expect("tempdir");
    vss_hsm::StoreConfig::create_pkcs11(dir.path(), &token).expect("config");
    let hsm = vss_hsm::open(dir.path(), softhsm::PIN).expect("open via the store");
    assert_eq!(hsm.backend(), vss_hsm::Backend::Pkcs11);
    hsm.generate_key(&GenerateKeyRequest::new("via-store", Curve::Bp256))
        .expect("generate");
    let key = hsm.key("via-store").expect("key");
    assert_eq!(key.algorithm, Curve::Bp256.into());
    // The store keeps the public half in clear beside the token's key, and drops it with it.
    let copies = vss_hsm::PublicCopies::new(dir.path());
    let point = hsm.public_key(&key.handle).expect("public");
    assert_eq!(
        copies.get("via-store").expect("copy").map(|c| c.kind),
        Some(vss_hsm::ObjectKind::EcPublicKey {
            curve: "bp256".into(),
            point: point.to_sec1_uncompressed().to_vec(),
        })
    );
    hsm.delete_key(&key.handle).expect("delete");
    assert_eq!(copies.get("via-store").expect("no copy"), None);
    // A key made on the token by another program gets its copy when the store is opened.
    Pkcs11Hsm::open(&token, softhsm::PIN)
        .expect("open the token")
        .generate_key(&GenerateKeyRequest::new("made-elsewhere", Curve::P256))
        .expect("generate");
    assert_eq!(copies.get("made-elsewhere").expect("none yet"), None);
    drop(vss_hsm::open(dir.path(), softhsm::PIN).expect("open via the store"));
    assert!(copies.get("made-elsewhere").expect("copy").is_some());
    assert!(matches!(
        vss_hsm::open(dir.path(), "000000"),
        Err(Error::TokenPinIncorrect)
    ));
}

#[test]
fn a_key_deleted_through_another_session_is_not_found_not_an_error_code() {
    let token = softhsm::token("stale");
    let a = Pkcs11Hsm::open(&token, softhsm::PIN).expect("open a");
    let b = Pkcs11Hsm::open(&token, softhsm::PIN).expect("open b");
    let key = a
        .generate_key(&GenerateKeyRequest::new("shared", Curve::P384))
        .expect("generate");
    a.sign_digest(&key.handle, &[7u8; 48])
        .expect("a signs (and remembers the key)");
    b.delete_key(&key.handle).expect("b deletes");
    assert!(
        matches!(a.key("shared"), Err(Error::KeyNotFound(_))),
        "a's lookup asks the token, not what it remembers"
    );
    a.key("shared").expect_err("still gone");
    b.generate_key(&GenerateKeyRequest::new("shared", Curve::P384))
        .expect("b makes it again");
    a.key("shared").expect("a finds the new one");
    b.delete_key(&key.handle).expect("b deletes again");
    assert!(matches!(
        a.sign_digest(&key.handle, &[7u8; 48]),
        Err(Error::KeyNotFound(l)) if l == "shared"
    ));
    assert!(matches!(a.key("shared"), Err(Error::KeyNotFound(_))));
}

#[test]
fn keys_are_made_and_deleted_while_other_threads_sign() {
    let token = softhsm::token("busy");
    let hsm = Arc::new(Pkcs11Hsm::open(&token, softhsm::PIN).expect("open"));
    let signer = hsm
        .generate_key(&GenerateKeyRequest::new("signer", Curve::P256))
        .expect("generate");
    std::thread::scope(|scope| {
        for t in 0..4 {
            let hsm = hsm.clone();
            scope.spawn(move || {
                for i in 0..15 {
                    let label = format!("k-{t}-{i}");
                    let key = hsm
                        .generate_key(&GenerateKeyRequest::new(&label, Curve::P256))
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                    hsm.sign_digest(&key.handle, &[1u8; 32]).expect("sign");
                    hsm.delete_key(&key.handle).expect("delete");
                }
            });
        }
        for _ in 0..4 {
            let (hsm, handle) = (hsm.clone(), signer.handle.clone());
            scope.spawn(move || {
                for _ in 0..60 {
                    hsm.sign_digest(&handle, &[2u8; 32]).expect("sign");
                    hsm.key("signer").expect("lookup");
                }
            });
        }
    });
    assert_eq!(hsm.keys().expect("keys").len(), 1);
}

#[test]
fn rsa_sign_decrypt() {
    let hsm = hsm("rsa");
    let (pkcs1, sha1) = (RsaEncryptionPadding::Pkcs1, RsaEncryptionPadding::OaepSha1);
    suite::rsa_sign_decrypt(hsm.as_ref(), &[pkcs1, sha1]);
    // SoftHSM 2.6 does OAEP with SHA-1 only: the refusal says so instead of a bare code.
    let key = hsm
        .generate_key(&GenerateKeyRequest::new("rsa-oaep256", RsaBits::B2048))
        .expect("generate");
    let public = hsm.rsa_public_key(&key.handle).expect("public");
    let sha256 = RsaEncryptionPadding::OaepSha256;
    let ciphertext = public.encrypt(sha256, b"secret").expect("encrypt");
    assert!(matches!(
        hsm.rsa_decrypt(&key.handle, sha256, &ciphertext),
        Err(Error::Unsupported(m)) if m.contains("OaepSha256")
    ));
}

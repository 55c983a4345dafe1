//! What a session sees before login: the public keys of the store's key pairs (from the
//! store's clear copies) and its certificates, never a private key; after login, the private
//! keys too. A store made before the copies existed shows its public keys once the first
//! login has written them.

mod common;

use common::{login, rv, session, with_module, Store, PIN};
use cryptoki::error::RvError;
use cryptoki::mechanism::Mechanism;
use cryptoki::object::{Attribute, AttributeType, KeyType, ObjectClass, ObjectHandle};
use cryptoki::session::Session;
use vss_crypto::{Curve, HashAlg, RsaBits};
use vss_hsm::{pkcs11_ec, GenerateKeyRequest, Hsm, SoftHsm};

/// The labels of the objects of `class` the session finds.
fn labels(session: &Session, class: ObjectClass) -> Vec<String> {
    let mut labels: Vec<String> = session
        .find_objects(&[Attribute::Class(class)])
        .expect("find")
        .into_iter()
        .map(|object| label(session, object))
        .collect();
    labels.sort();
    labels
}

fn label(session: &Session, object: ObjectHandle) -> String {
    match &session
        .get_attributes(object, &[AttributeType::Label])
        .expect("label")[..]
    {
        [Attribute::Label(label)] => String::from_utf8(label.clone()).expect("utf-8"),
        other => panic!("no label: {other:?}"),
    }
}

/// The one public key labelled `label`.
fn public_key(session: &Session, label: &str) -> ObjectHandle {
    let found = session
        .find_objects(&[
            Attribute::Class(ObjectClass::PUBLIC_KEY),
            Attribute::Label(label.into()),
        ])
        .expect("find");
    assert_eq!(found.len(), 1, "{label}");
    found[0]
}

#[test]
fn public_keys_are_read_before_login_and_private_keys_appear_after() {
    let store = Store::new();
    let hsm = vss_hsm::open(&store.path(), PIN).expect("open");
    let ec = hsm
        .generate_key(&GenerateKeyRequest::new("ec", Curve::P256))
        .expect("ec");
    let rsa = hsm
        .generate_key(&GenerateKeyRequest::new("rsa", RsaBits::B2048))
        .expect("rsa");
    let point = hsm.public_key(&ec.handle).expect("point");
    let modulus = hsm
        .rsa_public_key(&rsa.handle)
        .expect("rsa")
        .modulus()
        .to_vec();
    let digest = HashAlg::Sha256.digest(b"signed by the store");
    let signature = hsm.sign_digest(&ec.handle, &digest).expect("sign");
    drop(hsm);
    with_module(&store, |module| {
        let session = session(module);
        assert_eq!(labels(&session, ObjectClass::PUBLIC_KEY), ["ec", "rsa"]);
        assert!(labels(&session, ObjectClass::PRIVATE_KEY).is_empty());
        let ec_public = public_key(&session, "ec");
        assert_eq!(
            session
                .get_attributes(
                    ec_public,
                    &[
                        AttributeType::KeyType,
                        AttributeType::Private,
                        AttributeType::EcParams,
                        AttributeType::EcPoint,
                    ],
                )
                .expect("ec attributes"),
            vec![
                Attribute::KeyType(KeyType::EC),
                Attribute::Private(false),
                Attribute::EcParams(pkcs11_ec::ec_params(Curve::P256)),
                Attribute::EcPoint(pkcs11_ec::ec_point(point.to_sec1_uncompressed())),
            ]
        );
        let rsa_public = public_key(&session, "rsa");
        assert_eq!(
            session
                .get_attributes(rsa_public, &[AttributeType::Modulus])
                .expect("modulus"),
            vec![Attribute::Modulus(modulus.clone())]
        );
        // A signature of the store verifies with the public key, before login.
        let raw = signature.to_p1363();
        session
            .verify(&Mechanism::Ecdsa, ec_public, &digest, raw)
            .expect("verified");
        assert_eq!(
            rv(session.sign(&Mechanism::Ecdsa, ec_public, &digest)),
            RvError::UserNotLoggedIn
        );
        login(&session);
        assert_eq!(labels(&session, ObjectClass::PRIVATE_KEY), ["ec", "rsa"]);
        assert_eq!(labels(&session, ObjectClass::PUBLIC_KEY), ["ec", "rsa"]);
        let private = session
            .find_objects(&[
                Attribute::Class(ObjectClass::PRIVATE_KEY),
                Attribute::Label(b"ec".to_vec()),
            ])
            .expect("find")[0];
        session.logout().expect("logout");
        // The private key is gone again; the public key's handle still reads.
        assert_eq!(
            rv(session.get_attributes(private, &[AttributeType::Label])),
            RvError::ObjectHandleInvalid
        );
        assert_eq!(label(&session, rsa_public), "rsa");
    });
}

#[test]
fn a_store_made_before_the_copies_shows_its_public_keys_after_the_first_login() {
    let store = Store::new();
    // The soft store alone writes no copy: as a store made before they existed.
    SoftHsm::open(&store.path(), PIN)
        .expect("open")
        .generate_key(&GenerateKeyRequest::new("old", Curve::P384))
        .expect("old");
    with_module(&store, |module| {
        let session = session(module);
        assert!(labels(&session, ObjectClass::PUBLIC_KEY).is_empty());
        login(&session);
        session.logout().expect("logout");
        assert_eq!(labels(&session, ObjectClass::PUBLIC_KEY), ["old"]);
        assert!(labels(&session, ObjectClass::PRIVATE_KEY).is_empty());
    });
}

#[test]
fn a_key_made_or_destroyed_through_the_module_comes_and_goes_before_login_too() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        login(&session);
        let (public, private) = session
            .generate_key_pair(
                &Mechanism::EccKeyPairGen,
                &[
                    Attribute::EcParams(pkcs11_ec::ec_params(Curve::P256)),
                    Attribute::Label(b"made".to_vec()),
                    Attribute::Private(false),
                ],
                &[Attribute::Label(b"made".to_vec())],
            )
            .expect("generate");
        session.logout().expect("logout");
        assert_eq!(labels(&session, ObjectClass::PUBLIC_KEY), ["made"]);
        assert_eq!(rv(session.destroy_object(public)), RvError::UserNotLoggedIn);
        login(&session);
        session.destroy_object(private).expect("destroy");
        session.logout().expect("logout");
        assert!(labels(&session, ObjectClass::PUBLIC_KEY).is_empty());
    });
}

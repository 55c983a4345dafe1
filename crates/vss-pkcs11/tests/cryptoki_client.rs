//! `libvss_pkcs11.so` loaded by a real PKCS#11 client (the `cryptoki` crate) over a soft
//! key store: login and the store's retry counter, key generation into the store, search,
//! attributes, and signatures that OpenSSL verifies.

mod common;

use common::{login, rv, session, with_module, Store, PIN};
use cryptoki::error::RvError;
use cryptoki::mechanism::Mechanism;
use cryptoki::object::{Attribute, AttributeInfo, AttributeType, KeyType, ObjectClass};
use cryptoki::session::{Session, UserType};
use cryptoki::types::AuthPin;
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcGroup, EcKey, EcPoint};
use openssl::ecdsa::EcdsaSig;
use openssl::hash::MessageDigest;
use openssl::nid::Nid;

/// `CKA_EC_PARAMS` of P-256: the DER of OID 1.2.840.10045.3.1.7.
const P256_PARAMS: [u8; 10] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];

/// Generates a key pair the way `pkcs11-tool --keypairgen` asks for one.
fn generate(
    session: &Session,
    label: &str,
    curve: Nid,
) -> (
    cryptoki::object::ObjectHandle,
    cryptoki::object::ObjectHandle,
) {
    let params = match curve {
        Nid::X9_62_PRIME256V1 => P256_PARAMS.to_vec(),
        Nid::SECP384R1 => vec![0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22],
        Nid::BRAINPOOL_P256R1 => vec![0x06, 0x09, 0x2b, 0x24, 3, 3, 2, 8, 1, 1, 0x07],
        Nid::BRAINPOOL_P384R1 => vec![0x06, 0x09, 0x2b, 0x24, 3, 3, 2, 8, 1, 1, 0x0b],
        other => panic!("no test parameters for {other:?}"),
    };
    session
        .generate_key_pair(
            &Mechanism::EccKeyPairGen,
            &[
                Attribute::Token(true),
                Attribute::EcParams(params),
                Attribute::Verify(true),
                Attribute::Label(label.into()),
            ],
            &[
                Attribute::Token(true),
                Attribute::Private(true),
                Attribute::Sensitive(true),
                Attribute::Sign(true),
                Attribute::Label(label.into()),
            ],
        )
        .expect("C_GenerateKeyPair")
}

/// The public key as OpenSSL holds it, from `CKA_EC_POINT` (a DER OCTET STRING).
fn openssl_key(
    session: &Session,
    public: cryptoki::object::ObjectHandle,
    curve: Nid,
) -> EcKey<openssl::pkey::Public> {
    let point = match &session
        .get_attributes(public, &[AttributeType::EcPoint])
        .expect("CKA_EC_POINT")[..]
    {
        [Attribute::EcPoint(point)] => point.clone(),
        other => panic!("no EC point: {other:?}"),
    };
    assert_eq!(point[0], 0x04, "DER OCTET STRING tag");
    assert_eq!(usize::from(point[1]), point.len() - 2, "DER length");
    let group = EcGroup::from_curve_name(curve).expect("group");
    let mut ctx = BigNumContext::new().expect("ctx");
    let point = EcPoint::from_bytes(&group, &point[2..], &mut ctx).expect("SEC1 point");
    EcKey::from_public_key(&group, &point).expect("key")
}

/// Whether OpenSSL accepts `r || s` over `digest`.
fn openssl_verifies(key: &EcKey<openssl::pkey::Public>, digest: &[u8], signature: &[u8]) -> bool {
    let (r, s) = signature.split_at(signature.len() / 2);
    let sig = EcdsaSig::from_private_components(
        BigNum::from_slice(r).expect("r"),
        BigNum::from_slice(s).expect("s"),
    )
    .expect("sig");
    sig.verify(digest, key).expect("verify")
}

#[test]
fn a_wrong_pin_costs_one_of_the_stores_tries_and_the_token_flags_count_down() {
    let store = Store::new();
    with_module(&store, |module| {
        let slot = module.get_slots_with_token().expect("slots")[0];
        let flags = || module.get_token_info(slot).expect("C_GetTokenInfo");
        let info = flags();
        assert!(info.login_required() && info.user_pin_initialized() && info.token_initialized());
        assert!(info.rng());
        assert!(
            !info.user_pin_count_low() && !info.user_pin_final_try() && !info.user_pin_locked()
        );
        let session = session(module);
        let wrong = || session.login(UserType::User, Some(&AuthPin::from("9999")));
        assert_eq!(rv(wrong()), RvError::PinIncorrect);
        assert_eq!(store.pin_tries_left(), 2);
        assert!(flags().user_pin_count_low() && !flags().user_pin_final_try());
        assert_eq!(rv(wrong()), RvError::PinIncorrect);
        assert_eq!(store.pin_tries_left(), 1);
        assert!(flags().user_pin_final_try());
        assert_eq!(rv(wrong()), RvError::PinIncorrect);
        assert_eq!(store.pin_tries_left(), 0);
        assert!(flags().user_pin_locked());
        assert_eq!(
            rv(session.login(UserType::User, Some(&AuthPin::from(PIN)))),
            RvError::PinLocked
        );
    });
}

#[test]
fn a_right_pin_resets_the_counter_and_a_second_login_is_refused() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        assert_eq!(
            rv(session.login(UserType::User, Some(&AuthPin::from("0000")))),
            RvError::PinIncorrect
        );
        login(&session);
        assert_eq!(store.pin_tries_left(), 3);
        assert_eq!(
            rv(session.login(UserType::User, Some(&AuthPin::from(PIN)))),
            RvError::UserAlreadyLoggedIn
        );
        assert_eq!(
            rv(session.login(UserType::So, Some(&AuthPin::from(PIN)))),
            RvError::UserTypeInvalid
        );
        session.logout().expect("C_Logout");
        assert_eq!(rv(session.logout()), RvError::UserNotLoggedIn);
    });
}

#[test]
fn a_generated_p256_key_is_in_the_store_and_its_signature_verifies_with_openssl() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        assert_eq!(
            rv(session.generate_key_pair(&Mechanism::EccKeyPairGen, &[], &[])),
            RvError::UserNotLoggedIn
        );
        login(&session);
        let (public, private) = generate(&session, "tls", Nid::X9_62_PRIME256V1);
        assert_eq!(store.labels(), vec!["tls".to_owned()]);

        let by = |template: &[Attribute]| session.find_objects(template).expect("find");
        assert_eq!(
            by(&[
                Attribute::Class(ObjectClass::PRIVATE_KEY),
                Attribute::Label(b"tls".to_vec())
            ]),
            vec![private]
        );
        assert_eq!(
            by(&[
                Attribute::Class(ObjectClass::PUBLIC_KEY),
                Attribute::Id(b"tls".to_vec())
            ]),
            vec![public]
        );
        assert_eq!(by(&[Attribute::KeyType(KeyType::EC)]).len(), 2);
        assert!(by(&[Attribute::Label(b"other".to_vec())]).is_empty());

        let key = openssl_key(&session, public, Nid::X9_62_PRIME256V1);
        let message = b"ClientHello..ServerHello";
        let signature = session
            .sign(&Mechanism::EcdsaSha256, private, message)
            .expect("C_Sign");
        assert_eq!(signature.len(), 64);
        let digest = openssl::hash::hash(MessageDigest::sha256(), message).expect("sha256");
        assert!(openssl_verifies(&key, &digest, &signature));
        session
            .verify(&Mechanism::EcdsaSha256, public, message, &signature)
            .expect("C_Verify");
        assert_eq!(
            rv(session.verify(&Mechanism::EcdsaSha256, public, b"other", &signature)),
            RvError::SignatureInvalid
        );

        // The same in parts, and raw ECDSA over the digest.
        session
            .sign_init(&Mechanism::EcdsaSha256, private)
            .expect("init");
        session.sign_update(&message[..5]).expect("update");
        session.sign_update(&message[5..]).expect("update");
        let parts = session.sign_final().expect("final");
        assert!(openssl_verifies(&key, &digest, &parts));
        let raw = session
            .sign(&Mechanism::Ecdsa, private, &digest)
            .expect("raw");
        assert!(openssl_verifies(&key, &digest, &raw));

        // A label taken already is refused, and the private key does not verify.
        assert_eq!(
            rv(session.generate_key_pair(
                &Mechanism::EccKeyPairGen,
                &[
                    Attribute::EcParams(P256_PARAMS.to_vec()),
                    Attribute::Label(b"tls".to_vec())
                ],
                &[],
            )),
            RvError::AttributeValueInvalid
        );
        assert_eq!(
            rv(session.verify_init(&Mechanism::EcdsaSha256, private)),
            RvError::KeyFunctionNotPermitted
        );
    });
}

#[test]
fn p384_and_brainpool_keys_sign_with_their_hashes() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        login(&session);
        for (label, nid, mechanism, digest) in [
            (
                "p384",
                Nid::SECP384R1,
                Mechanism::EcdsaSha384,
                MessageDigest::sha384(),
            ),
            (
                "bp256",
                Nid::BRAINPOOL_P256R1,
                Mechanism::EcdsaSha256,
                MessageDigest::sha256(),
            ),
            (
                "bp384",
                Nid::BRAINPOOL_P384R1,
                Mechanism::EcdsaSha384,
                MessageDigest::sha384(),
            ),
        ] {
            let (public, private) = generate(&session, label, nid);
            let key = openssl_key(&session, public, nid);
            let signature = session.sign(&mechanism, private, b"data").expect("C_Sign");
            let digest = openssl::hash::hash(digest, b"data").expect("hash");
            assert!(openssl_verifies(&key, &digest, &signature), "{label}");
        }
        assert_eq!(store.labels(), ["bp256", "bp384", "p384"]);
    });
}

#[test]
fn private_keys_are_sensitive_and_their_values_refused() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        login(&session);
        let (public, private) = generate(&session, "k", Nid::X9_62_PRIME256V1);
        let info = session
            .get_attribute_info(
                private,
                &[
                    AttributeType::Value,
                    AttributeType::Verify,
                    AttributeType::Label,
                    AttributeType::EcPoint,
                ],
            )
            .expect("info");
        assert!(matches!(info[0], AttributeInfo::Sensitive));
        assert!(matches!(info[1], AttributeInfo::TypeInvalid));
        assert!(matches!(info[2], AttributeInfo::Available(1)));
        // The public point rides on the private key too (OpenSSL's engine reads it there).
        assert!(matches!(info[3], AttributeInfo::Available(67)));
        let flags = session
            .get_attributes(
                private,
                &[
                    AttributeType::Sensitive,
                    AttributeType::Extractable,
                    AttributeType::Private,
                    AttributeType::Sign,
                ],
            )
            .expect("flags");
        assert_eq!(
            flags,
            vec![
                Attribute::Sensitive(true),
                Attribute::Extractable(false),
                Attribute::Private(true),
                Attribute::Sign(true),
            ]
        );
        let params = session
            .get_attributes(public, &[AttributeType::EcParams])
            .expect("params");
        assert_eq!(params, vec![Attribute::EcParams(P256_PARAMS.to_vec())]);
        // Logged out, the private key is gone and the public key stays readable.
        session.logout().expect("logout");
        assert_eq!(session.find_objects(&[]).expect("find"), vec![public]);
        assert_eq!(
            rv(session.get_attributes(private, &[AttributeType::Label])),
            RvError::ObjectHandleInvalid
        );
        assert_eq!(
            session
                .get_attributes(public, &[AttributeType::EcParams, AttributeType::Private])
                .expect("public"),
            vec![
                Attribute::EcParams(P256_PARAMS.to_vec()),
                Attribute::Private(false)
            ]
        );
    });
}

#[test]
fn keys_sign_from_many_threads_at_once() {
    let store = Store::new();
    with_module(&store, |module| {
        let first = session(module);
        login(&first);
        let (public, private) = generate(&first, "shared", Nid::X9_62_PRIME256V1);
        let key = openssl_key(&first, public, Nid::X9_62_PRIME256V1);
        let digest = openssl::hash::hash(MessageDigest::sha256(), b"m").expect("hash");
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    let session = session(module);
                    for _ in 0..20 {
                        let signature = session
                            .sign(&Mechanism::EcdsaSha256, private, b"m")
                            .expect("sign");
                        assert!(openssl_verifies(&key, &digest, &signature));
                    }
                });
            }
        });
    });
}

//! `libvss_pkcs11.so` through the `cryptoki` client: RSA keys (every signature mechanism,
//! checked by OpenSSL; OAEP and PKCS #1 v1.5 decryption of what OpenSSL encrypted), ECDH
//! that agrees with OpenSSL, and certificates and public keys kept as public objects.

mod common;

use common::{login, rv, session, with_module, Store, PIN};
use cryptoki::mechanism::elliptic_curve::{EcKdf, Ecdh1DeriveParams};
use cryptoki::mechanism::rsa::{PkcsMgfType, PkcsOaepParams, PkcsOaepSource, PkcsPssParams};
use cryptoki::mechanism::{Mechanism, MechanismType};
use cryptoki::object::{
    Attribute, AttributeInfo, AttributeType, KeyType, ObjectClass, ObjectHandle,
};
use cryptoki::session::{Session, UserType};
use cryptoki::types::AuthPin;
use openssl::bn::BigNum;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private, Public};
use openssl::rsa::{Padding, Rsa};
use openssl::sign::{RsaPssSaltlen, Verifier};
use openssl::x509::{X509Builder, X509NameBuilder};

fn generate_rsa(
    session: &Session,
    label: &str,
    id: &[u8],
    bits: u64,
) -> cryptoki::error::Result<(ObjectHandle, ObjectHandle)> {
    session.generate_key_pair(
        &Mechanism::RsaPkcsKeyPairGen,
        &[
            Attribute::Token(true),
            Attribute::ModulusBits(bits.into()),
            Attribute::PublicExponent(vec![1, 0, 1]),
            Attribute::Verify(true),
            Attribute::Encrypt(true),
            Attribute::Label(label.into()),
            Attribute::Id(id.to_vec()),
        ],
        &[
            Attribute::Token(true),
            Attribute::Private(true),
            Attribute::Sensitive(true),
            Attribute::Sign(true),
            Attribute::Decrypt(true),
            Attribute::Label(label.into()),
            Attribute::Id(id.to_vec()),
        ],
    )
}

/// The public key as OpenSSL holds it, from `CKA_MODULUS` and `CKA_PUBLIC_EXPONENT`.
fn openssl_rsa(session: &Session, object: ObjectHandle) -> PKey<Public> {
    let attributes = session
        .get_attributes(
            object,
            &[AttributeType::Modulus, AttributeType::PublicExponent],
        )
        .expect("modulus");
    let [Attribute::Modulus(n), Attribute::PublicExponent(e)] = &attributes[..] else {
        panic!("no modulus: {attributes:?}");
    };
    let rsa = Rsa::from_public_components(
        BigNum::from_slice(n).expect("n"),
        BigNum::from_slice(e).expect("e"),
    )
    .expect("rsa");
    PKey::from_rsa(rsa).expect("pkey")
}

fn pss(hash: MechanismType, mgf: PkcsMgfType, salt: u64) -> PkcsPssParams {
    PkcsPssParams {
        hash_alg: hash,
        mgf,
        s_len: salt.into(),
    }
}

fn openssl_verifies(
    key: &PKey<Public>,
    md: MessageDigest,
    pss: bool,
    data: &[u8],
    sig: &[u8],
) -> bool {
    let mut verifier = Verifier::new(md, key).expect("verifier");
    if pss {
        verifier.set_rsa_padding(Padding::PKCS1_PSS).expect("pss");
        verifier
            .set_rsa_pss_saltlen(RsaPssSaltlen::DIGEST_LENGTH)
            .expect("salt");
    }
    verifier.verify_oneshot(sig, data).expect("verify")
}

#[test]
fn an_rsa_key_signs_with_every_mechanism_and_openssl_and_the_module_verify() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        login(&session);
        let (public, private) = generate_rsa(&session, "tls-rsa", &[0x01], 2048).expect("keygen");
        let labels: Vec<String> = store.labels();
        assert_eq!(labels, ["tls-rsa"]);
        assert_eq!(
            session
                .find_objects(&[
                    Attribute::Id(vec![0x01]),
                    Attribute::Class(ObjectClass::PRIVATE_KEY)
                ])
                .expect("find by id"),
            vec![private]
        );
        let key = openssl_rsa(&session, public);
        assert_eq!(key.bits(), 2048);
        // The private key carries the same public half.
        assert!(openssl_rsa(&session, private).public_eq(&key));

        let message = b"ServerKeyExchange".as_slice();
        let digest = openssl::sha::sha256(message);
        let sha256 = (MechanismType::SHA256, PkcsMgfType::MGF1_SHA256);
        let cases: Vec<(Mechanism, Vec<u8>, MessageDigest, bool)> = vec![
            (
                Mechanism::Sha256RsaPkcs,
                message.to_vec(),
                MessageDigest::sha256(),
                false,
            ),
            (
                Mechanism::Sha384RsaPkcs,
                message.to_vec(),
                MessageDigest::sha384(),
                false,
            ),
            (
                Mechanism::Sha512RsaPkcs,
                message.to_vec(),
                MessageDigest::sha512(),
                false,
            ),
            (
                Mechanism::RsaPkcs,
                vss_crypto::digest_info(vss_crypto::HashAlg::Sha256, &digest).expect("info"),
                MessageDigest::sha256(),
                false,
            ),
            (
                Mechanism::RsaPkcsPss(pss(sha256.0, sha256.1, 32)),
                digest.to_vec(),
                MessageDigest::sha256(),
                true,
            ),
            (
                Mechanism::Sha256RsaPkcsPss(pss(sha256.0, sha256.1, 32)),
                message.to_vec(),
                MessageDigest::sha256(),
                true,
            ),
            (
                Mechanism::Sha384RsaPkcsPss(pss(
                    MechanismType::SHA384,
                    PkcsMgfType::MGF1_SHA384,
                    48,
                )),
                message.to_vec(),
                MessageDigest::sha384(),
                true,
            ),
        ];
        for (mechanism, input, md, is_pss) in cases {
            let signature = session.sign(&mechanism, private, &input).expect("sign");
            assert_eq!(signature.len(), 256);
            assert!(
                openssl_verifies(&key, md, is_pss, message, &signature),
                "{mechanism:?}"
            );
            session
                .verify(&mechanism, public, &input, &signature)
                .expect("module verifies");
            let mut bad = signature.clone();
            bad[100] ^= 1;
            assert_eq!(
                rv(session.verify(&mechanism, public, &input, &bad)),
                cryptoki::error::RvError::SignatureInvalid
            );
        }
        // PKCS #1 v1.5 is deterministic: the DigestInfo form equals the hashing form.
        assert_eq!(
            session
                .sign(&Mechanism::Sha256RsaPkcs, private, message)
                .expect("sign"),
            session
                .sign(
                    &Mechanism::RsaPkcs,
                    private,
                    &vss_crypto::digest_info(vss_crypto::HashAlg::Sha256, &digest).expect("info")
                )
                .expect("sign")
        );
        // CKM_RSA_PKCS signs what it is given: a SHA-1 DigestInfo too (pkcs11-tool --test
        // does), up to the modulus length less 11 bytes.
        let sha1_info = [
            &[
                0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04,
                0x14,
            ][..],
            &openssl::sha::sha1(message)[..],
        ]
        .concat();
        let signature = session
            .sign(&Mechanism::RsaPkcs, private, &sha1_info)
            .expect("sign");
        assert!(openssl_verifies(
            &key,
            MessageDigest::sha1(),
            false,
            message,
            &signature
        ));
        assert_eq!(
            rv(session.sign(&Mechanism::RsaPkcs, private, &[0u8; 246])),
            cryptoki::error::RvError::DataLenRange
        );
        // PSS parameters must agree with the hash.
        assert_eq!(
            rv(session.sign(
                &Mechanism::RsaPkcsPss(pss(sha256.0, PkcsMgfType::MGF1_SHA384, 32)),
                private,
                &digest
            )),
            cryptoki::error::RvError::MechanismParamInvalid
        );
        // An EC mechanism with an RSA key.
        assert_eq!(
            rv(session.sign(&Mechanism::Ecdsa, private, &digest)),
            cryptoki::error::RvError::KeyTypeInconsistent
        );
    });
}

#[test]
fn rsa_1024_is_refused_and_nothing_is_stored() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        login(&session);
        assert_eq!(
            rv(generate_rsa(&session, "weak", b"weak", 1024)),
            cryptoki::error::RvError::KeySizeRange
        );
        assert!(store.labels().is_empty());
    });
}

#[test]
fn what_openssl_encrypts_to_the_key_the_module_decrypts() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        login(&session);
        let (public, private) = generate_rsa(&session, "kex", b"kex", 2048).expect("keygen");
        let key = openssl_rsa(&session, public);
        let rsa = key.rsa().expect("rsa");
        let secret = b"48 bytes of TLS 1.2 premaster secret, or so....";

        let mut pkcs1 = vec![0u8; 256];
        rsa.public_encrypt(secret, &mut pkcs1, Padding::PKCS1)
            .expect("encrypt");
        assert_eq!(
            session
                .decrypt(&Mechanism::RsaPkcs, private, &pkcs1)
                .expect("decrypt"),
            secret
        );

        for (hash, mgf, md) in [
            (
                MechanismType::SHA1,
                PkcsMgfType::MGF1_SHA1,
                openssl::md::Md::sha1(),
            ),
            (
                MechanismType::SHA256,
                PkcsMgfType::MGF1_SHA256,
                openssl::md::Md::sha256(),
            ),
        ] {
            let mut ctx = openssl::pkey_ctx::PkeyCtx::new(&key).expect("ctx");
            ctx.encrypt_init().expect("init");
            ctx.set_rsa_padding(Padding::PKCS1_OAEP).expect("oaep");
            ctx.set_rsa_oaep_md(md).expect("md");
            ctx.set_rsa_mgf1_md(md).expect("mgf");
            let mut ciphertext = Vec::new();
            ctx.encrypt_to_vec(secret, &mut ciphertext)
                .expect("encrypt");
            let oaep =
                Mechanism::RsaPkcsOaep(PkcsOaepParams::new(hash, mgf, PkcsOaepSource::empty()));
            assert_eq!(
                session
                    .decrypt(&oaep, private, &ciphertext)
                    .expect("decrypt"),
                secret
            );
            ciphertext[5] ^= 0x10;
            assert_eq!(
                rv(session.decrypt(&oaep, private, &ciphertext)),
                cryptoki::error::RvError::EncryptedDataInvalid
            );
            assert_eq!(
                rv(session.decrypt(&oaep, private, &ciphertext[1..])),
                cryptoki::error::RvError::EncryptedDataLenRange
            );
        }
        let labelled = Mechanism::RsaPkcsOaep(PkcsOaepParams::new(
            MechanismType::SHA256,
            PkcsMgfType::MGF1_SHA256,
            PkcsOaepSource::data_specified(b"label"),
        ));
        assert_eq!(
            rv(session.decrypt(&labelled, private, &pkcs1)),
            cryptoki::error::RvError::MechanismParamInvalid
        );
        assert_eq!(
            rv(session.decrypt(&Mechanism::RsaPkcs, public, &pkcs1)),
            cryptoki::error::RvError::KeyFunctionNotPermitted
        );
    });
}

#[test]
fn ecdh_with_a_token_key_agrees_with_openssl_and_the_secret_stays_sensitive_unless_asked() {
    let store = Store::new();
    with_module(&store, |module| {
        let session = session(module);
        login(&session);
        let (public, private) = session
            .generate_key_pair(
                &Mechanism::EccKeyPairGen,
                &[
                    Attribute::EcParams(vec![
                        0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
                    ]),
                    Attribute::Derive(true),
                    Attribute::Label(b"ecdh".to_vec()),
                ],
                &[Attribute::Derive(true), Attribute::Label(b"ecdh".to_vec())],
            )
            .expect("keygen");
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("group");
        let peer: EcKey<Private> = EcKey::generate(&group).expect("peer");
        let mut ctx = openssl::bn::BigNumContext::new().expect("ctx");
        let peer_point = peer
            .public_key()
            .to_bytes(
                &group,
                openssl::ec::PointConversionForm::UNCOMPRESSED,
                &mut ctx,
            )
            .expect("point");
        let ours = match &session
            .get_attributes(public, &[AttributeType::EcPoint])
            .expect("point")[..]
        {
            [Attribute::EcPoint(p)] => p[2..].to_vec(),
            other => panic!("{other:?}"),
        };
        let ours = openssl::ec::EcPoint::from_bytes(&group, &ours, &mut ctx).expect("ours");
        let ours =
            PKey::from_ec_key(EcKey::from_public_key(&group, &ours).expect("key")).expect("pkey");
        let peer_key = PKey::from_ec_key(peer).expect("pkey");
        let mut deriver = openssl::derive::Deriver::new(&peer_key).expect("deriver");
        deriver.set_peer(&ours).expect("peer");
        let expected = deriver.derive_to_vec().expect("derive");

        let derive = |template: &[Attribute]| {
            session.derive_key(
                &Mechanism::Ecdh1Derive(Ecdh1DeriveParams::new(EcKdf::null(), &peer_point)),
                private,
                template,
            )
        };
        let readable = derive(&[
            Attribute::Class(ObjectClass::SECRET_KEY),
            Attribute::KeyType(KeyType::GENERIC_SECRET),
            Attribute::Token(false),
            Attribute::Sensitive(false),
            Attribute::Extractable(true),
        ])
        .expect("derive");
        assert_eq!(
            session
                .get_attributes(readable, &[AttributeType::Value])
                .expect("value"),
            vec![Attribute::Value(expected)]
        );
        let hidden = derive(&[]).expect("derive");
        assert!(matches!(
            session
                .get_attribute_info(hidden, &[AttributeType::Value])
                .expect("info")[0],
            AttributeInfo::Sensitive
        ));
        session.destroy_object(hidden).expect("destroy");
        assert!(session
            .get_attributes(hidden, &[AttributeType::Class])
            .is_err());
        assert_eq!(
            rv(derive(&[Attribute::Token(true)])),
            cryptoki::error::RvError::TemplateInconsistent
        );
        let mut off_curve = peer_point.clone();
        off_curve[40] ^= 1;
        assert_eq!(
            rv(session.derive_key(
                &Mechanism::Ecdh1Derive(Ecdh1DeriveParams::new(EcKdf::null(), &off_curve)),
                private,
                &[]
            )),
            cryptoki::error::RvError::MechanismParamInvalid
        );
    });
}

/// A self-signed certificate for `key`, as `openssl req -x509` makes one.
fn certificate(key: &PKey<Private>, cn: &str) -> openssl::x509::X509 {
    let mut name = X509NameBuilder::new().expect("name");
    name.append_entry_by_text("CN", cn).expect("cn");
    let name = name.build();
    let mut builder = X509Builder::new().expect("builder");
    builder.set_version(2).expect("version");
    let serial = BigNum::from_u32(0x8badf00d)
        .expect("serial")
        .to_asn1_integer()
        .expect("asn1");
    builder.set_serial_number(&serial).expect("serial");
    builder.set_subject_name(&name).expect("subject");
    builder.set_issuer_name(&name).expect("issuer");
    builder.set_pubkey(key).expect("pubkey");
    builder
        .set_not_before(&openssl::asn1::Asn1Time::days_from_now(0).expect("time"))
        .expect("nb");
    builder
        .set_not_after(&openssl::asn1::Asn1Time::days_from_now(30).expect("time"))
        .expect("na");
    builder.sign(key, MessageDigest::sha256()).expect("sign");
    builder.build()
}

#[test]
fn a_certificate_is_a_public_object_found_before_login_and_destroyed_after() {
    let store = Store::new();
    let key = PKey::from_ec_key(
        EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("group"))
            .expect("key"),
    )
    .expect("pkey");
    let cert = certificate(&key, "vpn-server");
    let der = cert.to_der().expect("der");
    let subject = cert.subject_name().to_der().expect("subject");
    let template = vec![
        Attribute::Token(true),
        Attribute::Class(ObjectClass::CERTIFICATE),
        Attribute::CertificateType(cryptoki::object::CertificateType::X_509),
        Attribute::Private(false),
        Attribute::Label(b"vpn cert".to_vec()),
        Attribute::Id(vec![0xab, 0xcd]),
        Attribute::Value(der.clone()),
        Attribute::Subject(subject.clone()),
    ];
    with_module(&store, |module| {
        let session = session(module);
        assert_eq!(
            rv(session.create_object(&template)),
            cryptoki::error::RvError::UserNotLoggedIn
        );
        login(&session);
        let mut lying = template.clone();
        lying.push(Attribute::Subject(b"not the subject".to_vec()));
        assert_eq!(
            rv(session.create_object(&lying)),
            cryptoki::error::RvError::TemplateInconsistent
        );
        let mut junk = template.clone();
        junk[6] = Attribute::Value(b"not DER".to_vec());
        assert_eq!(
            rv(session.create_object(&junk)),
            cryptoki::error::RvError::AttributeValueInvalid
        );
        session.create_object(&template).expect("C_CreateObject");
        session.logout().expect("logout");
    });
    // A fresh module, nobody logged in: the certificate is there.
    with_module(&store, |module| {
        let session = session(module);
        let found = session
            .find_objects(&[Attribute::Class(ObjectClass::CERTIFICATE)])
            .expect("find");
        assert_eq!(found.len(), 1);
        let attributes = session
            .get_attributes(
                found[0],
                &[
                    AttributeType::Value,
                    AttributeType::Subject,
                    AttributeType::Id,
                    AttributeType::Label,
                    AttributeType::Private,
                    AttributeType::SerialNumber,
                ],
            )
            .expect("attributes");
        assert_eq!(
            attributes[..5],
            [
                Attribute::Value(der.clone()),
                Attribute::Subject(subject.clone()),
                Attribute::Id(vec![0xab, 0xcd]),
                Attribute::Label(b"vpn cert".to_vec()),
                Attribute::Private(false),
            ]
        );
        assert_eq!(
            attributes[5],
            Attribute::SerialNumber(vec![0x02, 0x05, 0x00, 0x8b, 0xad, 0xf0, 0x0d])
        );
        // No key object shows before login.
        assert!(session
            .find_objects(&[Attribute::Class(ObjectClass::PRIVATE_KEY)])
            .expect("find")
            .is_empty());
        assert_eq!(
            rv(session.destroy_object(found[0])),
            cryptoki::error::RvError::UserNotLoggedIn
        );
        session
            .login(UserType::User, Some(&AuthPin::from(PIN)))
            .expect("login");
        session.destroy_object(found[0]).expect("destroy");
        assert!(session
            .find_objects(&[Attribute::Class(ObjectClass::CERTIFICATE)])
            .expect("find")
            .is_empty());
    });
}

#[test]
fn a_stored_public_key_verifies_without_login_and_destroying_a_key_empties_the_store() {
    let store = Store::new();
    let key = PKey::from_ec_key(
        EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).expect("group"))
            .expect("key"),
    )
    .expect("pkey");
    let ec = key.ec_key().expect("ec");
    let mut ctx = openssl::bn::BigNumContext::new().expect("ctx");
    let point = ec
        .public_key()
        .to_bytes(
            ec.group(),
            openssl::ec::PointConversionForm::UNCOMPRESSED,
            &mut ctx,
        )
        .expect("point");
    let mut ec_point = vec![0x04, point.len() as u8];
    ec_point.extend(&point);
    with_module(&store, |module| {
        let session = session(module);
        login(&session);
        let peer = session
            .create_object(&[
                Attribute::Token(true),
                Attribute::Class(ObjectClass::PUBLIC_KEY),
                Attribute::KeyType(KeyType::EC),
                Attribute::EcParams(vec![
                    0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
                ]),
                Attribute::EcPoint(ec_point.clone()),
                Attribute::Label(b"peer".to_vec()),
                Attribute::Verify(true),
            ])
            .expect("C_CreateObject");
        let (_, private) = generate_rsa(&session, "gone", b"gone-id", 2048).expect("keygen");
        session.destroy_object(private).expect("destroy key");
        assert!(store.labels().is_empty());
        assert!(session
            .find_objects(&[Attribute::Id(b"gone-id".to_vec())])
            .expect("find")
            .is_empty());
        session.logout().expect("logout");

        let digest = openssl::sha::sha256(b"CAM");
        let sig = openssl::ecdsa::EcdsaSig::sign(&digest, &ec).expect("sign");
        let mut raw = sig.r().to_vec_padded(32).expect("r");
        raw.extend(sig.s().to_vec_padded(32).expect("s"));
        session
            .verify(&Mechanism::Ecdsa, peer, &digest, &raw)
            .expect("verifies before login");
        raw[0] ^= 1;
        assert_eq!(
            rv(session.verify(&Mechanism::Ecdsa, peer, &digest, &raw)),
            cryptoki::error::RvError::SignatureInvalid
        );
    });
}

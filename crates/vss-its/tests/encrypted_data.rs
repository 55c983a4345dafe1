//! Encrypted data: ECIES to certificates and keys, pre-shared keys, the soft HSM's ECDH, a
//! published certificate with its encryption key, and one failure per thing that can be
//! changed.

mod common;

use std::path::Path;

use rasn::types::{FixedOctetString, OctetString};
use vss_crypto::{AesCcm, Curve, PrivateKey};
use vss_hsm::{GenerateKeyRequest, Hsm, SoftHsm};
use vss_its::asn::{
    Duration, EncryptedDataEncryptionKey, Ieee1609Dot2Content, Ieee1609Dot2Data,
    One28BitCcmCiphertext, PreSharedKeyRecipientInfo, RecipientInfo, SequenceOfRecipientInfo,
    SymmetricCiphertext,
};
use vss_its::{
    decode_data, decrypt_data, encode_data, encrypt_data, sign_data, unsecured, Cert,
    DataEncryptionKey, DecryptionError, Decryptor, Error, HsmKey, Profile, Psid, Recipient,
    SignedDataRequest, SignedMessage, MAX_RECIPIENTS,
};

use common::{issue, request, Issued, Pki};

/// An AT of `pki` whose encryption key (on `curve`) is returned beside it.
fn recipient(pki: &Pki, curve: Curve) -> (Issued, PrivateKey) {
    let decryption = PrivateKey::generate(curve).expect("key");
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let mut r = request(Profile::At, &key, Duration::Hours(24));
    r.app_permissions = vec![vss_its::Permission::psid(Psid::CAM)];
    r.encryption_key = Some(decryption.public_key().clone());
    (issue(&r, Some(&pki.aa), key), decryption)
}

fn signed(pki: &Pki) -> Ieee1609Dot2Data {
    sign_data(
        &SignedDataRequest::new(Psid::CAM, b"a signed CAM"),
        Some(&pki.at.cert),
        &pki.at.key,
    )
    .expect("sign")
}

/// `inner` encrypted to `cert` under a fresh key.
fn sealed_for(cert: &Cert, inner: &Ieee1609Dot2Data) -> Ieee1609Dot2Data {
    encrypt_data(
        inner,
        &[Recipient::Certificate(cert)],
        &DataEncryptionKey::generate().expect("key"),
    )
    .expect("encrypt")
}

fn content(data: &Ieee1609Dot2Data) -> &vss_its::asn::EncryptedData {
    match &data.content {
        Ieee1609Dot2Content::EncryptedData(e) => e,
        _ => panic!("not encrypted data"),
    }
}

fn content_mut(data: &mut Ieee1609Dot2Data) -> &mut vss_its::asn::EncryptedData {
    match &mut data.content {
        Ieee1609Dot2Content::EncryptedData(e) => e,
        _ => panic!("not encrypted data"),
    }
}

fn decryption_error(result: vss_its::Result<vss_its::Decrypted>) -> DecryptionError {
    match result {
        Err(Error::Decryption(reason)) => reason,
        Err(other) => panic!("expected a decryption error, got {other}"),
        Ok(_) => panic!("decrypted what it must not"),
    }
}

#[test]
fn signed_data_round_trips_to_a_certificate_on_both_ecies_curves() {
    let pki = Pki::new(Curve::P256, None);
    for curve in [Curve::P256, Curve::Bp256] {
        let (cert, private) = recipient(&pki, curve);
        let inner = signed(&pki);
        let key = DataEncryptionKey::generate().expect("key");
        let data =
            encrypt_data(&inner, &[Recipient::Certificate(&cert.cert)], &key).expect("encrypt");
        let bytes = encode_data(&data).expect("encode");
        let decoded = decode_data(&bytes).expect("decode");
        assert_eq!(decoded, data, "{curve}: parse back equal");
        assert_eq!(encode_data(&decoded).expect("encode"), bytes);
        let info = &content(&decoded).recipients.0[0];
        let RecipientInfo::CertRecipInfo(pk) = info else {
            panic!("{curve}: expected certRecipInfo, got {info:?}");
        };
        assert_eq!(pk.recipient_id, cert.cert.hashed_id8().to_asn());
        assert_eq!(
            matches!(
                pk.enc_key,
                EncryptedDataEncryptionKey::EciesBrainpoolP256r1(_)
            ),
            curve == Curve::Bp256
        );
        let opened =
            decrypt_data(&decoded, Decryptor::Certificate(&cert.cert, &private)).expect("open");
        assert_eq!(opened.data, inner);
        assert_eq!(opened.bytes, encode_data(&inner).expect("encode"));
        assert_eq!(opened.key.as_bytes(), key.as_bytes());
        let message = SignedMessage::from_asn(opened.data).expect("signed");
        assert_eq!(message.payload(), Some(&b"a signed CAM"[..]));
    }
}

#[test]
fn every_kind_of_recipient_opens_the_same_message() {
    let pki = Pki::new(Curve::P256, None);
    let (first, first_key) = recipient(&pki, Curve::P256);
    let (second, second_key) = recipient(&pki, Curve::Bp256);
    let bare = PrivateKey::generate(Curve::P256).expect("key");
    let key = DataEncryptionKey::generate().expect("key");
    let inner = unsecured(b"for four readers");
    let data = encrypt_data(
        &inner,
        &[
            Recipient::Certificate(&first.cert),
            Recipient::Certificate(&second.cert),
            Recipient::PublicKey(bare.public_key()),
            Recipient::PreSharedKey,
        ],
        &key,
    )
    .expect("encrypt");
    let infos = &content(&data).recipients.0;
    assert!(matches!(infos[2], RecipientInfo::RekRecipInfo(_)));
    assert_eq!(
        infos[3],
        RecipientInfo::PskRecipInfo(PreSharedKeyRecipientInfo(key.hashed_id8().to_asn()))
    );
    for decryptor in [
        Decryptor::Certificate(&first.cert, &first_key),
        Decryptor::Certificate(&second.cert, &second_key),
        Decryptor::PublicKey(bare.public_key(), &bare),
        Decryptor::PreSharedKey(&key),
    ] {
        let opened = decrypt_data(&data, decryptor).expect("open");
        assert_eq!(opened.data, inner);
        assert_eq!(opened.key.as_bytes(), key.as_bytes());
    }
}

#[test]
fn the_key_stays_inside_the_soft_hsm() {
    let dir = tempfile::tempdir().expect("tempdir");
    SoftHsm::init(dir.path(), "1234", "87654321").expect("init");
    let hsm = SoftHsm::open(dir.path(), "1234").expect("open");
    let info = hsm
        .generate_key(&GenerateKeyRequest::new("enc", Curve::Bp256))
        .expect("generate");
    let public = hsm.public_key(&info.handle).expect("public");
    let pki = Pki::new(Curve::P256, None);
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let mut r = request(Profile::At, &key, Duration::Hours(24));
    r.app_permissions = vec![vss_its::Permission::psid(Psid::CAM)];
    r.encryption_key = Some(public);
    let cert = issue(&r, Some(&pki.aa), key).cert;
    let data = encrypt_data(
        &unsecured(b"frame"),
        &[Recipient::Certificate(&cert)],
        &DataEncryptionKey::generate().expect("key"),
    )
    .expect("encrypt");
    let hsm_key = HsmKey::new(&hsm, "enc").expect("key");
    let opened = decrypt_data(&data, Decryptor::Certificate(&cert, &hsm_key)).expect("open");
    assert_eq!(opened.data, unsecured(b"frame"));
}

#[test]
fn a_published_ticket_and_its_encryption_key_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/its/etsi-ats");
    let cert = Cert::from_bytes(&std::fs::read(dir.join("CERT_IUT_A_AT.oer")).expect("read"))
        .expect("cert");
    let scalar = std::fs::read(dir.join("CERT_IUT_A_AT.ekey")).expect("read");
    let curve = vss_its::encryption_key(cert.tbs().encryption_key.as_ref().expect("enc key"))
        .expect("key")
        .curve();
    let private = PrivateKey::from_scalar(curve, &scalar).expect("scalar");
    let data = encrypt_data(
        &unsecured(b"to the ETSI test ticket"),
        &[Recipient::Certificate(&cert)],
        &DataEncryptionKey::generate().expect("key"),
    )
    .expect("encrypt");
    let opened = decrypt_data(&data, Decryptor::Certificate(&cert, &private)).expect("open");
    assert_eq!(opened.data, unsecured(b"to the ETSI test ticket"));
}

#[test]
fn a_reader_the_message_does_not_name_cannot_decrypt() {
    let pki = Pki::new(Curve::P256, None);
    let (cert, _) = recipient(&pki, Curve::P256);
    let (other, other_key) = recipient(&pki, Curve::P256);
    let data = sealed_for(&cert.cert, &unsecured(b"x"));
    let reason = decryption_error(decrypt_data(
        &data,
        Decryptor::Certificate(&other.cert, &other_key),
    ));
    assert_eq!(
        reason,
        DecryptionError::NotARecipient(other.cert.hashed_id8())
    );
    let stranger = DataEncryptionKey::generate().expect("key");
    assert!(matches!(
        decryption_error(decrypt_data(&data, Decryptor::PreSharedKey(&stranger))),
        DecryptionError::NotARecipient(_)
    ));
}

#[test]
fn the_wrong_private_key_fails_the_ecies_tag() {
    let pki = Pki::new(Curve::P256, None);
    let (cert, _) = recipient(&pki, Curve::P256);
    let data = sealed_for(&cert.cert, &unsecured(b"x"));
    let wrong = PrivateKey::generate(Curve::P256).expect("key");
    let reason = decryption_error(decrypt_data(
        &data,
        Decryptor::Certificate(&cert.cert, &wrong),
    ));
    assert_eq!(reason, DecryptionError::KeyTag);
}

#[test]
fn p1_binds_the_key_to_the_certificate() {
    // Two certificates with the same encryption key: data encrypted to the first and
    // relabelled for the second must fail, because P1 is the first certificate's hash.
    let pki = Pki::new(Curve::P256, None);
    let (first, private) = recipient(&pki, Curve::P256);
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let mut r = request(Profile::At, &key, Duration::Hours(24));
    r.app_permissions = vec![vss_its::Permission::psid(Psid::DENM)];
    r.encryption_key = Some(private.public_key().clone());
    let second = issue(&r, Some(&pki.aa), key).cert;
    let mut data = encrypt_data(
        &unsecured(b"x"),
        &[Recipient::Certificate(&first.cert)],
        &DataEncryptionKey::generate().expect("key"),
    )
    .expect("encrypt");
    let RecipientInfo::CertRecipInfo(pk) = &mut content_mut(&mut data).recipients.0[0] else {
        panic!("certRecipInfo");
    };
    pk.recipient_id = second.hashed_id8().to_asn();
    let reason = decryption_error(decrypt_data(
        &data,
        Decryptor::Certificate(&second, &private),
    ));
    assert_eq!(reason, DecryptionError::KeyTag);
}

#[test]
fn a_changed_byte_anywhere_in_the_ciphertext_or_key_is_refused() {
    let pki = Pki::new(Curve::P256, None);
    let (cert, private) = recipient(&pki, Curve::P256);
    let data = sealed_for(&cert.cert, &signed(&pki));
    let decryptor = Decryptor::Certificate(&cert.cert, &private);

    let mut changed = data.clone();
    let SymmetricCiphertext::Aes128ccm(ccm) = &mut content_mut(&mut changed).ciphertext else {
        panic!("aes128ccm");
    };
    let mut bytes = ccm.ccm_ciphertext.0.to_vec();
    bytes[3] ^= 0x01;
    ccm.ccm_ciphertext = OctetString::from(bytes).into();
    let reason = decryption_error(decrypt_data(&changed, decryptor));
    assert_eq!(reason, DecryptionError::CiphertextTag);

    let mut changed = data.clone();
    let SymmetricCiphertext::Aes128ccm(ccm) = &mut content_mut(&mut changed).ciphertext else {
        panic!("aes128ccm");
    };
    let mut nonce = *ccm.nonce;
    nonce[0] ^= 0x80;
    ccm.nonce = FixedOctetString::new(nonce);
    assert_eq!(
        decryption_error(decrypt_data(&changed, decryptor)),
        DecryptionError::CiphertextTag
    );

    for field in ["c", "t"] {
        let mut changed = data.clone();
        let RecipientInfo::CertRecipInfo(pk) = &mut content_mut(&mut changed).recipients.0[0]
        else {
            panic!("certRecipInfo");
        };
        let EncryptedDataEncryptionKey::EciesNistP256(k) = &mut pk.enc_key else {
            panic!("p256");
        };
        let target = if field == "c" { &mut k.c } else { &mut k.t };
        let mut value = **target;
        value[15] ^= 0x01;
        *target = FixedOctetString::new(value);
        let reason = decryption_error(decrypt_data(&changed, decryptor));
        assert_eq!(reason, DecryptionError::KeyTag, "{field}");
    }
}

#[test]
fn truncated_and_wrong_content_are_malformed() {
    let pki = Pki::new(Curve::P256, None);
    let (cert, private) = recipient(&pki, Curve::P256);
    let data = sealed_for(&cert.cert, &unsecured(b"x"));
    let bytes = encode_data(&data).expect("encode");
    for len in [1, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(decode_data(&bytes[..len]), Err(Error::Malformed { .. })),
            "truncated to {len}"
        );
    }
    assert!(matches!(
        decrypt_data(&signed(&pki), Decryptor::Certificate(&cert.cert, &private)),
        Err(Error::Malformed { .. })
    ));
}

#[test]
fn a_plaintext_that_is_not_1609_data_is_malformed() {
    // Built by hand: the AES-CCM plaintext must be a COER Ieee1609Dot2Data.
    let key = DataEncryptionKey::generate().expect("key");
    let nonce = [7u8; 12];
    let ciphertext = AesCcm::new(key.as_bytes())
        .expect("ccm")
        .seal(&nonce, &[], b"\x03\x80\x05ab")
        .expect("seal");
    let data = Ieee1609Dot2Data {
        protocol_version: Ieee1609Dot2Data::VERSION,
        content: Ieee1609Dot2Content::EncryptedData(vss_its::asn::EncryptedData {
            recipients: SequenceOfRecipientInfo(vec![RecipientInfo::PskRecipInfo(
                PreSharedKeyRecipientInfo(key.hashed_id8().to_asn()),
            )]),
            ciphertext: SymmetricCiphertext::Aes128ccm(One28BitCcmCiphertext {
                nonce: FixedOctetString::new(nonce),
                ccm_ciphertext: OctetString::from(ciphertext).into(),
            }),
        }),
    };
    assert!(matches!(
        decrypt_data(&data, Decryptor::PreSharedKey(&key)),
        Err(Error::Malformed { .. })
    ));
}

#[test]
fn refused_requests() {
    let pki = Pki::new(Curve::P256, None);
    let key = DataEncryptionKey::generate().expect("key");
    let inner = unsecured(b"x");
    // The AT of the test PKI has no encryption key.
    assert!(matches!(
        encrypt_data(&inner, &[Recipient::Certificate(&pki.at.cert)], &key),
        Err(Error::InvalidRequest(_))
    ));
    assert!(matches!(
        encrypt_data(&inner, &[], &key),
        Err(Error::InvalidRequest(_))
    ));
    let many = vec![Recipient::PreSharedKey; MAX_RECIPIENTS + 1];
    assert!(matches!(
        encrypt_data(&inner, &many, &key),
        Err(Error::InvalidRequest(_))
    ));
    let p384 = PrivateKey::generate(Curve::P384).expect("key");
    assert!(encrypt_data(&inner, &[Recipient::PublicKey(p384.public_key())], &key).is_err());
}

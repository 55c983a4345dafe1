//! The HSM conformance suite: written once, run against every backend.

use std::sync::Arc;

use vss_crypto::{
    Curve, HashAlg, KeyAlgorithm, PrivateKey, RsaBits, RsaEncryptionPadding, RsaSignatureScheme,
};
use vss_hsm::{Error, GenerateKeyRequest, Hsm, ImportKeyRequest, KeyHandle};

/// Sign/verify round trips on every curve, checked with the software verifier.
pub fn sign_verify_round_trips(hsm: &dyn Hsm) {
    for curve in Curve::ECDSA {
        let label = format!("rt-{curve}");
        let key = hsm
            .generate_key(&GenerateKeyRequest::new(&label, curve))
            .expect("generate");
        assert_eq!(key.algorithm, curve.into());
        let public = hsm.public_key(&key.handle).expect("public key");
        assert_eq!(public.curve(), curve);
        let verifier = public.verifying_key().expect("verifier");
        for len in [0usize, 1, 100] {
            let msg = vec![0xa5; len];
            let digest = curve.default_hash().digest(&msg);
            let sig = hsm.sign_digest(&key.handle, &digest).expect("sign");
            assert!(verifier.verify_digest(&digest, &sig), "{curve} len {len}");
            let other = curve.default_hash().digest(b"other");
            assert!(
                !verifier.verify_digest(&other, &sig),
                "{curve} wrong digest"
            );
        }
    }
}

/// An RSA-2048 key: listed with its size, signs with PKCS #1 v1.5 and PSS what its public key
/// verifies, decrypts with each of `paddings` (those the backend has), refuses tampering, and
/// refuses EC operations.
pub fn rsa_sign_decrypt(hsm: &dyn Hsm, paddings: &[RsaEncryptionPadding]) {
    let key = hsm
        .generate_key(&GenerateKeyRequest::new("rsa", RsaBits::B2048))
        .expect("generate");
    assert_eq!(key.algorithm, KeyAlgorithm::Rsa(RsaBits::B2048));
    assert_eq!(hsm.key("rsa").expect("find").algorithm, key.algorithm);
    let public = hsm.rsa_public_key(&key.handle).expect("public");
    assert_eq!(public.modulus_len(), 256);
    for hash in [HashAlg::Sha256, HashAlg::Sha384, HashAlg::Sha512] {
        let digest = hash.digest(b"handshake");
        for scheme in [
            RsaSignatureScheme::Pkcs1(hash),
            RsaSignatureScheme::Pss(hash),
        ] {
            let signature = hsm
                .rsa_sign_digest(&key.handle, scheme, &digest)
                .expect("sign");
            assert!(
                public.verify_digest(scheme, &digest, &signature),
                "{scheme:?}"
            );
            let other = hash.digest(b"other");
            assert!(!public.verify_digest(scheme, &other, &signature));
        }
    }
    assert!(hsm
        .rsa_sign_digest(
            &key.handle,
            RsaSignatureScheme::Pss(HashAlg::Sha256),
            &[0; 31]
        )
        .is_err());
    for &padding in paddings {
        let mut ciphertext = public.encrypt(padding, b"premaster").expect("encrypt");
        assert_eq!(
            &hsm.rsa_decrypt(&key.handle, padding, &ciphertext)
                .expect("decrypt")[..],
            b"premaster"
        );
        ciphertext[0] ^= 0x40;
        assert!(
            matches!(
                hsm.rsa_decrypt(&key.handle, padding, &ciphertext),
                Err(Error::Crypto(vss_crypto::Error::KemRejected(_)))
            ),
            "{padding:?}"
        );
    }
    assert!(matches!(
        hsm.sign_digest(&key.handle, &[0; 32]),
        Err(Error::WrongKeyType { .. })
    ));
    assert!(matches!(
        hsm.public_key(&key.handle),
        Err(Error::WrongKeyType { .. })
    ));
    let ec = hsm
        .generate_key(&GenerateKeyRequest::new("not-rsa", Curve::P256))
        .expect("ec");
    assert!(matches!(
        hsm.rsa_public_key(&ec.handle),
        Err(Error::WrongKeyType { .. })
    ));
    hsm.delete_key(&key.handle).expect("delete");
    hsm.delete_key(&ec.handle).expect("delete");
}

/// Keys are listed, found by label, refused twice, and deleted.
pub fn list_find_duplicate_delete(hsm: &dyn Hsm) {
    let a = hsm
        .generate_key(&GenerateKeyRequest::new("list-a", Curve::P256))
        .expect("a");
    hsm.generate_key(&GenerateKeyRequest::new("list-b", Curve::Bp384))
        .expect("b");
    let labels: Vec<_> = hsm
        .keys()
        .expect("keys")
        .into_iter()
        .map(|k| k.label)
        .collect();
    assert!(labels.contains(&"list-a".to_owned()) && labels.contains(&"list-b".to_owned()));
    assert_eq!(
        hsm.key("list-b").expect("find").algorithm,
        Curve::Bp384.into()
    );
    assert!(matches!(
        hsm.generate_key(&GenerateKeyRequest::new("list-a", Curve::P384)),
        Err(Error::KeyExists(l)) if l == "list-a"
    ));
    hsm.delete_key(&a.handle).expect("delete");
    assert!(matches!(hsm.key("list-a"), Err(Error::KeyNotFound(_))));
    assert!(matches!(
        hsm.sign_digest(&a.handle, &[0u8; 32]),
        Err(Error::KeyNotFound(_))
    ));
    assert!(matches!(
        hsm.delete_key(&a.handle),
        Err(Error::KeyNotFound(_))
    ));
}

/// Missing keys and bad labels give typed errors.
pub fn missing_key_and_bad_label(hsm: &dyn Hsm) {
    assert!(matches!(hsm.key("nope"), Err(Error::KeyNotFound(l)) if l == "nope"));
    let missing = KeyHandle::new("nope");
    assert!(matches!(
        hsm.public_key(&missing),
        Err(Error::KeyNotFound(_))
    ));
    assert!(matches!(
        hsm.generate_key(&GenerateKeyRequest::new("../escape", Curve::P256)),
        Err(Error::InvalidLabel(_))
    ));
}

/// An imported key signs as the original would verify, and ECDH agrees with software.
pub fn import_and_ecdh(hsm: &dyn Hsm) {
    for curve in Curve::ECDSA {
        let original = PrivateKey::generate(curve).expect("key");
        let label = format!("imp-{curve}");
        let info = hsm
            .import_key(&ImportKeyRequest {
                label,
                private_key: &original,
            })
            .expect("import");
        assert_eq!(
            &hsm.public_key(&info.handle).expect("pub"),
            original.public_key()
        );
        let peer = PrivateKey::generate(curve).expect("peer");
        let ours = hsm.ecdh(&info.handle, peer.public_key()).expect("ecdh");
        let theirs = peer.diffie_hellman(original.public_key()).expect("ecdh");
        assert_eq!(ours, theirs, "{curve}");
        let digest = HashAlg::Sha256.digest(b"imported");
        let sig = hsm.sign_digest(&info.handle, &digest).expect("sign");
        let verifier = original.public_key().verifying_key().expect("verifier");
        assert!(verifier.verify_digest(&digest, &sig));
    }
}

/// Keys on the key-encapsulation curves (binary k283 and b283, and p192) are generated and
/// imported; their ECDH agrees with software both ways, and signing is refused.
pub fn kem_curve_keys_do_ecdh(hsm: &dyn Hsm) {
    for curve in [Curve::K283, Curve::B283, Curve::P192] {
        let generated = hsm
            .generate_key(&GenerateKeyRequest::new(format!("kem-gen-{curve}"), curve))
            .expect("generate");
        assert_eq!(generated.algorithm, curve.into());
        let public = hsm.public_key(&generated.handle).expect("pub");
        let peer = PrivateKey::generate(curve).expect("peer");
        assert_eq!(
            hsm.ecdh(&generated.handle, peer.public_key())
                .expect("ecdh"),
            peer.diffie_hellman(&public).expect("ecdh"),
            "{curve} generated"
        );
        let original = PrivateKey::generate(curve).expect("key");
        let imported = hsm
            .import_key(&ImportKeyRequest {
                label: format!("kem-imp-{curve}"),
                private_key: &original,
            })
            .expect("import");
        assert_eq!(
            hsm.ecdh(&imported.handle, peer.public_key()).expect("ecdh"),
            peer.diffie_hellman(original.public_key()).expect("ecdh"),
            "{curve} imported"
        );
        let digest = HashAlg::Sha256.digest(b"no signatures on KEM curves");
        assert!(
            hsm.sign_digest(&generated.handle, &digest).is_err(),
            "{curve}"
        );
    }
}

/// Several threads sign with one key at once; every signature verifies.
pub fn concurrent_signing(hsm: Arc<dyn Hsm>) {
    let key = hsm
        .generate_key(&GenerateKeyRequest::new("concurrent", Curve::P256))
        .expect("generate");
    let verifier = hsm
        .public_key(&key.handle)
        .expect("pub")
        .verifying_key()
        .expect("verifier");
    let verifier = Arc::new(verifier);
    let threads: Vec<_> = (0..4u8)
        .map(|t| {
            let hsm = Arc::clone(&hsm);
            let handle = key.handle.clone();
            let verifier = Arc::clone(&verifier);
            std::thread::spawn(move || {
                for i in 0..50u8 {
                    let digest = HashAlg::Sha256.digest(&[t, i]);
                    let sig = hsm.sign_digest(&handle, &digest).expect("sign");
                    assert!(verifier.verify_digest(&digest, &sig));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
}

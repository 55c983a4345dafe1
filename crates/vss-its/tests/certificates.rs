//! Certificates of every profile: built, parsed back equal, re-encoded to the same bytes,
//! and validated up to the root.

mod common;

use common::{issue, now, request, start, Pki};
use vss_crypto::{Curve, HashAlg, PrivateKey};
use vss_its::asn::{Duration, IssuerIdentifier};
use vss_its::{Cert, Issuer, Profile, Psid, TrustAnchors, Validator, Verdict};

#[test]
fn every_profile_round_trips_and_validates_on_every_curve() {
    for curve in [Curve::P256, Curve::Bp256, Curve::P384, Curve::Bp384] {
        let pki = Pki::new(curve, None);
        let mut validator = Validator::new(pki.trust(), 16);
        for issued in [&pki.root, &pki.ea, &pki.aa, &pki.at, &pki.ec] {
            let again = Cert::from_bytes(issued.cert.bytes()).expect("decode");
            assert_eq!(&again, &issued.cert, "{curve}");
            assert_eq!(again.bytes(), issued.cert.bytes());
            let chain = [pki.ea.cert.clone(), pki.aa.cert.clone()];
            let report = validator.verify_certificate(&again, &chain, now());
            assert_eq!(report.verdict, Verdict::Valid, "{curve}: {}", report.reason);
        }
    }
}

#[test]
fn issuer_identifier_and_hashed_id8_follow_the_issuers_hash() {
    let pki = Pki::new(Curve::P384, None);
    assert_eq!(pki.root.cert.issuer(), Issuer::SelfSigned(HashAlg::Sha384));
    let IssuerIdentifier::Sha384AndDigest(id) = &pki.aa.cert.asn().issuer else {
        panic!("an AA under a p384 root names it with SHA-384");
    };
    assert_eq!(*id.0, pki.root.cert.hashed_id8().0);
    let digest = HashAlg::Sha384.digest(pki.root.cert.bytes());
    assert_eq!(pki.root.cert.hashed_id8().0, digest[40..]);
    // The AT (p256 key) is signed by the p384 AA: SHA-384 names the AA.
    assert!(matches!(
        pki.at.cert.issuer(),
        Issuer::Digest(HashAlg::Sha384, _)
    ));
}

#[test]
fn profiles_are_checked_before_signing() {
    let pki = Pki::new(Curve::P256, None);
    let key = PrivateKey::generate(Curve::P256).expect("test setup");
    let mut at = request(Profile::At, &key, Duration::Hours(1));
    at.app_permissions = vec![vss_its::Permission::psid(Psid::CAM)];
    at.name = Some("not a pseudonym".into());
    let err = vss_its::issue_certificate(&at, Some(&pki.aa.cert), &pki.aa.key)
        .expect_err("must be refused");
    assert!(err.to_string().contains("carries no name"), "{err}");

    let mut at = request(Profile::At, &key, Duration::Hours(1));
    at.app_permissions = vec![vss_its::Permission::psid(Psid::from(138))];
    let err = vss_its::issue_certificate(&at, Some(&pki.aa.cert), &pki.aa.key)
        .expect_err("must be refused");
    assert!(err.to_string().contains("PSID 138"), "{err}");

    let mut ea = request(Profile::Ea, &key, Duration::Years(20));
    ea.name = Some("ea".into());
    let err = vss_its::issue_certificate(&ea, Some(&pki.root.cert), &pki.root.key)
        .expect_err("must be refused");
    assert!(err.to_string().contains("validity period"), "{err}");

    let mut ea = request(Profile::Ea, &key, Duration::Years(1));
    ea.encryption_key = None;
    let err = vss_its::issue_certificate(&ea, Some(&pki.root.cert), &pki.root.key)
        .expect_err("must be refused");
    assert!(err.to_string().contains("encryption key"), "{err}");

    let wrong = PrivateKey::generate(Curve::P256).expect("test setup");
    let ea = request(Profile::Ea, &key, Duration::Years(1));
    let err =
        vss_its::issue_certificate(&ea, Some(&pki.root.cert), &wrong).expect_err("must be refused");
    assert!(err.to_string().contains("not the issuer"), "{err}");
}

#[test]
fn trust_anchors_must_verify_their_self_signature() {
    let pki = Pki::new(Curve::P256, None);
    let mut bytes = pki.root.cert.bytes().to_vec();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let tampered = Cert::from_bytes(&bytes).expect("test setup");
    let mut trust = TrustAnchors::new();
    let err = trust.add(tampered).expect_err("must be refused");
    assert!(err.to_string().contains("self-signature"), "{err}");
    assert!(trust.is_empty());
}

#[test]
fn a_root_is_signed_with_its_own_key() {
    let key = PrivateKey::generate(Curve::P256).expect("test setup");
    let other = PrivateKey::generate(Curve::P256).expect("test setup");
    let r = request(Profile::Root, &key, Duration::Years(1));
    assert!(vss_its::issue_certificate(&r, None, &other).is_err());
    let root = issue(&r, None, key);
    assert_eq!(root.cert.validity().start, start());
}

//! Signed data: a valid message, and one negative test per verdict, each made by changing
//! one thing in a valid message or its chain.

mod common;

use common::{claiming_sha384, forge, message, now, Pki};
use vss_crypto::Curve;
use vss_its::asn::{
    CircularRegion, Duration, GeographicRegion, Latitude, Longitude, ThreeDLocation, TwoDLocation,
    ValidityPeriod,
};
use vss_its::{
    encode_data, sign_data, Cert, ItsTime, Psid, SignedDataRequest, SignerKind, Validator, Verdict,
};

fn signed(pki: &Pki, request: &SignedDataRequest<'_>, at: &Cert) -> Vec<u8> {
    encode_data(&sign_data(request, Some(at), &pki.at.key).expect("sign")).expect("encode")
}

fn verdict(validator: &mut Validator, bytes: &[u8], chain: &[Cert]) -> (Verdict, String) {
    let report = validator.verify_data(bytes, chain, now());
    (report.verdict, report.reason)
}

fn location(lat: i32, lon: i32) -> ThreeDLocation {
    ThreeDLocation {
        latitude: Latitude(lat.into()),
        longitude: Longitude(lon.into()),
        elevation: vss_its::asn::Elevation(0),
    }
}

fn circle(lat: i32, lon: i32, radius: u16) -> GeographicRegion {
    GeographicRegion::CircularRegion(CircularRegion {
        center: TwoDLocation {
            latitude: Latitude(lat.into()),
            longitude: Longitude(lon.into()),
        },
        radius,
    })
}

#[test]
fn valid_with_certificate_then_digest_on_every_curve() {
    for curve in [Curve::P256, Curve::Bp256, Curve::P384, Curve::Bp384] {
        let pki = Pki::new(curve, None);
        let mut validator = Validator::new(pki.trust(), 8);
        let chain = [pki.aa.cert.clone()];
        let by_digest = signed(&pki, &message(Psid::CAM, SignerKind::Digest), &pki.at.cert);
        assert_eq!(
            verdict(&mut validator, &by_digest, &[]).0,
            Verdict::SignerNotFound
        );
        let by_cert = signed(
            &pki,
            &message(Psid::CAM, SignerKind::Certificate),
            &pki.at.cert,
        );
        let report = validator.verify_data(&by_cert, &chain, now());
        assert_eq!(report.verdict, Verdict::Valid, "{curve}: {}", report.reason);
        assert_eq!(report.signer, Some(pki.at.cert.hashed_id8()));
        assert_eq!(report.psid, Some(Psid::CAM));
        // Now the certificate is cached: the digest form validates.
        assert_eq!(
            verdict(&mut validator, &by_digest, &[]).0,
            Verdict::Valid,
            "{curve}"
        );
        let parsed = vss_its::SignedMessage::from_bytes(&by_digest).expect("parse");
        assert_eq!(parsed.payload(), Some(&b"a CAM payload"[..]));
        assert_eq!(encode_data(parsed.asn()).expect("encode"), by_digest);
    }
}

#[test]
fn false_signature_when_a_signature_byte_changes() {
    let pki = Pki::new(Curve::P256, None);
    let mut bytes = signed(
        &pki,
        &message(Psid::CAM, SignerKind::Certificate),
        &pki.at.cert,
    );
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    let mut validator = Validator::new(pki.trust(), 8);
    let (v, reason) = verdict(&mut validator, &bytes, std::slice::from_ref(&pki.aa.cert));
    assert_eq!(v, Verdict::FalseSignature, "{reason}");
}

#[test]
fn false_signature_when_the_payload_changes() {
    let pki = Pki::new(Curve::P256, None);
    let bytes = signed(
        &pki,
        &message(Psid::CAM, SignerKind::Certificate),
        &pki.at.cert,
    );
    let at = bytes.windows(3).position(|w| w == b"CAM").expect("payload");
    let mut tampered = bytes.clone();
    tampered[at] = b'D';
    let mut validator = Validator::new(pki.trust(), 8);
    assert_eq!(
        verdict(
            &mut validator,
            &tampered,
            std::slice::from_ref(&pki.aa.cert)
        )
        .0,
        Verdict::FalseSignature
    );
}

#[test]
fn insufficient_permissions_for_a_psid_the_ticket_lacks() {
    let pki = Pki::new(Curve::P256, None);
    let bytes = signed(
        &pki,
        &message(Psid::from(138), SignerKind::Certificate),
        &pki.at.cert,
    );
    let mut validator = Validator::new(pki.trust(), 8);
    let (v, reason) = verdict(&mut validator, &bytes, std::slice::from_ref(&pki.aa.cert));
    assert_eq!(v, Verdict::InsufficientPermissions);
    assert!(reason.contains("PSID 138"), "{reason}");
}

#[test]
fn insufficient_permissions_for_a_ticket_the_aa_may_not_issue() {
    let pki = Pki::new(Curve::P256, None);
    let at = forge(&pki.at.cert, &pki.aa, |tbs| {
        let perms = tbs.app_permissions.as_mut().expect("permissions");
        perms.0[0].psid = vss_its::asn::Psid(138.into());
    });
    let bytes = signed(&pki, &message(Psid::DENM, SignerKind::Certificate), &at);
    let mut validator = Validator::new(pki.trust(), 8);
    let (v, reason) = verdict(&mut validator, &bytes, std::slice::from_ref(&pki.aa.cert));
    assert_eq!(v, Verdict::InsufficientPermissions, "{reason}");
}

#[test]
fn untrusted_root_when_the_root_is_not_an_anchor() {
    let pki = Pki::new(Curve::P256, None);
    let other = Pki::new(Curve::P256, None);
    let bytes = signed(
        &pki,
        &message(Psid::CAM, SignerKind::Certificate),
        &pki.at.cert,
    );
    let mut validator = Validator::new(other.trust(), 8);
    let chain = [pki.aa.cert.clone(), pki.root.cert.clone()];
    let (v, reason) = verdict(&mut validator, &bytes, &chain);
    assert_eq!(v, Verdict::UntrustedRoot, "{reason}");
}

#[test]
fn signer_not_found_when_the_issuer_is_missing() {
    let pki = Pki::new(Curve::P256, None);
    let bytes = signed(
        &pki,
        &message(Psid::CAM, SignerKind::Certificate),
        &pki.at.cert,
    );
    let mut validator = Validator::new(pki.trust(), 8);
    let (v, reason) = verdict(&mut validator, &bytes, &[]);
    assert_eq!(v, Verdict::SignerNotFound);
    assert!(
        reason.contains(&pki.aa.cert.hashed_id8().to_string()),
        "{reason}"
    );
}

#[test]
fn invalid_chain_when_a_ca_certificate_is_tampered_or_outlives_its_issuer() {
    let pki = Pki::new(Curve::P256, None);
    // An AA certificate that still names the root as issuer but is signed with another key,
    // so the root's signature on it does not verify.
    let impostor = common::Issued {
        cert: pki.root.cert.clone(),
        key: vss_crypto::PrivateKey::generate(Curve::P256).expect("key"),
    };
    let aa = forge(&pki.aa.cert, &impostor, |_| {});
    // The AT names the AA by HashedId8, which changed: re-issue the AT under the forged AA.
    let aa_key =
        vss_crypto::PrivateKey::from_scalar(Curve::P256, pki.aa.key.scalar()).expect("key");
    let aa_issued = common::Issued {
        cert: aa.clone(),
        key: aa_key,
    };
    let at = forge(&pki.at.cert, &aa_issued, |_| {});
    let at_bytes = signed(&pki, &message(Psid::CAM, SignerKind::Certificate), &at);
    let mut validator = Validator::new(pki.trust(), 8);
    let (v, reason) = verdict(
        &mut validator,
        &at_bytes,
        &[pki.aa.cert.clone(), aa.clone()],
    );
    assert_eq!(v, Verdict::InvalidChain, "{reason}");

    let long = forge(&pki.at.cert, &pki.aa, |tbs| {
        tbs.validity_period = ValidityPeriod {
            start: tbs.validity_period.start.clone(),
            duration: Duration::Years(40),
        };
    });
    let long_bytes = signed(&pki, &message(Psid::CAM, SignerKind::Certificate), &long);
    let (v, reason) = verdict(
        &mut validator,
        &long_bytes,
        std::slice::from_ref(&pki.aa.cert),
    );
    assert_eq!(v, Verdict::InvalidChain, "{reason}");
    assert!(reason.contains("not inside its issuer"), "{reason}");
}

#[test]
fn expired_and_not_yet_valid_by_the_clock_and_by_generation_time() {
    let pki = Pki::new(Curve::P256, None);
    let bytes = signed(
        &pki,
        &message(Psid::CAM, SignerKind::Certificate),
        &pki.at.cert,
    );
    let chain = [pki.aa.cert.clone()];
    let end = pki.at.cert.validity().end;
    let mut validator = Validator::new(pki.trust(), 8);
    assert_eq!(
        validator.verify_data(&bytes, &chain, end).verdict,
        Verdict::Expired
    );
    let before = ItsTime::from_time32(&vss_its::asn::Time32(1));
    assert_eq!(
        validator.verify_data(&bytes, &chain, before).verdict,
        Verdict::NotYetValid
    );

    let mut late = message(Psid::CAM, SignerKind::Certificate);
    late.generation_time = Some(end.plus_micros(1));
    let bytes = signed(&pki, &late, &pki.at.cert);
    assert_eq!(verdict(&mut validator, &bytes, &chain).0, Verdict::Expired);

    let mut future = message(Psid::CAM, SignerKind::Certificate);
    future.generation_time = Some(now().plus_micros(60_000_000));
    let bytes = signed(&pki, &future, &pki.at.cert);
    assert_eq!(
        verdict(&mut validator, &bytes, &chain).0,
        Verdict::NotYetValid
    );

    let mut stale = message(Psid::CAM, SignerKind::Certificate);
    stale.expiry_time = Some(now().plus_micros(1));
    let bytes = signed(&pki, &stale, &pki.at.cert);
    let later = now().plus_micros(2);
    assert_eq!(
        validator.verify_data(&bytes, &chain, later).verdict,
        Verdict::Expired
    );
}

#[test]
fn outside_region_for_a_location_or_a_certificate_beyond_the_issuer() {
    // Root valid within 100 km of Brussels.
    let pki = Pki::new(Curve::P256, Some(circle(508_503_000, 43_517_000, 50_000)));
    let chain = [pki.aa.cert.clone()];
    let mut validator = Validator::new(pki.trust(), 8);
    let mut inside = message(Psid::CAM, SignerKind::Certificate);
    inside.generation_location = Some(location(508_600_000, 43_600_000));
    let bytes = signed(&pki, &inside, &pki.at.cert);
    let report = validator.verify_data(&bytes, &chain, now());
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);

    let mut paris = message(Psid::CAM, SignerKind::Certificate);
    paris.generation_location = Some(location(488_566_000, 23_522_000));
    let bytes = signed(&pki, &paris, &pki.at.cert);
    assert_eq!(
        verdict(&mut validator, &bytes, &chain).0,
        Verdict::OutsideRegion
    );

    let wide = forge(&pki.at.cert, &pki.aa, |tbs| {
        tbs.region = Some(circle(508_503_000, 43_517_000, 60_000));
    });
    let bytes = signed(&pki, &message(Psid::CAM, SignerKind::Certificate), &wide);
    let (v, reason) = verdict(&mut validator, &bytes, &chain);
    assert_eq!(v, Verdict::OutsideRegion, "{reason}");
}

#[test]
fn malformed_for_truncated_trailing_and_deeply_nested_input() {
    let pki = Pki::new(Curve::P256, None);
    let bytes = signed(
        &pki,
        &message(Psid::CAM, SignerKind::Certificate),
        &pki.at.cert,
    );
    let mut validator = Validator::new(pki.trust(), 8);
    for cut in [0, 1, 5, bytes.len() / 2, bytes.len() - 1] {
        assert_eq!(
            verdict(&mut validator, &bytes[..cut], &[]).0,
            Verdict::Malformed,
            "cut {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    let (v, reason) = verdict(&mut validator, &longer, &[]);
    assert_eq!(v, Verdict::Malformed);
    assert!(reason.contains("trailing"), "{reason}");
    // signedData whose payload is signedData whose payload is ... 200 levels down.
    let mut nested = vss_its::unsecured(b"x");
    for _ in 0..200 {
        let mut r = message(Psid::CAM, SignerKind::Digest);
        r.payload = b"";
        let mut outer = sign_data(&r, Some(&pki.at.cert), &pki.at.key).expect("sign");
        if let vss_its::asn::Ieee1609Dot2Content::SignedData(s) = &mut outer.content {
            s.tbs_data.payload.data = Some(nested);
        }
        nested = outer;
    }
    let bomb = encode_data(&nested).expect("encode");
    let (v, reason) = verdict(&mut validator, &bomb, &[]);
    assert_eq!(v, Verdict::Malformed);
    assert!(reason.contains("depth"), "{reason}");
}

#[test]
fn unsupported_algorithm_when_the_hash_does_not_match_the_curve() {
    let pki = Pki::new(Curve::P256, None);
    let bytes = claiming_sha384(&pki, SignerKind::Certificate);
    let mut validator = Validator::new(pki.trust(), 8);
    assert_eq!(
        verdict(&mut validator, &bytes, std::slice::from_ref(&pki.aa.cert)).0,
        Verdict::UnsupportedAlgorithm
    );
}

#[test]
fn self_signed_messages_are_not_trusted() {
    let pki = Pki::new(Curve::P256, None);
    let bytes = encode_data(
        &sign_data(
            &message(Psid::CAM, SignerKind::SelfSigned),
            None,
            &pki.at.key,
        )
        .expect("sign"),
    )
    .expect("encode");
    let mut validator = Validator::new(pki.trust(), 8);
    assert_eq!(
        verdict(&mut validator, &bytes, &[]).0,
        Verdict::UntrustedRoot
    );
}

#[test]
fn unsupported_algorithm_when_a_certificate_names_a_hash_its_issuers_key_does_not_use() {
    use vss_its::asn::{Certificate, CertificateBase, ExplicitCertificate, IssuerIdentifier};
    let pki = Pki::new(Curve::P256, None);
    // The AT names its p256 AA with sha384AndDigest and is signed over a SHA-384 digest.
    let mut base: CertificateBase = (**pki.at.cert.asn()).clone();
    base.issuer = IssuerIdentifier::Sha384AndDigest(pki.aa.cert.hashed_id8().to_asn());
    let tbs = rasn::coer::encode(&base.to_be_signed).expect("encode");
    let digest = vss_its::signing_digest(
        vss_crypto::HashAlg::Sha384,
        &tbs,
        Some(pki.aa.cert.canonical_bytes()),
    );
    let signature = pki.aa.key.sign_digest(&digest).expect("sign");
    base.signature = Some(vss_its::signature_to_asn(&signature).expect("signature"));
    let at = Cert::from_asn(Certificate::from(
        ExplicitCertificate::new(base).expect("explicit"),
    ))
    .expect("encode");
    let mut validator = Validator::new(pki.trust(), 8);
    let report = validator.verify_certificate(&at, std::slice::from_ref(&pki.aa.cert), now());
    assert_eq!(
        report.verdict,
        Verdict::UnsupportedAlgorithm,
        "{}",
        report.reason
    );
}

#[test]
fn a_header_encryption_key_is_signed_compressed_and_verifies_in_either_form() {
    use vss_its::asn::{
        EccP256CurvePoint, EccP256CurvePointUncompressedP256, EncryptionKey, Ieee1609Dot2Content,
    };
    let pki = Pki::new(Curve::P256, None);
    let reply_key = vss_crypto::PrivateKey::generate(Curve::P256).expect("key");
    let mut data = sign_data(
        &message(Psid::CAM, SignerKind::Certificate),
        Some(&pki.at.cert),
        &pki.at.key,
    )
    .expect("sign");
    let Ieee1609Dot2Content::SignedData(signed) = &mut data.content else {
        panic!("signed data");
    };
    let compressed = vss_its::public_encryption_key(reply_key.public_key()).expect("key");
    signed.tbs_data.header_info.encryption_key = Some(EncryptionKey::Public(compressed.clone()));
    // Sign the header with the key compressed, as 1609.2 6.3.9 canonicalizes it.
    let digest = vss_its::SignedMessage::from_asn(data.clone())
        .expect("message")
        .signed_digest(Some(&pki.at.cert))
        .expect("digest");
    let Ieee1609Dot2Content::SignedData(signed) = &mut data.content else {
        panic!("signed data");
    };
    signed.signature =
        vss_its::signature_to_asn(&pki.at.key.sign_digest(&digest).expect("sign")).expect("asn");
    let mut validator = Validator::new(pki.trust(), 8);
    let chain = std::slice::from_ref(&pki.aa.cert);
    let bytes = encode_data(&data).expect("encode");
    assert_eq!(verdict(&mut validator, &bytes, chain).0, Verdict::Valid);
    // The same message with the key sent uncompressed still verifies.
    let sec1 = reply_key.public_key().to_sec1_uncompressed();
    let mut uncompressed = compressed;
    uncompressed.public_key = vss_its::asn::BasePublicEncryptionKey::EciesNistP256(
        EccP256CurvePoint::Uncompressed(EccP256CurvePointUncompressedP256 {
            x: rasn::types::FixedOctetString::new(sec1[1..33].try_into().expect("x")),
            y: rasn::types::FixedOctetString::new(sec1[33..].try_into().expect("y")),
        }),
    );
    let Ieee1609Dot2Content::SignedData(signed) = &mut data.content else {
        panic!("signed data");
    };
    signed.tbs_data.header_info.encryption_key = Some(EncryptionKey::Public(uncompressed));
    let bytes = encode_data(&data).expect("encode");
    let (v, reason) = verdict(&mut Validator::new(pki.trust(), 8), &bytes, chain);
    assert_eq!(v, Verdict::Valid, "{reason}");
}

#[test]
fn a_detached_payload_verifies_only_with_the_payload_it_signs() {
    let pki = Pki::new(Curve::P256, None);
    let mut request = message(Psid::CAM, SignerKind::Certificate);
    request.payload = b"SharedAtRequest";
    request.external_payload = true;
    let bytes = signed(&pki, &request, &pki.at.cert);
    let message = vss_its::SignedMessage::from_bytes(&bytes).expect("message");
    assert_eq!(message.payload(), None);
    assert!(message.covers_external(b"SharedAtRequest"));
    let chain = std::slice::from_ref(&pki.aa.cert);
    let mut validator = Validator::new(pki.trust(), 8);
    let report = validator.verify_detached(&message, b"SharedAtRequest", chain, now());
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
    let report = validator.verify_detached(&message, b"SharedAtRequesT", chain, now());
    assert_eq!(report.verdict, Verdict::FalseSignature, "{}", report.reason);
    let report = validator.verify_message(&message, chain, now());
    assert_eq!(
        report.verdict,
        Verdict::UnsupportedAlgorithm,
        "{}",
        report.reason
    );
    // A message that carries its payload is not a detached signature.
    let embedded = signed(
        &pki,
        &self::message(Psid::CAM, SignerKind::Certificate),
        &pki.at.cert,
    );
    let embedded = vss_its::SignedMessage::from_bytes(&embedded).expect("message");
    let report = validator.verify_detached(&embedded, b"a CAM payload", chain, now());
    assert_eq!(report.verdict, Verdict::Malformed, "{}", report.reason);
}

#[test]
fn self_signed_data_verifies_with_the_key_given_and_no_other() {
    let pki = Pki::new(Curve::P256, None);
    let request = message(Psid::CERT_REQUEST, SignerKind::SelfSigned);
    let data = sign_data(&request, None, &pki.ec.key).expect("sign");
    let message = vss_its::SignedMessage::from_asn(data).expect("message");
    assert!(message
        .verify_with_key(pki.ec.key.public_key())
        .expect("verify"));
    assert!(!message
        .verify_with_key(pki.at.key.public_key())
        .expect("verify"));
    let p384 = vss_crypto::PrivateKey::generate(Curve::P384).expect("key");
    assert!(!message.verify_with_key(p384.public_key()).expect("verify"));
    // Signed with the certificate's key but named by digest: the digest covers the
    // certificate, so the bare key does not verify it.
    let digest = sign_data(
        &self::message(Psid::CAM, SignerKind::Digest),
        Some(&pki.at.cert),
        &pki.at.key,
    )
    .expect("sign");
    let digest = vss_its::SignedMessage::from_asn(digest).expect("message");
    assert!(!digest
        .verify_with_key(pki.at.key.public_key())
        .expect("verify"));
}

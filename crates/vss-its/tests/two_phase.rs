//! Validation in two phases (prepare every message, check the pending signatures together
//! from their plain bytes as a bulk engine would, finish in order) gives exactly the
//! reports of one-shot validation, on valid messages (several curves, signer by certificate
//! then by digest through the cache) and on every kind of invalid one.

mod common;

use common::{claiming_sha384, forge, issue, message, now, request, start, Issued, Pki};
use vss_crypto::{Curve, PrivateKey, PublicKey, Signature};
use vss_its::asn::{
    CircularRegion, Duration, GeographicRegion, Latitude, Longitude, ThreeDLocation, TwoDLocation,
};
use vss_its::{
    encode_data, sign_data, Cert, Permission, Prepared, PreparedKeyPolicy, Profile, Psid, Report,
    SignedDataRequest, SignedMessage, SignerKind, Validator, Verdict,
};

/// One message of the corpus: its bytes, the certificates offered with it, and the verdict
/// it must get.
struct Case {
    bytes: Vec<u8>,
    chain: Vec<Cert>,
    expected: Verdict,
}

fn signed(request: &SignedDataRequest<'_>, at: &Cert, key: &PrivateKey) -> Vec<u8> {
    encode_data(&sign_data(request, Some(at), key).expect("sign")).expect("encode")
}

fn flip_last(mut bytes: Vec<u8>) -> Vec<u8> {
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    bytes
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

/// A ticket on `curve` under the PKI's AA, for PSIDs 36 and 37.
fn ticket(pki: &Pki, curve: Curve) -> Issued {
    let key = PrivateKey::generate(curve).expect("key");
    let mut r = request(Profile::At, &key, Duration::Hours(168));
    r.app_permissions = vec![Permission::psid(Psid::CAM), Permission::psid(Psid::DENM)];
    issue(&r, Some(&pki.aa), key)
}

/// Valid messages and every kind of invalid one, in an order where later messages depend
/// on what earlier ones put in the cache.
fn corpus(pki: &Pki) -> Vec<Case> {
    let aa = vec![pki.aa.cert.clone()];
    let case = |bytes: Vec<u8>, chain: &[Cert], expected| Case {
        bytes,
        chain: chain.to_vec(),
        expected,
    };
    let at = |request: &SignedDataRequest<'_>| signed(request, &pki.at.cert, &pki.at.key);
    let mut cases = vec![
        case(
            at(&message(Psid::CAM, SignerKind::Digest)),
            &[],
            Verdict::SignerNotFound,
        ),
        case(
            at(&message(Psid::CAM, SignerKind::Certificate)),
            &aa,
            Verdict::Valid,
        ),
        case(
            at(&message(Psid::CAM, SignerKind::Digest)),
            &[],
            Verdict::Valid,
        ),
    ];
    for curve in [Curve::P256, Curve::Bp256, Curve::P384, Curve::Bp384] {
        let t = ticket(pki, curve);
        let by_cert = signed(
            &message(Psid::DENM, SignerKind::Certificate),
            &t.cert,
            &t.key,
        );
        let by_digest = signed(&message(Psid::DENM, SignerKind::Digest), &t.cert, &t.key);
        cases.push(case(
            flip_last(by_cert.clone()),
            &aa,
            Verdict::FalseSignature,
        ));
        cases.push(case(by_cert, &aa, Verdict::Valid));
        cases.push(case(by_digest.clone(), &[], Verdict::Valid));
        cases.push(case(flip_last(by_digest), &[], Verdict::FalseSignature));
    }

    let payload_changed = {
        let mut bytes = at(&message(Psid::CAM, SignerKind::Digest));
        let i = bytes.windows(3).position(|w| w == b"CAM").expect("payload");
        bytes[i] = b'D';
        bytes
    };
    cases.push(case(payload_changed, &[], Verdict::FalseSignature));
    cases.push(case(
        at(&message(Psid::from(138), SignerKind::Digest)),
        &[],
        Verdict::InsufficientPermissions,
    ));
    let overreaching = forge(&pki.at.cert, &pki.aa, |tbs| {
        let perms = tbs.app_permissions.as_mut().expect("permissions");
        perms.0[0].psid = vss_its::asn::Psid(138.into());
    });
    cases.push(case(
        signed(
            &message(Psid::DENM, SignerKind::Certificate),
            &overreaching,
            &pki.at.key,
        ),
        &aa,
        Verdict::InsufficientPermissions,
    ));

    let outliving = forge(&pki.at.cert, &pki.aa, |tbs| {
        tbs.validity_period.duration = Duration::Years(40);
    });
    cases.push(case(
        signed(
            &message(Psid::CAM, SignerKind::Certificate),
            &outliving,
            &pki.at.key,
        ),
        &aa,
        Verdict::InvalidChain,
    ));

    let other = Pki::new(Curve::P256, None);
    let stranger = |request: &SignedDataRequest<'_>| signed(request, &other.at.cert, &other.at.key);
    cases.push(case(
        stranger(&message(Psid::CAM, SignerKind::Certificate)),
        &aa,
        Verdict::SignerNotFound,
    ));
    cases.push(case(
        stranger(&message(Psid::CAM, SignerKind::Certificate)),
        &[other.aa.cert.clone(), other.root.cert.clone()],
        Verdict::UntrustedRoot,
    ));
    let unseen = ticket(pki, Curve::P256);
    cases.push(case(
        signed(
            &message(Psid::CAM, SignerKind::Digest),
            &unseen.cert,
            &unseen.key,
        ),
        &[],
        Verdict::SignerNotFound,
    ));

    let end = pki.at.cert.validity().end;
    let mut late = message(Psid::CAM, SignerKind::Digest);
    late.generation_time = Some(end.plus_micros(1));
    cases.push(case(at(&late), &[], Verdict::Expired));
    // Expired and falsely signed: the signature's verdict comes first.
    cases.push(case(flip_last(at(&late)), &[], Verdict::FalseSignature));
    let mut future = message(Psid::CAM, SignerKind::Digest);
    future.generation_time = Some(now().plus_micros(60_000_000));
    cases.push(case(at(&future), &[], Verdict::NotYetValid));
    let mut stale = message(Psid::CAM, SignerKind::Digest);
    stale.generation_time = Some(start().plus_micros(1_000_000));
    stale.expiry_time = Some(start().plus_micros(2_000_000));
    cases.push(case(at(&stale), &[], Verdict::Expired));

    let mut paris = message(Psid::CAM, SignerKind::Digest);
    paris.generation_location = Some(ThreeDLocation {
        latitude: Latitude(488_566_000.into()),
        longitude: Longitude(23_522_000.into()),
        elevation: vss_its::asn::Elevation(0),
    });
    cases.push(case(at(&paris), &[], Verdict::OutsideRegion));

    let whole = at(&message(Psid::CAM, SignerKind::Digest));
    for cut in [0, 1, whole.len() / 2, whole.len() - 1] {
        cases.push(case(whole[..cut].to_vec(), &[], Verdict::Malformed));
    }
    let mut trailing = whole.clone();
    trailing.push(0);
    cases.push(case(trailing, &[], Verdict::Malformed));

    cases.push(case(
        claiming_sha384(pki, SignerKind::Digest),
        &[],
        Verdict::UnsupportedAlgorithm,
    ));
    let self_signed = sign_data(
        &message(Psid::CAM, SignerKind::SelfSigned),
        None,
        &pki.at.key,
    );
    cases.push(case(
        encode_data(&self_signed.expect("sign")).expect("encode"),
        &[],
        Verdict::UntrustedRoot,
    ));
    let mut detached = message(Psid::CAM, SignerKind::Digest);
    detached.external_payload = true;
    cases.push(case(at(&detached), &[], Verdict::UnsupportedAlgorithm));
    cases
}

/// A PKI whose root is valid within 50 km of Brussels (tickets inherit the region).
fn regional_pki() -> Pki {
    Pki::new(Curve::P256, Some(circle(508_503_000, 43_517_000, 50_000)))
}

/// Reports one message at a time.
fn one_shot(pki: &Pki, cases: &[Case]) -> Vec<Report> {
    let mut validator = Validator::new(pki.trust(), 64);
    cases
        .iter()
        .map(|c| validator.verify_data(&c.bytes, &c.chain, now()))
        .collect()
}

/// Whether a pending signature verifies from its plain bytes alone.
fn verify_bytes(curve: Curve, public_key: &[u8], digest: &[u8], signature: &[u8]) -> bool {
    let key = PublicKey::from_sec1(curve, public_key)
        .and_then(|k| k.verifying_key())
        .expect("a valid key");
    let signature = Signature::from_p1363(curve, signature).expect("r ‖ s");
    key.verify_digest(digest, &signature)
}

/// Reports in two phases: all prepared, the pending signatures checked together from their
/// bytes, then all finished.
fn two_phase(pki: &Pki, cases: &[Case]) -> Vec<Report> {
    let mut validator = Validator::new(pki.trust(), 64);
    let prepared: Vec<Prepared> = cases
        .iter()
        .map(|c| match SignedMessage::from_bytes(&c.bytes) {
            Ok(message) => validator.prepare_message(&message, &c.chain, now()),
            Err(e) => Prepared::Refused(Report::of_error(&e)),
        })
        .collect();
    let verdicts: Vec<Option<bool>> = prepared
        .iter()
        .map(|p| match p {
            Prepared::Refused(_) => None,
            Prepared::Pending(s) => {
                let from_bytes = verify_bytes(s.curve(), s.public_key(), s.digest(), s.signature());
                assert_eq!(from_bytes, s.verify(), "bytes and parsed key agree");
                Some(from_bytes)
            }
        })
        .collect();
    prepared
        .into_iter()
        .zip(verdicts)
        .map(|(p, valid)| match (p, valid) {
            (Prepared::Refused(report), None) => report,
            (Prepared::Pending(s), Some(valid)) => s.finish(valid),
            _ => unreachable!("a verdict for each pending signature"),
        })
        .collect()
}

#[test]
fn two_phases_give_the_one_shot_reports_on_every_kind_of_message() {
    let pki = regional_pki();
    let cases = corpus(&pki);
    let once = one_shot(&pki, &cases);
    let twice = two_phase(&pki, &cases);
    for (i, ((case, a), b)) in cases.iter().zip(&once).zip(&twice).enumerate() {
        assert_eq!(a.verdict, case.expected, "case {i}: {}", a.reason);
        assert_eq!(a, b, "case {i}");
    }
    let kinds: std::collections::HashSet<Verdict> = cases.iter().map(|c| c.expected).collect();
    assert_eq!(kinds.len(), 11, "every verdict: {kinds:?}");
}

#[test]
fn prepared_keys_give_the_reports_of_the_library() {
    let pki = regional_pki();
    let cases = corpus(&pki);
    let policy = PreparedKeyPolicy {
        max_bytes: 4 << 20,
        after: 1,
    };
    let mut prepared = Validator::new(pki.trust(), 64).with_prepared_keys(policy);
    let mut library = Validator::new(pki.trust(), 64).with_prepared_keys(PreparedKeyPolicy::OFF);
    // Three rounds: keys are prepared in the first, used in the next.
    for round in 0..3 {
        for (i, case) in cases.iter().enumerate() {
            let with = prepared.verify_data(&case.bytes, &case.chain, now());
            let without = library.verify_data(&case.bytes, &case.chain, now());
            assert_eq!(with, without, "round {round}, case {i}");
        }
    }
    let stats = prepared.cache_stats();
    // The tickets of the four curves and the AA at least.
    assert!(stats.prepared_builds >= 5, "{stats:?}");
    assert!(stats.prepared_hits > stats.prepared_builds, "{stats:?}");
    assert_eq!(library.cache_stats().prepared_builds, 0);
    let (mut with, mut without) = (prepared.cache_stats(), library.cache_stats());
    (
        with.prepared_hits,
        with.prepared_builds,
        with.prepared_bytes,
    ) = (0, 0, 0);
    without.prepared_bytes = 0;
    assert_eq!(with, without, "the same certificate cache");
}

#[test]
fn finish_puts_the_signature_first_and_the_later_checks_after_it() {
    let pki = regional_pki();
    let mut validator = Validator::new(pki.trust(), 8);
    let chain = [pki.aa.cert.clone()];
    let prepare = |validator: &mut Validator, request: &SignedDataRequest<'_>| {
        let bytes = signed(request, &pki.at.cert, &pki.at.key);
        let message = SignedMessage::from_bytes(&bytes).expect("message");
        match validator.prepare_message(&message, &chain, now()) {
            Prepared::Pending(pending) => pending,
            Prepared::Refused(report) => panic!("refused: {}", report.reason),
        }
    };
    let valid = prepare(&mut validator, &message(Psid::CAM, SignerKind::Certificate));
    assert!(valid.verify());
    let report = valid.finish(false);
    assert_eq!(report.verdict, Verdict::FalseSignature);
    assert_eq!(report.signer, Some(pki.at.cert.hashed_id8()));
    assert_eq!(report.psid, Some(Psid::CAM));

    let mut late = message(Psid::CAM, SignerKind::Digest);
    late.generation_time = Some(pki.at.cert.validity().end.plus_micros(1));
    let late = prepare(&mut validator, &late);
    assert_eq!(late.curve(), Curve::P256);
    assert_eq!(late.finish(true).verdict, Verdict::Expired);
}

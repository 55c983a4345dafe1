//! Enrolment against a real EA (keys in a soft HSM, records in SQLite), transport aside:
//! a first enrolment and a re-enrolment give credentials that validate to the root, and each
//! bad request gets the standard's response code with nothing issued.

#[path = "common/made_pki.rs"]
mod made_pki;

use std::sync::Arc;

use made_pki::MadePki;
use vss_crypto::{Curve, PrivateKey};
use vss_hsm::{Hsm, SoftHsm};
use vss_its::{ItsTime, Psid, TrustAnchors, Validator, Verdict};
use vss_pki::authority::{Answer, Ea};
use vss_pki::messages::EnrolmentResponseCode as Code;
use vss_pki::station::{enrolment_request, EnrolmentRequest, Outer};
use vss_pki::store::{PkiStore, Role, SqliteStore};

struct Fixture {
    _made: MadePki,
    ea: Ea,
    store: Arc<SqliteStore>,
    root: vss_its::Cert,
    aa: vss_its::Cert,
    canonical: PrivateKey,
}

fn now() -> ItsTime {
    ItsTime::now().plus_micros(60_000_000)
}

fn fixture() -> Fixture {
    let made = MadePki::new("alpha");
    let canonical = PrivateKey::generate(Curve::P256).expect("key");
    made.register("car-1", canonical.public_key(), &[Psid::CAM, Psid::DENM]);
    let certs = made.certs.clone();
    Fixture {
        ea: Ea::new(
            certs.ea,
            made.hsm.clone(),
            made.store.clone(),
            TrustAnchors::new(),
        ),
        store: made.store.clone(),
        root: certs.root,
        aa: certs.aa,
        canonical,
        _made: made,
    }
}

fn request(f: &Fixture, its_id: &str, new: &PrivateKey) -> EnrolmentRequest {
    enrolment_request(
        its_id,
        new,
        Outer::Canonical(&f.canonical),
        f.ea.cert(),
        now(),
    )
    .expect("request")
}

fn answered(f: &Fixture, request: &EnrolmentRequest) -> (Code, Option<vss_its::Cert>) {
    let answer = f.ea.enrol(&request.bytes, now()).expect("enrol");
    let Answer::Response { code, body } = answer else {
        panic!("no encrypted answer: {answer:?}");
    };
    let response = request.read_response(&body, f.ea.cert()).expect("response");
    assert_eq!(response.code, code);
    (code, response.certificate)
}

#[test]
fn a_registered_station_enrols_and_re_enrols() {
    let f = fixture();
    let ec_key = PrivateKey::generate(Curve::P256).expect("key");
    let (code, ec) = answered(&f, &request(&f, "car-1", &ec_key));
    assert_eq!(code, Code::Ok);
    let ec = ec.expect("credential");
    assert_eq!(ec.verification_key().expect("key"), *ec_key.public_key());
    let mut trust = TrustAnchors::new();
    trust.add(f.root.clone()).expect("anchor");
    let mut validator = Validator::new(trust, 8);
    let report = validator.verify_certificate(&ec, &[f.ea.cert().clone()], now());
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
    let stored = f.store.issued_by(Role::Ea).expect("records");
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].hashed_id8, ec.hashed_id8());
    assert_eq!(stored[0].station.as_deref(), Some("car-1"));

    // Re-enrolment: signed with the current credential, for a new key.
    let next_key = PrivateKey::generate(Curve::P256).expect("key");
    let renewal = enrolment_request(
        "car-1",
        &next_key,
        Outer::Enrolment(&ec, &ec_key),
        f.ea.cert(),
        now(),
    )
    .expect("request");
    let (code, next) = answered(&f, &renewal);
    assert_eq!(code, Code::Ok);
    assert_eq!(
        next.expect("credential").verification_key().expect("key"),
        *next_key.public_key()
    );
}

#[test]
fn bad_requests_get_their_codes_and_nothing_is_issued() {
    let f = fixture();
    let key = PrivateKey::generate(Curve::P256).expect("key");
    // Unregistered station.
    assert_eq!(
        answered(&f, &request(&f, "car-9", &key)).0,
        Code::UnknownIts
    );
    // Signed with a key that is not the registered canonical key.
    let impostor = PrivateKey::generate(Curve::P256).expect("key");
    let forged = enrolment_request(
        "car-1",
        &key,
        Outer::Canonical(&impostor),
        f.ea.cert(),
        now(),
    )
    .expect("request");
    assert_eq!(answered(&f, &forged).0, Code::InvalidSignature);
    // A replay of an answered request.
    let good = request(&f, "car-1", &key);
    assert_eq!(answered(&f, &good).0, Code::Ok);
    assert_eq!(answered(&f, &good).0, Code::DeniedRequest);
    // The same request re-wrapped with its recipient entry twice (other bytes, the same
    // decrypted request) is a replay too, and gets no second credential.
    let mut rewrapped = vss_its::decode_data(&good.bytes).expect("decode");
    let vss_its::asn::Ieee1609Dot2Content::EncryptedData(sealed) = &mut rewrapped.content else {
        panic!("an encrypted request");
    };
    let first = sealed.recipients.0[0].clone();
    sealed.recipients.0.push(first);
    let rewrapped = vss_its::encode_data(&rewrapped).expect("encode");
    assert_ne!(rewrapped, good.bytes);
    match f.ea.enrol(&rewrapped, now()).expect("enrol") {
        Answer::Response { code, .. } => assert_eq!(code, Code::DeniedRequest),
        other => panic!("{other:?}"),
    }
    // Re-enrolment with a credential this EA never issued.
    let foreign = made_pki::foreign_credential(&key);
    let stranger = enrolment_request(
        "car-1",
        &key,
        Outer::Enrolment(&foreign, &key),
        f.ea.cert(),
        now(),
    )
    .expect("request");
    assert_eq!(answered(&f, &stranger).0, Code::UnknownIts);
    // Exactly one credential was issued.
    assert_eq!(f.store.issued_by(Role::Ea).expect("records").len(), 1);
    // The refusals are audited with their codes.
    let audit = f.store.audit().expect("audit");
    for code in ["unknownits", "invalidsignature"] {
        assert!(
            audit.iter().any(|a| a.detail.contains(code)),
            "{code}: {audit:?}"
        );
    }
}

#[test]
fn requests_the_ea_cannot_open_are_refused_without_an_answer() {
    let f = fixture();
    let key = PrivateKey::generate(Curve::P256).expect("key");
    // Encrypted to the AA, not the EA.
    let to_aa = enrolment_request("car-1", &key, Outer::Canonical(&f.canonical), &f.aa, now())
        .expect("request");
    assert!(matches!(
        f.ea.enrol(&to_aa.bytes, now()).expect("enrol"),
        Answer::Refused(Code::ImNotTheRecipient)
    ));
    // Garbage, a truncated request, and one with a changed ciphertext byte.
    let good = request(&f, "car-1", &key);
    let mut changed = good.bytes.clone();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    for (bytes, code) in [
        (&b"not a request"[..], Code::CantParse),
        (&good.bytes[..good.bytes.len() / 2], Code::CantParse),
        (&changed[..], Code::DecryptionFailed),
    ] {
        assert!(
            matches!(f.ea.enrol(bytes, now()).expect("enrol"), Answer::Refused(c) if c == code)
        );
    }
    // Signed data that is not encrypted.
    let plain = vss_its::encode_data(&vss_its::unsecured(b"x")).expect("encode");
    assert_eq!(
        f.ea.enrol(&plain, now()).expect("enrol").code(),
        Code::BadContentType
    );
    assert!(f.store.issued_by(Role::Ea).expect("records").is_empty());
}

#[test]
fn the_canonical_key_may_live_in_the_stations_hsm() {
    let f = fixture();
    let dir = tempfile::tempdir().expect("tempdir");
    SoftHsm::init(dir.path(), "1234", "12345678").expect("hsm");
    let station_hsm = SoftHsm::open(dir.path(), "1234").expect("open");
    station_hsm
        .import_key(&vss_hsm::ImportKeyRequest {
            label: "canonical".into(),
            private_key: &f.canonical,
        })
        .expect("import");
    station_hsm
        .generate_key(&vss_hsm::GenerateKeyRequest::new("ec", Curve::P256))
        .expect("generate");
    let canonical = vss_its::HsmKey::new(&station_hsm, "canonical").expect("key");
    let ec = vss_its::HsmKey::new(&station_hsm, "ec").expect("key");
    let request = enrolment_request(
        "car-1",
        &ec,
        Outer::Canonical(&canonical),
        f.ea.cert(),
        now(),
    )
    .expect("request");
    assert_eq!(answered(&f, &request).0, Code::Ok);
}

#[test]
fn re_enrolment_with_an_expired_credential_is_baditsstatus() {
    let mut f = fixture();
    f.ea.ec_duration = vss_its::asn::Duration::Hours(1);
    let ec_key = PrivateKey::generate(Curve::P256).expect("key");
    let (code, ec) = answered(&f, &request(&f, "car-1", &ec_key));
    assert_eq!(code, Code::Ok);
    let ec = ec.expect("credential");
    let later = now().plus_micros(2 * 3_600_000_000);
    let next_key = PrivateKey::generate(Curve::P256).expect("key");
    let renewal = enrolment_request(
        "car-1",
        &next_key,
        Outer::Enrolment(&ec, &ec_key),
        f.ea.cert(),
        later,
    )
    .expect("request");
    let answer = f.ea.enrol(&renewal.bytes, later).expect("enrol");
    assert_eq!(answer.code(), Code::BadItsStatus);
    assert_eq!(f.store.issued_by(Role::Ea).expect("records").len(), 1);
}

#[test]
fn a_request_generated_outside_the_acceptable_limits_is_deniedrequest() {
    let f = fixture();
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let made_at = |at: ItsTime| {
        enrolment_request(
            "car-1",
            &key,
            Outer::Canonical(&f.canonical),
            f.ea.cert(),
            at,
        )
        .expect("request")
    };
    let minutes = |m: u64| m * 60 * 1_000_000;
    let stale = made_at(ItsTime::from_time64(&vss_its::asn::Time64(
        now().micros() - minutes(10),
    )));
    let ahead = made_at(now().plus_micros(minutes(10)));
    for request in [&stale, &ahead] {
        assert_eq!(answered(&f, request).0, Code::DeniedRequest);
    }
    assert!(f.store.issued_by(Role::Ea).expect("records").is_empty());
    // Four minutes old is within the limits.
    let recent = made_at(ItsTime::from_time64(&vss_its::asn::Time64(
        now().micros() - minutes(4),
    )));
    assert_eq!(answered(&f, &recent).0, Code::Ok);
}

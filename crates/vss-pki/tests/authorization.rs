//! Authorization against a real AA and EA (keys in a soft HSM, records in SQLite), the AA
//! reaching the EA in-process rather than over HTTP: tickets are issued with the permissions
//! the EA confirms, and each bad request gets the standard's code with nothing issued.

#[path = "common/made_pki.rs"]
mod made_pki;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use made_pki::MadePki;
use vss_crypto::{Curve, PrivateKey};
use vss_hsm::Hsm;
use vss_its::{Cert, ItsTime, Psid, TrustAnchors, Validator, Verdict};
use vss_pki::authority::{Aa, Answer, Ea, EaLink, KnownEa};
use vss_pki::messages::AuthorizationResponseCode as Code;
use vss_pki::station::{authorization_request, enrolment_request, Outer, TicketKeys};
use vss_pki::store::{PkiStore, Role, SqliteStore};

/// The EA, called directly instead of over HTTP, with its own clock: [`now`] plus `skew`
/// microseconds (a test moves it forward to see credentials expire).
struct Direct {
    ea: Arc<Ea>,
    skew: Arc<AtomicU64>,
}

impl EaLink for Direct {
    fn validate(&self, request: &[u8]) -> Result<Vec<u8>, String> {
        let at = now().plus_micros(self.skew.load(Ordering::SeqCst));
        match self.ea.validate(request, at) {
            Ok(Answer::Response { body, .. }) => Ok(body),
            Ok(Answer::Refused(code)) => Err(format!("refused: {code:?}")),
            Err(e) => Err(e.to_string()),
        }
    }
}

fn now() -> ItsTime {
    ItsTime::now().plus_micros(60_000_000)
}

struct Fixture {
    _pki: MadePki,
    root: Cert,
    ea: Arc<Ea>,
    aa: Aa,
    store: Arc<SqliteStore>,
    hsm: Arc<dyn Hsm>,
    ec: Cert,
    ec_key: PrivateKey,
    /// The EA's clock skew (see [`Direct`]).
    skew: Arc<AtomicU64>,
}

fn fixture() -> Fixture {
    fixture_with_ec_lifetime(vss_its::asn::Duration::Years(3))
}

/// A fixture whose EA issues credentials valid for `ec_lifetime`.
fn fixture_with_ec_lifetime(ec_lifetime: vss_its::asn::Duration) -> Fixture {
    let pki = MadePki::new("alpha");
    let (made, hsm, store) = (pki.certs.clone(), pki.hsm.clone(), pki.store.clone());
    let mut trust = TrustAnchors::new();
    trust.add(made.root.clone()).expect("anchor");
    let mut ea = Ea::new(made.ea.clone(), hsm.clone(), store.clone(), trust);
    ea.ec_duration = ec_lifetime;
    let ea = Arc::new(ea);
    let skew = Arc::new(AtomicU64::new(0));
    let aa = Aa::new(
        made.aa.clone(),
        hsm.clone(),
        store.clone(),
        vec![KnownEa {
            cert: made.ea.clone(),
            link: Arc::new(Direct {
                ea: ea.clone(),
                skew: skew.clone(),
            }),
        }],
    );
    let canonical = PrivateKey::generate(Curve::P256).expect("key");
    pki.register("car-1", canonical.public_key(), &[Psid::CAM, Psid::DENM]);
    let ec_key = PrivateKey::generate(Curve::P256).expect("key");
    let request = enrolment_request(
        "car-1",
        &ec_key,
        Outer::Canonical(&canonical),
        &made.ea,
        now(),
    )
    .expect("request");
    let Answer::Response { body, .. } = ea.enrol(&request.bytes, now()).expect("enrol") else {
        panic!("enrolment refused");
    };
    let ec = request
        .read_response(&body, &made.ea)
        .expect("response")
        .certificate
        .expect("credential");
    Fixture {
        root: made.root,
        ea,
        aa,
        store,
        hsm,
        ec,
        ec_key,
        skew,
        _pki: pki,
    }
}

fn ask(f: &Fixture, ticket_key: &PrivateKey, psids: &[Psid]) -> (Code, Option<Cert>) {
    ask_at(f, TicketKeys::signing(ticket_key), psids, now())
}

/// Asks for a ticket with `keys`, with a request made and answered at `at`.
fn ask_at(f: &Fixture, keys: TicketKeys<'_>, psids: &[Psid], at: ItsTime) -> (Code, Option<Cert>) {
    let request =
        authorization_request(keys, &f.ec, &f.ec_key, f.ea.cert(), f.aa.cert(), psids, at)
            .expect("request");
    match f.aa.authorize(&request.bytes, at).expect("authorize") {
        Answer::Response { code, body } => {
            let response = request.read_response(&body, f.aa.cert()).expect("response");
            assert_eq!(response.code, code);
            (code, response.certificate)
        }
        Answer::Refused(code) => (code, None),
    }
}

#[test]
fn tickets_are_issued_with_the_permissions_the_ea_confirms() {
    let f = fixture();
    let mut trust = TrustAnchors::new();
    trust.add(f.root.clone()).expect("anchor");
    let mut validator = Validator::new(trust, 8);
    for _ in 0..5 {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let (code, ticket) = ask(&f, &key, &[Psid::CAM, Psid::DENM]);
        assert_eq!(code, Code::Ok);
        let ticket = ticket.expect("ticket");
        assert_eq!(ticket.verification_key().expect("key"), *key.public_key());
        assert!(
            vss_its::allows_psid(ticket.tbs(), Psid::CAM)
                && vss_its::allows_psid(ticket.tbs(), Psid::DENM)
        );
        assert!(!vss_its::allows_psid(ticket.tbs(), Psid::CERT_REQUEST));
        let report = validator.verify_certificate(&ticket, &[f.aa.cert().clone()], now());
        assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
    }
    let tickets = f.store.issued_by(Role::Aa).expect("records");
    assert_eq!(tickets.len(), 5);
    assert!(
        tickets.iter().all(|t| t.station.is_none()),
        "tickets are pseudonymous"
    );
}

/// TS 102 941 V2.x: a ticket asked for with an encryption key carries it (the station can
/// then be sent data encrypted to its pseudonym); a ticket asked for without one has none.
#[test]
fn a_ticket_asked_with_an_encryption_key_carries_it_and_can_be_encrypted_to() {
    let f = fixture();
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let encryption = PrivateKey::generate(Curve::P256).expect("key");
    let keys = TicketKeys::with_encryption(&key, encryption.public_key());
    let (code, ticket) = ask_at(&f, keys, &[Psid::CAM], now());
    assert_eq!(code, Code::Ok);
    let ticket = ticket.expect("ticket");
    assert_eq!(
        ticket.encryption_key().expect("key").as_ref(),
        Some(encryption.public_key())
    );
    let secret = vss_its::unsecured(b"for the pseudonym only");
    let data_key = vss_its::DataEncryptionKey::generate().expect("key");
    let sealed = vss_its::encrypt_data(
        &secret,
        &[vss_its::Recipient::Certificate(&ticket)],
        &data_key,
    )
    .expect("encrypt");
    let opened = vss_its::decrypt_data(
        &sealed,
        vss_its::Decryptor::Certificate(&ticket, &encryption),
    )
    .expect("decrypt");
    assert_eq!(opened.data, secret);

    let (code, plain) = ask(&f, &key, &[Psid::CAM]);
    assert_eq!(code, Code::Ok);
    assert_eq!(plain.expect("ticket").encryption_key().expect("key"), None);
}

/// A request for a ticket for `ticket_key` with credential `ec` (signed by `ec_key`),
/// encrypted to `to`, for PSID 36.
fn request_with(
    ticket_key: &PrivateKey,
    ec: &Cert,
    ec_key: &PrivateKey,
    f: &Fixture,
    to: &Cert,
) -> Vec<u8> {
    authorization_request(
        TicketKeys::signing(ticket_key),
        ec,
        ec_key,
        f.ea.cert(),
        to,
        &[Psid::CAM],
        now(),
    )
    .expect("request")
    .bytes
}

/// The code `aa` answers `request` with.
fn code(aa: &Aa, request: &[u8]) -> Code {
    aa.authorize(request, now()).expect("authorize").code()
}

#[test]
fn bad_requests_get_their_codes_and_nothing_is_issued() {
    let f = fixture();
    let key = PrivateKey::generate(Curve::P256).expect("key");
    // A PSID the station may not have.
    assert_eq!(
        ask(&f, &key, &[Psid::CAM, Psid::from(138)]).0,
        Code::DeniedPermissions
    );
    // A replay.
    let request = request_with(&key, &f.ec, &f.ec_key, &f, f.aa.cert());
    assert_eq!(code(&f.aa, &request), Code::Ok);
    assert_eq!(code(&f.aa, &request), Code::ItsAaOutOfSyncRequest);
    // An enrolment credential the EA never issued.
    let foreign = made_pki::foreign_credential(&key);
    let other = PrivateKey::generate(Curve::P256).expect("key");
    let request = request_with(&other, &foreign, &key, &f, f.aa.cert());
    assert_eq!(code(&f.aa, &request), Code::UnknownIts);
    // Encrypted to the EA instead of the AA.
    let request = request_with(&other, &f.ec, &f.ec_key, &f, f.ea.cert());
    assert_eq!(code(&f.aa, &request), Code::ItsAaImNotTheRecipient);
    assert_eq!(code(&f.aa, b"garbage"), Code::ItsAaCantParse);
    // Only the one good request was answered with a ticket.
    assert_eq!(f.store.issued_by(Role::Aa).expect("records").len(), 1);
}

/// TS 102 941 V2.2.1 butterfly authorization (IEEE 1609.2.1) is not in the EU profile: the
/// AA says so with badcontenttype rather than failing to parse, and issues nothing; an
/// enrolment request where an authorization request belongs is named too.
#[test]
fn a_butterfly_request_is_refused_by_name_as_bad_content() {
    let f = fixture();
    let to_aa = |envelope: &[u8]| {
        let key = vss_its::DataEncryptionKey::generate().expect("key");
        let sealed = vss_its::encrypt_data(
            &vss_its::unsecured(envelope),
            &[vss_its::Recipient::Certificate(f.aa.cert())],
            &key,
        )
        .expect("encrypt");
        vss_its::encode_data(&sealed).expect("encode")
    };
    let butterfly = to_aa(&[0x01, 0x8D, 0x03, 0xAA, 0xBB, 0xCC]);
    assert_eq!(code(&f.aa, &butterfly), Code::ItsAaBadContentType);
    let enrolment_response = vss_pki::messages::InnerEcResponse::new(
        [0; 16],
        vss_pki::messages::EnrolmentResponseCode::Ok,
        None,
    );
    let envelope = vss_pki::messages::EtsiTs102941Data::new(
        vss_pki::messages::EtsiTs102941DataContent::EnrolmentResponse(Box::new(enrolment_response)),
    );
    let misplaced = to_aa(&vss_pki::messages::encode("envelope", &envelope).expect("encode"));
    assert_eq!(code(&f.aa, &misplaced), Code::ItsAaBadContentType);
    let audit = f.store.audit().expect("audit");
    let reasons: Vec<&str> = audit.iter().map(|a| a.detail.as_str()).collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("butterflyAuthorizationRequest")
                && r.contains("not part of the EU C-ITS profile")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("enrolmentResponse where authorizationRequest")),
        "{reasons:?}"
    );
    assert!(f.store.issued_by(Role::Aa).expect("records").is_empty());
}

#[test]
fn an_aa_that_does_not_know_the_ea_refuses() {
    let f = fixture();
    let lonely = Aa::new(
        f.aa.cert().clone(),
        f.hsm.clone(),
        f.store.clone(),
        Vec::new(),
    );
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let request = request_with(&key, &f.ec, &f.ec_key, &f, lonely.cert());
    assert_eq!(code(&lonely, &request), Code::ItsAaUnknownEa);
}

#[test]
fn an_expired_enrolment_credential_gets_no_ticket() {
    let f = fixture_with_ec_lifetime(vss_its::asn::Duration::Hours(1));
    let key = PrivateKey::generate(Curve::P256).expect("key");
    assert_eq!(ask(&f, &key, &[Psid::CAM]).0, Code::Ok);
    // Half an hour on, the credential is still valid; two hours on, it has expired.
    let half_hour = 1_800_000_000;
    f.skew.store(half_hour, Ordering::SeqCst);
    let key = PrivateKey::generate(Curve::P256).expect("key");
    assert_eq!(
        ask_at(
            &f,
            TicketKeys::signing(&key),
            &[Psid::CAM],
            now().plus_micros(half_hour)
        )
        .0,
        Code::Ok
    );
    let two_hours = 2 * 3_600_000_000;
    f.skew.store(two_hours, Ordering::SeqCst);
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let (code, ticket) = ask_at(
        &f,
        TicketKeys::signing(&key),
        &[Psid::CAM],
        now().plus_micros(two_hours),
    );
    assert_eq!(code, Code::InvalidSignature);
    assert!(ticket.is_none());
    assert_eq!(f.store.issued_by(Role::Aa).expect("records").len(), 2);
}

#[test]
fn a_request_generated_outside_the_acceptable_limits_is_out_of_sync() {
    let f = fixture();
    let minutes = |m: u64| m * 60 * 1_000_000;
    let at =
        |m_ago: u64| ItsTime::from_time64(&vss_its::asn::Time64(now().micros() - minutes(m_ago)));
    let answer_to_request_made_at = |made: ItsTime| {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let request = authorization_request(
            TicketKeys::signing(&key),
            &f.ec,
            &f.ec_key,
            f.ea.cert(),
            f.aa.cert(),
            &[Psid::CAM],
            made,
        )
        .expect("request");
        code(&f.aa, &request.bytes)
    };
    for made in [at(10), now().plus_micros(minutes(10))] {
        assert_eq!(answer_to_request_made_at(made), Code::ItsAaOutOfSyncRequest);
    }
    assert!(f.store.issued_by(Role::Aa).expect("records").is_empty());
    assert_eq!(answer_to_request_made_at(at(4)), Code::Ok);
}

/// Passes the AA's validation requests to its EA in-process (as `LocalEa` does, on the
/// tests' clock), keeping a copy of each.
struct Keeping {
    ea: Arc<Ea>,
    requests: std::sync::Mutex<Vec<Vec<u8>>>,
}

impl EaLink for Keeping {
    fn validate(&self, request: &[u8]) -> Result<Vec<u8>, String> {
        self.requests
            .lock()
            .expect("requests")
            .push(request.to_vec());
        match self.ea.validate_in_process(request, now()) {
            Ok(Answer::Response { body, .. }) => Ok(body),
            other => Err(format!("{other:?}")),
        }
    }
}

#[test]
fn a_validation_request_replayed_in_process_is_refused_by_the_record() {
    use vss_pki::messages::AuthorizationValidationResponseCode as VCode;
    let f = fixture();
    let link = Arc::new(Keeping {
        ea: f.ea.clone(),
        requests: std::sync::Mutex::new(Vec::new()),
    });
    let known = KnownEa {
        cert: f.ea.cert().clone(),
        link: link.clone(),
    };
    let aa = Aa::new(
        f.aa.cert().clone(),
        f.hsm.clone(),
        f.store.clone(),
        vec![known],
    );
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let keys = TicketKeys::signing(&key);
    let request = authorization_request(
        keys,
        &f.ec,
        &f.ec_key,
        f.ea.cert(),
        aa.cert(),
        &[Psid::CAM],
        now(),
    )
    .expect("request");
    let answer = aa.authorize(&request.bytes, now()).expect("authorize");
    assert_eq!(answer.code(), Code::Ok);
    let validation = link.requests.lock().expect("requests")[0].clone();
    // In-process the EA does not look the request up first; its record refuses the replay.
    let again =
        f.ea.validate_in_process(&validation, now())
            .expect("answer");
    assert_eq!(again.code(), VCode::DeniedRequest);
    let over_http = f.ea.validate(&validation, now()).expect("answer");
    assert_eq!(over_http.code(), VCode::DeniedRequest);
}

//! The authorities as a real HTTP server on loopback: a station enrols and gets tickets over
//! HTTP, the AA reaching the EA over HTTP too; refusals are 400 with the standard's code,
//! a wrong content type 415, an oversized body 413.

#[path = "common/loopback.rs"]
mod loopback;
#[path = "common/made_pki.rs"]
mod made_pki;

use loopback::Loopback;
use vss_crypto::{Curve, PrivateKey};
use vss_its::{ItsTime, Psid};
use vss_net::ServeLimits;
use vss_pki::http::{post, HttpError, REQUEST_TYPE};
use vss_pki::messages::{code_name, AuthorizationResponseCode, EnrolmentResponseCode};
use vss_pki::station::{authorization_request, enrolment_request, Outer, TicketKeys};
use vss_pki::store::{PkiStore, Role};

#[test]
fn a_station_enrols_and_gets_tickets_over_http() {
    let mut pki = Loopback::new("alpha");
    pki.start(ServeLimits::default());
    let canonical = PrivateKey::generate(Curve::P256).expect("key");
    pki.register("car-1", canonical.public_key(), &[Psid::CAM, Psid::DENM]);
    let (ea, aa, url) = (pki.ea().clone(), pki.aa().clone(), pki.url.clone());

    let health: serde_json::Value = serde_json::from_slice(
        &ureq::get(format!("{url}/health"))
            .call()
            .expect("health")
            .body_mut()
            .read_to_vec()
            .expect("body"),
    )
    .expect("json");
    assert_eq!(health["ea"], ea.hashed_id8().to_string());

    let ec_key = PrivateKey::generate(Curve::P256).expect("key");
    let request = enrolment_request(
        "car-1",
        &ec_key,
        Outer::Canonical(&canonical),
        &ea,
        ItsTime::now(),
    )
    .expect("request");
    let body = post(&format!("{url}/ea/enrolment"), &request.bytes).expect("post");
    let response = request.read_response(&body, &ea).expect("response");
    assert_eq!(response.code, EnrolmentResponseCode::Ok);
    let ec = response.certificate.expect("credential");

    for _ in 0..3 {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let request = authorization_request(
            TicketKeys::signing(&key),
            &ec,
            &ec_key,
            &ea,
            &aa,
            &[Psid::CAM],
            ItsTime::now(),
        )
        .expect("request");
        let body = post(&format!("{url}/aa/authorization"), &request.bytes).expect("post");
        let response = request.read_response(&body, &aa).expect("response");
        assert_eq!(response.code, AuthorizationResponseCode::Ok);
    }
    assert_eq!(pki.store.issued_by(Role::Aa).expect("records").len(), 3);

    // Garbage: 400 with the code; a wrong content type: 415; too large: 413.
    for (path, want) in [
        ("aa/authorization", "its-aa-cantparse"),
        ("ea/enrolment", "cantparse"),
    ] {
        match post(&format!("{url}/{path}"), b"garbage") {
            Err(HttpError::Refused { code, .. }) => assert_eq!(code, want),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let status = |content_type: &str, body: Vec<u8>| {
        agent
            .post(format!("{url}/ea/enrolment"))
            .header("content-type", content_type)
            .send(&body[..])
            .expect("send")
            .status()
            .as_u16()
    };
    assert_eq!(
        status("application/octet-stream", request.bytes.clone()),
        415
    );
    // The media type is compared as HTTP says: without case, parameters ignored (the EA
    // answers 200 with its encrypted response, not 415).
    for content_type in [
        "application/x-its-request; charset=binary",
        "Application/X-Its-Request",
    ] {
        assert_eq!(
            status(content_type, request.bytes.clone()),
            200,
            "{content_type}"
        );
    }
    assert_eq!(status(REQUEST_TYPE, vec![0; 70_000]), 413);
}

/// Posts an enrolment request and names the answer: the code of the encrypted response, or
/// the code in the header of a request the EA could not open.
fn enrolment_over_http(
    url: &str,
    request: &vss_pki::station::EnrolmentRequest,
    ea: &vss_its::Cert,
) -> (String, Option<vss_its::Cert>) {
    match post(&format!("{url}/ea/enrolment"), &request.bytes) {
        Ok(body) => {
            let response = request.read_response(&body, ea).expect("response");
            (code_name(&response.code), response.certificate)
        }
        Err(HttpError::Refused { code, .. }) => (code, None),
        Err(e) => panic!("{e}"),
    }
}

/// The same for an authorization request.
fn authorization_over_http(
    url: &str,
    request: &vss_pki::station::AuthorizationRequest,
    aa: &vss_its::Cert,
) -> String {
    match post(&format!("{url}/aa/authorization"), &request.bytes) {
        Ok(body) => code_name(&request.read_response(&body, aa).expect("response").code),
        Err(HttpError::Refused { code, .. }) => code,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn refusals_over_http_carry_the_standards_codes_and_issue_nothing() {
    let mut pki = Loopback::new("alpha");
    pki.start(ServeLimits::default());
    let canonical = PrivateKey::generate(Curve::P256).expect("key");
    pki.register("car-1", canonical.public_key(), &[Psid::CAM]);
    let (ea, aa, url) = (pki.ea().clone(), pki.aa().clone(), pki.url.clone());
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let enrolment = |id: &str, signer: &PrivateKey, to: &vss_its::Cert| {
        let request = enrolment_request(id, &key, Outer::Canonical(signer), to, ItsTime::now())
            .expect("request");
        enrolment_over_http(&url, &request, &ea).0
    };
    let impostor = PrivateKey::generate(Curve::P256).expect("key");
    assert_eq!(enrolment("car-9", &canonical, &ea), "unknownits");
    assert_eq!(enrolment("car-1", &impostor, &ea), "invalidsignature");
    assert_eq!(enrolment("car-1", &canonical, &aa), "imnottherecipient");

    let good = enrolment_request(
        "car-1",
        &key,
        Outer::Canonical(&canonical),
        &ea,
        ItsTime::now(),
    )
    .expect("request");
    let (code, ec) = enrolment_over_http(&url, &good, &ea);
    assert_eq!(code, "ok");
    assert_eq!(enrolment_over_http(&url, &good, &ea).0, "deniedrequest");
    let ec = ec.expect("credential");

    // The AA asks the EA over HTTP: a PSID the station may not have is refused there.
    let ticket_key = PrivateKey::generate(Curve::P256).expect("key");
    let ticket = |psids: &[Psid], to: &vss_its::Cert| {
        authorization_request(
            TicketKeys::signing(&ticket_key),
            &ec,
            &key,
            &ea,
            to,
            psids,
            ItsTime::now(),
        )
        .expect("request")
    };
    assert_eq!(
        authorization_over_http(&url, &ticket(&[Psid::CAM, Psid::from(138)], &aa), &aa),
        "deniedpermissions"
    );
    assert_eq!(
        authorization_over_http(&url, &ticket(&[Psid::CAM], &ea), &aa),
        "its-aa-imnottherecipient"
    );
    let good = ticket(&[Psid::CAM], &aa);
    assert_eq!(authorization_over_http(&url, &good, &aa), "ok");
    assert_eq!(
        authorization_over_http(&url, &good, &aa),
        "its-aa-outofsyncrequest"
    );
    // A validation request the EA cannot open.
    match post(&format!("{url}/ea/authorization-validation"), b"garbage") {
        Err(HttpError::Refused { code, .. }) => assert_eq!(code, "cantparse"),
        other => panic!("expected a refusal, got {other:?}"),
    }

    assert_eq!(pki.store.issued_by(Role::Ea).expect("records").len(), 1);
    assert_eq!(pki.store.issued_by(Role::Aa).expect("records").len(), 1);
}

//! The authorities as a real HTTP server on loopback: a station enrols and gets tickets over
//! HTTP, the AA reaching the EA over HTTP too; refusals are 400 with the standard's code,
//! a wrong content type 415, an oversized body 413.

#[path = "common/loopback.rs"]
mod loopback;

use loopback::Loopback;
use vss_crypto::{Curve, PrivateKey};
use vss_its::ItsTime;
use vss_pki::http::{post, HttpError, REQUEST_TYPE};
use vss_pki::messages::{AuthorizationResponseCode, EnrolmentResponseCode};
use vss_pki::station::{authorization_request, enrolment_request, Outer};
use vss_pki::store::{PkiStore, Role};

#[test]
fn a_station_enrols_and_gets_tickets_over_http() {
    let mut pki = Loopback::new("alpha");
    pki.start();
    let canonical = PrivateKey::generate(Curve::P256).expect("key");
    pki.register("car-1", canonical.public_key(), &[36, 37]);
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
        let request = authorization_request(&key, &ec, &ec_key, &ea, &aa, &[36], ItsTime::now())
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
    assert_eq!(status(REQUEST_TYPE, vec![0; 70_000]), 413);
}

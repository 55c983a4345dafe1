//! The authorities as a real HTTP server on loopback: a station enrols and gets tickets over
//! HTTP, the AA reaching the EA over HTTP too; refusals are 400 with the standard's code,
//! a wrong content type 415, an oversized body 413.

use std::sync::Arc;

use vss_crypto::{Curve, PrivateKey};
use vss_hsm::{Hsm, SoftHsm};
use vss_its::{ItsTime, TrustStore};
use vss_pki::authority::{init, Aa, Ea, InitRequest, KnownEa, PkiDir};
use vss_pki::http::{post, router, HttpEaLink, HttpError, Services, REQUEST_TYPE};
use vss_pki::messages::{AuthorizationResponseCode, EnrolmentResponseCode};
use vss_pki::station::{authorization_request, enrolment_request, Outer};
use vss_pki::store::{PkiStore, Role, SqliteStore, Station};

struct Server {
    base: String,
    _runtime: tokio::runtime::Runtime,
}

/// Serves `services` on a free loopback port.
fn serve(services: impl FnOnce(&str) -> Services) -> Server {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let app = router(services(&base));
    runtime.spawn(async move { axum::serve(listener, app).await });
    Server {
        base,
        _runtime: runtime,
    }
}

#[test]
fn a_station_enrols_and_gets_tickets_over_http() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pki = PkiDir::new(dir.path());
    SoftHsm::init(&pki.keys(), "1234", "12345678").expect("hsm");
    let hsm: Arc<dyn Hsm> = Arc::new(SoftHsm::open(&pki.keys(), "1234").expect("open"));
    let made = init(&pki, hsm.as_ref(), &InitRequest::new("alpha")).expect("init");
    let store = Arc::new(SqliteStore::open(&pki.database()).expect("store"));
    let canonical = PrivateKey::generate(Curve::P256).expect("key");
    store
        .register_station(&Station {
            canonical_id: "car-1".into(),
            curve: "p256".into(),
            public_key: canonical.public_key().to_sec1_compressed().to_vec(),
            psids: vec![36, 37],
        })
        .expect("register");
    let (ea_cert, aa_cert) = (made.ea.clone(), made.aa.clone());
    let server = serve(|base| {
        let mut trust = TrustStore::new();
        trust.add(made.root.clone()).expect("anchor");
        let ea = Arc::new(Ea::new(made.ea.clone(), hsm.clone(), store.clone(), trust));
        let aa = Arc::new(Aa::new(
            made.aa.clone(),
            hsm.clone(),
            store.clone(),
            vec![KnownEa {
                cert: made.ea.clone(),
                link: Arc::new(HttpEaLink::new(base)),
            }],
        ));
        Services {
            ea: Some(ea),
            aa: Some(aa),
        }
    });
    let health: serde_json::Value = serde_json::from_slice(
        &ureq::get(format!("{}/health", server.base))
            .call()
            .expect("health")
            .body_mut()
            .read_to_vec()
            .expect("body"),
    )
    .expect("json");
    assert_eq!(health["ea"], ea_cert.hashed_id8().to_string());

    let ec_key = PrivateKey::generate(Curve::P256).expect("key");
    let request = enrolment_request(
        "car-1",
        &ec_key,
        Outer::Canonical(&canonical),
        &ea_cert,
        ItsTime::now(),
    )
    .expect("request");
    let body = post(&format!("{}/ea/enrolment", server.base), &request.bytes).expect("post");
    let response = request.read_response(&body, &ea_cert).expect("response");
    assert_eq!(response.code, EnrolmentResponseCode::Ok);
    let ec = response.certificate.expect("credential");

    for _ in 0..3 {
        let key = PrivateKey::generate(Curve::P256).expect("key");
        let request = authorization_request(
            &key,
            &ec,
            &ec_key,
            &ea_cert,
            &aa_cert,
            &[36],
            ItsTime::now(),
        )
        .expect("request");
        let body =
            post(&format!("{}/aa/authorization", server.base), &request.bytes).expect("post");
        let response = request.read_response(&body, &aa_cert).expect("response");
        assert_eq!(response.code, AuthorizationResponseCode::Ok);
    }
    assert_eq!(store.issued_by(Role::Aa).expect("records").len(), 3);

    // Garbage: 400 with the code; a wrong content type: 415; too large: 413.
    match post(&format!("{}/aa/authorization", server.base), b"garbage") {
        Err(HttpError::Refused { code, .. }) => assert_eq!(code, "its-aa-cantparse"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    match post(&format!("{}/ea/enrolment", server.base), b"garbage") {
        Err(HttpError::Refused { code, .. }) => assert_eq!(code, "cantparse"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let status = |content_type: &str, body: Vec<u8>| {
        agent
            .post(format!("{}/ea/enrolment", server.base))
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

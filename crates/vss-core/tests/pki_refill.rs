//! The pseudonym pool refilled by the real PKI client: a PKI served on loopback (the EA and
//! AA of vss-pki over HTTP), a station enrolled at it, and a manager whose empty pool asks
//! the AA for tickets in the background; the tickets it signs with validate to the root.

#[path = "../../vss-pki/tests/common/loopback.rs"]
mod loopback;
#[path = "../../vss-pki/tests/common/made_pki.rs"]
mod made_pki;

use std::sync::Arc;

use loopback::Loopback;
use vss_core::config::PseudonymConfig;
use vss_core::pseudonym::{PkiTickets, SystemClock};
use vss_core::{Error, PseudonymManager};
use vss_crypto::Curve;
use vss_hsm::{GenerateKeyRequest, Hsm, SoftHsm};
use vss_its::{ItsTime, Psid, TrustAnchors, Validator, Verdict};
use vss_pki::station::{enroll, Repository};

#[test]
fn an_empty_pool_is_filled_from_the_aa_over_http() {
    let mut pki = Loopback::new("alpha");
    pki.start(vss_net::ServeLimits::default());
    let dir = tempfile::tempdir().expect("tempdir");
    SoftHsm::init(&dir.path().join("keys"), "1234", "12345678").expect("hsm");
    let hsm: Arc<dyn Hsm> =
        Arc::new(SoftHsm::open(&dir.path().join("keys"), "1234").expect("open"));
    let canonical = hsm
        .generate_key(&GenerateKeyRequest::new("canonical", Curve::P256))
        .expect("key");
    pki.register(
        "car-1",
        &hsm.public_key(&canonical.handle).expect("public"),
        &[Psid::CAM, Psid::DENM],
    );
    let repository = || Repository::open(&dir.path().join("repository")).expect("repository");
    enroll(
        hsm.as_ref(),
        &repository(),
        "car-1",
        "canonical",
        &pki.url,
        pki.ea(),
    )
    .expect("enrol");

    let rules = PseudonymConfig {
        min_pool: 2,
        request_count: 3,
        ..PseudonymConfig::default()
    };
    let source = PkiTickets::new(
        hsm.clone(),
        repository(),
        &pki.url,
        pki.aa().clone(),
        pki.ea().clone(),
        &rules.psids,
    );
    let manager = PseudonymManager::new(
        hsm.clone(),
        repository(),
        rules,
        Some(Arc::new(source)),
        Arc::new(SystemClock),
    )
    .expect("manager");
    assert!(matches!(manager.acquire(), Err(Error::NoPseudonym(_))));
    manager.wait_for_refill();
    assert_eq!(manager.stats().tickets_received, 3);
    let lease = manager.acquire().expect("a lease after the refill");
    hsm.key(&lease.key_label)
        .expect("the ticket's key is in the HSM");
    let mut anchors = TrustAnchors::new();
    anchors.add(pki.certs.root.clone()).expect("anchor");
    let report = Validator::new(anchors, 8).verify_certificate(
        &lease.cert,
        std::slice::from_ref(pki.aa()),
        ItsTime::now().plus_micros(1_000_000),
    );
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
}

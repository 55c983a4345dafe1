//! The entity on a station trust store kept current by `[trust.update]`: two testbed PKIs
//! publish their CTL and CRL, a TLM its ECTL, all at a distribution centre on loopback. The
//! entity makes its store on opening, accepts its own messages under PKI alpha's AA, and
//! after alpha revokes that AA, one `refresh_trust` later refuses them as `Revoked`. A
//! refresh that fails (the DC gone) keeps the store and the verdicts.

use std::sync::Arc;
use std::time::Duration;

use vss_core::config::{PolicyKind, TrustUpdateConfig};
use vss_core::sign::SignOptions;
use vss_core::verify::Outcome;
use vss_core::Vss;
use vss_hsm::SoftHsm;
use vss_its::{ItsTime, Psid, Verdict};
use vss_net::ServeLimits;
use vss_pki::authority::{init_tlm, CtlRequest, EctlRequest, InitRequest, PkiDir};
use vss_pki::http::{list_url, DistributionCentre, ListKind, LoopbackServer, Services};
use vss_pki::store::SqliteStore;
use vss_testbed::{HsmOptions, Testbed, PIN};

const DAY: Duration = Duration::from_secs(86_400);

/// The verdict on a message the entity signs (its ticket in it: a refresh empties the
/// certificate cache), `None` when valid.
fn verdict(vss: &Vss, seq: u8) -> Option<Verdict> {
    let options = SignOptions {
        with_certificate: true,
        ..SignOptions::psid(Psid::CAM)
    };
    let signed = vss.create_signature_with(&options, &[seq]).expect("sign");
    match vss.verify_signature(&signed.bytes).expect("verify") {
        Outcome::Valid { .. } => None,
        Outcome::Invalid { verdict, .. } => Some(verdict),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_entity_updates_its_trust_store_and_refuses_a_revoked_aa_after_a_refresh() {
    let testbed = Testbed::new(&["alpha", "beta"]).expect("testbed");
    let (alpha, beta) = (
        testbed.pki("alpha").expect("alpha"),
        testbed.pki("beta").expect("beta"),
    );
    let tlm_dir = PkiDir::new(&testbed.dir().join("tlm"));
    SoftHsm::init(&tlm_dir.keys(), PIN, "12345678").expect("hsm");
    let tlm_hsm = SoftHsm::open(&tlm_dir.keys(), PIN).expect("open");
    let tlm = init_tlm(&tlm_dir, &tlm_hsm, &InitRequest::new("tlm")).expect("TLM");

    let mut server = LoopbackServer::bind().expect("bind");
    let dc = server.url().to_string();
    let dirs = [alpha.dir.path(), beta.dir.path(), tlm_dir.path()].map(|p| p.to_path_buf());
    let services = Services {
        dc: Some(Arc::new(DistributionCentre::new(&dirs).expect("DC"))),
        ..Services::default()
    };
    server
        .serve(services, ServeLimits::default())
        .expect("serve");
    for pki in [alpha, beta] {
        let request = CtlRequest {
            ea_url: pki.url().into(),
            aa_url: pki.url().into(),
            dc_url: dc.clone(),
            now: ItsTime::now(),
            validity: DAY,
        };
        pki.dir
            .issue_ctl(pki.hsm(), pki.store(), &request)
            .expect("CTL");
        pki.dir
            .issue_crl(pki.hsm(), pki.store(), ItsTime::now(), DAY)
            .expect("CRL");
    }
    let roots = [alpha.certs.root.clone(), beta.certs.root.clone()];
    let tlm_store = SqliteStore::open(&tlm_dir.database()).expect("TLM store");
    let request = EctlRequest::at_one_centre(&roots, &dc, ItsTime::now(), DAY);
    tlm_dir
        .issue_ectl(&tlm_hsm, &tlm_store, &request)
        .expect("ECTL");

    let station = testbed
        .station("car", &HsmOptions::soft())
        .expect("station");
    station.enroll(alpha).expect("enrol");
    station.pseudonyms(alpha, alpha, 3).expect("tickets");
    let mut config = station.config(&testbed, alpha, alpha, &testbed.dir().join("stats"));
    config.pki = None;
    config.verification.policy = PolicyKind::Always;
    config.trust.anchors.clear();
    config.trust.authorities.clear();
    let store = testbed.dir().join("trust");
    let tlm_cert = testbed.dir().join("tlm.cert");
    std::fs::write(&tlm_cert, tlm.canonical_bytes()).expect("pin the TLM");
    config.trust.store = Some(store.clone());
    config.trust.update = Some(TrustUpdateConfig {
        tlm_cert,
        ectl: list_url(&dc, ListKind::Ectl, &tlm.hashed_id8()),
        every: Duration::from_secs(3600),
    });

    let vss = Vss::open(&config, PIN).expect("open: the first update makes the store");
    assert!(store.join("current").exists());
    assert_eq!(verdict(&vss, 1), None, "valid under alpha's listed AA");

    assert!(alpha
        .dir
        .revoke(alpha.store(), &alpha.certs.aa)
        .expect("revoke"));
    alpha
        .dir
        .issue_crl(alpha.hsm(), alpha.store(), ItsTime::now(), DAY)
        .expect("CRL");
    assert_eq!(verdict(&vss, 2), None, "not before the refresh");
    let refresh = vss.refresh_trust(&config).expect("refresh");
    assert!(refresh.updated);
    assert_eq!(refresh.roots, 2);
    assert!(refresh.stale_crls.is_empty());
    assert_eq!(verdict(&vss, 3), Some(Verdict::Revoked));

    drop(server);
    assert!(vss.refresh_trust(&config).is_err(), "the DC is gone");
    assert_eq!(
        verdict(&vss, 4),
        Some(Verdict::Revoked),
        "the last good store stays"
    );
}

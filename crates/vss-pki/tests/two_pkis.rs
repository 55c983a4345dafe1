//! Two PKIs on loopback that trust each other, and a station with its keys in a soft HSM and
//! its certificates in its repository (seed 000's Test_LTCREQ_VB_01–02 and
//! Test_PSNYMREQ_VB_01–04): enrolment at A; pseudonyms from A's AA and from B's AA with A's
//! enrolment credential; every certificate stored beside its `.meta`, its keys still in the
//! HSM, and valid up to its root.

#[path = "common/loopback.rs"]
mod loopback;
#[path = "common/made_pki.rs"]
mod made_pki;

use loopback::Loopback;
use vss_crypto::Curve;
use vss_hsm::{GenerateKeyRequest, Hsm, SoftHsm};
use vss_its::{Cert, ItsTime, Psid, TrustAnchors, Validator, Verdict};
use vss_net::ServeLimits;
use vss_pki::authority::PeerPki;
use vss_pki::station::{enroll, pseudonyms, CertKind, Repository, TicketBatch};
use vss_pki::store::{PkiStore, Role};
use vss_pki::Error;

fn trust(a: &Loopback, b: &Loopback, name: &str) {
    a.pki()
        .add_peer(&PeerPki {
            name: name.into(),
            ea: b.ea().clone(),
            root: b.certs.root.clone(),
            ea_url: b.url.clone(),
        })
        .expect("trust");
}

fn valid_under(cert: &Cert, root: &Cert, issuer: &Cert) {
    let mut anchors = TrustAnchors::new();
    anchors.add(root.clone()).expect("anchor");
    let report = Validator::new(anchors, 8).verify_certificate(
        cert,
        std::slice::from_ref(issuer),
        ItsTime::now().plus_micros(1_000_000),
    );
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
}

/// A station: its key store (with a canonical key) and repository in a temporary directory,
/// registered at `pki` as `id` with `psids`.
struct StationUnderTest {
    dir: tempfile::TempDir,
    hsm: SoftHsm,
    repository: Repository,
}

fn new_station(pki: &Loopback, id: &str, psids: &[Psid]) -> StationUnderTest {
    let dir = tempfile::tempdir().expect("tempdir");
    SoftHsm::init(&dir.path().join("keys"), "1234", "12345678").expect("hsm");
    let hsm = SoftHsm::open(&dir.path().join("keys"), "1234").expect("open");
    let canonical = hsm
        .generate_key(&GenerateKeyRequest::new("canonical", Curve::P256))
        .expect("key");
    let repository = Repository::open(&dir.path().join("repository")).expect("repository");
    pki.register(
        id,
        &hsm.public_key(&canonical.handle).expect("public"),
        psids,
    );
    StationUnderTest {
        dir,
        hsm,
        repository,
    }
}

#[test]
fn pseudonyms_from_both_pkis_with_one_enrolment() {
    let mut a = Loopback::new("alpha");
    let mut b = Loopback::new("beta");
    trust(&a, &b, "beta");
    trust(&b, &a, "alpha");
    a.start(ServeLimits::default());
    b.start(ServeLimits::default());

    let StationUnderTest {
        dir: station,
        hsm,
        repository,
    } = new_station(&a, "car-1", &[Psid::CAM, Psid::DENM]);

    // Test_LTCREQ_VB_01: the enrolment credential, stored with its .meta, key in the HSM.
    let ec = enroll(&hsm, &repository, "car-1", "canonical", &a.url, a.ea()).expect("enrol");
    valid_under(&ec.cert, &a.certs.root, a.ea());
    assert!(station
        .path()
        .join(format!(
            "repository/enrolment/{}.meta",
            ec.cert.hashed_id8()
        ))
        .exists());
    hsm.key(&ec.meta.verification_key)
        .expect("EC key in the HSM");

    // Test_PSNYMREQ_VB_01: a hundred pseudonyms from A's AA, in parallel.
    let from_a = pseudonyms(
        &hsm,
        &repository,
        &a.url,
        a.aa(),
        a.ea(),
        &[Psid::CAM, Psid::DENM],
        TicketBatch::of(100),
    )
    .expect("tickets");
    // Test_PSNYMREQ_VB_03: five from B's AA, with A's enrolment credential.
    let from_b = pseudonyms(
        &hsm,
        &repository,
        &b.url,
        b.aa(),
        a.ea(),
        &[Psid::CAM],
        TicketBatch::of(5),
    )
    .expect("tickets");
    for (tickets, pki) in [(&from_a, &a), (&from_b, &b)] {
        for t in tickets {
            valid_under(&t.cert, &pki.certs.root, pki.aa());
            hsm.key(&t.meta.verification_key)
                .expect("ticket key in the HSM");
            // Each ticket carries the encryption key the station made for it (V2.x).
            let label = t
                .meta
                .encryption_key
                .as_deref()
                .expect("an encryption key label");
            let encryption = hsm.key(label).expect("ticket encryption key in the HSM");
            assert_eq!(
                t.cert.encryption_key().expect("key"),
                Some(hsm.public_key(&encryption.handle).expect("public key"))
            );
        }
    }
    assert_eq!(
        repository.list(CertKind::Pseudonym).expect("list").len(),
        105
    );
    assert_eq!(a.store.issued_by(Role::Aa).expect("records").len(), 100);
    assert_eq!(b.store.issued_by(Role::Aa).expect("records").len(), 5);
    // B's EA issued nothing: A's EA validated A's credential for B's AA.
    assert!(b.store.issued_by(Role::Ea).expect("records").is_empty());

    // A PSID the station may not have: refused, and no ticket key is left behind.
    let keys_before = hsm.keys().expect("keys").len();
    let err = pseudonyms(
        &hsm,
        &repository,
        &b.url,
        b.aa(),
        a.ea(),
        &[Psid::from(138)],
        TicketBatch::of(1),
    )
    .expect_err("refused");
    assert!(
        matches!(&err, Error::Refused { code, .. } if code == "deniedpermissions"),
        "{err}"
    );
    assert_eq!(hsm.keys().expect("keys").len(), keys_before);

    // Re-enrolment uses the stored credential.
    let renewed =
        enroll(&hsm, &repository, "car-1", "canonical", &a.url, a.ea()).expect("re-enrol");
    assert_ne!(renewed.cert.hashed_id8(), ec.cert.hashed_id8());

    // Test_LTCREQ_VB_02 and Test_PSNYMREQ_VB_04, the mirror: a station of B, a hundred
    // tickets from B's AA, then a hundred from A's AA with B's enrolment credential.
    let StationUnderTest {
        dir: _other,
        hsm: other_hsm,
        repository: other_repository,
    } = new_station(&b, "bus-7", &[Psid::CAM, Psid::DENM]);
    let ec_b = enroll(
        &other_hsm,
        &other_repository,
        "bus-7",
        "canonical",
        &b.url,
        b.ea(),
    )
    .expect("enrol");
    valid_under(&ec_b.cert, &b.certs.root, b.ea());
    // A hundred from B's own AA, as from A's above.
    let own = pseudonyms(
        &other_hsm,
        &other_repository,
        &b.url,
        b.aa(),
        b.ea(),
        &[Psid::CAM, Psid::DENM],
        TicketBatch::of(100),
    )
    .expect("tickets");
    for t in &own {
        valid_under(&t.cert, &b.certs.root, b.aa());
        other_hsm
            .key(&t.meta.verification_key)
            .expect("ticket key in the HSM");
    }
    assert_eq!(b.store.issued_by(Role::Aa).expect("records").len(), 105);
    let crossed = pseudonyms(
        &other_hsm,
        &other_repository,
        &a.url,
        a.aa(),
        b.ea(),
        &[Psid::DENM],
        TicketBatch::of(100),
    )
    .expect("tickets");
    for t in &crossed {
        valid_under(&t.cert, &a.certs.root, a.aa());
    }
    assert_eq!(a.store.issued_by(Role::Aa).expect("records").len(), 200);
    assert_eq!(
        other_repository
            .list(CertKind::Pseudonym)
            .expect("list")
            .len(),
        200
    );
}

#[test]
fn an_aa_without_the_other_pki_in_its_trust_list_refuses_its_credentials() {
    let mut a = Loopback::new("alpha");
    let mut b = Loopback::new("beta");
    a.start(ServeLimits::default());
    b.start(ServeLimits::default());
    let StationUnderTest {
        dir: station,
        hsm,
        repository,
    } = new_station(&a, "car-2", &[Psid::CAM]);
    enroll(&hsm, &repository, "car-2", "canonical", &a.url, a.ea()).expect("enrol");
    let err = pseudonyms(
        &hsm,
        &repository,
        &b.url,
        b.aa(),
        a.ea(),
        &[Psid::CAM],
        TicketBatch::of(1),
    )
    .expect_err("refused");
    assert!(
        matches!(&err, Error::Refused { code, .. } if code == "its-aa-unknownea"),
        "{err}"
    );
    // An unregistered station cannot enrol.
    let err = enroll(
        &hsm,
        &Repository::open(&station.path().join("other")).expect("repo"),
        "car-9",
        "canonical",
        &a.url,
        a.ea(),
    )
    .expect_err("refused");
    assert!(
        matches!(&err, Error::Refused { code, .. } if code == "unknownits"),
        "{err}"
    );
}

//! The station's certificate repository: `.cert` beside `.meta`, listed, removed, and a
//! half-written entry never listed.

use vss_crypto::{Curve, PrivateKey};
use vss_its::asn::Duration;
use vss_its::{issue_certificate, Cert, CertificateRequest, Permission, Profile, Psid};
use vss_pki::station::{CertKind, Repository, RepositoryError};

fn root() -> (Cert, PrivateKey) {
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let mut r =
        CertificateRequest::new(Profile::Root, key.public_key().clone(), Duration::Years(2));
    r.name = Some("root".into());
    (issue_certificate(&r, None, &key).expect("root"), key)
}

/// An AA under `root`, with its key.
fn aa(root: &(Cert, PrivateKey)) -> (Cert, PrivateKey) {
    let aa_key = PrivateKey::generate(Curve::P256).expect("key");
    let mut aa =
        CertificateRequest::new(Profile::Aa, aa_key.public_key().clone(), Duration::Years(1));
    aa.name = Some("aa".into());
    aa.encryption_key = Some(
        PrivateKey::generate(Curve::P256)
            .expect("key")
            .public_key()
            .clone(),
    );
    (
        issue_certificate(&aa, Some(&root.0), &root.1).expect("aa"),
        aa_key,
    )
}

/// A ticket issued by a new AA under `root`, valid for `hours`.
fn ticket(root: &(Cert, PrivateKey), hours: u16) -> Cert {
    let (aa, aa_key) = aa(root);
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let mut r = CertificateRequest::new(
        Profile::At,
        key.public_key().clone(),
        Duration::Hours(hours),
    );
    r.app_permissions = vec![Permission::psid(Psid::CAM)];
    issue_certificate(&r, Some(&aa), &aa_key).expect("ticket")
}

#[test]
fn entries_are_stored_listed_and_removed_with_their_meta() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = Repository::open(dir.path()).expect("open");
    let root = root();
    let tickets: Vec<Cert> = (1..=3).map(|h| ticket(&root, h * 24)).collect();
    for (i, t) in tickets.iter().enumerate() {
        repo.store(CertKind::Pseudonym, t, &format!("at-{i}"), None)
            .expect("store");
    }
    repo.store(CertKind::Enrolment, &root.0, "ec", Some("ec-enc"))
        .expect("store");

    let listed = repo.list(CertKind::Pseudonym).expect("list");
    assert_eq!(listed.len(), 3);
    let mut labels: Vec<&str> = listed
        .iter()
        .map(|e| e.meta.verification_key.as_str())
        .collect();
    labels.sort();
    assert_eq!(labels, ["at-0", "at-1", "at-2"]);
    let enrolment = repo.list(CertKind::Enrolment).expect("list");
    assert_eq!(enrolment.len(), 1);
    assert_eq!(enrolment[0].meta.encryption_key.as_deref(), Some("ec-enc"));
    assert_eq!(enrolment[0].cert, root.0);

    // On disk: the seed's .meta beside each certificate, naming the key handles.
    let id = tickets[0].hashed_id8();
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.path().join(format!("pseudonyms/{id}.meta"))).expect("meta"),
    )
    .expect("json");
    assert_eq!(meta["kind"], "pseudonym");
    assert_eq!(meta["hashed_id8"], id.to_string());
    assert_eq!(meta["issuer"].as_str().map(str::len), Some(16));
    assert!(meta["verification_key"]
        .as_str()
        .is_some_and(|l| l.starts_with("at-")));

    assert!(repo.remove(CertKind::Pseudonym, id).expect("remove"));
    assert!(!dir.path().join(format!("pseudonyms/{id}.cert")).exists());
    assert!(!repo.remove(CertKind::Pseudonym, id).expect("remove again"));
    assert_eq!(repo.list(CertKind::Pseudonym).expect("list").len(), 2);
}

#[test]
fn a_certificate_without_its_meta_is_not_an_entry_and_a_wrong_meta_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = Repository::open(dir.path()).expect("open");
    let root = root();
    let t = ticket(&root, 24);
    // A crash after the certificate and before its .meta.
    std::fs::write(
        dir.path()
            .join(format!("pseudonyms/{}.cert", t.hashed_id8())),
        t.bytes(),
    )
    .expect("write");
    assert!(repo.list(CertKind::Pseudonym).expect("list").is_empty());
    // A .meta that names another certificate.
    let other = ticket(&root, 48);
    let entry = repo
        .store(CertKind::Pseudonym, &other, "at", None)
        .expect("store");
    let mut meta = entry.meta.clone();
    meta.hashed_id8 = t.hashed_id8().to_string();
    std::fs::write(
        dir.path()
            .join(format!("pseudonyms/{}.meta", other.hashed_id8())),
        serde_json::to_vec(&meta).expect("json"),
    )
    .expect("write");
    assert!(matches!(
        repo.list(CertKind::Pseudonym),
        Err(RepositoryError::Corrupt { .. })
    ));
}

#[test]
fn ticket_batches_out_of_range_are_refused_before_anything_is_sent() {
    use vss_pki::station::{pseudonyms, TicketBatch, MAX_TICKETS, MAX_TICKET_CONCURRENCY};
    use vss_pki::Error;

    let dir = tempfile::tempdir().expect("tempdir");
    let repo = Repository::open(&dir.path().join("repo")).expect("open");
    let keys = dir.path().join("keys");
    vss_hsm::SoftHsm::init(&keys, "1234", "12345678").expect("init");
    let hsm = vss_hsm::SoftHsm::open(&keys, "1234").expect("open");
    let root = root();
    let (aa, _) = aa(&root);
    // The AA "at" a port nothing listens on, and no enrolment credential: a batch that got
    // past its checks would fail on those instead.
    let ask = |batch| {
        pseudonyms(
            &hsm,
            &repo,
            "http://127.0.0.1:9",
            &aa,
            &root.0,
            &[Psid::CAM],
            batch,
        )
    };
    for (count, concurrency, what) in [
        (0, 8, "0 tickets"),
        (MAX_TICKETS + 1, 8, "10001 tickets"),
        (usize::MAX, 8, "tickets: ask for 1 to 10000"),
        (1, 0, "0 requests at once"),
        (1, MAX_TICKET_CONCURRENCY + 1, "65 requests at once"),
    ] {
        let batch = TicketBatch { count, concurrency };
        let err = ask(batch).expect_err("refused");
        assert!(
            matches!(&err, Error::InvalidRequest(text) if text.contains(what)),
            "{batch:?}: {err}"
        );
    }
    let err = ask(TicketBatch::of(3)).expect_err("no credential");
    assert!(err.to_string().contains("enrol first"), "{err}");
    assert!(repo.list(CertKind::Pseudonym).expect("list").is_empty());
}

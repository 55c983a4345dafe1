//! The trust-list messages of TS 102 941 v2.1.1 against the real EU ECTL (the L2 test list
//! signed by the TLM with brainpoolP384r1): it decodes strictly into its commands. And a
//! made PKI's root issues its CTL and CRL, which read back and verify under the root.

#[path = "common/made_pki.rs"]
mod made_pki;

use vss_its::{Cert, Psid};
use vss_pki::messages::{
    decode, encode, CtlCommand, CtlEntry, EtsiTs102941Data, EtsiTs102941DataContent,
};

fn vector(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/vectors/its/ectl/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn hashed_id8(id: &rasn_its::ieee1609dot2::base_types::HashedId8) -> String {
    hex::encode_upper(id.0.as_ref())
}

#[test]
fn the_eu_ectl_decodes_into_its_roots_tlm_and_distribution_centres() {
    let ectl = vector("eu_ectl_L2_CE4CF6C19BFED720.oer");
    let message = vss_its::SignedMessage::from_bytes(&ectl).expect("ECTL");
    let payload = message.payload().expect("an inline payload");
    let data: EtsiTs102941Data = decode("ECTL", payload).expect("strict COER");
    assert_eq!(encode("ECTL", &data).expect("encode"), payload);
    let EtsiTs102941DataContent::CertificateTrustListTlm(ctl) = data.content else {
        panic!("not a TLM CTL: {:?}", data.content);
    };
    assert_eq!(ctl.version, 1.into());
    assert!(ctl.is_full_ctl);
    assert_eq!(ctl.ctl_sequence, 1);
    // Time32 679788003 (TAI seconds since 2004-01-01): 2025-07-16 21:59:58 UTC.
    assert_eq!(ctl.next_update.0, 679_788_003);

    let mut roots = Vec::new();
    let mut centres = Vec::new();
    let mut tlm = None;
    for command in &ctl.ctl_commands {
        match command {
            CtlCommand::Add(CtlEntry::Rca(entry)) => {
                assert!(entry.successor_to.is_none());
                let cert = Cert::from_asn(entry.selfsigned_root_ca.clone()).expect("a root");
                roots.push(cert.hashed_id8().to_string());
            }
            CtlCommand::Add(CtlEntry::Dc(entry)) => {
                let certs: Vec<String> = entry.cert.iter().map(hashed_id8).collect();
                centres.push((entry.url.to_string(), certs));
            }
            CtlCommand::Add(CtlEntry::Tlm(entry)) => tlm = Some(entry.access_point.to_string()),
            other => panic!("unexpected in the ECTL: {other:?}"),
        }
    }
    roots.sort();
    assert_eq!(roots, ["624E2E81B7945C4F", "B1FC75CD5A80C630"]);
    assert_eq!(tlm.as_deref(), Some("https://cpoc.jrc.ec.europa.eu/L2"));
    centres.sort();
    assert_eq!(
        centres,
        [
            (
                "http://1.eu-dc.l2.c-its-eu-rca.eu".to_string(),
                vec!["624E2E81B7945C4F".to_string()]
            ),
            (
                "http://microsec-ccms-dc-2024-l2.v2x-pki.com/".to_string(),
                vec!["B1FC75CD5A80C630".to_string()]
            ),
        ]
    );
}

#[test]
fn the_eu_ectl_reads_as_a_full_tlm_list_with_each_roots_distribution_centre() {
    use vss_pki::lists::{ListIssuer, RevocationList, TrustList};

    let list = TrustList::parse(&vector("eu_ectl_L2_CE4CF6C19BFED720.oer")).expect("ECTL");
    assert_eq!(list.issuer, ListIssuer::Tlm);
    assert_eq!(
        list.signer.map(|s| s.to_string()).as_deref(),
        Some("E7A4B2B045E7ACF9")
    );
    assert!(list.full);
    assert_eq!(list.sequence, 1);
    assert!(list.deletions.is_empty());
    assert_eq!(list.next_update.to_string(), "2025-07-16T21:59:58Z");
    let roots: Vec<_> = list.roots().iter().map(|c| c.hashed_id8()).collect();
    assert_eq!(roots.len(), 2);
    let urls: Vec<Vec<&str>> = roots.iter().map(|r| list.dc_urls(r)).collect();
    assert!(
        urls.contains(&vec!["http://1.eu-dc.l2.c-its-eu-rca.eu"]),
        "{urls:?}"
    );
    assert!(
        urls.contains(&vec!["http://microsec-ccms-dc-2024-l2.v2x-pki.com/"]),
        "{urls:?}"
    );

    // The ECTL is no CRL (another PSID), a certificate is no list, and a cut list is
    // malformed.
    let ectl = vector("eu_ectl_L2_CE4CF6C19BFED720.oer");
    assert!(matches!(
        RevocationList::parse(&ectl),
        Err(vss_pki::Error::Malformed { what: "CRL", .. })
    ));
    assert!(TrustList::parse(&vector("eu_tlm_L2_cert_E7A4B2B045E7ACF9.oer")).is_err());
    assert!(TrustList::parse(&ectl[..ectl.len() / 2]).is_err());
}

#[test]
fn a_root_issues_its_ctl_and_crl_which_verify_under_it_and_list_what_it_revoked() {
    use std::time::Duration;
    use vss_its::{ItsTime, TrustAnchors, Validator, Verdict};
    use vss_pki::authority::{CtlRequest, MAX_LIST_VALIDITY};
    use vss_pki::lists::{ListEntry, ListIssuer, RevocationList, TrustList};

    let made = made_pki::MadePki::new("alpha");
    let pki = made.pki();
    let now = ItsTime::now();
    let week = Duration::from_secs(7 * 86_400);
    let request = CtlRequest {
        ea_url: "http://127.0.0.1:8081".into(),
        aa_url: "http://127.0.0.1:8082".into(),
        dc_url: "http://127.0.0.1:8083".into(),
        now,
        validity: week,
    };
    let mut trust = TrustAnchors::new();
    trust.add(made.certs.root.clone()).expect("anchor");
    let mut validator = Validator::new(trust, 8);
    let later = now.plus_micros(1_000_000);

    let ctl = pki
        .issue_ctl(made.hsm.as_ref(), made.store.as_ref(), &request)
        .expect("CTL");
    assert_eq!(std::fs::read(pki.ctl_path()).expect("kept"), ctl);
    let report = validator.verify_data(&ctl, &[], later);
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
    assert_eq!(report.psid, Some(Psid::CTL));
    let list = TrustList::parse(&ctl).expect("parse");
    assert_eq!(
        (list.issuer, list.full, list.sequence),
        (ListIssuer::RootCa, true, 1)
    );
    assert_eq!(list.signer, Some(made.certs.root.hashed_id8()));
    assert_eq!(
        list.next_update.micros() / 1_000_000,
        (now.micros() + 7 * 86_400_000_000) / 1_000_000
    );
    let root = made.certs.root.hashed_id8();
    assert_eq!(list.dc_urls(&root), ["http://127.0.0.1:8083"]);
    let mut listed = Vec::new();
    for entry in &list.additions {
        match entry {
            ListEntry::Ea {
                cert,
                aa_access_point,
                its_access_point,
            } => {
                assert_eq!(cert, made.ea());
                assert_eq!(aa_access_point, "http://127.0.0.1:8081");
                assert_eq!(its_access_point.as_deref(), Some("http://127.0.0.1:8081"));
                listed.push("ea");
            }
            ListEntry::Aa { cert, access_point } => {
                assert_eq!(cert, made.aa());
                assert_eq!(access_point, "http://127.0.0.1:8082");
                listed.push("aa");
            }
            ListEntry::Dc { .. } => listed.push("dc"),
            other => panic!("a root's CTL lists {other:?}"),
        }
    }
    assert_eq!(listed, ["ea", "aa", "dc"]);
    // The next one follows in sequence.
    let again = pki
        .issue_ctl(made.hsm.as_ref(), made.store.as_ref(), &request)
        .expect("CTL");
    assert_eq!(TrustList::parse(&again).expect("parse").sequence, 2);

    // Nothing revoked yet: an empty CRL; then the AA, once.
    let empty = pki
        .issue_crl(made.hsm.as_ref(), made.store.as_ref(), now, week)
        .expect("CRL");
    assert!(RevocationList::parse(&empty)
        .expect("parse")
        .revoked
        .is_empty());
    assert!(pki.revoke(made.store.as_ref(), made.aa()).expect("revoke"));
    assert!(!pki
        .revoke(made.store.as_ref(), made.aa())
        .expect("revoke again"));
    let crl = pki
        .issue_crl(made.hsm.as_ref(), made.store.as_ref(), now, week)
        .expect("CRL");
    assert_eq!(std::fs::read(pki.crl_path()).expect("kept"), crl);
    let report = validator.verify_data(&crl, &[], later);
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
    assert_eq!(report.psid, Some(Psid::CRL));
    let revoked = RevocationList::parse(&crl).expect("parse");
    assert_eq!(revoked.revoked, [made.aa().hashed_id8()]);
    assert_eq!(revoked.signer, Some(root));

    // Refused: another PKI's certificate, a validity of nothing or of more than a year, a
    // DC that is no URL. None of them changes the kept lists.
    let other = made_pki::MadePki::new("beta");
    assert!(pki.revoke(made.store.as_ref(), other.aa()).is_err());
    for validity in [Duration::ZERO, MAX_LIST_VALIDITY + Duration::from_secs(1)] {
        assert!(pki
            .issue_crl(made.hsm.as_ref(), made.store.as_ref(), now, validity)
            .is_err());
        let request = CtlRequest {
            validity,
            ..request.clone()
        };
        assert!(pki
            .issue_ctl(made.hsm.as_ref(), made.store.as_ref(), &request)
            .is_err());
    }
    let request = CtlRequest {
        dc_url: "not a url".into(),
        ..request
    };
    assert!(pki
        .issue_ctl(made.hsm.as_ref(), made.store.as_ref(), &request)
        .is_err());
    assert_eq!(std::fs::read(pki.crl_path()).expect("kept"), crl);
    assert_eq!(std::fs::read(pki.ctl_path()).expect("kept"), again);
    assert_eq!(
        vss_pki::store::PkiStore::revoked(made.store.as_ref()).expect("revoked"),
        [made.aa().hashed_id8()]
    );
}

#[test]
fn a_tlm_signs_an_ectl_of_two_roots_that_verifies_under_its_certificate() {
    use std::time::Duration;
    use vss_hsm::SoftHsm;
    use vss_its::{ItsTime, TrustAnchors, Validator, Verdict};
    use vss_pki::authority::{init_tlm, EctlRequest, InitRequest, PkiDir};
    use vss_pki::lists::{ListIssuer, TrustList};

    let (alpha, beta) = (
        made_pki::MadePki::new("alpha"),
        made_pki::MadePki::new("beta"),
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let tlm_dir = PkiDir::new(dir.path());
    SoftHsm::init(&tlm_dir.keys(), "1234", "12345678").expect("hsm");
    let hsm = SoftHsm::open(&tlm_dir.keys(), "1234").expect("open");
    let tlm = init_tlm(&tlm_dir, &hsm, &InitRequest::new("test-tlm")).expect("TLM");
    assert_eq!(tlm.name(), Some("test-tlm"));
    assert!(init_tlm(&tlm_dir, &hsm, &InitRequest::new("again")).is_err());
    // The EU profile's permissions, as the real TLM and root CA certificates carry them: the
    // TLM 624 with bitmap SSP 01C8, a root 622 with 01 and 624 with 0138.
    let eu_tlm = Cert::from_bytes(&vector("eu_tlm_L2_cert_E7A4B2B045E7ACF9.oer")).expect("cert");
    let eu_root = Cert::from_bytes(&vector(
        "extracted/eu_rca_L2_1_EU-ROOT-CA_L2_624E2E81B7945C4F.oer",
    ))
    .expect("cert");
    assert_eq!(tlm.tbs().app_permissions, eu_tlm.tbs().app_permissions);
    assert_eq!(
        alpha.certs.root.tbs().app_permissions,
        eu_root.tbs().app_permissions
    );

    let roots = [alpha.certs.root.clone(), beta.certs.root.clone()];
    let now = ItsTime::now();
    let week = Duration::from_secs(7 * 86_400);
    let dc = "http://127.0.0.1:8090";
    let store = vss_pki::store::SqliteStore::open(&tlm_dir.database()).expect("store");
    let at_dc = |roots: &[vss_its::Cert]| EctlRequest::at_one_centre(roots, dc, now, week);
    let ectl = tlm_dir
        .issue_ectl(&hsm, &store, &at_dc(&roots))
        .expect("ECTL");
    assert_eq!(std::fs::read(tlm_dir.ectl_path()).expect("kept"), ectl);

    let mut trust = TrustAnchors::new();
    trust.add(tlm.clone()).expect("the TLM as anchor");
    let mut validator = Validator::new(trust, 8);
    let report = validator.verify_data(&ectl, &[], now.plus_micros(1_000_000));
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
    assert_eq!(report.signer, Some(tlm.hashed_id8()));

    let list = TrustList::parse(&ectl).expect("parse");
    assert_eq!((list.issuer, list.sequence), (ListIssuer::Tlm, 1));
    let listed: Vec<_> = list.roots().iter().map(|c| c.hashed_id8()).collect();
    assert_eq!(
        listed,
        roots.iter().map(|r| r.hashed_id8()).collect::<Vec<_>>()
    );
    for root in &roots {
        assert_eq!(list.dc_urls(&root.hashed_id8()), [dc]);
    }
    let again = tlm_dir
        .issue_ectl(&hsm, &store, &at_dc(&roots[..1]))
        .expect("ECTL");
    assert_eq!(TrustList::parse(&again).expect("parse").sequence, 2);

    // Each root at its own distribution centre, the ECTL published at a third place: one DC
    // entry per centre, and the TLM entry's access point.
    let mut request = at_dc(&roots);
    request.roots[1].dc_url = "http://127.0.0.1:8091".into();
    request.access_point = "https://cpoc.example/L0".into();
    let kept = tlm_dir.issue_ectl(&hsm, &store, &request).expect("ECTL");
    let apart = TrustList::parse(&kept).expect("parse");
    assert_eq!(apart.dc_urls(&roots[0].hashed_id8()), [dc]);
    assert_eq!(
        apart.dc_urls(&roots[1].hashed_id8()),
        ["http://127.0.0.1:8091"]
    );
    let tlm_points: Vec<&str> = apart
        .additions
        .iter()
        .filter_map(|e| match e {
            vss_pki::lists::ListEntry::Tlm { access_point, .. } => Some(access_point.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(tlm_points, ["https://cpoc.example/L0"]);
    let mut bad = at_dc(&roots);
    bad.roots[0].dc_url = "not a url".into();
    assert!(tlm_dir.issue_ectl(&hsm, &store, &bad).is_err());

    // No root, an EA instead of a root, a PKI directory instead of a TLM: refused, and the
    // kept ECTL stays.
    assert!(tlm_dir.issue_ectl(&hsm, &store, &at_dc(&[])).is_err());
    assert!(tlm_dir
        .issue_ectl(&hsm, &store, &at_dc(&[alpha.ea().clone()]))
        .is_err());
    assert!(alpha
        .pki()
        .issue_ectl(alpha.hsm.as_ref(), alpha.store.as_ref(), &at_dc(&roots))
        .is_err());
    assert_eq!(std::fs::read(tlm_dir.ectl_path()).expect("kept"), kept);
}

/// A day's CTL of the EA and AA at one URL, its lists served at `dc`.
fn served_at(dc: &str) -> vss_pki::authority::CtlRequest {
    vss_pki::authority::CtlRequest {
        ea_url: "http://127.0.0.1:8081".into(),
        aa_url: "http://127.0.0.1:8081".into(),
        dc_url: dc.into(),
        now: vss_its::ItsTime::now(),
        validity: std::time::Duration::from_secs(86_400),
    }
}

#[test]
fn a_station_gets_a_roots_lists_from_a_distribution_centre_on_loopback() {
    use vss_pki::http::{
        get_list, list_url, DistributionCentre, HttpError, ListKind, LoopbackServer,
    };

    let made = made_pki::MadePki::new("alpha");
    let pki = made.pki();
    let mut server = LoopbackServer::bind().expect("bind");
    let dc = server.url().to_string();
    let request = served_at(&dc);
    let ctl = pki
        .issue_ctl(made.hsm.as_ref(), made.store.as_ref(), &request)
        .expect("CTL");
    made_pki::serve_centre(&mut server, &[pki.path().to_path_buf()]);
    let root = made.certs.root.hashed_id8();
    // The URL the CTL names, with a trailing slash or without.
    for base in [dc.clone(), format!("{dc}/")] {
        assert_eq!(
            get_list(&list_url(&base, ListKind::Ctl, &root)).expect("CTL"),
            ctl
        );
    }
    // Not issued yet, not listed here: the status; nobody listening: the transport.
    for (kind, id) in [(ListKind::Crl, root), (ListKind::Ectl, root)] {
        match get_list(&list_url(&dc, kind, &id)) {
            Err(HttpError::Status { status: 404, .. }) => {}
            other => panic!("{kind:?}: {other:?}"),
        }
    }
    // Nobody listening: unreachable, nothing was sent.
    let closed = "http://127.0.0.1:9";
    assert!(matches!(
        get_list(&list_url(closed, ListKind::Ctl, &root)),
        Err(HttpError::Unreachable { .. })
    ));
    // A store that cannot be read: 503, and the centre goes on.
    let db = rusqlite::Connection::open(pki.database()).expect("store");
    db.execute_batch("ALTER TABLE lists RENAME TO lists_elsewhere")
        .expect("hide");
    match get_list(&list_url(&dc, ListKind::Ctl, &root)) {
        Err(HttpError::Status { status: 503, .. }) => {}
        other => panic!("{other:?}"),
    }
    db.execute_batch("ALTER TABLE lists_elsewhere RENAME TO lists")
        .expect("restore");
    assert_eq!(
        get_list(&list_url(&dc, ListKind::Ctl, &root)).expect("CTL"),
        ctl
    );
    // One database is one PKI's store.
    let two = [pki.path().to_path_buf(), pki.path().to_path_buf()];
    assert!(matches!(
        DistributionCentre::open(
            &two,
            Some(&"postgres://127.0.0.1:9/x".parse().expect("a URL"))
        ),
        Err(vss_pki::Error::InvalidRequest(_))
    ));
}

#[test]
fn a_delta_ctl_says_what_changed_since_the_last_full_ctl_and_is_served_until_the_next() {
    use vss_pki::authority::CtlRequest;
    use vss_pki::http::{get_list, list_url, HttpError, ListKind, LoopbackServer};
    use vss_pki::lists::{ListDeletion, ListEntry, TrustList};

    let made = made_pki::MadePki::new("alpha");
    let pki = made.pki();
    let (hsm, store) = (made.hsm.as_ref(), made.store.as_ref());
    let mut server = LoopbackServer::bind().expect("bind");
    let dc = server.url().to_string();
    let request = served_at(&dc);
    // No full CTL yet: nothing to be a delta on.
    assert!(matches!(
        pki.issue_delta_ctl(hsm, store, &request),
        Err(vss_pki::Error::InvalidRequest(_))
    ));
    let full = TrustList::parse(&pki.issue_ctl(hsm, store, &request).expect("CTL")).expect("CTL");
    let unchanged = pki.issue_delta_ctl(hsm, store, &request).expect("delta");
    assert_eq!(
        std::fs::read(pki.delta_ctl_path()).expect("kept"),
        unchanged
    );
    let unchanged = TrustList::parse(&unchanged).expect("delta");
    assert_eq!(
        (
            unchanged.full,
            unchanged.sequence,
            unchanged.additions.len()
        ),
        (false, full.sequence, 0)
    );
    assert!(unchanged.deletions.is_empty());
    assert_eq!(
        full.apply(&unchanged).expect("apply").additions,
        full.additions
    );

    // The AA revoked and the EA moved: the delta deletes the one and adds the other anew.
    assert!(pki.revoke(store, made.aa()).expect("revoke"));
    let moved = CtlRequest {
        ea_url: "http://127.0.0.1:9091".into(),
        ..request.clone()
    };
    let bytes = pki.issue_delta_ctl(hsm, store, &moved).expect("delta");
    let delta = TrustList::parse(&bytes).expect("delta");
    assert_eq!(delta.sequence, full.sequence);
    assert_eq!(
        delta.deletions,
        [ListDeletion::Cert(made.aa().hashed_id8())]
    );
    assert!(
        matches!(delta.additions.as_slice(),
            [ListEntry::Ea { cert, aa_access_point, .. }]
                if cert == made.ea() && aa_access_point == "http://127.0.0.1:9091"),
        "{:?}",
        delta.additions
    );
    let in_force = full.apply(&delta).expect("apply");
    assert!(in_force.full && in_force.deletions.is_empty());
    assert_eq!(in_force.next_update, delta.next_update);
    let kinds: Vec<&str> = in_force
        .additions
        .iter()
        .map(|e| match e {
            ListEntry::Dc { .. } => "dc",
            ListEntry::Ea {
                aa_access_point, ..
            } => aa_access_point.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["dc", "http://127.0.0.1:9091"]);
    // A delta applies to a full list of its sequence and signer only.
    for (on, with) in [(&delta, &delta), (&full, &full)] {
        assert!(matches!(
            on.apply(with),
            Err(vss_pki::Error::Malformed { .. })
        ));
    }
    let other_sequence = TrustList {
        sequence: full.sequence + 1,
        ..full.clone()
    };
    assert!(other_sequence.apply(&delta).is_err());
    let other_signer = TrustList {
        signer: Some(made.ea().hashed_id8()),
        ..full.clone()
    };
    assert!(other_signer.apply(&delta).is_err());

    // Served while CTL 1 is the last full list; a full CTL after it ends that.
    made_pki::serve_centre(&mut server, &[pki.path().to_path_buf()]);
    let root = made.certs.root.hashed_id8();
    let delta_url = list_url(&dc, ListKind::DeltaCtl, &root);
    assert!(delta_url.ends_with(&format!("/getdeltactl/{root}")));
    assert_eq!(get_list(&delta_url).expect("delta"), bytes);
    let next = TrustList::parse(&pki.issue_ctl(hsm, store, &moved).expect("CTL")).expect("CTL");
    assert_eq!(next.sequence, full.sequence + 1);
    assert!(
        next.additions
            .iter()
            .all(|e| !matches!(e, ListEntry::Aa { .. })),
        "a revoked AA is left off: {:?}",
        next.additions
    );
    match get_list(&delta_url) {
        Err(HttpError::Status { status: 404, .. }) => {}
        other => panic!("a delta on an earlier full list: {other:?}"),
    }
    let after = pki.issue_delta_ctl(hsm, store, &moved).expect("delta");
    assert_eq!(
        TrustList::parse(&after).expect("delta").sequence,
        next.sequence
    );
    assert_eq!(get_list(&delta_url).expect("delta"), after);
}

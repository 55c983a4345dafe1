//! The behaviour every `PkiStore` backend must show, written once and run by each backend's
//! test file against a fresh store.

use std::sync::{Arc, Barrier};

use vss_crypto::Curve;
use vss_its::{HashedId8, Psid};
use vss_pki::messages::{AuthorizationValidationResponseCode, EnrolmentResponseCode};
use vss_pki::store::{AuditEvent, IssuedCertificate, Outcome, PkiStore, Role, Station, StoreError};

/// Opens another handle on the store under test, as another authority process would.
pub type Open<'a> = &'a dyn Fn() -> Box<dyn PkiStore>;

fn station(id: &str) -> Station {
    Station {
        canonical_id: id.into(),
        curve: Curve::P256,
        public_key: vec![0x02; 33],
        psids: vec![Psid::CAM, Psid::DENM, Psid::from(1_000_000)],
    }
}

/// An EA's refusal of an enrolment request.
pub fn refused() -> Outcome {
    Outcome::Refused {
        code: EnrolmentResponseCode::UnknownIts.into(),
        reason: "no station 'car-9'".into(),
    }
}

/// An EA's confirmation of an authorization validation request.
pub fn answered() -> Outcome {
    Outcome::Answered(AuthorizationValidationResponseCode::Ok.into())
}

fn issued(n: u8, station: Option<&str>) -> IssuedCertificate {
    IssuedCertificate {
        hashed_id8: HashedId8([n; 8]),
        role: Role::Ea,
        station: station.map(str::to_string),
        request_id: vec![n; 16],
        certificate: vec![0x80, 0x03, n],
    }
}

/// A station registers once; a second registration is refused with its id. A canonical id
/// that is no label is refused, shown escaped and cut short.
pub fn stations_register_once(store: &dyn PkiStore) {
    let long = "x".repeat(65);
    for id in ["", ".car", "car 1", "car\x1b[2J", "car/1", long.as_str()] {
        assert!(
            matches!(
                store.register_station(&station(id)),
                Err(StoreError::InvalidCanonicalId(_))
            ),
            "{id:?}"
        );
    }
    match store.register_station(&station("car\n\x1b")) {
        Err(e) => assert!(e.to_string().contains("'car\\n\\u{1b}'"), "{e}"),
        Ok(()) => panic!("a canonical id with control characters was registered"),
    }
    store.register_station(&station("car-1")).expect("register");
    assert!(matches!(
        store.register_station(&station("car-1")),
        Err(StoreError::StationExists(id)) if id == "car-1"
    ));
    assert_eq!(
        store.station("car-1").expect("query"),
        Some(station("car-1"))
    );
    assert_eq!(store.station("car-2").expect("query"), None);
}

/// A request id answered before is a replay, per authority, and the replay writes nothing.
pub fn a_replayed_request_is_refused_and_writes_nothing(store: &dyn PkiStore) {
    let first = issued(1, Some("car-1"));
    assert!(!store.seen(Role::Ea, &first.request_id).expect("seen"));
    store
        .record(Role::Ea, &first.request_id, &Outcome::Issued(first.clone()))
        .expect("record");
    assert!(store.seen(Role::Ea, &first.request_id).expect("seen"));
    // The AA has not seen the EA's request id.
    assert!(!store.seen(Role::Aa, &first.request_id).expect("seen"));
    let audit_before = store.audit().expect("audit").len();
    let replay = Outcome::Issued(issued(2, Some("car-1")));
    assert!(matches!(
        store.record(Role::Ea, &first.request_id, &replay),
        Err(StoreError::Replay(_))
    ));
    assert_eq!(
        store.issued(&HashedId8([2; 8])).expect("query"),
        None,
        "nothing stored"
    );
    assert_eq!(store.audit().expect("audit").len(), audit_before);
    assert_eq!(
        store.issued(&HashedId8([1; 8])).expect("query"),
        Some(first)
    );
}

/// The same certificate twice (a HashedId8 collision) fails the transaction: the second
/// request id must not be recorded as answered, so the station can try again.
pub fn a_failed_issuance_leaves_no_request_record(store: &dyn PkiStore) {
    let cert = issued(1, None);
    store
        .record(Role::Aa, &[9; 16], &Outcome::Issued(cert.clone()))
        .expect("record");
    assert!(matches!(
        store.record(Role::Aa, &[8; 16], &Outcome::Issued(cert)),
        Err(StoreError::Database(_))
    ));
    assert!(!store.seen(Role::Aa, &[8; 16]).expect("seen"));
}

/// Refusals and other answers are audited in order and count as seen.
pub fn refusals_and_answers_are_audited_and_count_as_seen(store: &dyn PkiStore) {
    store.register_station(&station("car-1")).expect("register");
    store
        .record(Role::Ea, &[1; 16], &refused())
        .expect("record");
    store
        .record(Role::Ea, &[2; 16], &answered())
        .expect("record");
    assert!(store.seen(Role::Ea, &[1; 16]).expect("seen"));
    let audit = store.audit().expect("audit");
    let events: Vec<AuditEvent> = audit.iter().map(|a| a.event).collect();
    assert_eq!(
        events,
        [
            AuditEvent::Register,
            AuditEvent::Refused,
            AuditEvent::Answered
        ]
    );
    assert_eq!(audit[0].detail, "station car-1");
    assert_eq!(
        audit[1].detail,
        format!(
            "request {}: unknownits: no station 'car-9'",
            "01".repeat(16)
        )
    );
    assert_eq!(audit[2].detail, format!("request {}: ok", "02".repeat(16)));
    assert!(audit.windows(2).all(|w| w[0].seq < w[1].seq));
}

/// Two handles, as two authority processes would have, eight threads each, 20 records per
/// thread: after reopening, every record is there once.
pub fn records_survive_reopening_and_concurrent_writers_lose_nothing(open: Open<'_>) {
    let stores: [Arc<dyn PkiStore>; 2] = [Arc::from(open()), Arc::from(open())];
    let mut threads = Vec::new();
    for t in 0..16u8 {
        let store = Arc::clone(&stores[usize::from(t % 2)]);
        threads.push(std::thread::spawn(move || {
            for i in 0..20u8 {
                let mut cert = issued(0, None);
                cert.hashed_id8 = HashedId8([t, i, 0, 0, 0, 0, 0, 1]);
                cert.request_id = vec![t, i];
                store
                    .record(Role::Aa, &cert.request_id.clone(), &Outcome::Issued(cert))
                    .expect("record");
            }
        }));
    }
    for t in threads {
        t.join().expect("thread");
    }
    drop(stores);
    let reopened = open();
    let all = reopened.issued_by(Role::Aa).expect("query");
    assert_eq!(all.len(), 16 * 20);
    let mut ids: Vec<HashedId8> = all.iter().map(|c| c.hashed_id8).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 16 * 20, "no duplicates");
    assert!(reopened.issued_by(Role::Ea).expect("query").is_empty());
    assert_eq!(reopened.audit().expect("audit").len(), 16 * 20);
}

/// Deferred records (the EA's in an AA's process) are records like any other: 8 threads on
/// one handle, alternating deferred and synchronous, lose nothing, and an id recorded one way
/// is a replay the other way.
pub fn deferred_records_are_records_and_replays_cross_over(open: Open<'_>) {
    let store: Arc<dyn PkiStore> = Arc::from(open());
    let threads: Vec<_> = (0..8u8)
        .map(|t| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                for i in 0..10u8 {
                    let id = [0xde, t, i];
                    let outcome = answered();
                    let recorded = if (t + i) % 2 == 0 {
                        store.record_deferred(Role::Ea, &id, &outcome)
                    } else {
                        store.record(Role::Ea, &id, &outcome)
                    };
                    recorded.expect("record");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    let answered = answered();
    assert!(matches!(
        store.record(Role::Ea, &[0xde, 0, 0], &answered),
        Err(StoreError::Replay(_))
    ));
    assert!(matches!(
        store.record_deferred(Role::Ea, &[0xde, 0, 1], &answered),
        Err(StoreError::Replay(_))
    ));
    drop(store);
    let reopened = open();
    for t in 0..8u8 {
        for i in 0..10u8 {
            assert!(reopened.seen(Role::Ea, &[0xde, t, i]).expect("seen"));
        }
    }
    assert_eq!(reopened.audit().expect("audit").len(), 80);
}

/// Two handles record the same request id at the same moment, 20 times over: each time
/// exactly one succeeds and the other is a replay that wrote nothing.
pub fn a_request_id_raced_by_two_writers_is_recorded_once(open: Open<'_>) {
    const ROUNDS: u8 = 20;
    let stores: [Arc<dyn PkiStore>; 2] = [Arc::from(open()), Arc::from(open())];
    for round in 0..ROUNDS {
        let barrier = Arc::new(Barrier::new(2));
        let threads: Vec<_> = (0..2u8)
            .map(|t| {
                let store = Arc::clone(&stores[usize::from(t)]);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let mut cert = issued(0, None);
                    cert.hashed_id8 = HashedId8([round, t, 0, 0, 0, 0, 0, 2]);
                    barrier.wait();
                    store.record(Role::Aa, &[0xaa, round], &Outcome::Issued(cert))
                })
            })
            .collect();
        let results: Vec<Result<(), StoreError>> = threads
            .into_iter()
            .map(|t| t.join().expect("thread"))
            .collect();
        let won = results.iter().filter(|r| r.is_ok()).count();
        let replays = results
            .iter()
            .filter(|r| matches!(r, Err(StoreError::Replay(_))))
            .count();
        assert_eq!((won, replays), (1, 1), "round {round}: {results:?}");
    }
    let store = &stores[0];
    assert_eq!(
        store.issued_by(Role::Aa).expect("query").len(),
        usize::from(ROUNDS),
        "only the winners' certificates"
    );
    assert_eq!(store.audit().expect("audit").len(), usize::from(ROUNDS));
}

/// Revocations are shared by every handle and recorded once (with an audit line); lists of
/// one kind issued from two handles by eight threads at once take turns: each issuer sees the
/// list before it, the sequence has no gap and no repeat, and a failed issuance keeps
/// nothing.
pub fn lists_take_turns_and_revocations_are_shared(open: Open<'_>) {
    use vss_pki::lists::ListKind;
    use vss_pki::store::IssuedList;

    let stores: [Arc<dyn PkiStore>; 2] = [Arc::from(open()), Arc::from(open())];
    let (seven, nine) = (HashedId8([7; 8]), HashedId8([9; 8]));
    assert!(stores[0].revoke(&seven).expect("revoke"));
    assert!(!stores[1].revoke(&seven).expect("revoke again"));
    assert!(stores[1].revoke(&nine).expect("revoke"));
    assert_eq!(stores[0].revoked().expect("revoked"), [seven, nine]);
    let audited = stores[0].audit().expect("audit");
    let revocations: Vec<_> = audited
        .iter()
        .filter(|e| e.event == AuditEvent::Revoked)
        .collect();
    assert_eq!(revocations.len(), 2, "{audited:?}");
    assert_eq!(revocations[0].detail, "revoked 0707070707070707");

    const THREADS: usize = 8;
    const EACH: usize = 5;
    let barrier = Barrier::new(THREADS);
    let seen: Vec<Vec<(i64, i64)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (store, barrier) = (stores[t % 2].clone(), &barrier);
                s.spawn(move || {
                    barrier.wait();
                    (0..EACH)
                        .map(|_| {
                            let issued = store
                                .issue_list(ListKind::Crl, &mut |last, revoked| {
                                    assert_eq!(revoked.len(), 2);
                                    let (sequence, at) = last
                                        .map_or((1, 1000), |l| (l.sequence + 1, l.issued_at + 1));
                                    Ok(IssuedList {
                                        sequence,
                                        issued_at: at,
                                        bytes: sequence.to_be_bytes().to_vec(),
                                    })
                                })
                                .expect("issue");
                            (issued.sequence, issued.issued_at)
                        })
                        .collect()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("thread"))
            .collect()
    });
    let mut all: Vec<(i64, i64)> = seen.into_iter().flatten().collect();
    all.sort();
    let expected: Vec<(i64, i64)> = (1..=(THREADS * EACH) as i64)
        .map(|n| (n, 999 + n))
        .collect();
    assert_eq!(all, expected, "one sequence, no gap, no repeat");
    let last = stores[1]
        .last_list(ListKind::Crl)
        .expect("last")
        .expect("a list");
    assert_eq!(last.sequence, (THREADS * EACH) as i64);
    assert_eq!(last.bytes, last.sequence.to_be_bytes());
    assert!(
        stores[0].last_list(ListKind::Ctl).expect("last").is_none(),
        "kinds apart"
    );

    let failed = stores[0].issue_list(ListKind::Crl, &mut |_, _| {
        Err(vss_pki::Error::InvalidRequest("the HSM is locked".into()))
    });
    assert!(failed.is_err());
    assert_eq!(
        stores[1].last_list(ListKind::Crl).expect("last"),
        Some(last)
    );
}

/// Runs SQL on the store's database directly: a query's one text column, or a statement.
pub struct Raw<'a> {
    /// The rows of a query of one text column.
    pub texts: &'a dyn Fn(&str) -> Vec<String>,
    /// Runs a statement.
    pub execute: &'a dyn Fn(&str),
}

/// The typed records are stored as the same text they always were (the database format does
/// not change), and a stored value no type has is refused as corrupt, not guessed at.
pub fn stored_text_is_unchanged_and_unknown_values_are_corrupt(store: &dyn PkiStore, raw: Raw<'_>) {
    store.register_station(&station("car-1")).expect("register");
    store
        .record(Role::Ea, &[1; 16], &refused())
        .expect("record");
    store
        .record(Role::Ea, &[2; 16], &answered())
        .expect("record");
    let cert = issued(3, Some("car-1"));
    store
        .record(Role::Ea, &cert.request_id.clone(), &Outcome::Issued(cert))
        .expect("record");
    assert!(store.revoke(&HashedId8([7; 8])).expect("revoke"));
    assert_eq!(
        (raw.texts)("SELECT curve || ' ' || psids FROM stations"),
        ["p256 36,37,1000000"]
    );
    assert_eq!(
        (raw.texts)("SELECT outcome FROM requests ORDER BY request_id"),
        ["unknownits: no station 'car-9'", "ok", "issued"]
    );
    assert_eq!(
        (raw.texts)("SELECT role || ' ' || event || ' ' || detail FROM audit ORDER BY seq"),
        [
            "ea register station car-1".to_string(),
            format!(
                "ea refused request {}: unknownits: no station 'car-9'",
                "01".repeat(16)
            ),
            format!("ea answered request {}: ok", "02".repeat(16)),
            format!(
                "ea issued request {}: certificate 0303030303030303",
                "03".repeat(16)
            ),
            "root revoked revoked 0707070707070707".to_string(),
        ]
    );

    (raw.execute)("UPDATE audit SET event = 'renamed' WHERE detail = 'station car-1'");
    match store.audit() {
        Err(StoreError::Corrupt(why)) => assert!(why.contains("'renamed'"), "{why}"),
        other => panic!("an unknown audit event read as {other:?}"),
    }
    (raw.execute)("UPDATE stations SET curve = 'p999'");
    match store.station("car-1") {
        Err(StoreError::Corrupt(why)) => assert!(why.contains("'p999'"), "{why}"),
        other => panic!("an unknown curve read as {other:?}"),
    }
}

//! One PKI served by four `vss pki serve` processes on one PostgreSQL database, two serving
//! its EA and two its AA (each AA asking the EAs in order, `--ea-url` twice): 50 stations
//! enrol and ask for 20 authorization tickets each, concurrently, spread over the processes;
//! one AA and one EA are killed (SIGKILL) mid-run, the stations of the AA go on at the other
//! AA, and the other AA's validations go on at the other EA. Afterwards every ticket a
//! station holds is recorded once in the database with the bytes the station got, no
//! certificate or request id is recorded twice, and the only records without a holder are
//! answers the killed AA committed but never delivered.
//!
//! `vss bench pki --database` runs on PostgreSQL too.
//!
//! The server comes from `VSS_TEST_POSTGRES` (`scripts/with-postgres` starts a throwaway
//! one); without it these tests skip.

mod common;
#[path = "../../vss-pki/tests/common/test_database.rs"]
mod test_database;

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::served::serve;
use common::{run, vss, PIN, PUK};
use test_database::TestDatabase;
use vss_crypto::Curve;
use vss_hsm::{GenerateKeyRequest, Hsm, SoftHsm};
use vss_its::{Cert, HashedId8, ItsTime, Psid, TrustAnchors, Validator, Verdict};
use vss_pki::http::HttpError;
use vss_pki::lists::ListKind;
use vss_pki::station::{enroll, pseudonyms, CertKind, Repository, TicketBatch};
use vss_pki::store::{AuditEvent, Role};
use vss_pki::Error;

const STATIONS: usize = 50;
const TICKETS: usize = 20;
/// Tickets a station asks for at once (the station client sends them in parallel).
const BATCH: usize = 4;
/// Tickets held by all stations together when the first process is killed.
const KILL_AFTER: usize = 300;

fn read_cert(path: &Path) -> Cert {
    Cert::from_bytes(&std::fs::read(path).expect("read")).expect("certificate")
}

/// What the stations saw while asking for tickets.
#[derive(Default)]
struct Progress {
    /// Tickets held by all stations.
    held: AtomicUsize,
    /// Tickets delivered by each process.
    delivered: [AtomicUsize; 2],
    /// Set just before the first process is killed.
    killing: AtomicBool,
    /// Requests to the killed AA that failed in transport.
    cut_off: AtomicUsize,
    /// Requests the other AA refused because its validation at the killed EA was cut off
    /// mid-request (a validation that could not connect goes to the other EA instead).
    ea_cut_off: AtomicUsize,
}

/// Station `i` asks for tickets until it holds [`TICKETS`], starting at AA `i % 2` and
/// moving to the other one when its AA is killed.
fn fill(
    i: usize,
    hsm: &dyn Hsm,
    repository: &Repository,
    urls: &[String; 2],
    certs: (&Cert, &Cert),
    progress: &Progress,
) {
    let (ea, aa) = certs;
    let count = || repository.list(CertKind::Pseudonym).expect("list").len();
    let mut at = i % 2;
    let mut have = count();
    while have < TICKETS {
        let wanted = BATCH.min(TICKETS - have);
        let result = pseudonyms(
            hsm,
            repository,
            &urls[at],
            aa,
            ea,
            &[Psid::CAM],
            TicketBatch::of(wanted),
        );
        let now = count();
        progress.held.fetch_add(now - have, Ordering::SeqCst);
        progress.delivered[at].fetch_add(now - have, Ordering::SeqCst);
        have = now;
        match result {
            Ok(_) => {}
            Err(Error::Http(HttpError::Transport { .. } | HttpError::Unreachable { .. }))
                if at == 0 && progress.killing.load(Ordering::SeqCst) =>
            {
                progress.cut_off.fetch_add(1, Ordering::SeqCst);
                at = 1;
            }
            Err(Error::Refused { code, .. })
                if code == "aa-ea-cantreachea" && progress.killing.load(Ordering::SeqCst) =>
            {
                progress.ea_cut_off.fetch_add(1, Ordering::SeqCst);
            }
            Err(e) => panic!("station {i} at {}: {e}", urls[at]),
        }
    }
}

#[test]
fn two_eas_and_two_aas_lose_nothing_acknowledged_when_one_of_each_is_killed() {
    let Some(db) = TestDatabase::create("two_eas_two_aas_lose_nothing_when_one_of_each_is_killed")
    else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let pki = tmp.path().join("pki");
    run(vss()
        .args(["pki", "init", "--name", "shared", "--dir"])
        .arg(&pki)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .success();
    let (root, ea, aa) = (
        read_cert(&pki.join("root.cert")),
        read_cert(&pki.join("ea.cert")),
        read_cert(&pki.join("aa.cert")),
    );

    // The stations' keys live in one soft HSM, each station with its own canonical key and
    // its own repository; each is registered in the shared database.
    let keys = tmp.path().join("station-keys");
    SoftHsm::init(&keys, PIN, PUK).expect("station HSM");
    let hsm = SoftHsm::open(&keys, PIN).expect("open");
    let pki_dir = pki.display().to_string();
    let mut repositories = Vec::new();
    for i in 0..STATIONS {
        let key = hsm
            .generate_key(&GenerateKeyRequest::new(
                format!("canonical-{i}"),
                Curve::P256,
            ))
            .expect("canonical key");
        let public = hsm.public_key(&key.handle).expect("public key");
        run(vss().args([
            "pki",
            "register-station",
            "--dir",
            &pki_dir,
            "--database",
            &db.url,
            "--canonical-id",
            &format!("car-{i}"),
            "--public-key",
            &hex::encode(public.to_sec1_compressed()),
        ]))
        .success();
        repositories
            .push(Repository::open(&tmp.path().join(format!("station-{i}"))).expect("repo"));
    }

    let database = ["--database", db.url.as_str()];
    let mut eas = vec![
        serve(&pki, &[&database[..], &["--role", "ea"]].concat()),
        serve(&pki, &[&database[..], &["--role", "ea"]].concat()),
    ];
    let ea_urls = [eas[0].url.clone(), eas[1].url.clone()];
    let aa_args = [
        &database[..],
        &[
            "--role",
            "aa",
            "--ea-url",
            &ea_urls[0],
            "--ea-url",
            &ea_urls[1],
        ],
    ]
    .concat();
    let mut aas = vec![serve(&pki, &aa_args), serve(&pki, &aa_args)];
    let urls = [aas[0].url.clone(), aas[1].url.clone()];
    // Each process serves its authority only.
    for (base, path) in [
        (&ea_urls[0], "/aa/authorization"),
        (&urls[0], "/ea/enrolment"),
    ] {
        let status = match ureq::post(&format!("{base}{path}")).send(&b"x"[..]) {
            Ok(response) => response.status().as_u16(),
            Err(ureq::Error::StatusCode(code)) => code,
            Err(e) => panic!("{base}{path}: {e}"),
        };
        assert_eq!(status, 404, "{base}{path}");
    }

    std::thread::scope(|s| {
        for (i, repository) in repositories.iter().enumerate() {
            let (hsm, ea_urls, ea) = (&hsm, &ea_urls, &ea);
            s.spawn(move || {
                let (id, key) = (format!("car-{i}"), format!("canonical-{i}"));
                enroll(hsm, repository, &id, &key, &ea_urls[i % 2], ea)
                    .unwrap_or_else(|e| panic!("enrolment of {id}: {e}"));
            });
        }
    });

    let progress = Progress::default();
    let (mut victim, mut ea_victim) = (aas.remove(0), eas.remove(0));
    let held_at_kill = std::thread::scope(|s| {
        let killer = s.spawn(|| {
            while progress.held.load(Ordering::SeqCst) < KILL_AFTER {
                std::thread::sleep(Duration::from_millis(2));
            }
            let held = progress.held.load(Ordering::SeqCst);
            progress.killing.store(true, Ordering::SeqCst);
            victim.kill();
            ea_victim.kill();
            held
        });
        for (i, repository) in repositories.iter().enumerate() {
            let (hsm, urls, ea, aa, progress) = (&hsm, &urls, &ea, &aa, &progress);
            s.spawn(move || fill(i, hsm, repository, urls, (ea, aa), progress));
        }
        killer.join().expect("killer")
    });
    let delivered = progress
        .delivered
        .each_ref()
        .map(|d| d.load(Ordering::SeqCst));
    let cut_off = progress.cut_off.load(Ordering::SeqCst);
    let ea_cut_off = progress.ea_cut_off.load(Ordering::SeqCst);
    eprintln!(
        "killed after {held_at_kill} tickets; delivered {delivered:?}; \
         {cut_off} requests cut off at the AA, {ea_cut_off} at the EA"
    );
    assert!(
        held_at_kill < STATIONS * TICKETS,
        "the kill came after the run"
    );
    assert!(delivered[0] > 0 && delivered[1] > 0, "{delivered:?}");
    assert!(cut_off > 0, "no station noticed the kill");
    // Every ticket was delivered, those after the kill by the AA whose validations went to
    // the killed EA first: they were validated by the other EA.
    assert_eq!(delivered[0] + delivered[1], STATIONS * TICKETS);

    // What the stations hold.
    let mut anchors = TrustAnchors::new();
    anchors.add(root).expect("anchor");
    let mut validator = Validator::new(anchors, 8);
    let labels: HashSet<String> = hsm
        .keys()
        .expect("keys")
        .into_iter()
        .map(|k| k.label)
        .collect();
    let mut held = Vec::new();
    for repository in &repositories {
        let tickets = repository.list(CertKind::Pseudonym).expect("list");
        assert_eq!(tickets.len(), TICKETS);
        for ticket in tickets {
            assert!(labels.contains(&ticket.meta.verification_key));
            let report = validator.verify_certificate(
                &ticket.cert,
                std::slice::from_ref(&aa),
                ItsTime::now().plus_micros(1_000_000),
            );
            assert_eq!(report.verdict, Verdict::Valid, "{}", report.reason);
            held.push(ticket.cert);
        }
    }

    // What the database recorded: each certificate and request id once; every held ticket
    // with the bytes its station got; the rest only answers the killed process never sent.
    let store = db.open();
    let issued = store.issued_by(Role::Aa).expect("issued");
    let ids: HashSet<HashedId8> = issued.iter().map(|c| c.hashed_id8).collect();
    let requests: HashSet<&[u8]> = issued.iter().map(|c| c.request_id.as_slice()).collect();
    assert_eq!(ids.len(), issued.len(), "a certificate recorded twice");
    assert_eq!(requests.len(), issued.len(), "a request recorded twice");
    for cert in &held {
        let record = store
            .issued(&cert.hashed_id8())
            .expect("issued")
            .unwrap_or_else(|| panic!("ticket {} held but not recorded", cert.hashed_id8()));
        assert_eq!(record.certificate, cert.bytes());
    }
    let undelivered = issued.len() - held.len();
    eprintln!("{undelivered} tickets recorded but never delivered");
    assert!(
        undelivered <= cut_off * BATCH,
        "{undelivered} undelivered records for {cut_off} cut-off requests"
    );
    assert_eq!(store.issued_by(Role::Ea).expect("ECs").len(), STATIONS);
    let audited = store
        .audit()
        .expect("audit")
        .iter()
        .filter(|e| e.role == Role::Aa && e.event == AuditEvent::Issued)
        .count();
    assert_eq!(audited, issued.len());
}

#[test]
fn bench_pki_runs_on_postgres() {
    let Some(db) = TestDatabase::create("bench_pki_runs_on_postgres") else {
        return;
    };
    let args = ["bench", "pki", "--enrolments", "3", "--tickets", "3"];
    let out =
        run(vss()
            .args(args)
            .args(["--clients", "1", "--database", &db.url, "--format", "json"]))
        .success()
        .json();
    assert_eq!(out["success"], true);
    assert_eq!(out["store"], "postgresql");
    // Its records are in the database: 3 credentials in-process, 3 over HTTP and the one
    // the tickets are asked with; 3 tickets in-process and 3 over HTTP.
    let store = db.open();
    assert_eq!(store.issued_by(Role::Ea).expect("ECs").len(), 7);
    assert_eq!(store.issued_by(Role::Aa).expect("tickets").len(), 6);
}

/// Issue 23: one run measures SQLite and, beside it, tickets over HTTP on PostgreSQL from
/// one client and from several.
#[test]
fn bench_pki_measures_postgres_beside_sqlite_in_one_run() {
    let Some(db) = TestDatabase::create("bench_pki_measures_postgres_beside_sqlite") else {
        return;
    };
    let args = ["bench", "pki", "--enrolments", "3", "--tickets", "3"];
    let out =
        run(vss()
            .args(args)
            .args(["--clients", "2", "--postgres", &db.url, "--format", "json"]))
        .success()
        .json();
    assert_eq!(out["success"], true);
    assert_eq!(out["store"], "sqlite");
    let postgres = &out["postgresql_http"];
    assert_eq!(postgres["clients"], 2);
    for rate in [
        "tickets_per_second_1_client",
        "tickets_per_second_concurrent",
    ] {
        assert!(
            postgres[rate].as_f64().is_some_and(|r| r > 0.0),
            "{postgres}"
        );
    }
    // The PostgreSQL pass enrolled once and asked for 3 tickets from one client and 3 from two.
    let store = db.open();
    assert_eq!(store.issued_by(Role::Ea).expect("ECs").len(), 1);
    assert_eq!(store.issued_by(Role::Aa).expect("tickets").len(), 6);
}

/// Issue 23: the lists of one PKI run from two hosts (two copies of its directory) on one
/// database. A revocation made on one host is on the CRL the other issues; CRLs and CTLs
/// issued from both hosts at once form one sequence: no two CRLs share a thisUpdate, no two
/// CTLs a sequence number, and each CRL lists the revocation.
#[test]
fn lists_issued_from_two_hosts_on_one_database_form_one_sequence() {
    let Some(db) =
        TestDatabase::create("lists_issued_from_two_hosts_on_one_database_form_one_sequence")
    else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("host-a"), tmp.path().join("host-b"));
    run(vss()
        .args(["pki", "init", "--name", "shared", "--dir"])
        .arg(&a)
        .env("VSS_PIN", PIN)
        .env("VSS_PUK", PUK))
    .success();
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(&a)
        .arg(&b)
        .status()
        .expect("cp");
    assert!(copied.success());
    let at = |dir: &Path, args: &[&str]| {
        let mut cmd = vss();
        cmd.args(args)
            .arg("--dir")
            .arg(dir)
            .args(["--database", &db.url])
            .env("VSS_PIN", PIN);
        cmd
    };
    let aa = a.join("aa.cert");
    run(&mut at(
        &a,
        &["pki", "crl", "revoke", "--cert", aa.to_str().expect("path")],
    ))
    .success();
    let aa_id = read_cert(&aa).hashed_id8().to_string();

    const EACH: usize = 3;
    let ctl = [
        "pki",
        "ctl",
        "issue",
        "--url",
        "http://127.0.0.1:8080",
        "--dc-url",
        "http://127.0.0.1:8090",
    ];
    let issued: Vec<(serde_json::Value, serde_json::Value)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2 * EACH)
            .map(|i| {
                let dir = if i % 2 == 0 { &a } else { &b };
                let (at, ctl) = (&at, &ctl);
                s.spawn(move || {
                    let crl = run(&mut at(dir, &["pki", "crl", "issue"])).success().json();
                    let ctl = run(&mut at(dir, ctl)).success().json();
                    (crl, ctl)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("thread"))
            .collect()
    });
    let mut this_updates = HashSet::new();
    let mut sequences = HashSet::new();
    for (crl, ctl) in &issued {
        assert_eq!(crl["revoked"], serde_json::json!([aa_id]), "{crl}");
        this_updates.insert(crl["this_update"].as_str().expect("time").to_string());
        sequences.insert(ctl["sequence"].as_u64().expect("sequence"));
    }
    assert_eq!(this_updates.len(), 2 * EACH, "{this_updates:?}");
    assert_eq!(sequences, (1..=2 * EACH as u64).collect::<HashSet<_>>());
    let revoked = db.open().revoked().expect("revoked");
    assert_eq!(revoked.len(), 1);

    // A distribution centre on either host serves the last CRL and CTL issued on any host:
    // it reads them from the database, not from its own `lists/`. The last CRL and CTL are
    // issued on host A, so host B's files are older.
    run(&mut at(&a, &["pki", "crl", "issue"])).success();
    run(&mut at(&a, &ctl)).success();
    for name in ["crl.oer", "ctl.oer"] {
        let (on_a, on_b) = (a.join("lists").join(name), b.join("lists").join(name));
        assert_ne!(
            std::fs::read(on_a).expect("A"),
            std::fs::read(on_b).expect("B")
        );
    }
    let latest = |kind| {
        db.open()
            .last_list(kind)
            .expect("store")
            .expect("issued")
            .bytes
    };
    let root = read_cert(&a.join("root.cert")).hashed_id8().to_string();
    for host in [&a, &b] {
        let served = common::served::listening(&[
            "pki".into(),
            "dc".into(),
            "serve".into(),
            "--dir".into(),
            host.clone().into(),
            "--database".into(),
            db.url.clone().into(),
        ]);
        for (path, kind) in [("getcrl", ListKind::Crl), ("getctl", ListKind::Ctl)] {
            let mut response = ureq::get(&format!("{}/{path}/{root}", served.url))
                .call()
                .expect("served");
            let body = response.body_mut().read_to_vec().expect("body");
            assert_eq!(body, latest(kind), "{path} on {}", host.display());
        }
    }
}

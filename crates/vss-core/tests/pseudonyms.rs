//! The pseudonym manager over a real soft HSM and a real certificate repository: the change
//! rules (uses, age, expiry, on request), block and free, the listeners' order and veto,
//! retirement of used tickets with their keys, and the background refill below the
//! threshold (and none when asking is off).
//!
//! Tickets come from `LocalAa`, a test double of the authorization authority: it issues real
//! 1609.2 tickets for keys it generates in the station's HSM and stores them as the PKI
//! client would, without the TS 102 941 exchange (that is tested in vss-pki, and the real
//! client in `pki_refill.rs`).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use vss_core::config::PseudonymConfig;
use vss_core::pseudonym::{ChangeListener, Clock, TicketSource};
use vss_core::{Error, PseudonymManager};
use vss_crypto::{Curve, PrivateKey};
use vss_hsm::{GenerateKeyRequest, Hsm, SoftHsm};
use vss_its::{asn, issue_certificate, Cert, CertificateRequest, HashedId8, ItsTime, Profile};
use vss_pki::station::{CertKind, Entry, Repository};

/// A clock the test moves: the time it was made, plus what the test added.
struct ManualClock {
    base: ItsTime,
    offset: AtomicU64,
}

impl ManualClock {
    fn new() -> Arc<Self> {
        Arc::new(ManualClock {
            base: ItsTime::now(),
            offset: AtomicU64::new(0),
        })
    }

    fn advance(&self, d: Duration) {
        self.offset
            .fetch_add(d.as_micros() as u64, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> ItsTime {
        self.base.plus_micros(self.offset.load(Ordering::SeqCst))
    }
}

/// The test double of an AA: a root-signed AA key that issues tickets for keys it
/// generates in the station's HSM, stored in the station's repository.
struct LocalAa {
    hsm: Arc<dyn Hsm>,
    repository: Repository,
    cert: Cert,
    key: PrivateKey,
    serial: AtomicUsize,
    asked: AtomicUsize,
}

impl LocalAa {
    fn ticket(&self, start: ItsTime, hours: u16) -> Entry {
        let n = self.serial.fetch_add(1, Ordering::SeqCst);
        let label = format!("at-{n}");
        let info = self
            .hsm
            .generate_key(&GenerateKeyRequest::new(&label, Curve::P256))
            .expect("key");
        let public = self.hsm.public_key(&info.handle).expect("public");
        let mut request = CertificateRequest::new(Profile::At, public, asn::Duration::Hours(hours));
        request.start = start;
        request.app_permissions = vec![vss_its::Permission::psid(36)];
        let cert = issue_certificate(&request, Some(&self.cert), &self.key).expect("ticket");
        self.repository
            .store(CertKind::Pseudonym, &cert, &label, None)
            .expect("store")
    }
}

impl TicketSource for LocalAa {
    fn request(&self, count: usize) -> vss_core::Result<Vec<Entry>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Ok((0..count)
            .map(|_| self.ticket(ItsTime::now(), 24))
            .collect())
    }
}

/// A station: its HSM and repository in a temporary directory, and the local AA.
struct Station {
    dir: tempfile::TempDir,
    hsm: Arc<dyn Hsm>,
    aa: Arc<LocalAa>,
    clock: Arc<ManualClock>,
}

fn station(tickets: usize) -> Station {
    let dir = tempfile::tempdir().expect("tempdir");
    SoftHsm::init(&dir.path().join("keys"), "1234", "12345678").expect("hsm");
    let hsm: Arc<dyn Hsm> =
        Arc::new(SoftHsm::open(&dir.path().join("keys"), "1234").expect("open"));
    let repository = Repository::open(&dir.path().join("repository")).expect("repository");
    let root_key = PrivateKey::generate(Curve::P256).expect("key");
    let mut root = CertificateRequest::new(
        Profile::Root,
        root_key.public_key().clone(),
        asn::Duration::Years(1),
    );
    root.name = Some("test-root".into());
    let root = issue_certificate(&root, None, &root_key).expect("root");
    let key = PrivateKey::generate(Curve::P256).expect("key");
    let encryption = PrivateKey::generate(Curve::P256).expect("key");
    let mut aa = CertificateRequest::new(
        Profile::Aa,
        key.public_key().clone(),
        asn::Duration::Years(1),
    );
    aa.name = Some("test-aa".into());
    aa.encryption_key = Some(encryption.public_key().clone());
    aa.issue_psids = vec![36];
    let cert = issue_certificate(&aa, Some(&root), &root_key).expect("aa");
    let aa = Arc::new(LocalAa {
        hsm: hsm.clone(),
        repository,
        cert,
        key,
        serial: AtomicUsize::new(0),
        asked: AtomicUsize::new(0),
    });
    for _ in 0..tickets {
        aa.ticket(ItsTime::now(), 24);
    }
    Station {
        dir,
        hsm,
        aa,
        clock: ManualClock::new(),
    }
}

fn rules(max_uses: u64, min_pool: usize, ask: bool) -> PseudonymConfig {
    PseudonymConfig {
        max_uses,
        max_age: Duration::from_secs(300),
        min_pool,
        ask_new_pseudonyms: ask,
        request_count: 3,
        ..PseudonymConfig::default()
    }
}

fn manager(s: &Station, rules: PseudonymConfig, with_source: bool) -> PseudonymManager {
    let source: Option<Arc<dyn TicketSource>> = if with_source {
        Some(s.aa.clone())
    } else {
        None
    };
    PseudonymManager::new(
        s.hsm.clone(),
        Repository::open(&s.dir.path().join("repository")).expect("repository"),
        rules,
        source,
        s.clock.clone(),
    )
    .expect("manager")
}

fn meta_exists(s: &Station, id: HashedId8) -> bool {
    s.dir
        .path()
        .join(format!("repository/pseudonyms/{id}.meta"))
        .exists()
}

#[test]
fn a_pseudonym_changes_after_max_uses_and_the_used_one_is_retired_with_its_key() {
    let s = station(3);
    let m = manager(&s, rules(3, 0, false), false);
    let first: Vec<_> = (0..3).map(|_| m.acquire().expect("lease")).collect();
    let id = first[0].cert.hashed_id8();
    assert!(first.iter().all(|l| l.cert.hashed_id8() == id));
    assert_eq!(
        first.iter().map(|l| l.use_number).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let fourth = m.acquire().expect("lease");
    assert_ne!(fourth.cert.hashed_id8(), id);
    assert_eq!(fourth.use_number, 1);
    let stats = m.stats();
    assert_eq!((stats.changes, stats.retired), (1, 1));
    assert!(!meta_exists(&s, id), "the used ticket left the repository");
    assert!(
        s.hsm.key(&first[0].key_label).is_err(),
        "and its key the HSM"
    );
    assert!(meta_exists(&s, fourth.cert.hashed_id8()));
    assert!(s.hsm.key(&fourth.key_label).is_ok());
    assert_eq!(m.pool_len(), 1);
}

#[test]
fn a_pseudonym_changes_after_max_age_and_on_request() {
    let s = station(3);
    let m = manager(&s, rules(1000, 0, false), false);
    let a = m.acquire().expect("lease").cert.hashed_id8();
    s.clock.advance(Duration::from_secs(299));
    assert_eq!(m.acquire().expect("lease").cert.hashed_id8(), a);
    s.clock.advance(Duration::from_secs(1));
    let b = m.acquire().expect("lease").cert.hashed_id8();
    assert_ne!(b, a);
    let c = m.change_pseudonym().expect("change");
    assert_ne!(c, b);
    assert_eq!(m.acquire().expect("lease").cert.hashed_id8(), c);
    // Nothing left to change to: the current one stays.
    assert!(matches!(m.change_pseudonym(), Err(Error::PoolEmpty)));
    assert_eq!(m.current(), Some(c));
}

#[test]
fn block_holds_the_current_pseudonym_and_free_releases_it() {
    let s = station(2);
    let m = manager(&s, rules(1, 0, false), false);
    let a = m.acquire().expect("lease").cert.hashed_id8();
    m.block_pseudonym_change(Duration::from_secs(60));
    for _ in 0..5 {
        assert_eq!(m.acquire().expect("lease").cert.hashed_id8(), a);
    }
    assert_eq!(m.stats().deferred, 5);
    assert!(matches!(
        m.change_pseudonym(),
        Err(Error::ChangeBlocked(left)) if left <= Duration::from_secs(60)
    ));
    // The block ends by itself …
    s.clock.advance(Duration::from_secs(61));
    let b = m.acquire().expect("lease").cert.hashed_id8();
    assert_ne!(b, a);
    // … or when freed.
    let s = station(2);
    let m = manager(&s, rules(1, 0, false), false);
    let a = m.acquire().expect("lease").cert.hashed_id8();
    m.block_pseudonym_change(Duration::from_secs(3600));
    assert_eq!(m.acquire().expect("lease").cert.hashed_id8(), a);
    m.free_pseudonym_change();
    assert_ne!(m.acquire().expect("lease").cert.hashed_id8(), a);
}

/// Records what it is told, and postpones changes while `veto` is set.
struct Recorder {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
    veto: std::sync::atomic::AtomicBool,
}

impl ChangeListener for Recorder {
    fn before_change(&self, from: Option<HashedId8>, to: HashedId8) -> bool {
        self.log
            .lock()
            .expect("log")
            .push(format!("{} before {from:?} -> {to}", self.name));
        !self.veto.load(Ordering::SeqCst)
    }

    fn after_change(&self, from: Option<HashedId8>, to: HashedId8) {
        self.log
            .lock()
            .expect("log")
            .push(format!("{} after {from:?} -> {to}", self.name));
    }
}

#[test]
fn listeners_are_asked_before_and_told_after_in_order_and_may_postpone() {
    let s = station(3);
    let m = manager(&s, rules(1, 0, false), false);
    let log = Arc::new(Mutex::new(Vec::new()));
    let recorder = |name| {
        Arc::new(Recorder {
            name,
            log: log.clone(),
            veto: false.into(),
        })
    };
    let (stack, radio) = (recorder("stack"), recorder("radio"));
    m.add_listener(stack.clone());
    m.add_listener(radio.clone());
    let a = m.acquire().expect("lease").cert.hashed_id8();
    let b = m.change_pseudonym().expect("change");
    let expected = |from: Option<HashedId8>, to: HashedId8| {
        vec![
            format!("stack before {from:?} -> {to}"),
            format!("radio before {from:?} -> {to}"),
            format!("stack after {from:?} -> {to}"),
            format!("radio after {from:?} -> {to}"),
        ]
    };
    let mut want = expected(None, a);
    want.extend(expected(Some(a), b));
    assert_eq!(*log.lock().expect("log"), want);

    // The radio cannot change its MAC address now: the change is postponed, nothing moves.
    radio.veto.store(true, Ordering::SeqCst);
    log.lock().expect("log").clear();
    assert!(matches!(m.change_pseudonym(), Err(Error::ChangePostponed)));
    assert_eq!(m.current(), Some(b));
    assert_eq!(m.pool_len(), 1);
    assert!(log
        .lock()
        .expect("log")
        .iter()
        .all(|l| l.contains("before")));
    // A rule that falls due (b's one use is spent) is deferred the same way; signing goes
    // on with b.
    assert_eq!(m.acquire().expect("lease").cert.hashed_id8(), b);
    assert_eq!(m.stats().deferred, 0);
    assert_eq!(m.acquire().expect("lease").cert.hashed_id8(), b);
    assert_eq!(m.stats().deferred, 1);
    radio.veto.store(false, Ordering::SeqCst);
    assert_ne!(m.change_pseudonym().expect("change"), b);
}

#[test]
fn the_pool_is_refilled_in_the_background_below_the_threshold() {
    let s = station(3);
    let m = manager(&s, rules(1, 2, true), true);
    m.acquire().expect("lease"); // pool 2: not below 2
    assert_eq!(s.aa.asked.load(Ordering::SeqCst), 0);
    m.acquire().expect("lease"); // pool 1: a refill of 3 starts
    m.wait_for_refill();
    assert_eq!(s.aa.asked.load(Ordering::SeqCst), 1);
    assert_eq!(m.pool_len(), 4);
    let stats = m.stats();
    assert_eq!((stats.refills, stats.tickets_received), (1, 3));
    // The new tickets are used like the others.
    for _ in 0..4 {
        m.acquire().expect("lease");
    }
    m.wait_for_refill();
    assert!(s.aa.asked.load(Ordering::SeqCst) >= 2);
}

#[test]
fn no_refill_when_asking_is_off_and_signing_goes_on_with_the_last_pseudonym() {
    let s = station(2);
    let m = manager(&s, rules(1, 5, false), true);
    let a = m.acquire().expect("lease").cert.hashed_id8();
    let b = m.acquire().expect("lease").cert.hashed_id8();
    assert_ne!(a, b);
    // The pool is empty: the rule is deferred, b signs on.
    assert_eq!(m.acquire().expect("lease").cert.hashed_id8(), b);
    m.wait_for_refill();
    assert_eq!(s.aa.asked.load(Ordering::SeqCst), 0);
    assert_eq!(m.stats().refills, 0);
    assert_eq!(m.stats().deferred, 1);
}

#[test]
fn without_any_ticket_signing_fails_clearly_and_a_refill_starts() {
    let s = station(0);
    let m = manager(&s, rules(10, 1, true), true);
    let err = m.acquire().expect_err("no pseudonym");
    assert!(matches!(err, Error::NoPseudonym(_)), "{err}");
    m.wait_for_refill();
    assert_eq!(m.pool_len(), 3);
    m.acquire().expect("lease after the refill");
}

#[test]
fn expired_tickets_are_skipped_and_retired() {
    let s = station(0);
    let old = s.aa.ticket(ItsTime::now(), 1);
    let fresh = s.aa.ticket(ItsTime::now(), 24);
    let m = manager(&s, rules(1, 0, false), false);
    s.clock.advance(Duration::from_secs(2 * 3600));
    assert_eq!(
        m.acquire().expect("lease").cert.hashed_id8(),
        fresh.cert.hashed_id8()
    );
    assert!(!meta_exists(&s, old.cert.hashed_id8()));
    assert!(s.hsm.key(&old.meta.verification_key).is_err());
}

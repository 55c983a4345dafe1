//! The pseudonym manager over a real soft HSM and a real certificate repository: the change
//! rules (uses, age, expiry, on request), block and free, the listeners' order and veto,
//! no change without a listener (the default),
//! retirement of used tickets with their keys, and the background refill below the
//! threshold (and none when asking is off).
//!
//! Tickets come from `common::LocalAa` (a test double of the AA; the real client is in
//! `pki_refill.rs`).

mod common;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{manager, rules, station, Station};
use vss_core::id_change::{IdChangeEvent, IdChangeEvents, IdChangePhase};
use vss_core::pseudonym::ChangeListener;
use vss_core::Error;
use vss_its::{HashedId8, ItsTime};

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
    let label = first[0].key_label.clone();
    // While a lease on it lives (a signature in progress), the used ticket stays.
    let held = first[0].clone();
    drop(first);
    let fourth = m.acquire().expect("lease");
    assert_ne!(fourth.cert.hashed_id8(), id);
    assert!(meta_exists(&s, id) && s.hsm.key(&label).is_ok());
    assert_eq!(m.stats().retired, 0);
    drop(held);
    m.acquire().expect("lease");
    assert_eq!(fourth.use_number, 1);
    let stats = m.stats();
    assert_eq!((stats.changes, stats.retired), (1, 1));
    assert!(!meta_exists(&s, id), "the used ticket left the repository");
    assert!(s.hsm.key(&label).is_err(), "and its key the HSM");
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

    fn change_aborted(&self, from: Option<HashedId8>, to: HashedId8) {
        self.log
            .lock()
            .expect("log")
            .push(format!("{} aborted {from:?} -> {to}", self.name));
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
    // The stack, which agreed and prepared, is told the change is off.
    let next = log.lock().expect("log").first().cloned().expect("asked");
    let to = next.rsplit(' ').next().expect("to").to_string();
    assert_eq!(
        *log.lock().expect("log"),
        [
            format!("stack before {:?} -> {to}", Some(b)),
            format!("radio before {:?} -> {to}", Some(b)),
            format!("stack aborted {:?} -> {to}", Some(b)),
        ]
    );
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
fn id_change_events_are_prepare_then_commit_or_abort_and_nothing_while_blocked() {
    let s = station(4);
    let m = manager(&s, rules(100, 0, false), false);
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    m.add_listener(Arc::new(IdChangeEvents(move |e: IdChangeEvent| {
        seen.lock().expect("events").push(e)
    })));
    let a = m.acquire().expect("lease").cert.hashed_id8();
    let b = m.change_pseudonym().expect("change");
    let event = |phase, from, to| IdChangeEvent { phase, from, to };
    assert_eq!(
        std::mem::take(&mut *events.lock().expect("events")),
        [
            event(IdChangePhase::Prepare, None, a),
            event(IdChangePhase::Commit, None, a),
            event(IdChangePhase::Prepare, Some(a), b),
            event(IdChangePhase::Commit, Some(a), b),
        ]
    );
    m.block_pseudonym_change(Duration::from_secs(60));
    assert!(matches!(m.change_pseudonym(), Err(Error::ChangeBlocked(_))));
    assert!(events.lock().expect("events").is_empty());
    m.free_pseudonym_change();
    let radio = Arc::new(Recorder {
        name: "radio",
        log: Arc::new(Mutex::new(Vec::new())),
        veto: true.into(),
    });
    m.add_listener(radio);
    assert!(matches!(m.change_pseudonym(), Err(Error::ChangePostponed)));
    let seen = std::mem::take(&mut *events.lock().expect("events"));
    assert_eq!(seen.len(), 2);
    assert_eq!(
        (seen[0].phase, seen[1].phase, seen[0].from, seen[1].to),
        (
            IdChangePhase::Prepare,
            IdChangePhase::Abort,
            Some(b),
            seen[0].to
        )
    );
    assert_eq!(m.current(), Some(b));
}

#[test]
fn by_default_a_pseudonym_changes_only_while_a_listener_is_registered() {
    let s = station(3);
    let m = manager(
        &s,
        vss_core::config::PseudonymConfig {
            change_needs_listener: true,
            ..rules(1, 0, false)
        },
        false,
    );
    // The first pseudonym is chosen without a listener; no change follows it.
    let a = m.acquire().expect("lease").cert.hashed_id8();
    assert_eq!(m.acquire().expect("lease").cert.hashed_id8(), a);
    assert!(matches!(m.change_pseudonym(), Err(Error::NoChangeListener)));
    assert_eq!((m.stats().changes, m.stats().deferred), (0, 1));
    assert_eq!(m.pool_len(), 2);
    let log = Arc::new(Mutex::new(Vec::new()));
    m.add_listener(Arc::new(Recorder {
        name: "stack",
        log: log.clone(),
        veto: false.into(),
    }));
    let b = m.acquire().expect("lease").cert.hashed_id8();
    assert_ne!(b, a);
    assert_eq!(m.stats().changes, 1);
    assert_eq!(log.lock().expect("log").len(), 2);
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

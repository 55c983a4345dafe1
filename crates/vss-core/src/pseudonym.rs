//! The [`PseudonymManager`] (seed 000 §2.3: changePseudonym, blockPseudonymChange,
//! freePseudonymChange, registerRequestNetworkIdChange, indicateNetworkIdChange): a pool of
//! authorization tickets with their keys in the HSM, one of them current.
//!
//! - The current pseudonym changes when it has signed `max_uses` times, when it has been in
//!   use for `max_age`, when it expires, or on [`PseudonymManager::change_pseudonym`].
//! - [`PseudonymManager::block_pseudonym_change`] holds the current one for a while (a rule
//!   that falls due meanwhile is deferred, counted); `free_pseudonym_change` lifts that.
//! - Listeners (the V2X stack) are asked before a change, so the network id (MAC address,
//!   station id) changes at the same moment, and may postpone it; they are told after it.
//!   With `change_needs_listener` (the default) a valid pseudonym is not changed while no
//!   listener is registered.
//! - A pseudonym that is replaced is removed from the repository and its key from the HSM,
//!   once no signature still in progress holds a [`Lease`] on it.
//! - When fewer than `min_pool` unused tickets remain and `ask_new_pseudonyms` is on, new
//!   ones are requested in the background from a [`TicketSource`] (the real PKI client:
//!   [`PkiTickets`]); signing never waits for it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use vss_hsm::Hsm;
use vss_its::{Cert, HashedId8, ItsTime, Psid};
use vss_pki::station::{CertKind, Entry, Repository};

use crate::config::PseudonymConfig;
use crate::{Error, Result};

/// Where the time comes from (a test moves its own clock).
pub trait Clock: Send + Sync {
    /// Now.
    fn now(&self) -> ItsTime;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> ItsTime {
        ItsTime::now()
    }
}

/// Where new tickets come from.
pub trait TicketSource: Send + Sync {
    /// Obtains `count` new tickets, stored in the repository beside their keys.
    fn request(&self, count: usize) -> Result<Vec<Entry>>;
}

/// Tickets from an AA over HTTP, with the station's newest enrolment credential (the PKI
/// client of `vss-pki`).
pub struct PkiTickets {
    hsm: Arc<dyn Hsm>,
    repository: Repository,
    aa_url: String,
    aa: Cert,
    ea: Cert,
    psids: Vec<Psid>,
}

impl PkiTickets {
    /// Tickets for `psids` from the AA `aa` at `aa_url`; the enrolment credential was
    /// issued by `ea`.
    pub fn new(
        hsm: Arc<dyn Hsm>,
        repository: Repository,
        aa_url: &str,
        aa: Cert,
        ea: Cert,
        psids: &[Psid],
    ) -> Self {
        PkiTickets {
            hsm,
            repository,
            aa_url: aa_url.to_string(),
            aa,
            ea,
            psids: psids.to_vec(),
        }
    }
}

impl TicketSource for PkiTickets {
    fn request(&self, count: usize) -> Result<Vec<Entry>> {
        Ok(vss_pki::station::pseudonyms(
            self.hsm.as_ref(),
            &self.repository,
            &self.aa_url,
            &self.aa,
            &self.ea,
            &self.psids,
            vss_pki::station::TicketBatch::of(count),
        )?)
    }
}

/// The V2X stack's part in a change (the seed's network-id change callbacks).
pub trait ChangeListener: Send + Sync {
    /// Asked before the pseudonym changes from `from` (none at the first) to `to`; `false`
    /// postpones the change. Must not call back into the manager.
    fn before_change(&self, from: Option<HashedId8>, to: HashedId8) -> bool;
    /// Told after the change. Must not call back into the manager.
    fn after_change(&self, from: Option<HashedId8>, to: HashedId8);
    /// Told when a change it agreed to is not made after all (a listener asked after it
    /// postponed it). Must not call back into the manager.
    fn change_aborted(&self, _from: Option<HashedId8>, _to: HashedId8) {}
}

/// The pseudonym one signature uses; while it lives, the ticket's key stays in the HSM.
#[derive(Debug, Clone)]
pub struct Lease {
    /// The authorization ticket.
    pub cert: Cert,
    /// The label of its signing key in the HSM.
    pub key_label: String,
    /// Which use of this pseudonym this is (1 for the first).
    pub use_number: u64,
    _held: Arc<Entry>,
}

/// What the manager did so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PseudonymStats {
    /// Changes from one pseudonym to another.
    pub changes: u64,
    /// Changes a rule called for that were not made (blocked, postponed, pool empty).
    pub deferred: u64,
    /// Used pseudonyms removed with their keys.
    pub retired: u64,
    /// Removals that failed (the error is in `last_error`).
    pub retire_failures: u64,
    /// Background refills started.
    pub refills: u64,
    /// Refills that failed (the error is in `last_error`).
    pub refill_failures: u64,
    /// Tickets the refills brought.
    pub tickets_received: u64,
    /// The last failure of a removal or a refill.
    pub last_error: Option<String>,
}

struct Current {
    entry: Arc<Entry>,
    uses: u64,
    since: ItsTime,
}

struct State {
    current: Option<Current>,
    pool: VecDeque<Entry>,
    /// Replaced pseudonyms waiting for their last lease to end before they are retired.
    retiring: Vec<Arc<Entry>>,
    blocked_until: Option<ItsTime>,
    stats: PseudonymStats,
}

struct Inner {
    hsm: Arc<dyn Hsm>,
    repository: Repository,
    rules: PseudonymConfig,
    source: Option<Arc<dyn TicketSource>>,
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
    listeners: RwLock<Vec<Arc<dyn ChangeListener>>>,
    refilling: AtomicBool,
    refill: Mutex<Option<JoinHandle<()>>>,
}

/// The pool of pseudonyms and the current one; shared by the threads that sign.
#[derive(Clone)]
pub struct PseudonymManager {
    inner: Arc<Inner>,
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl PseudonymManager {
    /// A manager over the tickets in `repository` (those valid now, oldest first), with
    /// `rules`; new tickets come from `source`, if any.
    pub fn new(
        hsm: Arc<dyn Hsm>,
        repository: Repository,
        rules: PseudonymConfig,
        source: Option<Arc<dyn TicketSource>>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self> {
        let now = clock.now();
        let pool = repository
            .list(CertKind::Pseudonym)?
            .into_iter()
            .filter(|e| e.cert.validity().end > now)
            .collect();
        Ok(PseudonymManager {
            inner: Arc::new(Inner {
                hsm,
                repository,
                rules,
                source,
                clock,
                state: Mutex::new(State {
                    current: None,
                    pool,
                    retiring: Vec::new(),
                    blocked_until: None,
                    stats: PseudonymStats::default(),
                }),
                listeners: RwLock::new(Vec::new()),
                refilling: AtomicBool::new(false),
                refill: Mutex::new(None),
            }),
        })
    }

    /// Registers a listener for changes.
    pub fn add_listener(&self, listener: Arc<dyn ChangeListener>) {
        self.inner
            .listeners
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .push(listener);
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The pseudonym for the next signature: changed first if a rule calls for it and a
    /// change can be made; the use is counted.
    pub fn acquire(&self) -> Result<Lease> {
        let now = self.inner.clock.now();
        let mut state = self.state();
        let due = match &state.current {
            None => true,
            Some(c) => {
                c.uses >= self.inner.rules.max_uses
                    || now.micros().saturating_sub(c.since.micros())
                        >= micros(self.inner.rules.max_age)
                    || !c.entry.cert.validity().contains(now)
            }
        };
        if due {
            if let Err(e) = self.change_locked(&mut state, now) {
                match &state.current {
                    Some(c) if c.entry.cert.validity().contains(now) => {
                        state.stats.deferred += 1;
                    }
                    _ => {
                        drop(state);
                        self.refill_if_low(now);
                        return Err(Error::NoPseudonym(e.to_string()));
                    }
                }
            }
        }
        let current = state
            .current
            .as_mut()
            .ok_or_else(|| Error::NoPseudonym("none current".into()))?;
        current.uses += 1;
        let lease = Lease {
            cert: current.entry.cert.clone(),
            key_label: current.entry.meta.verification_key.clone(),
            use_number: current.uses,
            _held: current.entry.clone(),
        };
        self.sweep(&mut state);
        drop(state);
        self.refill_if_low(now);
        Ok(lease)
    }

    /// Changes to the next pseudonym now (unless changes are blocked, the pool is empty or
    /// a listener postpones it); returns the new one's HashedId8.
    pub fn change_pseudonym(&self) -> Result<HashedId8> {
        let now = self.inner.clock.now();
        let mut state = self.state();
        self.change_locked(&mut state, now)?;
        let id = state
            .current
            .as_ref()
            .map(|c| c.entry.cert.hashed_id8())
            .ok_or(Error::PoolEmpty)?;
        drop(state);
        self.refill_if_low(now);
        Ok(id)
    }

    /// Keeps the current pseudonym for `duration` (e.g. through a manoeuvre).
    pub fn block_pseudonym_change(&self, duration: Duration) {
        let until = self.inner.clock.now().plus_micros(micros(duration));
        self.state().blocked_until = Some(until);
    }

    /// Lifts a block.
    pub fn free_pseudonym_change(&self) {
        self.state().blocked_until = None;
    }

    /// The current pseudonym's HashedId8, if one was chosen.
    pub fn current(&self) -> Option<HashedId8> {
        self.state()
            .current
            .as_ref()
            .map(|c| c.entry.cert.hashed_id8())
    }

    /// Unused tickets valid now.
    pub fn pool_len(&self) -> usize {
        let now = self.inner.clock.now();
        usable(&self.state().pool, now)
    }

    /// What the manager did so far.
    pub fn stats(&self) -> PseudonymStats {
        self.state().stats.clone()
    }

    /// Waits for a background refill, if one is running.
    pub fn wait_for_refill(&self) {
        let handle = self
            .inner
            .refill
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(handle) = handle {
            // A refill thread that panicked has already recorded nothing; its pool is as
            // it was.
            let _ = handle.join();
        }
    }

    fn change_locked(&self, state: &mut State, now: ItsTime) -> Result<()> {
        let current_valid = state
            .current
            .as_ref()
            .is_some_and(|c| c.entry.cert.validity().contains(now));
        if let Some(until) = state.blocked_until {
            if current_valid && until > now {
                return Err(Error::ChangeBlocked(Duration::from_micros(
                    until.micros() - now.micros(),
                )));
            }
        }
        // Expired tickets leave the pool (and are retired); the next is the first valid now.
        let (expired, kept): (VecDeque<Entry>, VecDeque<Entry>) = std::mem::take(&mut state.pool)
            .into_iter()
            .partition(|e| e.cert.validity().end <= now);
        state.pool = kept;
        for e in &expired {
            self.retire(state, e);
        }
        let Some(index) = state
            .pool
            .iter()
            .position(|e| e.cert.validity().contains(now))
        else {
            return Err(Error::PoolEmpty);
        };
        let Some(next) = state.pool.remove(index) else {
            return Err(Error::PoolEmpty);
        };
        let from = state.current.as_ref().map(|c| c.entry.cert.hashed_id8());
        let to = next.cert.hashed_id8();
        let listeners = self
            .inner
            .listeners
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if current_valid && listeners.is_empty() && self.inner.rules.change_needs_listener {
            state.pool.insert(index, next);
            return Err(Error::NoChangeListener);
        }
        let agreed = listeners
            .iter()
            .take_while(|l| l.before_change(from, to))
            .count();
        if agreed < listeners.len() {
            for l in &listeners[..agreed] {
                l.change_aborted(from, to);
            }
            state.pool.insert(index, next);
            return Err(Error::ChangePostponed);
        }
        let old = state.current.replace(Current {
            entry: Arc::new(next),
            uses: 0,
            since: now,
        });
        if let Some(old) = old {
            state.retiring.push(old.entry);
            state.stats.changes += 1;
        }
        self.sweep(state);
        for l in &listeners {
            l.after_change(from, to);
        }
        Ok(())
    }

    /// Retires the replaced pseudonyms that no lease holds any more.
    fn sweep(&self, state: &mut State) {
        let (free, held): (Vec<_>, Vec<_>) = std::mem::take(&mut state.retiring)
            .into_iter()
            .partition(|e| Arc::strong_count(e) == 1);
        state.retiring = held;
        for entry in free {
            self.retire(state, &entry);
        }
    }

    /// Removes a used (or expired) ticket from the repository and its keys from the HSM.
    fn retire(&self, state: &mut State, entry: &Entry) {
        let removed = self
            .inner
            .repository
            .remove(CertKind::Pseudonym, entry.cert.hashed_id8())
            .map_err(Error::from)
            .and_then(|_| Ok(entry.meta.delete_keys(self.inner.hsm.as_ref())?));
        match removed {
            Ok(()) => state.stats.retired += 1,
            Err(e) => {
                state.stats.retire_failures += 1;
                state.stats.last_error = Some(format!("retiring {}: {e}", entry.meta.hashed_id8));
            }
        }
    }

    /// Starts a background refill when the pool is low, asking is on and none is running.
    fn refill_if_low(&self, now: ItsTime) {
        let rules = &self.inner.rules;
        let Some(source) = self.inner.source.clone() else {
            return;
        };
        if !rules.ask_new_pseudonyms || usable(&self.state().pool, now) >= rules.min_pool {
            return;
        }
        if self.inner.refilling.swap(true, Ordering::SeqCst) {
            return;
        }
        self.wait_for_refill();
        self.state().stats.refills += 1;
        let manager = self.clone();
        let count = rules.request_count;
        let handle = std::thread::spawn(move || {
            let result = source.request(count);
            let mut state = manager.state();
            match result {
                Ok(entries) => {
                    state.stats.tickets_received += entries.len() as u64;
                    state.pool.extend(entries);
                }
                Err(e) => {
                    state.stats.refill_failures += 1;
                    state.stats.last_error = Some(format!("refill: {e}"));
                }
            }
            drop(state);
            manager.inner.refilling.store(false, Ordering::SeqCst);
        });
        *self.inner.refill.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
    }
}

/// Tickets in `pool` valid at `now`.
fn usable(pool: &VecDeque<Entry>, now: ItsTime) -> usize {
    pool.iter()
        .filter(|e| e.cert.validity().contains(now))
        .count()
}

//! The certificate cache: a bounded LRU of validated certificates keyed by HashedId8, with
//! a HashedId3 index for peer-to-peer certificate requests, so that a chain is validated
//! once per certificate rather than once per message (seed 001 §5.6).
//!
//! Beside a certificate heard again and again the cache keeps its key prepared
//! ([`vss_crypto::PreparedKey`]: a table of the key's multiples, 86 KiB for a 256-bit key),
//! under its own byte bound and least-recently-used order ([`PreparedKeyPolicy`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Serialize;
use vss_crypto::VerifyingKey;

use crate::asn::GeographicRegion;
use crate::hashing::{HashedId3, HashedId8};
use crate::{Cert, ItsTime};

mod prepared;

use prepared::{KeyUse, PreparedPool};
pub use prepared::{PreparedKeyPolicy, IDLE_BEFORE_DROP};

/// A certificate whose chain up to a trust anchor has been validated.
#[derive(Debug)]
pub struct ValidatedCert {
    /// The certificate.
    pub cert: Cert,
    /// Its verification key, ready to verify.
    pub key: VerifyingKey,
    /// The region it is valid in: its own, or inherited from its issuers (`None`: anywhere).
    pub region: Option<GeographicRegion>,
}

/// What the cache did, since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Lookups that found a certificate.
    pub hits: u64,
    /// Lookups that found none.
    pub misses: u64,
    /// Certificates added (each one a chain validation).
    pub inserts: u64,
    /// Certificates pushed out by newer ones when full.
    pub evictions: u64,
    /// Certificates dropped because their validity had ended.
    pub expired: u64,
    /// Signatures checked with a prepared key kept from before.
    pub prepared_hits: u64,
    /// Keys prepared (each a table built, worth about nine verifications).
    pub prepared_builds: u64,
    /// Prepared keys dropped to stay under the byte bound (their certificates stay).
    pub prepared_evictions: u64,
    /// The bytes the prepared keys' tables take now.
    pub prepared_bytes: u64,
}

struct Entry {
    cert: Arc<ValidatedCert>,
    used: u64,
    /// Its key's uses, and its prepared key when it has one.
    key: KeyUse,
}

/// A least-recently-used cache of validated certificates.
pub struct CertCache {
    capacity: usize,
    entries: HashMap<HashedId8, Entry>,
    by_id3: HashMap<HashedId3, Vec<HashedId8>>,
    recency: BTreeMap<u64, HashedId8>,
    clock: u64,
    stats: CacheStats,
    prepared: PreparedPool,
}

/// The capacity of seed 001's hardware cache.
pub const DEFAULT_CAPACITY: usize = 81;

impl Default for CertCache {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

impl CertCache {
    /// An empty cache holding at most `capacity` certificates (at least one), preparing
    /// keys under the default [`PreparedKeyPolicy`].
    pub fn new(capacity: usize) -> Self {
        CertCache {
            capacity: capacity.max(1),
            entries: HashMap::new(),
            by_id3: HashMap::new(),
            recency: BTreeMap::new(),
            clock: 0,
            stats: CacheStats::default(),
            prepared: PreparedPool::new(PreparedKeyPolicy::default()),
        }
    }

    /// The most certificates it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many certificates it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The counters.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            prepared_bytes: self.prepared.bytes() as u64,
            ..self.stats
        }
    }

    /// The certificate named `id` if it is cached and valid at `now`; an expired one is
    /// dropped. Counts a hit or a miss.
    pub fn get(&mut self, id: &HashedId8, now: ItsTime) -> Option<Arc<ValidatedCert>> {
        let key = *id;
        let Some(entry) = self.entries.get_mut(id) else {
            self.stats.misses += 1;
            return None;
        };
        if entry.cert.cert.validity().end <= now {
            self.remove(&key);
            self.stats.expired += 1;
            self.stats.misses += 1;
            return None;
        }
        self.clock += 1;
        self.recency.remove(&entry.used);
        entry.used = self.clock;
        self.recency.insert(self.clock, key);
        self.stats.hits += 1;
        Some(Arc::clone(&entry.cert))
    }

    /// The cached certificates whose HashedId3 is `id` (for answering P2PCD requests).
    pub fn by_hashed_id3(&self, id: &HashedId3) -> Vec<Arc<ValidatedCert>> {
        self.by_id3
            .get(id)
            .into_iter()
            .flatten()
            .filter_map(|k| self.entries.get(k).map(|e| Arc::clone(&e.cert)))
            .collect()
    }

    /// Adds a validated certificate, pushing out the least recently used one when full.
    pub fn insert(&mut self, cert: Arc<ValidatedCert>) {
        let key = cert.cert.hashed_id8();
        self.remove(&key);
        while self.entries.len() >= self.capacity {
            let Some((_, oldest)) = self.recency.pop_first() else {
                break;
            };
            self.remove(&oldest);
            self.stats.evictions += 1;
        }
        self.by_id3.entry(key.hashed_id3()).or_default().push(key);
        self.clock += 1;
        self.recency.insert(self.clock, key);
        self.entries.insert(
            key,
            Entry {
                cert,
                used: self.clock,
                key: KeyUse::default(),
            },
        );
        self.stats.inserts += 1;
    }

    /// Drops every certificate (the counters stay): what was validated under trust that has
    /// changed since.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.by_id3.clear();
        self.recency.clear();
        self.prepared.clear();
    }

    /// Drops every certificate whose validity has ended by `now`.
    pub fn purge_expired(&mut self, now: ItsTime) {
        let expired: Vec<HashedId8> = self
            .entries
            .iter()
            .filter(|(_, e)| e.cert.cert.validity().end <= now)
            .map(|(k, _)| *k)
            .collect();
        for key in expired {
            self.remove(&key);
            self.stats.expired += 1;
        }
    }

    fn remove(&mut self, key: &HashedId8) {
        let Some(entry) = self.entries.remove(key) else {
            return;
        };
        self.recency.remove(&entry.used);
        self.prepared.release(&entry.key);
        if let Some(ids) = self.by_id3.get_mut(&key.hashed_id3()) {
            ids.retain(|k| k != key);
            if ids.is_empty() {
                self.by_id3.remove(&key.hashed_id3());
            }
        }
    }
}

//! The prepared keys of cached certificates. A certificate's key is prepared once it has
//! checked more than [`PreparedKeyPolicy::after`] signatures, so a signer heard a few times
//! costs what it did before; the prepared keys together stay under
//! [`PreparedKeyPolicy::max_bytes`], the least recently used dropped first (its certificate
//! stays cached), but only one left unused for [`IDLE_BEFORE_DROP`]: while every kept key is
//! in use, no new one is built, so more busy signers than fit settle on the keys that fit
//! instead of rebuilding tables round after round (each build costs about nine
//! verifications). A key whose table was dropped needs twice as many uses as before to be
//! prepared again.

use std::collections::BTreeMap;
use std::sync::Arc;

use vss_crypto::{Curve, PreparedKey};

use super::{CertCache, ValidatedCert};
use crate::hashing::HashedId8;
use crate::ItsTime;

/// How long a prepared key must have been unused before it is dropped for another: one
/// second, ten CAMs of a neighbour still in range.
pub const IDLE_BEFORE_DROP: std::time::Duration = std::time::Duration::from_secs(1);

/// When the keys of cached certificates are prepared, and how much memory they may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreparedKeyPolicy {
    /// The most bytes the prepared keys' tables take together; 0 prepares none.
    pub max_bytes: usize,
    /// Signatures a certificate's key checks with the library before it is prepared: the
    /// next one is checked with the prepared key.
    pub after: u32,
}

impl PreparedKeyPolicy {
    /// The default bound: 32 MiB, about 380 keys of 256 bits (86 KiB each) or 170 of 384
    /// bits (192 KiB): a dense urban scene's few hundred neighbours.
    pub const DEFAULT_MAX_BYTES: usize = 32 << 20;
    /// The default count: 8 signatures, about what building a table costs (nine library
    /// verifications), so that a signer that stops right after its key was prepared costs
    /// at most about twice what it did without prepared keys.
    pub const DEFAULT_AFTER: u32 = 8;
    /// No prepared keys: every signature is checked with the library.
    pub const OFF: PreparedKeyPolicy = PreparedKeyPolicy {
        max_bytes: 0,
        after: Self::DEFAULT_AFTER,
    };

    /// Whether keys are prepared at all.
    pub fn enabled(&self) -> bool {
        self.max_bytes > 0
    }
}

impl Default for PreparedKeyPolicy {
    fn default() -> Self {
        PreparedKeyPolicy {
            max_bytes: Self::DEFAULT_MAX_BYTES,
            after: Self::DEFAULT_AFTER,
        }
    }
}

/// The most doublings of the uses a dropped key needs before it is prepared again.
const MAX_BACKOFF: u32 = 16;

/// A cached certificate's key: its uses, counted until it is prepared.
#[derive(Default)]
pub(super) struct KeyUse {
    /// Signatures checked since it was cached or its prepared key was dropped: it is
    /// prepared at use (after + 1) × 2^dropped.
    uses: u32,
    /// Times its prepared key was dropped: each doubles the uses needed to prepare it again.
    dropped: u32,
    /// Its prepared key, when it was last used (the pool's recency) and at what time.
    prepared: Option<(Arc<PreparedKey>, u64, ItsTime)>,
}

impl KeyUse {
    /// Counts one use; whether the key is due to be prepared.
    fn count(&mut self, after: u32) -> bool {
        self.uses = self.uses.saturating_add(1);
        let needed = (u64::from(after) + 1) << self.dropped.min(MAX_BACKOFF);
        u64::from(self.uses) >= needed
    }

    /// Drops the prepared key (or gives up a build): the count starts again, twice as long.
    fn back_off(&mut self) -> Option<Arc<PreparedKey>> {
        self.uses = 0;
        self.dropped = self.dropped.saturating_add(1);
        self.prepared.take().map(|(key, ..)| key)
    }
}

/// The prepared keys' policy, the bytes they take and their least-recently-used order.
pub(super) struct PreparedPool {
    policy: PreparedKeyPolicy,
    bytes: usize,
    recency: BTreeMap<u64, HashedId8>,
    /// The size of a prepared key of each curve met so far (to know before a build whether
    /// it will fit).
    sizes: Vec<(Curve, usize)>,
}

impl PreparedPool {
    /// An empty pool under `policy`.
    pub(super) fn new(policy: PreparedKeyPolicy) -> Self {
        PreparedPool {
            policy,
            bytes: 0,
            recency: BTreeMap::new(),
            sizes: Vec::new(),
        }
    }

    /// The bytes the prepared keys' tables take.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets every prepared key (their certificates are gone).
    pub(super) fn clear(&mut self) {
        self.bytes = 0;
        self.recency.clear();
    }

    /// Forgets the prepared key of a certificate that leaves the cache.
    pub(super) fn release(&mut self, key: &KeyUse) {
        if let Some((prepared, used, _)) = &key.prepared {
            self.bytes -= prepared.memory_bytes();
            self.recency.remove(used);
        }
    }

    /// The size of a prepared key of `curve`, once one was built (else 0).
    fn size_of(&self, curve: Curve) -> usize {
        self.sizes
            .iter()
            .find(|(c, _)| *c == curve)
            .map_or(0, |(_, size)| *size)
    }

    /// Records the size of a prepared key of `curve`.
    fn learn(&mut self, curve: Curve, size: usize) {
        if self.size_of(curve) == 0 {
            self.sizes.push((curve, size));
        }
    }
}

impl CertCache {
    /// Prepares keys under `policy` from now on: the keys prepared before are dropped and
    /// the uses are counted again.
    pub fn set_prepared_policy(&mut self, policy: PreparedKeyPolicy) {
        for entry in self.entries.values_mut() {
            entry.key = KeyUse::default();
        }
        self.prepared = PreparedPool::new(policy);
    }

    /// When keys are prepared, and how much memory they may take.
    pub fn prepared_policy(&self) -> PreparedKeyPolicy {
        self.prepared.policy
    }

    /// Counts a signature about to be checked with the key of `signer` and gives its
    /// prepared key: the one kept, or one built now that the key has checked more than
    /// [`PreparedKeyPolicy::after`] signatures (older prepared keys are dropped to make
    /// room). `None` while the uses are counted, when keys are not prepared, for a curve
    /// without prepared keys, or when `signer` is not the certificate cached under its name
    /// (a trust anchor), or while every kept key was used within [`IDLE_BEFORE_DROP`] of
    /// `now` and no room is left.
    pub fn prepared_key(
        &mut self,
        signer: &Arc<ValidatedCert>,
        now: ItsTime,
    ) -> Option<Arc<PreparedKey>> {
        let policy = self.prepared.policy;
        let public = signer.key.public_key();
        if !policy.enabled() || !PreparedKey::supports(public.curve()) {
            return None;
        }
        let id = signer.cert.hashed_id8();
        self.clock += 1;
        let stamp = self.clock;
        let entry = self
            .entries
            .get_mut(&id)
            .filter(|e| Arc::ptr_eq(&e.cert, signer))?;
        if let Some((key, used, at)) = &mut entry.key.prepared {
            self.prepared.recency.remove(used);
            (*used, *at) = (stamp, now);
            self.prepared.recency.insert(stamp, id);
            self.stats.prepared_hits += 1;
            return Some(Arc::clone(key));
        }
        if !entry.key.count(policy.after)
            || !self.make_room(self.prepared.size_of(public.curve()), now)
        {
            return None;
        }
        let built = PreparedKey::new(public).ok().map(Arc::new);
        self.stats.prepared_builds += u64::from(built.is_some());
        if let Some(key) = &built {
            self.prepared.learn(public.curve(), key.memory_bytes());
        }
        let key = built.filter(|key| self.make_room(key.memory_bytes(), now));
        let entry = self.entries.get_mut(&id)?;
        let Some(key) = key else {
            // Larger than the bound (or not built): not again before twice the uses.
            entry.key.back_off();
            return None;
        };
        let size = key.memory_bytes();
        self.prepared.bytes += size;
        self.prepared.recency.insert(stamp, id);
        entry.key.prepared = Some((Arc::clone(&key), stamp, now));
        Some(key)
    }

    /// Drops the least recently used prepared keys, if unused for [`IDLE_BEFORE_DROP`]
    /// at `now`, until `size` more bytes fit under the bound; whether they do.
    fn make_room(&mut self, size: usize, now: ItsTime) -> bool {
        let max = self.prepared.policy.max_bytes;
        if size > max {
            return false;
        }
        let idle = IDLE_BEFORE_DROP.as_micros() as u64;
        while self.prepared.bytes + size > max {
            let Some((_, oldest)) = self.prepared.recency.first_key_value() else {
                return false;
            };
            let entry = self.entries.get_mut(oldest);
            let busy = |(.., at): &(_, _, ItsTime)| at.plus_micros(idle) > now;
            if entry
                .as_ref()
                .is_some_and(|e| e.key.prepared.as_ref().is_some_and(busy))
            {
                return false;
            }
            self.prepared.recency.pop_first();
            if let Some(key) = entry.and_then(|e| e.key.back_off()) {
                self.prepared.bytes -= key.memory_bytes();
                self.stats.prepared_evictions += 1;
            }
        }
        true
    }
}

#[cfg(test)]
#[path = "prepared_tests.rs"]
mod tests;

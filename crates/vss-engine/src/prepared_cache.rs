//! The CPU engine's prepared keys ([`vss_crypto::PreparedKey`]): a signer with at least
//! [`PREPARE_AFTER`] jobs in one thread's share of a batch gets a prepared key, kept for the
//! batches after it under a memory bound, the least recently used dropped first. A key
//! signing fewer jobs, and every key of a curve without prepared keys, takes the library.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use vss_crypto::{Curve, PreparedKey};

/// Jobs of one signer in a thread's share before its key is prepared: a table costs about
/// nine library verifications to build, and each prepared verification saves about two
/// thirds of one.
pub const PREPARE_AFTER: usize = 16;

/// The default bound on the prepared keys' tables: 32 MiB, about 380 keys of 256 bits.
pub const DEFAULT_PREPARED_BYTES: usize = 32 << 20;

/// A kept key and when it was last used.
struct Entry {
    key: Arc<PreparedKey>,
    used: u64,
}

/// The prepared keys of one engine, shared by its threads, and the bytes they take.
#[derive(Default)]
struct Kept {
    entries: HashMap<(Curve, Vec<u8>), Entry>,
    bytes: usize,
    clock: u64,
}

/// Prepared keys under a memory bound.
pub(crate) struct PreparedCache {
    max_bytes: usize,
    kept: Mutex<Kept>,
}

impl std::fmt::Debug for PreparedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("PreparedCache")
            .field("max_bytes", &self.max_bytes)
            .field("keys", &kept.entries.len())
            .field("bytes", &kept.bytes)
            .finish()
    }
}

impl PreparedCache {
    /// An empty cache whose tables stay under `max_bytes` (0 prepares none).
    pub(crate) fn new(max_bytes: usize) -> PreparedCache {
        PreparedCache {
            max_bytes,
            kept: Mutex::new(Kept::default()),
        }
    }

    /// The keys kept and the bytes their tables take.
    pub(crate) fn usage(&self) -> (usize, usize) {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        (kept.entries.len(), kept.bytes)
    }

    /// The prepared key of `key` (SEC 1 bytes of `curve`) for a share in which it signs
    /// `jobs` jobs: the kept one, or one built now when `jobs` reaches [`PREPARE_AFTER`]
    /// and it fits. `None` for a key that is not a point of the curve.
    pub(crate) fn get(&self, curve: Curve, key: &[u8], jobs: usize) -> Option<Arc<PreparedKey>> {
        if self.max_bytes == 0 || !PreparedKey::supports(curve) {
            return None;
        }
        {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            kept.clock += 1;
            let clock = kept.clock;
            if let Some(entry) = kept.entries.get_mut(&(curve, key.to_vec())) {
                entry.used = clock;
                return Some(Arc::clone(&entry.key));
            }
        }
        if jobs < PREPARE_AFTER {
            return None;
        }
        // Built outside the lock: the other threads go on meanwhile.
        let built = Arc::new(PreparedKey::from_sec1(curve, key).ok()?);
        let size = built.memory_bytes();
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = kept.entries.get(&(curve, key.to_vec())) {
            return Some(Arc::clone(&entry.key));
        }
        if size > self.max_bytes {
            return Some(built);
        }
        while kept.bytes + size > self.max_bytes {
            let Some(oldest) = kept
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(id, _)| id.clone())
            else {
                break;
            };
            if let Some(gone) = kept.entries.remove(&oldest) {
                kept.bytes -= gone.key.memory_bytes();
            }
        }
        kept.clock += 1;
        let used = kept.clock;
        kept.bytes += size;
        kept.entries.insert(
            (curve, key.to_vec()),
            Entry {
                key: Arc::clone(&built),
                used,
            },
        );
        Some(built)
    }
}

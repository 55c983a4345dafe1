//! Prepared keys for the kernel: a key that signs many jobs of a chunk gets a table of its
//! own multiples, laid out as G's (32 windows of 8 bits), so u2·Q costs at most 32 mixed
//! additions instead of 256 doublings and 65 additions. Tables live in numbered slots (host
//! memory for [`crate::HostKernelEngine`], device memory for the GPU engine); this module
//! decides which key has which slot, evicting the least recently used slot that no chunk in
//! flight reads.

use std::collections::HashMap;

use vss_crypto::Curve;

use crate::kernel::{G_TABLE_LEN, MAX_KERNEL_JOBS};
use crate::staging::Be256;

/// A key as the kernel knows it: its curve and affine coordinates.
pub(crate) type KeyId = (Curve, Be256, Be256);

/// How many keys may have a table, and when a key gets one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyTableConfig {
    /// Slots for tables (0 to 4,096; 0 turns prepared keys off). A table is 8,160 affine
    /// points, 510 KiB.
    pub slots: usize,
    /// Jobs of one key in one chunk before it gets a table (2 to 2^20). Jobs are counted
    /// in parts of 4,096 consecutive jobs, a key that signs only one job of a part not
    /// counted there, so a chunk of distinct signers costs no bookkeeping. A table is built
    /// on the host (about 36 ms of one core on an AMD EPYC 9004); a prepared job costs the
    /// device about a third of a generic one, so the default waits for 1,024 jobs.
    pub prepare_after: usize,
}

impl Default for KeyTableConfig {
    fn default() -> Self {
        KeyTableConfig {
            slots: 64,
            prepare_after: 1024,
        }
    }
}

impl KeyTableConfig {
    /// Bytes of one key's table.
    pub const TABLE_BYTES: usize = G_TABLE_LEN * 64;

    /// The most slots a configuration may ask for.
    pub const MAX_SLOTS: usize = 4096;

    /// Checks both fields against their documented ranges; the error says which and why.
    pub fn check(&self) -> Result<(), &'static str> {
        if self.slots > Self::MAX_SLOTS {
            return Err("key table slots must be from 0 to 4096");
        }
        if !(2..=MAX_KERNEL_JOBS).contains(&self.prepare_after) {
            return Err("prepare_after must be from 2 to 2^20 jobs");
        }
        Ok(())
    }

    /// Bytes the tables take when every slot is used.
    pub fn bytes(&self) -> usize {
        self.slots * Self::TABLE_BYTES
    }
}

/// One slot: the key whose table it holds, when it was last used, and how many chunks in
/// flight read it.
#[derive(Debug, Clone, Copy, Default)]
struct SlotState {
    key: Option<KeyId>,
    used: u64,
    readers: usize,
}

/// The slots of one engine.
#[derive(Debug)]
pub(crate) struct KeyTables {
    config: KeyTableConfig,
    slots: Vec<SlotState>,
    resident: HashMap<KeyId, u32>,
    clock: u64,
}

/// What one chunk got: the slot of each of its prepared keys, the tables to build before
/// it runs, and the slots it reads until [`KeyTables::release`].
#[derive(Debug, Default)]
pub(crate) struct Assignment {
    pub(crate) slots: HashMap<KeyId, u32>,
    pub(crate) build: Vec<(u32, KeyId)>,
    pub(crate) readers: Vec<u32>,
}

impl KeyTables {
    /// Empty slots under `config` (already checked).
    pub(crate) fn new(config: KeyTableConfig) -> KeyTables {
        KeyTables {
            config,
            slots: vec![SlotState::default(); config.slots],
            resident: HashMap::new(),
            clock: 0,
        }
    }

    /// The configuration.
    pub(crate) fn config(&self) -> KeyTableConfig {
        self.config
    }

    /// How many keys have a table now.
    pub(crate) fn resident_count(&self) -> usize {
        self.resident.len()
    }

    /// Whether `key` has a table now.
    pub(crate) fn is_resident(&self, key: &KeyId) -> bool {
        self.resident.contains_key(key)
    }

    /// Slots for a chunk whose keys signed `counts` of its jobs: a key with a table keeps
    /// it; a key with at least `prepare_after` jobs for which `is_key` holds (the prepared
    /// kernel trusts its table, so the caller checks the key is a point of its curve) gets a
    /// free slot, or the least recently used one that no chunk in flight reads; the others
    /// take the generic path. Every slot handed out is read by the chunk until it is released.
    pub(crate) fn assign(
        &mut self,
        counts: HashMap<KeyId, usize>,
        is_key: impl Fn(&KeyId) -> bool,
    ) -> Assignment {
        self.clock += 1;
        let mut out = Assignment::default();
        let mut keys: Vec<(KeyId, usize)> = counts.into_iter().collect();
        // The busiest keys first, so a full set of slots goes to them.
        keys.sort_unstable_by_key(|k| std::cmp::Reverse(k.1));
        for (key, jobs) in keys {
            let slot = match self.resident.get(&key) {
                Some(&slot) => slot,
                None if jobs >= self.config.prepare_after && is_key(&key) => {
                    let Some(slot) = self.free_slot() else {
                        continue;
                    };
                    if let Some(old) = self.slots[slot as usize].key.replace(key) {
                        self.resident.remove(&old);
                    }
                    self.resident.insert(key, slot);
                    out.build.push((slot, key));
                    slot
                }
                None => continue,
            };
            let state = &mut self.slots[slot as usize];
            state.used = self.clock;
            state.readers += 1;
            out.readers.push(slot);
            out.slots.insert(key, slot);
        }
        out
    }

    /// A slot never used, else the least recently used one no chunk reads (not one
    /// handed out to this chunk: those are read).
    fn free_slot(&self) -> Option<u32> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.readers == 0)
            .min_by_key(|(_, s)| (s.key.is_some(), s.used))
            .map(|(i, _)| i as u32)
    }

    /// The chunk that read `readers` is done with them.
    pub(crate) fn release(&mut self, readers: &[u32]) {
        for &slot in readers {
            let state = &mut self.slots[slot as usize];
            state.readers = state.readers.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> KeyId {
        (Curve::P256, [n; 32], [n; 32])
    }

    fn counts(pairs: &[(u8, usize)]) -> HashMap<KeyId, usize> {
        pairs.iter().map(|&(k, n)| (key(k), n)).collect()
    }

    impl KeyTables {
        /// `assign` with every key taken for a point of its curve.
        fn assign_all(&mut self, counts: HashMap<KeyId, usize>) -> Assignment {
            self.assign(counts, |_| true)
        }
    }

    #[test]
    fn busy_keys_get_slots_and_keep_them() {
        let mut tables = KeyTables::new(KeyTableConfig {
            slots: 2,
            prepare_after: 10,
        });
        let first = tables.assign_all(counts(&[(1, 10), (2, 9)]));
        assert_eq!(first.slots.len(), 1, "key 2 is under the threshold");
        assert_eq!(first.build.len(), 1);
        tables.release(&first.readers);
        // Key 1 keeps its slot with a single job; nothing is built again.
        let second = tables.assign_all(counts(&[(1, 1)]));
        assert_eq!(second.slots.get(&key(1)), first.slots.get(&key(1)));
        assert!(second.build.is_empty());
        tables.release(&second.readers);
    }

    #[test]
    fn eviction_takes_the_least_recently_used_slot_no_chunk_reads() {
        let mut tables = KeyTables::new(KeyTableConfig {
            slots: 2,
            prepare_after: 2,
        });
        let a = tables.assign_all(counts(&[(1, 5)]));
        tables.release(&a.readers);
        let b = tables.assign_all(counts(&[(2, 5)]));
        // Key 2's chunk is still in flight: key 3 may only take key 1's slot.
        let c = tables.assign_all(counts(&[(3, 5)]));
        assert_eq!(c.slots[&key(3)], a.slots[&key(1)]);
        assert!(!tables.is_resident(&key(1)));
        // Both slots are read now: key 4 takes the generic path.
        let d = tables.assign_all(counts(&[(4, 50)]));
        assert!(d.slots.is_empty() && d.build.is_empty());
        tables.release(&b.readers);
        tables.release(&c.readers);
        let e = tables.assign_all(counts(&[(4, 50)]));
        assert_eq!(
            e.slots[&key(4)],
            b.slots[&key(2)],
            "key 2's slot was used longest ago"
        );
    }

    #[test]
    fn no_slots_means_no_tables() {
        let mut tables = KeyTables::new(KeyTableConfig {
            slots: 0,
            prepare_after: 2,
        });
        assert!(tables.assign_all(counts(&[(1, 1000)])).slots.is_empty());
    }

    #[test]
    fn configurations_out_of_range_are_refused() {
        let ok = KeyTableConfig::default();
        assert_eq!(ok.check(), Ok(()));
        assert_eq!(ok.bytes(), 64 * 8160 * 64);
        for bad in [
            KeyTableConfig { slots: 4097, ..ok },
            KeyTableConfig {
                prepare_after: 1,
                ..ok
            },
            KeyTableConfig {
                prepare_after: (1 << 20) + 1,
                ..ok
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
    }
}

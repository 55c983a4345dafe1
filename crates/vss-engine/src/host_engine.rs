//! [`HostKernelEngine`]: the GPU kernel's code run on the host, on one thread, with the GPU
//! engine's staging and, if asked, its prepared keys: the GPU's verdicts without a GPU.

use std::sync::{Mutex, PoisonError};

use crate::batch::Staged;
use crate::kernel::{AffinePoint, G_TABLE_LEN, JOB_WORDS, MAX_KERNEL_JOBS};
use crate::key_tables::{KeyTableConfig, KeyTables};
use crate::{VerifyEngine, VerifyJob};

/// The batch kernel's code run on the host, on one thread: the GPU kernel's verdicts without a
/// GPU (tests compare it with the library and with the GPU). By default every job takes the
/// generic path; [`HostKernelEngine::with_key_tables`] gives it the GPU engine's prepared keys.
#[derive(Debug, Default)]
pub struct HostKernelEngine {
    prepared: Option<Mutex<HostTables>>,
}

/// Prepared keys in host memory: the slots and their tables, `G_TABLE_LEN` points each.
#[derive(Debug)]
struct HostTables {
    keys: KeyTables,
    points: Vec<AffinePoint>,
}

impl HostKernelEngine {
    /// The engine with prepared keys under `config`, as the GPU engine keeps them; `None`
    /// when a field is out of its range.
    pub fn with_key_tables(config: KeyTableConfig) -> Option<HostKernelEngine> {
        config.check().ok()?;
        let zero = AffinePoint {
            x: [0; 8],
            y: [0; 8],
        };
        Some(HostKernelEngine {
            prepared: Some(Mutex::new(HostTables {
                keys: KeyTables::new(config),
                points: vec![zero; config.slots * G_TABLE_LEN],
            })),
        })
    }

    /// How many keys have a table now (0 without key tables).
    pub fn prepared_keys(&self) -> usize {
        self.prepared.as_ref().map_or(0, |m| {
            m.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .keys
                .resident_count()
        })
    }

    /// Verifies one part of at most MAX_KERNEL_JOBS jobs.
    fn verify_part(&self, part: &[VerifyJob<'_>], input: &mut Vec<u32>) -> Vec<bool> {
        input.resize(part.len() * JOB_WORDS, 0);
        let mut guard = self
            .prepared
            .as_ref()
            .map(|m| m.lock().unwrap_or_else(PoisonError::into_inner));
        let mut staged = Staged::new(part, input, guard.as_deref_mut().map(|t| &mut t.keys));
        let points: &[AffinePoint] = match guard.as_deref_mut() {
            Some(tables) => {
                for (slot, table) in staged.tables.drain(..) {
                    let at = slot as usize * G_TABLE_LEN;
                    tables.points[at..at + G_TABLE_LEN].copy_from_slice(&table);
                }
                &tables.points
            }
            None => &[],
        };
        let mut out = vec![0u8; staged.kernel_jobs()];
        for (group, first, count) in staged.launches() {
            group.curve.run_batch(
                &input[first * JOB_WORDS..(first + count) * JOB_WORDS],
                &mut out[first..first + count],
                group.prepared.then_some(points),
            );
        }
        staged.set(&out);
        if let Some(tables) = guard.as_deref_mut() {
            tables.keys.release(&staged.readers);
        }
        staged.verdicts
    }
}

impl VerifyEngine for HostKernelEngine {
    fn name(&self) -> &'static str {
        "kernel-host"
    }

    fn device(&self) -> String {
        "the GPU kernel's code on one CPU thread".into()
    }

    fn verify_batch(&self, jobs: &[VerifyJob<'_>]) -> Vec<bool> {
        let mut input = Vec::new();
        jobs.chunks(MAX_KERNEL_JOBS)
            .flat_map(|part| self.verify_part(part, &mut input))
            .collect()
    }
}

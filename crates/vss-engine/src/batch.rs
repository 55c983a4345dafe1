//! A batch as the kernel takes it: jobs parsed on the host ([`crate::staging`]), grouped by
//! curve and by whether their key has a table ([`crate::key_tables`]), and laid out in one
//! input buffer, JOB_WORDS words per job.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::kernel::{limbs_from_be, AffinePoint, KernelCurve, JOB_WORDS, KERNEL_CURVES};
use crate::key_tables::{Assignment, KeyId, KeyTables};
use crate::staging::{self, KeyCheck, StagedJob, StagedPart};
use crate::VerifyJob;

/// Jobs each worker stages at a time (each part parses its keys once).
const STAGE_PART: usize = 4096;

/// The jobs of one kernel launch.
pub(crate) struct Group {
    /// The curve.
    pub(crate) curve: &'static KernelCurve,
    /// Whether the jobs' keys have tables (the prepared kernel) or not.
    pub(crate) prepared: bool,
    /// Each kernel job's index in the batch.
    pub(crate) jobs: Vec<usize>,
}

/// A batch parsed on the host: the verdicts known already (false for malformed jobs, the
/// library's for curves the kernel does not take) and the kernel's jobs in groups, whose
/// words went to the caller's input buffer, the groups one after the other.
pub(crate) struct Staged {
    /// One verdict per job; the kernel's jobs are false until `set`.
    pub(crate) verdicts: Vec<bool>,
    /// The kernel's jobs, one group per curve and path that has any.
    pub(crate) groups: Vec<Group>,
    /// Tables the batch needs that are not loaded yet: slot and points.
    pub(crate) tables: Vec<(u32, Vec<AffinePoint>)>,
    /// The slots the batch reads, to release when it is done.
    pub(crate) readers: Vec<u32>,
}

/// The keys of `parts` worth a table: those that have one, and those that sign at least two
/// jobs of a part, with their jobs summed over the parts.
fn key_counts(parts: &[StagedPart], tables: &KeyTables) -> HashMap<KeyId, usize> {
    let seen: Vec<Vec<(KeyId, usize)>> = parts
        .par_iter()
        .map(|part| {
            part.keys
                .iter()
                .map(|k| ((k.curve, k.qx, k.qy), k.jobs))
                .filter(|(id, jobs)| *jobs >= 2 || tables.is_resident(id))
                .collect()
        })
        .collect();
    let mut counts = HashMap::new();
    for (id, jobs) in seen.into_iter().flatten() {
        *counts.entry(id).or_insert(0) += jobs;
    }
    counts
}

/// Whether a key is a point of its curve (below p, on the curve), as the kernel checks an
/// unprepared key itself.
fn is_point(&(curve, qx, qy): &KeyId) -> bool {
    KernelCurve::get(curve).is_some_and(|k| k.is_key(&qx, &qy))
}

/// The slot of each job of each part (`None`: the generic path).
fn job_slots(parts: &[StagedPart], assignment: &Assignment) -> Vec<Vec<Option<u32>>> {
    parts
        .par_iter()
        .map(|part| {
            let by_key: Vec<Option<u32>> = part
                .keys
                .iter()
                .map(|k| assignment.slots.get(&(k.curve, k.qx, k.qy)).copied())
                .collect();
            part.jobs.iter().map(|j| by_key[j.key]).collect()
        })
        .collect()
}

impl Staged {
    /// Parses `jobs` (in parts on the rayon pool) and writes the kernel's jobs to `input`
    /// (at least `JOB_WORDS` words per job), kernel job i's words at `i·JOB_WORDS`, the
    /// groups in turn. With `keys`, the keys that sign many jobs get tables (built here, on
    /// the rayon pool) and their jobs go to the prepared groups; the caller loads
    /// [`Staged::tables`] before the launches and releases [`Staged::readers`] after.
    pub(crate) fn new(
        jobs: &[VerifyJob<'_>],
        input: &mut [u32],
        keys: Option<&mut KeyTables>,
    ) -> Staged {
        let mut verdicts = vec![false; jobs.len()];
        let parts: Vec<StagedPart> = jobs
            .par_chunks(STAGE_PART)
            .zip(verdicts.par_chunks_mut(STAGE_PART))
            .enumerate()
            .map(|(part, (jobs, verdicts))| {
                let mut staged = staging::stage(jobs, verdicts, KeyCheck::Kernel);
                for job in &mut staged.jobs {
                    job.index += part * STAGE_PART;
                }
                staged
            })
            .collect();
        let assignment = match keys {
            Some(keys) if keys.config().slots > 0 => {
                let counts = key_counts(&parts, keys);
                keys.assign(counts, is_point)
            }
            _ => Assignment::default(),
        };
        let slots = (!assignment.slots.is_empty()).then(|| job_slots(&parts, &assignment));
        let slot_of = |p: usize, j: usize| slots.as_ref().and_then(|s| s[p][j]);
        let mut rows: Vec<(&StagedJob, Option<u32>)> = Vec::with_capacity(jobs.len());
        let mut groups = Vec::new();
        for curve in KERNEL_CURVES {
            for prepared in [false, true] {
                let first = rows.len();
                for (p, part) in parts.iter().enumerate() {
                    rows.extend(
                        part.jobs
                            .iter()
                            .enumerate()
                            .filter(|(j, job)| {
                                job.curve == curve && slot_of(p, *j).is_some() == prepared
                            })
                            .map(|(j, job)| (job, slot_of(p, j))),
                    );
                }
                if let Some(kernel) = KernelCurve::get(curve).filter(|_| rows.len() > first) {
                    groups.push(Group {
                        curve: kernel,
                        prepared,
                        jobs: rows[first..].iter().map(|(j, _)| j.index).collect(),
                    });
                }
            }
        }
        input[..rows.len() * JOB_WORDS]
            .par_chunks_mut(JOB_WORDS)
            .zip(rows.par_iter())
            .for_each(|(words, (job, slot))| write_job(words, job, *slot));
        let tables = assignment
            .build
            .par_iter()
            .filter_map(|&(slot, (curve, qx, qy))| {
                Some((slot, KernelCurve::get(curve)?.key_table(&qx, &qy)))
            })
            .collect();
        Staged {
            verdicts,
            groups,
            tables,
            readers: assignment.readers,
        }
    }

    /// How many jobs the kernel takes (the groups' jobs together).
    pub(crate) fn kernel_jobs(&self) -> usize {
        self.groups.iter().map(|g| g.jobs.len()).sum()
    }

    /// One kernel run per group: the group, its first kernel job and how many it has.
    pub(crate) fn launches(&self) -> impl Iterator<Item = (&Group, usize, usize)> + '_ {
        self.groups.iter().scan(0, |first, group| {
            let at = *first;
            *first += group.jobs.len();
            Some((group, at, group.jobs.len()))
        })
    }

    /// Takes the kernel's verdict bytes, one per kernel job in the groups' order.
    pub(crate) fn set(&mut self, kernel_verdicts: &[u8]) {
        let indices = self.groups.iter().flat_map(|g| &g.jobs);
        for (&job, &v) in indices.zip(kernel_verdicts) {
            self.verdicts[job] = v != 0;
        }
    }
}

/// One job's words: Qx, Qy, e, r, s (eight limbs each); with a slot, the slot in place of Qx
/// and zeros in place of Qy.
fn write_job(words: &mut [u32], job: &StagedJob, slot: Option<u32>) {
    let limbs = |v| limbs_from_be(v).unwrap_or_default();
    match slot {
        Some(slot) => {
            words[..16].fill(0);
            words[0] = slot;
        }
        None => {
            words[..8].copy_from_slice(&limbs(&job.qx));
            words[8..16].copy_from_slice(&limbs(&job.qy));
        }
    }
    for (f, field) in [job.e, job.r, job.s].iter().enumerate() {
        words[16 + f * 8..24 + f * 8].copy_from_slice(&limbs(field));
    }
}

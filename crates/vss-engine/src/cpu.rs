//! The CPU engine: a batch split into one contiguous share per thread. Each share is
//! verified by the AVX-512 IFMA verifier where the CPU has it (P-256 and brainpoolP256r1,
//! eight at a time), else with prepared keys for the signers with many jobs in the share and
//! the library verifier (AWS-LC for P-256/P-384, OpenSSL for brainpool) for the others,
//! keeping a parsed key for the next job while the signer stays the same.

use std::collections::HashMap;
use std::sync::Arc;

use vss_crypto::{Curve, PreparedKey, PublicKey, Signature, VerifyingKey};

use crate::prepared_cache::{PreparedCache, DEFAULT_PREPARED_BYTES};
use crate::{VerifyEngine, VerifyJob};

/// Batches below this many jobs per thread are not split further (thread start-up costs
/// more than it saves).
const MIN_SHARE: usize = 64;

/// How each thread verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuPath {
    /// The library verifier, one job at a time.
    Library,
    /// Prepared keys ([`PreparedKey`], two to six times the library's rate) for the signers
    /// with at least 16 jobs in a thread's share, kept for later batches under a memory
    /// bound; the library for the others. Any CPU.
    Prepared,
    /// Eight jobs at a time in AVX-512 IFMA lanes (x86-64 CPUs that have it).
    Ifma,
}

impl CpuPath {
    /// The fastest path this CPU has, by its features: the IFMA lanes where it has them
    /// (3.5 to 15 times OpenSSL on one core), else prepared keys (never slower than the
    /// library: a signer's first jobs take the library).
    pub fn best() -> CpuPath {
        if CpuPath::Ifma.is_available() {
            CpuPath::Ifma
        } else {
            CpuPath::Prepared
        }
    }

    /// Whether this CPU can take the path.
    pub fn is_available(self) -> bool {
        match self {
            CpuPath::Library | CpuPath::Prepared => true,
            #[cfg(target_arch = "x86_64")]
            CpuPath::Ifma => crate::ifma::available(),
            #[cfg(not(target_arch = "x86_64"))]
            CpuPath::Ifma => false,
        }
    }

    /// Its name (`library`, `prepared`, `avx512ifma`).
    pub fn name(self) -> &'static str {
        match self {
            CpuPath::Library => "library",
            CpuPath::Prepared => "prepared",
            CpuPath::Ifma => "avx512ifma",
        }
    }
}

/// Verifies on all cores (or as many threads as asked), on a pool of its own.
#[derive(Debug, Clone)]
pub struct CpuEngine {
    threads: usize,
    path: CpuPath,
    pool: Option<Arc<rayon::ThreadPool>>,
    prepared: Arc<PreparedCache>,
}

impl Default for CpuEngine {
    fn default() -> Self {
        CpuEngine::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

impl CpuEngine {
    /// An engine with `threads` threads (at least one) on the fastest path of this CPU.
    pub fn new(threads: usize) -> Self {
        CpuEngine::on(threads, CpuPath::best())
    }

    /// An engine on `path`, or `None` when this CPU cannot take it.
    pub fn with_path(threads: usize, path: CpuPath) -> Option<Self> {
        path.is_available().then(|| CpuEngine::on(threads, path))
    }

    /// The engine, with a pool of `threads` workers when there is more than one (without a
    /// pool, when the system refuses threads, batches run on the caller's thread).
    fn on(threads: usize, path: CpuPath) -> Self {
        let threads = threads.max(1);
        let pool = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("vss-verify-{i}"))
                    .build()
                    .ok()
            })
            .flatten();
        CpuEngine {
            threads: if pool.is_some() { threads } else { 1 },
            path,
            pool: pool.map(Arc::new),
            prepared: Arc::new(PreparedCache::new(DEFAULT_PREPARED_BYTES)),
        }
    }

    /// The engine with its prepared keys' tables kept under `max_bytes` (default 32 MiB; 0
    /// prepares none: every job takes the library). The [`CpuPath::Prepared`] path, and the
    /// IFMA path for the curves its lanes lack, prepare keys.
    pub fn with_prepared_bytes(mut self, max_bytes: usize) -> Self {
        self.prepared = Arc::new(PreparedCache::new(max_bytes));
        self
    }

    /// The prepared keys kept and the bytes their tables take.
    pub fn prepared_usage(&self) -> (usize, usize) {
        self.prepared.usage()
    }

    /// Its number of threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Its path.
    pub fn path(&self) -> CpuPath {
        self.path
    }

    /// Verifies one thread's share.
    fn verify_share(&self, jobs: &[VerifyJob<'_>], verdicts: &mut [bool]) {
        match self.path {
            #[cfg(target_arch = "x86_64")]
            CpuPath::Ifma => {
                // The lanes take P-256 and brainpoolP256r1; the other curves' jobs take
                // prepared keys (P-384 and brainpoolP384r1 7.6x OpenSSL against 3.3x and 1.0x
                // with the library, on an AMD EPYC).
                let lanes = |job: &VerifyJob<'_>| matches!(job.curve, Curve::P256 | Curve::Bp256);
                split_by(
                    jobs,
                    verdicts,
                    lanes,
                    crate::ifma::verify,
                    |jobs, verdicts| verify_with_prepared_keys(jobs, verdicts, &self.prepared),
                )
            }
            CpuPath::Prepared => verify_with_prepared_keys(jobs, verdicts, &self.prepared),
            _ => verify_with_library(jobs, verdicts),
        }
    }
}

/// Verifies the jobs for which `first_kind` holds with `first` and the others with
/// `others`, each group in order, the verdicts back in the jobs' order.
fn split_by(
    jobs: &[VerifyJob<'_>],
    verdicts: &mut [bool],
    first_kind: impl Fn(&VerifyJob<'_>) -> bool,
    first: impl FnOnce(&[VerifyJob<'_>], &mut [bool]),
    others: impl FnOnce(&[VerifyJob<'_>], &mut [bool]),
) {
    let (mine, rest): (Vec<usize>, Vec<usize>) =
        (0..jobs.len()).partition(|&i| first_kind(&jobs[i]));
    if rest.is_empty() {
        return first(jobs, verdicts);
    }
    if mine.is_empty() {
        return others(jobs, verdicts);
    }
    verify_some(jobs, verdicts, &mine, first);
    verify_some(jobs, verdicts, &rest, others);
}

/// Verifies the jobs at `indices` with `verify`, their verdicts back in place.
fn verify_some(
    jobs: &[VerifyJob<'_>],
    verdicts: &mut [bool],
    indices: &[usize],
    verify: impl FnOnce(&[VerifyJob<'_>], &mut [bool]),
) {
    let group: Vec<VerifyJob<'_>> = indices.iter().map(|&i| jobs[i]).collect();
    let mut theirs = vec![false; group.len()];
    verify(&group, &mut theirs);
    for (&i, verdict) in indices.iter().zip(theirs) {
        verdicts[i] = verdict;
    }
}

/// Verifies `jobs` in order: with a prepared key for each signer that has one kept or
/// enough jobs here to build one, with the library for the others.
fn verify_with_prepared_keys(jobs: &[VerifyJob<'_>], verdicts: &mut [bool], cache: &PreparedCache) {
    let mut counts: HashMap<(Curve, &[u8]), usize> = HashMap::new();
    for job in jobs {
        *counts.entry((job.curve, job.public_key)).or_insert(0) += 1;
    }
    let prepared: HashMap<(Curve, &[u8]), Arc<PreparedKey>> = counts
        .into_iter()
        .filter_map(|((curve, key), n)| Some(((curve, key), cache.get(curve, key, n)?)))
        .collect();
    let has_key = |job: &VerifyJob<'_>| prepared.contains_key(&(job.curve, job.public_key));
    let with_prepared = |jobs: &[VerifyJob<'_>], verdicts: &mut [bool]| {
        for (job, verdict) in jobs.iter().zip(verdicts) {
            *verdict = prepared
                .get(&(job.curve, job.public_key))
                .zip(Signature::from_p1363(job.curve, job.signature).ok())
                .is_some_and(|(key, s)| key.verify_digest(job.digest, &s));
        }
    };
    split_by(jobs, verdicts, has_key, with_prepared, verify_with_library);
}

/// Verifies `jobs` in order with the library, reusing a parsed key across jobs of one
/// signer.
fn verify_with_library(jobs: &[VerifyJob<'_>], verdicts: &mut [bool]) {
    let mut last: Option<(&[u8], Option<VerifyingKey>)> = None;
    for (job, verdict) in jobs.iter().zip(verdicts) {
        let reuse = matches!(&last, Some((bytes, Some(k)))
            if *bytes == job.public_key && k.public_key().curve() == job.curve);
        if !reuse {
            let key = PublicKey::from_sec1(job.curve, job.public_key)
                .and_then(|k| k.verifying_key())
                .ok();
            last = Some((job.public_key, key));
        }
        *verdict = match (&last, Signature::from_p1363(job.curve, job.signature)) {
            (Some((_, Some(key))), Ok(signature)) => key.verify_digest(job.digest, &signature),
            _ => false,
        };
    }
}

impl VerifyEngine for CpuEngine {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn device(&self) -> String {
        format!("{} threads on the CPU ({})", self.threads, self.path.name())
    }

    fn prefers_prepared_keys(&self) -> bool {
        matches!(self.path, CpuPath::Library | CpuPath::Prepared)
    }

    fn verify_batch(&self, jobs: &[VerifyJob<'_>]) -> Vec<bool> {
        let mut verdicts = vec![false; jobs.len()];
        let threads = self.threads.min(jobs.len().div_ceil(MIN_SHARE)).max(1);
        let Some(pool) = self.pool.as_ref().filter(|_| threads > 1) else {
            self.verify_share(jobs, &mut verdicts);
            return verdicts;
        };
        // Whole groups of eight lanes per share.
        let share = jobs.len().div_ceil(threads).next_multiple_of(8);
        pool.scope(|scope| {
            for (jobs, verdicts) in jobs.chunks(share).zip(verdicts.chunks_mut(share)) {
                scope.spawn(move |_| self.verify_share(jobs, verdicts));
            }
        });
        verdicts
    }
}

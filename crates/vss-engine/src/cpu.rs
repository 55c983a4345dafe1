//! The CPU engine: a batch split into one contiguous share per thread. Each share is
//! verified by the AVX-512 IFMA verifier where the CPU has it (P-256 and brainpoolP256r1,
//! eight at a time), else with the library verifier (AWS-LC for P-256/P-384, OpenSSL for
//! brainpool), keeping a parsed key for the next job while the signer stays the same.

use std::sync::Arc;

use vss_crypto::{PublicKey, Signature, VerifyingKey};

use crate::{VerifyEngine, VerifyJob};

/// Batches below this many jobs per thread are not split further (thread start-up costs
/// more than it saves).
const MIN_SHARE: usize = 64;

/// How each thread verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuPath {
    /// The library verifier, one job at a time.
    Library,
    /// Eight jobs at a time in AVX-512 IFMA lanes (x86-64 CPUs that have it).
    Ifma,
}

impl CpuPath {
    /// The fastest path this CPU has.
    pub fn best() -> CpuPath {
        if CpuPath::Ifma.is_available() {
            CpuPath::Ifma
        } else {
            CpuPath::Library
        }
    }

    /// Whether this CPU can take the path.
    pub fn is_available(self) -> bool {
        match self {
            CpuPath::Library => true,
            #[cfg(target_arch = "x86_64")]
            CpuPath::Ifma => crate::ifma::available(),
            #[cfg(not(target_arch = "x86_64"))]
            CpuPath::Ifma => false,
        }
    }

    /// Its name (`library`, `avx512ifma`).
    pub fn name(self) -> &'static str {
        match self {
            CpuPath::Library => "library",
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
        }
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
            CpuPath::Ifma => crate::ifma::verify(jobs, verdicts),
            _ => verify_with_library(jobs, verdicts),
        }
    }
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
        self.path == CpuPath::Library
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

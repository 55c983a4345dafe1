//! The CPU engine: a batch split into one contiguous share per thread, each job verified
//! with the library verifier (AWS-LC for P-256/P-384, OpenSSL for brainpool). A key parsed
//! for one job is kept for the next while the signer stays the same.

use vss_crypto::{PublicKey, Signature, VerifyingKey};

use crate::{VerifyEngine, VerifyJob};

/// Batches below this many jobs per thread are not split further (thread start-up costs
/// more than it saves).
const MIN_SHARE: usize = 64;

/// Verifies on all cores (or as many threads as asked).
#[derive(Debug, Clone)]
pub struct CpuEngine {
    threads: usize,
}

impl Default for CpuEngine {
    fn default() -> Self {
        CpuEngine::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

impl CpuEngine {
    /// An engine with `threads` threads (at least one).
    pub fn new(threads: usize) -> Self {
        CpuEngine {
            threads: threads.max(1),
        }
    }

    /// Its number of threads.
    pub fn threads(&self) -> usize {
        self.threads
    }
}

/// Verifies `jobs` in order on this thread, reusing a parsed key across jobs of one signer.
fn verify_share(jobs: &[VerifyJob<'_>], verdicts: &mut [bool]) {
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
        format!("{} threads on the CPU", self.threads)
    }

    fn verify_batch(&self, jobs: &[VerifyJob<'_>]) -> Vec<bool> {
        let mut verdicts = vec![false; jobs.len()];
        let threads = self.threads.min(jobs.len().div_ceil(MIN_SHARE)).max(1);
        if threads == 1 {
            verify_share(jobs, &mut verdicts);
            return verdicts;
        }
        let share = jobs.len().div_ceil(threads);
        std::thread::scope(|scope| {
            for (jobs, verdicts) in jobs.chunks(share).zip(verdicts.chunks_mut(share)) {
                scope.spawn(move || verify_share(jobs, verdicts));
            }
        });
        verdicts
    }
}

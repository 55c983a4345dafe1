//! Signing in batches. A handshake that needs a signature queues it and waits; one collector
//! thread takes what is queued (up to [`BatchConfig::max_batch`], waiting at most
//! [`BatchConfig::max_wait`] for more after the first) and signs the batch in parallel on all
//! cores. Handshakes that wait at the same moment are thus signed together, and the store (or
//! the token behind it, through its session pool) sees at most one batch at a time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use vss_crypto::RsaSignatureScheme;
use vss_hsm::{Hsm, KeyHandle};

use crate::error::{Error, Result};

/// How signatures are batched. Defaults: batches of at most 64, no wait beyond what is
/// queued already, a queue of 4096.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchConfig {
    /// The most signatures in one batch (1–1024).
    pub max_batch: usize,
    /// How long the collector waits for more after the first request of a batch (at most
    /// 100 ms).
    pub max_wait: Duration,
    /// The most requests waiting; past it a handshake fails at once (1–65536).
    pub queue: usize,
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig {
            max_batch: 64,
            max_wait: Duration::ZERO,
            queue: 4096,
        }
    }
}

impl BatchConfig {
    /// Checks every bound.
    pub fn check(&self) -> Result<()> {
        if !(1..=1024).contains(&self.max_batch) {
            return Err(Error::Config("the batch size is 1 to 1024"));
        }
        if self.max_wait > Duration::from_millis(100) {
            return Err(Error::Config("the batch wait is at most 100 ms"));
        }
        if !(1..=65536).contains(&self.queue) {
            return Err(Error::Config("the signing queue holds 1 to 65536 requests"));
        }
        Ok(())
    }
}

/// What to sign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignRequest {
    /// ECDSA of a digest; the answer is DER, as TLS wants it.
    Ecdsa {
        /// The digest.
        digest: Vec<u8>,
    },
    /// RSA of a digest under a scheme.
    Rsa {
        /// PKCS #1 v1.5 or PSS, with its hash.
        scheme: RsaSignatureScheme,
        /// The digest.
        digest: Vec<u8>,
    },
}

struct Job {
    key: KeyHandle,
    request: SignRequest,
    reply: SyncSender<Result<Vec<u8>>>,
}

/// Counters of a batcher.
#[derive(Debug, Default)]
pub struct BatchStats {
    batches: AtomicU64,
    signatures: AtomicU64,
    largest: AtomicU64,
}

impl BatchStats {
    /// Batches signed.
    pub fn batches(&self) -> u64 {
        self.batches.load(Ordering::Relaxed)
    }

    /// Signatures made.
    pub fn signatures(&self) -> u64 {
        self.signatures.load(Ordering::Relaxed)
    }

    /// The largest batch so far.
    pub fn largest(&self) -> u64 {
        self.largest.load(Ordering::Relaxed)
    }
}

/// The queue in front of the store's signing keys.
#[derive(Debug, Clone)]
pub struct SignBatcher {
    queue: SyncSender<Job>,
    stats: Arc<BatchStats>,
}

impl SignBatcher {
    /// A batcher signing with `hsm`; its collector thread ends when the last clone is dropped.
    pub fn new(hsm: Arc<dyn Hsm>, config: BatchConfig) -> Result<Self> {
        config.check()?;
        let (queue, jobs) = mpsc::sync_channel::<Job>(config.queue);
        let stats = Arc::new(BatchStats::default());
        let counters = Arc::clone(&stats);
        std::thread::Builder::new()
            .name("vss-tls-signer".into())
            .spawn(move || collect(hsm.as_ref(), &jobs, config, &counters))
            .map_err(|e| Error::Io(e.to_string()))?;
        Ok(SignBatcher { queue, stats })
    }

    /// Signs with `key`, waiting for the batch it joins. A full queue is [`Error::Busy`]
    /// at once.
    pub fn sign(&self, key: &KeyHandle, request: SignRequest) -> Result<Vec<u8>> {
        let (reply, answer) = mpsc::sync_channel(1);
        let job = Job {
            key: key.clone(),
            request,
            reply,
        };
        match self.queue.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => return Err(Error::Busy),
            Err(TrySendError::Disconnected(_)) => return Err(Error::SignerGone),
        }
        answer.recv().map_err(|_| Error::SignerGone)?
    }

    /// The batcher's counters.
    pub fn stats(&self) -> &BatchStats {
        &self.stats
    }
}

fn collect(hsm: &dyn Hsm, jobs: &mpsc::Receiver<Job>, config: BatchConfig, stats: &BatchStats) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        let deadline = Instant::now() + config.max_wait;
        while batch.len() < config.max_batch {
            let next = match jobs.try_recv() {
                Ok(job) => Ok(job),
                Err(_) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    jobs.recv_timeout(left)
                }
            };
            match next {
                Ok(job) => batch.push(job),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        let size = batch.len() as u64;
        stats.batches.fetch_add(1, Ordering::Relaxed);
        stats.signatures.fetch_add(size, Ordering::Relaxed);
        stats.largest.fetch_max(size, Ordering::Relaxed);
        batch.into_par_iter().for_each(|job| {
            let signature = sign_one(hsm, &job.key, &job.request);
            // The handshake may have given up waiting; its answer is dropped.
            let _ = job.reply.send(signature);
        });
    }
}

fn sign_one(hsm: &dyn Hsm, key: &KeyHandle, request: &SignRequest) -> Result<Vec<u8>> {
    Ok(match request {
        SignRequest::Ecdsa { digest } => hsm.sign_digest(key, digest)?.to_der(),
        SignRequest::Rsa { scheme, digest } => hsm.rsa_sign_digest(key, *scheme, digest)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use vss_crypto::{Curve, HashAlg, Signature};
    use vss_hsm::{GenerateKeyRequest, SoftHsm};

    fn store() -> (tempfile::TempDir, Arc<dyn Hsm>) {
        let dir = tempfile::tempdir().expect("dir");
        SoftHsm::init(dir.path(), "1234", "12345678").expect("init");
        let hsm: Arc<dyn Hsm> = Arc::from(vss_hsm::open(dir.path(), "1234").expect("open"));
        (dir, hsm)
    }

    #[test]
    fn requests_waiting_together_are_signed_in_one_batch_and_each_gets_its_own_answer() {
        let (_dir, hsm) = store();
        let key = hsm
            .generate_key(&GenerateKeyRequest::new("tls", Curve::P256))
            .expect("key");
        let public = hsm.public_key(&key.handle).expect("public");
        let config = BatchConfig {
            max_batch: 8,
            max_wait: Duration::from_millis(50),
            queue: 64,
        };
        let batcher = SignBatcher::new(Arc::clone(&hsm), config).expect("batcher");
        let threads: Vec<_> = (0..8u8)
            .map(|i| {
                let batcher = batcher.clone();
                let handle = key.handle.clone();
                std::thread::spawn(move || {
                    let digest = HashAlg::Sha256.digest(&[i]);
                    let der = batcher
                        .sign(
                            &handle,
                            SignRequest::Ecdsa {
                                digest: digest.clone(),
                            },
                        )
                        .expect("sign");
                    (digest, der)
                })
            })
            .collect();
        let verifier = public.verifying_key().expect("verifier");
        for thread in threads {
            let (digest, der) = thread.join().expect("thread");
            let signature = Signature::from_der(Curve::P256, &der).expect("DER");
            assert!(verifier.verify_digest(&digest, &signature));
        }
        assert_eq!(batcher.stats().signatures(), 8);
        assert!(batcher.stats().batches() < 8, "{:?}", batcher.stats());
        assert!(batcher.stats().largest() > 1);
    }

    #[test]
    fn a_failure_is_that_request_s_answer_and_bounds_are_checked() {
        let (_dir, hsm) = store();
        let batcher = SignBatcher::new(hsm, BatchConfig::default()).expect("batcher");
        let missing = batcher.sign(
            &KeyHandle::new("missing"),
            SignRequest::Ecdsa {
                digest: vec![0; 32],
            },
        );
        assert!(matches!(
            missing,
            Err(Error::Hsm(vss_hsm::Error::KeyNotFound(_)))
        ));
        for bad in [
            BatchConfig {
                max_batch: 0,
                ..BatchConfig::default()
            },
            BatchConfig {
                max_wait: Duration::from_secs(1),
                ..BatchConfig::default()
            },
            BatchConfig {
                queue: 0,
                ..BatchConfig::default()
            },
        ] {
            assert!(matches!(bad.check(), Err(Error::Config(_))));
        }
    }
}

//! Valid signatures to measure engines with: a pool of distinct (key, digest, signature)
//! triples, signed on all cores, that a batch of any size cycles through.

use rayon::prelude::*;
use vss_crypto::{Curve, PrivateKey};

use crate::VerifyJob;

/// Distinct signatures, as owned bytes, from a few signers taking turns.
#[derive(Debug, Clone)]
pub struct SamplePool {
    curve: Curve,
    keys: Vec<Vec<u8>>,
    digests: Vec<Vec<u8>>,
    signatures: Vec<Vec<u8>>,
}

impl SamplePool {
    /// `distinct` signatures (at least one) over the digests of distinct messages, by
    /// `signers` fresh keys (at least one) in turn; signed on all cores.
    pub fn new(curve: Curve, distinct: usize, signers: usize) -> Result<Self, vss_crypto::Error> {
        let distinct = distinct.max(1);
        let keys = (0..signers.max(1))
            .map(|_| PrivateKey::generate(curve))
            .collect::<Result<Vec<_>, _>>()?;
        let hash = curve.default_hash();
        let signed = (0..distinct)
            .into_par_iter()
            .map(|i| {
                let digest = hash.digest(&(i as u64).to_be_bytes());
                let signature = keys[i % keys.len()].sign_digest(&digest)?;
                Ok((digest, signature.to_p1363().to_vec()))
            })
            .collect::<Result<Vec<_>, vss_crypto::Error>>()?;
        let mut pool = SamplePool {
            curve,
            keys: Vec::with_capacity(distinct),
            digests: Vec::with_capacity(distinct),
            signatures: Vec::with_capacity(distinct),
        };
        for (i, (digest, signature)) in signed.into_iter().enumerate() {
            let signer = &keys[i % keys.len()];
            pool.keys
                .push(signer.public_key().to_sec1_uncompressed().to_vec());
            pool.digests.push(digest);
            pool.signatures.push(signature);
        }
        Ok(pool)
    }

    /// How many distinct signatures the pool holds.
    pub fn distinct(&self) -> usize {
        self.keys.len()
    }

    /// A batch of `size` jobs that cycles through the pool.
    pub fn jobs(&self, size: usize) -> Vec<VerifyJob<'_>> {
        (0..size)
            .map(|i| {
                let i = i % self.keys.len();
                VerifyJob {
                    curve: self.curve,
                    public_key: &self.keys[i],
                    digest: &self.digests[i],
                    signature: &self.signatures[i],
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_holds_distinct_valid_signatures_and_cycles() {
        let pool = SamplePool::new(Curve::P256, 37, 4).expect("pool");
        assert_eq!(pool.distinct(), 37);
        let jobs = pool.jobs(80);
        assert_eq!(jobs.len(), 80);
        assert!(jobs.iter().all(VerifyJob::verify_one));
        assert_eq!(jobs[3].signature, jobs[40].signature);
        assert_ne!(jobs[3].digest, jobs[4].digest);
        assert_ne!(jobs[0].public_key, jobs[1].public_key);
        assert_eq!(jobs[0].public_key, jobs[4].public_key);
    }
}

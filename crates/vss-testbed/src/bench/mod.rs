//! The benchmarks behind `vss bench …`: each takes its options, sets up what it measures,
//! measures it against a reference taken in the same run, and returns a
//! [`Report`](crate::report::Report).

pub mod batch;
pub mod cred;
pub mod daemon;
pub mod filter;
pub mod gn;
pub mod its_verify;
pub mod kem;
pub mod measure;
pub mod pki;
pub mod references;
pub mod sign_verify;
pub mod throughput;
mod ticket_pki;
pub mod tls;
pub mod traffic;

use anyhow::Result;
use vss_crypto::Curve;
use vss_hsm::scratch::ScratchStore;
use vss_hsm::{GenerateKeyRequest, Hsm, KeyHandle};

use crate::HsmOptions;

/// A throw-away key store holding one signing key; removed when dropped.
pub struct BenchHsm {
    // Dropped after the handle on it.
    hsm: Box<dyn Hsm>,
    key: KeyHandle,
    _store: ScratchStore,
}

impl BenchHsm {
    /// Makes the store and its key (`bench`, on `curve`).
    pub fn new(options: &HsmOptions, curve: Curve) -> Result<Self> {
        let store = ScratchStore::create("vss-bench-", "store", options.backend, &options.module)?;
        let hsm = store.open()?;
        let key = hsm
            .generate_key(&GenerateKeyRequest::new("bench", curve))?
            .handle;
        Ok(BenchHsm {
            hsm,
            key,
            _store: store,
        })
    }

    /// The opened store.
    pub fn hsm(&self) -> &dyn Hsm {
        self.hsm.as_ref()
    }

    /// The signing key.
    pub fn key(&self) -> &KeyHandle {
        &self.key
    }
}

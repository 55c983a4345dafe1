//! Bulk ECDSA verification: a [`VerifyEngine`] takes a batch of jobs (curve, public key,
//! digest, signature), which may mix signers and curves, and answers one verdict per job, in
//! order.
//!
//! - [`CpuEngine`] spreads a batch over all cores. On CPUs with AVX-512 IFMA it verifies
//!   P-256 and brainpoolP256r1 eight at a time in 52-bit lanes ([`CpuPath::Ifma`]); else
//!   with prepared keys for the signers with many jobs and the library for the others
//!   ([`CpuPath::Prepared`]); the library alone ([`CpuPath::Library`]) is the reference
//!   every engine is checked against.
//! - `GpuEngine` (feature `gpu`) runs the CUDA kernel of `kernels/`, compiled at start-up
//!   by NVRTC; the same source built for the host is [`HostKernelEngine`], so the CPU test
//!   suite checks the arithmetic the GPU runs. A key that signs many jobs of a chunk gets a
//!   table of its multiples ([`KeyTableConfig`]), and its jobs a kernel that walks two tables.

mod batch;
mod cpu;
#[cfg(feature = "gpu")]
mod gpu;
mod host_engine;
#[cfg(target_arch = "x86_64")]
mod ifma;
mod job;
pub mod kernel;
mod key_tables;
mod kind;
mod prepared_cache;
pub mod sample;
mod staging;

pub use cpu::{CpuEngine, CpuPath};
#[cfg(feature = "gpu")]
pub use gpu::{GpuConfig, GpuEngine, GpuError};
pub use host_engine::HostKernelEngine;
pub use job::VerifyJob;
pub use key_tables::KeyTableConfig;
pub use kind::{EngineError, EngineKind};
pub use sample::SamplePool;

/// A verifier of batches.
pub trait VerifyEngine: Send + Sync {
    /// The engine's name (`cpu`, `gpu`).
    fn name(&self) -> &'static str;

    /// What it runs on, in words (e.g. "2 threads on Intel Xeon …").
    fn device(&self) -> String;

    /// One verdict per job, in order: `true` when the signature is valid for the digest
    /// under the key. A malformed key or signature is `false`, never an error.
    fn verify_batch(&self, jobs: &[VerifyJob<'_>]) -> Vec<bool>;

    /// Whether a signature whose signer has a prepared key ([`vss_crypto::PreparedKey`],
    /// several times faster than the library) is better checked with it, where the caller
    /// is, than sent here: true where the engine checks with the library (the CPU engine
    /// on [`CpuPath::Library`] or [`CpuPath::Prepared`]). False by default.
    fn prefers_prepared_keys(&self) -> bool {
        false
    }
}

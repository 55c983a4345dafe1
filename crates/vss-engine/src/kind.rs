//! Which verification engine: the one name of an engine for the configuration's `[engine]
//! kind`, `--engine` on the command line and reports, and opening it.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::{CpuEngine, VerifyEngine};

/// The verification engines, by the names of `[engine] kind` and `--engine`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum EngineKind {
    /// All CPU cores (AVX-512 IFMA lanes where the CPU has them).
    #[default]
    Cpu,
    /// A CUDA GPU.
    Gpu,
}

/// Why an engine could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The name is no engine's.
    #[error("'{0}' is not an engine (cpu, gpu)")]
    Unknown(String),
    /// This build has no CUDA engine (the `gpu` feature is off).
    #[error("the gpu engine is not available: built without the `gpu` feature")]
    NotBuilt,
    /// No GPU device or driver could be used.
    #[error("no GPU device: {0}")]
    NoDevice(String),
}

impl EngineKind {
    /// Its name (`cpu`, `gpu`).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Cpu => "cpu",
            EngineKind::Gpu => "gpu",
        }
    }

    /// The engine: the CPU engine on all cores, or the GPU engine, or why there is none.
    pub fn engine(self) -> Result<Arc<dyn VerifyEngine>, EngineError> {
        self.engine_on(None)
    }

    /// As [`EngineKind::engine`], the CPU engine on `threads` threads (one per core when
    /// `None`; the GPU engine takes no thread count).
    pub fn engine_on(self, threads: Option<usize>) -> Result<Arc<dyn VerifyEngine>, EngineError> {
        match self {
            EngineKind::Cpu => Ok(Arc::new(
                threads.map_or_else(CpuEngine::default, CpuEngine::new),
            )),
            EngineKind::Gpu => gpu_engine(),
        }
    }
}

/// The CUDA engine, when a device and driver are there.
#[cfg(feature = "gpu")]
fn gpu_engine() -> Result<Arc<dyn VerifyEngine>, EngineError> {
    match crate::GpuEngine::new() {
        Ok(gpu) => Ok(Arc::new(gpu)),
        Err(e) => Err(EngineError::NoDevice(e.to_string())),
    }
}

/// Built without the CUDA engine.
#[cfg(not(feature = "gpu"))]
fn gpu_engine() -> Result<Arc<dyn VerifyEngine>, EngineError> {
    Err(EngineError::NotBuilt)
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EngineKind {
    type Err = EngineError;

    fn from_str(text: &str) -> Result<Self, EngineError> {
        [EngineKind::Cpu, EngineKind::Gpu]
            .into_iter()
            .find(|kind| kind.name() == text)
            .ok_or_else(|| EngineError::Unknown(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_others_are_refused() {
        for kind in [EngineKind::Cpu, EngineKind::Gpu] {
            assert_eq!(kind.name().parse::<EngineKind>(), Ok(kind));
        }
        assert_eq!(
            "tpu".parse::<EngineKind>(),
            Err(EngineError::Unknown("tpu".into()))
        );
    }

    #[test]
    fn the_cpu_engine_takes_a_thread_count() {
        let engine = EngineKind::Cpu.engine_on(Some(1)).expect("cpu engine");
        assert_eq!(engine.name(), "cpu");
    }
}

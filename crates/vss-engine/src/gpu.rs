//! The GPU engine: the kernel of `kernels/` compiled by NVRTC at start-up for the device
//! found, one thread per signature. The CUDA driver and NVRTC are loaded at run time
//! (cudarc's dynamic loading), so this builds, and answers "no CUDA driver found", on a
//! machine without CUDA.
//!
//! The host parses keys, signatures and digests ([`crate::kernel`]'s staging, the same as
//! the host build of the kernel uses), copies the jobs in one buffer per curve, launches,
//! and copies one verdict byte per job back. Jobs on curves other than P-256 and
//! brainpoolP256r1 are verified by the library on the host.

// Kernel launches are unsafe in cudarc: the arguments must match the kernel's parameters.
// The one launch below says why they do.
#![allow(unsafe_code)]

use std::fmt;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{CompileOptions, Ptx};
use vss_crypto::Curve;

use crate::kernel::{KernelCurve, Staged, KERNEL_NAME, MAX_KERNEL_JOBS, SOURCE};
use crate::{VerifyEngine, VerifyJob};

/// Threads per block of the batch kernel.
const BLOCK: u32 = 128;

/// Why there is no GPU engine, or why a GPU call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GpuError {
    /// The CUDA driver library (libcuda) could not be loaded.
    NoDriver,
    /// The driver loaded but sees no CUDA device.
    NoDevice,
    /// The run-time compiler library (libnvrtc) could not be loaded.
    NoCompiler,
    /// NVRTC refused the kernel (its log).
    Compile(String),
    /// A driver call failed.
    Driver(String),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoDriver => f.write_str("no CUDA driver found (libcuda could not be loaded)"),
            GpuError::NoDevice => f.write_str("the CUDA driver sees no device"),
            GpuError::NoCompiler => {
                f.write_str("no CUDA run-time compiler found (libnvrtc could not be loaded)")
            }
            GpuError::Compile(log) => write!(f, "NVRTC could not compile the kernel: {log}"),
            GpuError::Driver(e) => write!(f, "CUDA driver error: {e}"),
        }
    }
}

impl std::error::Error for GpuError {}

impl From<DriverError> for GpuError {
    fn from(e: DriverError) -> Self {
        if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_NO_DEVICE {
            GpuError::NoDevice
        } else {
            GpuError::Driver(e.to_string())
        }
    }
}

/// A curve's constants and table of multiples of G in device memory.
struct DeviceCurve {
    curve: &'static KernelCurve,
    params: CudaSlice<u32>,
    table: CudaSlice<u32>,
}

/// Verifies on the first CUDA device.
pub struct GpuEngine {
    stream: Arc<CudaStream>,
    function: CudaFunction,
    curves: Vec<DeviceCurve>,
    device: String,
}

impl fmt::Debug for GpuEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuEngine")
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

/// Whether NVRTC can be loaded (cudarc panics on a call without it).
fn nvrtc_present() -> bool {
    // SAFETY: only tries to load the library by its usual names; no symbol is called.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

impl GpuEngine {
    /// Opens the first CUDA device, compiles the kernel for it and uploads the curves'
    /// tables. Fails with [`GpuError::NoDriver`] or [`GpuError::NoDevice`] where there is
    /// no GPU.
    pub fn new() -> Result<GpuEngine, GpuError> {
        // SAFETY: only tries to load the library by its usual names; no symbol is called.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        if CudaContext::device_count()? < 1 {
            return Err(GpuError::NoDevice);
        }
        let context = CudaContext::new(0)?;
        let ptx = Self::compile(context.compute_capability()?)?;
        let module = context.load_module(ptx).map_err(|e| {
            if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION {
                GpuError::Driver(format!(
                    "{e}: the NVRTC found is newer than the driver, whose JIT cannot read its PTX"
                ))
            } else {
                GpuError::from(e)
            }
        })?;
        let function = module.load_function(KERNEL_NAME)?;
        let stream = context.default_stream();
        let mut curves = Vec::new();
        for curve in [Curve::P256, Curve::Bp256] {
            let Some(kernel) = KernelCurve::get(curve) else {
                continue;
            };
            curves.push(DeviceCurve {
                curve: kernel,
                params: stream.clone_htod(kernel.params().as_words())?,
                table: stream.clone_htod(kernel.table_words())?,
            });
        }
        stream.synchronize()?;
        let (major, minor) = context.compute_capability()?;
        let device = format!("{} (sm_{major}{minor})", context.name()?);
        Ok(GpuEngine {
            stream,
            function,
            curves,
            device,
        })
    }

    /// The kernel compiled by NVRTC to PTX for a device of compute capability
    /// `(major, minor)`; needs NVRTC but no GPU.
    pub fn compile_ptx(compute_capability: (i32, i32)) -> Result<String, GpuError> {
        Ok(Self::compile(compute_capability)?.to_src())
    }

    fn compile((major, minor): (i32, i32)) -> Result<Ptx, GpuError> {
        if !nvrtc_present() {
            return Err(GpuError::NoCompiler);
        }
        let options = CompileOptions {
            options: vec![format!("--gpu-architecture=compute_{major}{minor}")],
            name: Some("ecdsa_verify.cu".into()),
            ..CompileOptions::default()
        };
        cudarc::nvrtc::compile_ptx_with_opts(SOURCE, options).map_err(|e| match e {
            cudarc::nvrtc::CompileError::CompileError { log, .. } => {
                GpuError::Compile(log.to_string_lossy().into_owned())
            }
            other => GpuError::Compile(other.to_string()),
        })
    }

    /// Verifies `jobs` on the device, or says why the device failed.
    pub fn try_verify_batch(&self, jobs: &[VerifyJob<'_>]) -> Result<Vec<bool>, GpuError> {
        let mut verdicts = Vec::with_capacity(jobs.len());
        for part in jobs.chunks(MAX_KERNEL_JOBS) {
            let mut staged = Staged::new(part);
            for g in 0..staged.groups.len() {
                let out = self.launch(&staged, g)?;
                staged.set(g, &out);
            }
            verdicts.extend(staged.verdicts);
        }
        Ok(verdicts)
    }

    /// Runs the kernel on group `g` of `staged`; its verdict bytes.
    fn launch(&self, staged: &Staged, g: usize) -> Result<Vec<u8>, GpuError> {
        let group = &staged.groups[g];
        let device = self
            .curves
            .iter()
            .find(|d| d.curve.curve() == group.curve.curve())
            .ok_or_else(|| GpuError::Driver("curve not uploaded".into()))?;
        let count = group.jobs.len() as u32;
        let input = self.stream.clone_htod(&group.input)?;
        let mut out = self.stream.alloc_zeros::<u8>(group.jobs.len())?;
        let config = LaunchConfig {
            grid_dim: (count.div_ceil(BLOCK), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = self.stream.launch_builder(&self.function);
        launch
            .arg(&device.params)
            .arg(&device.table)
            .arg(&input)
            .arg(&mut out)
            .arg(&count);
        // SAFETY: the arguments match `vss_ecdsa_verify_batch(const vss_curve *, const
        // vss_affine *, const vss_u32 *, unsigned char *, vss_u32)`: the curve's words
        // (`CurveParams` mirrors `vss_curve`), its G_TABLE_LEN table points, `count` jobs of
        // 40 words each and `count` verdict bytes; the grid-stride loop stops at `count`.
        unsafe { launch.launch(config) }?;
        Ok(self.stream.clone_dtoh(&out)?)
    }
}

impl VerifyEngine for GpuEngine {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> String {
        self.device.clone()
    }

    /// The device's verdicts; should the device fail mid-batch, the library's (so a
    /// verdict is never `true` for an invalid signature).
    fn verify_batch(&self, jobs: &[VerifyJob<'_>]) -> Vec<bool> {
        self.try_verify_batch(jobs)
            .unwrap_or_else(|_| jobs.iter().map(VerifyJob::verify_one).collect())
    }
}

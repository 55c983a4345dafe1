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
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::{CompileOptions, Ptx};
use vss_crypto::Curve;

use crate::kernel::{KernelCurve, Staged, JOB_WORDS, KERNEL_NAME, MAX_KERNEL_JOBS, SOURCE};
use crate::{VerifyEngine, VerifyJob};

/// How the engine uses the device. The defaults were chosen by measurement on an H100
/// (docs/PERFORMANCE.md, "The GPU engine"); `examples/gpu_sweep.rs` measures others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuConfig {
    /// Threads per block (a multiple of 32, at most 1024).
    pub block: u32,
    /// Blocks per multiprocessor the kernel is compiled to make room for (1 to 32): more
    /// blocks cap the registers per thread lower.
    pub min_blocks: u32,
    /// Jobs per launch (1 to 2^20): a batch is cut into chunks of this many, and each is
    /// staged on the host while the ones before it run.
    pub chunk: usize,
    /// Streams, each with pinned buffers for one chunk, that take the chunks in turn (1 to 8).
    pub streams: usize,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            block: 256,
            min_blocks: 2,
            chunk: 1 << 17,
            streams: 3,
        }
    }
}

impl GpuConfig {
    /// Checks every field against its documented range.
    pub fn check(&self) -> Result<(), GpuError> {
        let refuse = |what: &'static str| Err(GpuError::InvalidConfig(what));
        if self.block == 0 || self.block > 1024 || !self.block.is_multiple_of(32) {
            return refuse("block must be a multiple of 32 from 32 to 1024");
        }
        if !(1..=32).contains(&self.min_blocks) {
            return refuse("min_blocks must be from 1 to 32");
        }
        if !(1..=MAX_KERNEL_JOBS).contains(&self.chunk) {
            return refuse("chunk must be from 1 to 2^20 jobs");
        }
        if !(1..=8).contains(&self.streams) {
            return refuse("streams must be from 1 to 8");
        }
        Ok(())
    }
}

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
    /// A [`GpuConfig`] field is out of its range (which one, and the range).
    InvalidConfig(&'static str),
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
            GpuError::InvalidConfig(what) => write!(f, "invalid GPU engine configuration: {what}"),
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

/// One stream and the buffers of the chunk it carries: the jobs' words and the verdict
/// bytes, pinned on the host and on the device.
struct Slot {
    stream: Arc<CudaStream>,
    input_host: PinnedHostSlice<u32>,
    input: CudaSlice<u32>,
    verdicts_host: PinnedHostSlice<u8>,
    verdicts: CudaSlice<u8>,
    /// The chunk in flight on this stream, staged, waiting for its verdict bytes.
    pending: Option<Staged>,
}

impl Slot {
    fn new(context: &Arc<CudaContext>, chunk: usize) -> Result<Slot, GpuError> {
        let stream = context.new_stream()?;
        // SAFETY: the buffers come uninitialised; both are zeroed below, before any slice
        // of them is made for a read.
        let (mut input_host, mut verdicts_host) = unsafe {
            (
                context.alloc_pinned::<u32>(chunk * JOB_WORDS)?,
                context.alloc_pinned_with_flags::<u8>(chunk, 0)?,
            )
        };
        // SAFETY: as above; the pointers cover `len` elements, and zero is a valid u32 and u8.
        unsafe {
            std::ptr::write_bytes(input_host.as_mut_ptr()?, 0, input_host.len());
            std::ptr::write_bytes(verdicts_host.as_mut_ptr()?, 0, verdicts_host.len());
        }
        Ok(Slot {
            input: stream.alloc_zeros::<u32>(chunk * JOB_WORDS)?,
            verdicts: stream.alloc_zeros::<u8>(chunk)?,
            stream,
            input_host,
            verdicts_host,
            pending: None,
        })
    }

    /// Stages `chunk` into the pinned buffer, copies it in, launches the kernel once per
    /// curve and copies the verdict bytes out, all queued on this slot's stream. The
    /// buffers are free: `finish` has synchronised the stream.
    fn submit(&mut self, engine: &GpuEngine, chunk: &[VerifyJob<'_>]) -> Result<(), GpuError> {
        let host = self.input_host.as_mut_slice()?;
        let staged = Staged::new(chunk, host);
        let count = staged.kernel_jobs();
        if count > 0 {
            let words = count * JOB_WORDS;
            self.stream
                .memcpy_htod(&host[..words], &mut self.input.slice_mut(..words))?;
            for (curve, first, jobs) in staged.launches() {
                engine.launch(self, curve, first, jobs)?;
            }
            let out = self.verdicts_host.as_mut_slice()?;
            self.stream
                .memcpy_dtoh(&self.verdicts.slice(..count), &mut out[..count])?;
        }
        self.pending = Some(staged);
        Ok(())
    }

    /// Waits for the chunk in flight, if any, and returns its verdicts.
    fn finish(&mut self) -> Result<Option<Vec<bool>>, GpuError> {
        let Some(mut staged) = self.pending.take() else {
            return Ok(None);
        };
        self.stream.synchronize()?;
        staged.set(self.verdicts_host.as_slice()?);
        Ok(Some(staged.verdicts))
    }
}

/// Verifies on the first CUDA device.
pub struct GpuEngine {
    function: CudaFunction,
    curves: Vec<DeviceCurve>,
    slots: Mutex<Vec<Slot>>,
    config: GpuConfig,
    device: String,
}

impl fmt::Debug for GpuEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuEngine")
            .field("device", &self.device)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Whether NVRTC can be loaded (cudarc panics on a call without it).
fn nvrtc_present() -> bool {
    // SAFETY: only tries to load the library by its usual names; no symbol is called.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

impl GpuEngine {
    /// Opens the first CUDA device with the default [`GpuConfig`]; see [`GpuEngine::with_config`].
    pub fn new() -> Result<GpuEngine, GpuError> {
        GpuEngine::with_config(GpuConfig::default())
    }

    /// Opens the first CUDA device, compiles the kernel for it and uploads the curves'
    /// tables. Fails with [`GpuError::NoDriver`] or [`GpuError::NoDevice`] where there is
    /// no GPU, and with [`GpuError::InvalidConfig`] for a field out of range.
    pub fn with_config(config: GpuConfig) -> Result<GpuEngine, GpuError> {
        config.check()?;
        // SAFETY: only tries to load the library by its usual names; no symbol is called.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDriver);
        }
        if CudaContext::device_count()? < 1 {
            return Err(GpuError::NoDevice);
        }
        let context = CudaContext::new(0)?;
        let ptx = Self::compile(context.compute_capability()?, &config)?;
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
        let slots = (0..config.streams)
            .map(|_| Slot::new(&context, config.chunk))
            .collect::<Result<Vec<_>, _>>()?;
        let (major, minor) = context.compute_capability()?;
        let device = format!("{} (sm_{major}{minor})", context.name()?);
        Ok(GpuEngine {
            function,
            curves,
            slots: Mutex::new(slots),
            config,
            device,
        })
    }

    /// The configuration the engine runs with.
    pub fn config(&self) -> GpuConfig {
        self.config
    }

    /// The kernel compiled by NVRTC to PTX for a device of compute capability
    /// `(major, minor)` with the default [`GpuConfig`]; needs NVRTC but no GPU.
    pub fn compile_ptx(compute_capability: (i32, i32)) -> Result<String, GpuError> {
        Ok(Self::compile(compute_capability, &GpuConfig::default())?.to_src())
    }

    fn compile((major, minor): (i32, i32), config: &GpuConfig) -> Result<Ptx, GpuError> {
        if !nvrtc_present() {
            return Err(GpuError::NoCompiler);
        }
        let options = CompileOptions {
            options: vec![
                format!("--gpu-architecture=compute_{major}{minor}"),
                format!("-DVSS_BLOCK={}", config.block),
                format!("-DVSS_MIN_BLOCKS={}", config.min_blocks),
            ],
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

    /// Verifies `jobs` on the device, or says why the device failed. The batch goes in
    /// chunks of [`GpuConfig::chunk`] jobs, the streams taking them in turn: a chunk is
    /// staged on the host while the ones before it are copied and verified.
    pub fn try_verify_batch(&self, jobs: &[VerifyJob<'_>]) -> Result<Vec<bool>, GpuError> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let result = self.run_chunks(&mut slots, jobs);
        if result.is_err() {
            // Nothing of a failed batch stays queued for the next one.
            for slot in slots.iter_mut() {
                slot.pending = None;
                let _ = slot.stream.synchronize();
            }
        }
        result
    }

    /// Stages and submits chunk after chunk, collecting each stream's chunk in order
    /// before the stream takes the next.
    fn run_chunks(
        &self,
        slots: &mut [Slot],
        jobs: &[VerifyJob<'_>],
    ) -> Result<Vec<bool>, GpuError> {
        let mut verdicts = Vec::with_capacity(jobs.len());
        let mut next = 0;
        for chunk in jobs.chunks(self.config.chunk) {
            let taken = next;
            next = (next + 1) % slots.len();
            let slot = &mut slots[taken];
            if let Some(done) = slot.finish()? {
                verdicts.extend(done);
            }
            slot.submit(self, chunk)?;
        }
        for k in 0..slots.len() {
            if let Some(done) = slots[(next + k) % slots.len()].finish()? {
                verdicts.extend(done);
            }
        }
        Ok(verdicts)
    }

    /// Queues the kernel on `slot`'s stream for its jobs `first..first + count` on `curve`.
    fn launch(
        &self,
        slot: &mut Slot,
        curve: &KernelCurve,
        first: usize,
        count: usize,
    ) -> Result<(), GpuError> {
        let device = self
            .curves
            .iter()
            .find(|d| d.curve.curve() == curve.curve())
            .ok_or_else(|| GpuError::Driver("curve not uploaded".into()))?;
        let input = slot
            .input
            .slice(first * JOB_WORDS..(first + count) * JOB_WORDS);
        let mut out = slot.verdicts.slice_mut(first..first + count);
        let count = count as u32;
        let config = LaunchConfig {
            grid_dim: (count.div_ceil(self.config.block), 1, 1),
            block_dim: (self.config.block, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = slot.stream.launch_builder(&self.function);
        launch
            .arg(&device.params)
            .arg(&device.table)
            .arg(&input)
            .arg(&mut out)
            .arg(&count);
        // SAFETY: the arguments match `vss_ecdsa_verify_batch(const vss_curve *, const
        // vss_affine *, const vss_u32 *, unsigned char *, vss_u32)`: the curve's words
        // (`CurveParams` mirrors `vss_curve`), its G_TABLE_LEN table points, `count` jobs of
        // JOB_WORDS words each and `count` verdict bytes (count is at most the chunk, at
        // most 2^20); the grid-stride loop stops at `count`, and the block size is the
        // one the kernel was compiled for.
        unsafe { launch.launch(config) }?;
        Ok(())
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

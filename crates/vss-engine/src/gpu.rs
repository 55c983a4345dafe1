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
    CudaContext, CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut, DriverError,
    LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::{CompileOptions, Ptx};
use vss_crypto::Curve;

use crate::batch::{Group, Staged};
use crate::kernel::{
    point_words, KernelCurve, JOB_WORDS, KERNEL_NAME, MAX_KERNEL_JOBS, PREPARED_KERNEL_NAME,
    SOURCE, TABLE_WORDS,
};
use crate::key_tables::{KeyTableConfig, KeyTables};
use crate::{VerifyEngine, VerifyJob};

/// How the engine uses the device. The defaults were chosen by measurement, the block and
/// streams on an H100, the chunk and the key tables on an H200 (docs/PERFORMANCE.md, "The
/// GPU engine"); `examples/gpu_sweep.rs` measures others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuConfig {
    /// Threads per block (a multiple of 32, at most 1024).
    pub block: u32,
    /// Blocks per multiprocessor the kernel is compiled to make room for (1 to 32): more
    /// blocks cap the registers per thread lower.
    pub min_blocks: u32,
    /// Jobs per launch (1 to 2^20): a batch is cut into chunks of this many, and each is
    /// staged on the host while the ones before it run. Each stream pins 160 bytes per job
    /// of a chunk on the host and on the device (42 MB at the default 2^18).
    pub chunk: usize,
    /// Streams, each with pinned buffers for one chunk, that take the chunks in turn (1 to 8).
    pub streams: usize,
    /// Prepared keys: tables in device memory for the keys that sign many jobs of a chunk.
    pub keys: KeyTableConfig,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            block: 256,
            min_blocks: 2,
            chunk: 1 << 18,
            streams: 3,
            keys: KeyTableConfig::default(),
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
        self.keys.check().map_err(GpuError::InvalidConfig)
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

    /// Stages `chunk` into the pinned buffer, loads the tables of its newly prepared keys,
    /// copies it in, launches the kernel once per group and copies the verdict bytes out,
    /// all queued on this slot's stream. The buffers are free: `finish` has synchronised
    /// the stream.
    fn submit(
        &mut self,
        engine: &GpuEngine,
        keys: &mut DeviceKeys,
        chunk: &[VerifyJob<'_>],
    ) -> Result<(), GpuError> {
        let Slot {
            stream,
            input_host,
            input,
            verdicts_host,
            verdicts,
            pending,
        } = self;
        let host = input_host.as_mut_slice()?;
        let staged = Staged::new(chunk, host, Some(&mut keys.slots));
        // Pending from here, so its key slots are released whatever fails below.
        let staged = pending.insert(staged);
        for (slot, table) in &staged.tables {
            let at = *slot as usize * TABLE_WORDS;
            stream.memcpy_htod(
                point_words(table),
                &mut keys.points.slice_mut(at..at + TABLE_WORDS),
            )?;
        }
        let count = staged.kernel_jobs();
        if count > 0 {
            let words = count * JOB_WORDS;
            stream.memcpy_htod(&host[..words], &mut input.slice_mut(..words))?;
            for (group, first, jobs) in staged.launches() {
                let input = input.slice(first * JOB_WORDS..(first + jobs) * JOB_WORDS);
                let mut out = verdicts.slice_mut(first..first + jobs);
                engine.launch(stream, keys, group, &input, &mut out)?;
            }
            let out = verdicts_host.as_mut_slice()?;
            stream.memcpy_dtoh(&verdicts.slice(..count), &mut out[..count])?;
        }
        Ok(())
    }

    /// Waits for the chunk in flight, if any, and returns its verdicts; its key slots are
    /// released.
    fn finish(&mut self, keys: &mut DeviceKeys) -> Result<Option<Vec<bool>>, GpuError> {
        let Some(mut staged) = self.pending.take() else {
            return Ok(None);
        };
        let done = self.stream.synchronize();
        keys.slots.release(&staged.readers);
        done?;
        staged.set(self.verdicts_host.as_slice()?);
        Ok(Some(staged.verdicts))
    }
}

/// Prepared keys on the device: which key has which slot, and the slots' tables
/// (`TABLE_WORDS` words per slot).
struct DeviceKeys {
    slots: KeyTables,
    points: CudaSlice<u32>,
}

/// What a batch uses on the device, one batch at a time.
struct Device {
    slots: Vec<Slot>,
    keys: DeviceKeys,
}

/// Verifies on the first CUDA device.
pub struct GpuEngine {
    function: CudaFunction,
    prepared_function: CudaFunction,
    curves: Vec<DeviceCurve>,
    state: Mutex<Device>,
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
        let prepared_function = module.load_function(PREPARED_KERNEL_NAME)?;
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
        let keys = DeviceKeys {
            slots: KeyTables::new(config.keys),
            points: stream.alloc_zeros::<u32>((config.keys.slots * TABLE_WORDS).max(1))?,
        };
        stream.synchronize()?;
        let slots = (0..config.streams)
            .map(|_| Slot::new(&context, config.chunk))
            .collect::<Result<Vec<_>, _>>()?;
        let (major, minor) = context.compute_capability()?;
        let device = format!("{} (sm_{major}{minor})", context.name()?);
        Ok(GpuEngine {
            function,
            prepared_function,
            curves,
            state: Mutex::new(Device { slots, keys }),
            config,
            device,
        })
    }

    /// How many keys have a table on the device now.
    pub fn prepared_keys(&self) -> usize {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.keys.slots.resident_count()
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
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Device { slots, keys } = &mut *state;
        let result = self.run_chunks(slots, keys, jobs);
        if result.is_err() {
            // Nothing of a failed batch stays queued for the next one.
            for slot in slots.iter_mut() {
                if let Some(staged) = slot.pending.take() {
                    keys.slots.release(&staged.readers);
                }
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
        keys: &mut DeviceKeys,
        jobs: &[VerifyJob<'_>],
    ) -> Result<Vec<bool>, GpuError> {
        let mut verdicts = Vec::with_capacity(jobs.len());
        let mut next = 0;
        for chunk in jobs.chunks(self.config.chunk) {
            let taken = next;
            next = (next + 1) % slots.len();
            let slot = &mut slots[taken];
            if let Some(done) = slot.finish(keys)? {
                verdicts.extend(done);
            }
            slot.submit(self, keys, chunk)?;
        }
        for k in 0..slots.len() {
            if let Some(done) = slots[(next + k) % slots.len()].finish(keys)? {
                verdicts.extend(done);
            }
        }
        Ok(verdicts)
    }

    /// Queues the kernel on `stream` for `group`'s jobs: their words in `input`, a verdict
    /// byte each in `out`.
    fn launch(
        &self,
        stream: &CudaStream,
        keys: &DeviceKeys,
        group: &Group,
        input: &CudaView<'_, u32>,
        out: &mut CudaViewMut<'_, u8>,
    ) -> Result<(), GpuError> {
        let device = self
            .curves
            .iter()
            .find(|d| d.curve.curve() == group.curve.curve())
            .ok_or_else(|| GpuError::Driver("curve not uploaded".into()))?;
        let count = out.len() as u32;
        let key_count = self.config.keys.slots as u32;
        let config = LaunchConfig {
            grid_dim: (count.div_ceil(self.config.block), 1, 1),
            block_dim: (self.config.block, 1, 1),
            shared_mem_bytes: 0,
        };
        let function = if group.prepared {
            &self.prepared_function
        } else {
            &self.function
        };
        let mut launch = stream.launch_builder(function);
        launch.arg(&device.params).arg(&device.table);
        if group.prepared {
            launch.arg(&keys.points).arg(&key_count);
        }
        launch.arg(input).arg(out).arg(&count);
        // SAFETY: the arguments match `vss_ecdsa_verify_batch(const vss_curve *, const
        // vss_affine *, const vss_u32 *, unsigned char *, vss_u32)`, or for a prepared group
        // `vss_ecdsa_verify_prepared_batch`, which takes the key tables and their count
        // after the table: the curve's words (`CurveParams` mirrors `vss_curve`), its
        // G_TABLE_LEN table points, `key_count` tables of as many points (the kernel
        // refuses a slot not below it), `count` jobs of JOB_WORDS words each and `count`
        // verdict bytes (count is at most the chunk, at most 2^20); the grid-stride loop
        // stops at `count`, and the block size is the one the kernel was compiled for.
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

//! `vss bench daemon`: verifications per second and per CPU-second, with p50/p99 latency,
//! of the entity in this process (as libvss and the Python package call it), of `vssd`
//! through unary `Verify`, and of `vssd` through `VerifyStream`, from 1 to 64 concurrent
//! clients; against `vss filter`'s loop on the same kind of messages in the same run
//! (measured first and last, and averaged).
//! Every measurement verifies messages of its own (each is accepted once), all signed
//! before the first starts; every signer's certificate is cached by a first, untimed round.

mod load;
mod messages;
mod process;
mod report;
mod runs;
pub(crate) mod setup;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use vss_core::config::DaemonConfig;
use vss_core::filter::{BatchConfig, Filter};
use vss_core::verify::Outcome;
use vss_core::Vss;
use vss_crypto::Curve;
use vss_engine::{EngineKind, VerifyEngine};
use vss_its::ItsTime;

use super::filter::{inspect, validator};
use super::measure::process_cpu;
use super::ticket_pki::{build_pki, Pki};
use crate::report::{progress, Report};
use load::{split, Seen};
use messages::Messages;
use process::Daemon;
use runs::{Path, Run};
use setup::{DaemonSettings, Entity};
use vss_pki::store::process_cpu_time;

/// Options of the daemon benchmark.
#[derive(Debug, Clone)]
pub struct DaemonOptions {
    /// Messages verified in each measurement (at least 1).
    pub messages: u32,
    /// Distinct signers (tickets), taking turns (at least 1).
    pub signers: u32,
    /// Concurrent clients of each measurement, one measurement per entry.
    pub clients: Vec<usize>,
    /// Messages each `VerifyStream` client keeps awaiting their answers.
    pub window: usize,
    /// vssd's `[daemon] batch_max` and `batch_deadline`, and the filter's batches.
    pub batch: BatchConfig,
    /// The verification engine of vssd (`[engine] kind`), the entity and the filter.
    pub engine: EngineKind,
    /// The vssd binary; `None`: the one beside this executable, else vssd on `PATH`.
    pub vssd: Option<PathBuf>,
}

/// Runs the benchmark.
pub fn run(options: &DaemonOptions) -> Result<Report> {
    let binary = options.vssd.clone().unwrap_or_else(process::default_binary);
    process::check_binary(&binary)?;
    let mut bench = Bench::new(options)?;
    let engine = options.engine.engine()?;
    let mut runs = vec![bench.filter(&engine)?];
    runs.extend(bench.in_process()?);
    runs.extend(bench.through_vssd(&binary)?);
    runs.push(bench.filter(&engine)?);
    bench.bar.finish_and_clear();
    Ok(report::report(options, &runs, engine.as_ref()))
}

/// What a run measures with: the PKI, the entity, the messages not yet verified.
struct Bench<'a> {
    options: &'a DaemonOptions,
    pki: Pki,
    entity: Entity,
    warm_up: Vec<Vec<u8>>,
    sets: std::vec::IntoIter<Vec<Vec<u8>>>,
    bar: indicatif::ProgressBar,
}

impl<'a> Bench<'a> {
    /// Builds the PKI and the entity, and signs every measurement's messages.
    fn new(options: &'a DaemonOptions) -> Result<Self> {
        let n = options.messages as usize;
        let signers = options.signers as usize;
        // The filter first and last (the machine may be faster or slower by the end), the
        // three paths for each number of clients in between.
        let measurements = 2 + 3 * options.clients.len();
        let bar = progress(
            (signers + 2 * n * measurements) as u64,
            "signing, then verifying",
        );
        let pki = build_pki(Curve::P256, options.signers, ItsTime::now())?;
        let entity = Entity::new(
            &pki,
            options.engine,
            DaemonSettings {
                batch_max: options.batch.max_batch,
                batch_deadline: options.batch.deadline,
                max_connections: DaemonConfig::default()
                    .max_connections
                    .max(2 * options.clients.iter().max().copied().unwrap_or(1)),
            },
            signers + n * measurements,
        )?;
        let messages = Messages::sign(&pki, signers, n, measurements, &bar)?;
        Ok(Bench {
            options,
            pki,
            entity,
            warm_up: messages.warm_up,
            sets: messages.sets.into_iter(),
            bar,
        })
    }

    /// The messages of the next measurement.
    fn next_set(&mut self) -> Result<Vec<Vec<u8>>> {
        self.sets
            .next()
            .ok_or_else(|| anyhow!("fewer message sets than measurements"))
    }

    /// One measurement done.
    fn measured(&self) {
        self.bar.inc(u64::from(self.options.messages));
    }

    /// `vss filter`'s loop in this process on the next set, after an untimed first round on
    /// the warm-up messages.
    fn filter(&mut self, engine: &Arc<dyn VerifyEngine>) -> Result<Run> {
        let set = self.next_set()?;
        let batch = self.options.batch;
        let filter = Filter::new(
            validator(&self.pki)?,
            engine.clone(),
            batch,
            self.entity.config.replay.window(),
        );
        all_valid(
            inspect(&filter, batch.max_batch, &self.warm_up),
            self.warm_up.len(),
            "the filter",
        )?;
        let (cpu, started) = (process_cpu_time(), Instant::now());
        let valid = inspect(&filter, batch.max_batch, &set);
        let cpu = process_cpu_time() - cpu;
        let seen = Seen {
            messages: set.len(),
            latencies: Vec::new(),
            valid,
        };
        self.measured();
        Ok(Run::new(Path::Filter, 1, started.elapsed(), cpu, seen))
    }

    /// The entity opened in this process, from each number of clients.
    fn in_process(&mut self) -> Result<Vec<Run>> {
        let vss =
            Vss::open_unattended(&self.entity.config).context("cannot open the bench's entity")?;
        let warm: Vec<&[u8]> = self.warm_up.iter().map(Vec::as_slice).collect();
        let valid = vss
            .verify_batch(&warm)?
            .iter()
            .filter(|o| matches!(o, Outcome::Valid { .. }))
            .count();
        all_valid(valid, warm.len(), "the entity in process")?;
        let mut runs = Vec::new();
        for &k in &self.options.clients {
            let parts = split(&self.next_set()?, k);
            let (cpu, started) = (process_cpu_time(), Instant::now());
            let seen = load::in_process(&vss, &parts)?;
            let cpu = process_cpu_time() - cpu;
            runs.push(Run::new(Path::InProcess, k, started.elapsed(), cpu, seen));
            self.measured();
        }
        Ok(runs)
    }

    /// `binary` started on the entity, through unary `Verify` then `VerifyStream`, from
    /// each number of clients; stopped after.
    fn through_vssd(&mut self, binary: &std::path::Path) -> Result<Vec<Run>> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("no runtime for the gRPC clients")?;
        let socket = self.entity.config.daemon.socket.clone();
        let daemon = Daemon::start(
            binary,
            &self.entity.path,
            &socket,
            self.entity.dir(),
            &runtime,
        )?;
        let warm = runtime.block_on(load::unary(&socket, vec![self.warm_up.clone()]))?;
        all_valid(warm.valid, self.warm_up.len(), "vssd")?;
        let mut runs = Vec::new();
        for path in [Path::Unary, Path::Stream] {
            for &k in &self.options.clients {
                let parts = split(&self.next_set()?, k);
                let (cpu, client_cpu) = (process_cpu(daemon.pid())?, process_cpu_time());
                let started = Instant::now();
                let seen = match path {
                    Path::Stream => {
                        runtime.block_on(load::stream(&socket, parts, self.options.window))
                    }
                    _ => runtime.block_on(load::unary(&socket, parts)),
                }?;
                let wall = started.elapsed();
                let (cpu, client_cpu) = (
                    process_cpu(daemon.pid())? - cpu,
                    process_cpu_time() - client_cpu,
                );
                runs.push(Run::new(path, k, wall, cpu, seen).with_client_cpu(client_cpu));
                self.measured();
            }
        }
        daemon.stop()?;
        Ok(runs)
    }
}

/// An error unless `valid` of the `count` first messages (one per signer) were valid.
fn all_valid(valid: usize, count: usize, who: &str) -> Result<()> {
    if valid == count {
        Ok(())
    } else {
        Err(anyhow!(
            "{who} found {valid} of the {count} first messages valid"
        ))
    }
}

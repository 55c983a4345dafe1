//! `vss bench daemon`: verifications per second and per CPU-second, with p50/p99 latency,
//! of the entity in this process (as libvss and the Python package call it), of `vssd`
//! through unary `Verify`, and of `vssd` through `VerifyStream`, from 1 to 64 concurrent
//! clients; against `vss filter`'s loop on the same kind of messages in the same run
//! (measured first and last, and averaged).
//! Every measurement verifies messages of its own (each is accepted once), all signed
//! before the first starts; every signer's certificate is cached by a first, untimed round.

mod load;
mod process;
mod setup;

use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use clap::Args;
use serde_json::json;
use vss_core::config::DaemonConfig;
use vss_core::filter::{BatchConfig, Filter};
use vss_core::verify::Outcome;
use vss_core::Vss;
use vss_crypto::Curve;
use vss_engine::VerifyEngine;
use vss_its::{ItsTime, SignerKind};

use super::filter::{inspect, validator};
use super::finish;
use super::its_verify::{build_pki, Pki};
use crate::output::{progress, Format, Table};
use load::{split, Seen};
use process::Daemon;
use setup::{DaemonSettings, Entity};
use vss_engine::EngineKind;
use vss_testbed::bench::measure::{own_cpu, percentile, process_cpu};

/// The acceptance figures of the daemon's issue: `VerifyStream` from this many clients …
const STREAM_CLIENTS: usize = 8;
/// … verifies at least this share of the filter's verifications per CPU-second …
const STREAM_SHARE: f64 = 0.8;
/// … and unary `Verify` from one client answers within this at the 99th percentile.
const UNARY_P99: Duration = Duration::from_millis(1);

/// Options of `vss bench daemon`.
#[derive(Args)]
pub struct DaemonArgs {
    /// Messages verified in each measurement.
    #[arg(long, default_value_t = 20_000,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    messages: u32,
    /// Distinct signers (tickets), taking turns.
    #[arg(long, default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    signers: u32,
    /// Concurrent clients of each measurement, comma-separated (1 to 256 each).
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32,64",
          value_parser = clap::value_parser!(u32).range(1..=256))]
    clients: Vec<u32>,
    /// Messages each VerifyStream client keeps awaiting their answers.
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    window: u32,
    /// vssd's `[daemon] batch_max`, and the batch of the filter it is compared with.
    #[arg(long, default_value_t = DaemonConfig::default().batch_max as u32,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    batch: u32,
    /// vssd's `[daemon] batch_deadline` (and the filter's), in milliseconds.
    #[arg(long, value_name = "MS",
          default_value_t = DaemonConfig::default().batch_deadline.as_millis() as u32,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    deadline_ms: u32,
    /// The verification engine of vssd (`[engine] kind`), the entity and the filter.
    #[arg(long, value_enum, default_value_t = EngineKind::Cpu)]
    engine: EngineKind,
    /// The vssd binary [default: the one beside this vss, else vssd on PATH].
    #[arg(long, value_name = "PATH")]
    vssd: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Where a measurement's messages were verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// `vss filter`'s loop in batches (the reference).
    Filter,
    /// The entity in this process, one call per message.
    InProcess,
    /// vssd, unary `Verify`.
    Unary,
    /// vssd, `VerifyStream`.
    Stream,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Filter => "filter",
            Path::InProcess => "in_process",
            Path::Unary => "grpc_unary",
            Path::Stream => "grpc_stream",
        }
    }
}

/// One measurement.
struct Run {
    path: Path,
    clients: usize,
    messages: usize,
    wall: Duration,
    /// CPU time of the process that verified (this one, or vssd).
    cpu: Duration,
    /// CPU time of this process when it was vssd's client (it shares the machine).
    client_cpu: Option<Duration>,
    /// Sorted; empty for the filter (it answers batches, not messages).
    latencies: Vec<Duration>,
    valid: usize,
}

impl Run {
    fn new(path: Path, clients: usize, wall: Duration, cpu: Duration, mut seen: Seen) -> Run {
        seen.latencies.sort();
        Run {
            path,
            clients,
            messages: seen.messages,
            wall,
            cpu,
            client_cpu: None,
            latencies: seen.latencies,
            valid: seen.valid,
        }
    }

    fn per_second(&self) -> f64 {
        self.messages as f64 / self.wall.as_secs_f64()
    }

    /// None when the run used less CPU than /proc can tell (one clock tick).
    fn per_cpu_second(&self) -> Option<f64> {
        (!self.cpu.is_zero()).then(|| self.messages as f64 / self.cpu.as_secs_f64())
    }

    fn latency_ms(&self, p: f64) -> Option<f64> {
        (!self.latencies.is_empty()).then(|| percentile(&self.latencies, p).as_secs_f64() * 1e3)
    }
}

/// The messages of the run, all signed before the first measurement.
struct Messages {
    /// Every signer's first message (its certificate in it), for each consumer's first round.
    warm_up: Vec<Vec<u8>>,
    /// One set per measurement, signers named by digest.
    sets: Vec<Vec<Vec<u8>>>,
}

impl Messages {
    /// A first message from each of the `signers`, then `sets` sets of `per_set`.
    fn sign(
        pki: &Pki,
        signers: usize,
        per_set: usize,
        sets: usize,
        bar: &indicatif::ProgressBar,
    ) -> Result<Messages> {
        let now = ItsTime::now();
        let warm_up = sign_range(pki, 0..signers, SignerKind::Certificate, now, bar)?;
        let rest = sign_range(
            pki,
            signers..signers + per_set * sets,
            SignerKind::Digest,
            now,
            bar,
        )?;
        let sets = rest.chunks(per_set.max(1)).map(<[_]>::to_vec).collect();
        Ok(Messages { warm_up, sets })
    }
}

/// Messages `range` (message `i` from ticket `i mod signers`), signed on every core.
fn sign_range(
    pki: &Pki,
    range: Range<usize>,
    kind: SignerKind,
    now: ItsTime,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<Vec<u8>>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let size = range.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = range
            .clone()
            .step_by(size)
            .map(|start| {
                let part = start..(start + size).min(range.end);
                scope.spawn(move || {
                    part.map(|i| {
                        bar.inc(1);
                        pki.sign(i, kind, now)
                    })
                    .collect::<Result<Vec<_>>>()
                })
            })
            .collect();
        let mut messages = Vec::with_capacity(range.len());
        for part in parts {
            messages.extend(
                part.join()
                    .map_err(|_| anyhow!("a signing thread panicked"))??,
            );
        }
        Ok(messages)
    })
}

impl DaemonArgs {
    /// Runs the benchmark.
    pub fn run(self) -> Result<ExitCode> {
        let binary = self.vssd.clone().unwrap_or_else(process::default_binary);
        process::check_binary(&binary)?;
        let n = self.messages as usize;
        let signers = self.signers as usize;
        let clients: Vec<usize> = self.clients.iter().map(|&c| c as usize).collect();
        // The filter first and last (the machine may be faster or slower by the end), the
        // three paths for each number of clients in between.
        let measurements = 2 + 3 * clients.len();
        let bar = progress(
            (signers + 2 * n * measurements) as u64,
            "signing, then verifying",
        );
        let pki = build_pki(Curve::P256, self.signers, ItsTime::now())?;
        let batch = BatchConfig {
            max_batch: self.batch as usize,
            deadline: Duration::from_millis(self.deadline_ms.into()),
        };
        let entity = Entity::new(
            &pki,
            self.engine,
            DaemonSettings {
                batch_max: batch.max_batch,
                batch_deadline: batch.deadline,
                max_connections: DaemonConfig::default()
                    .max_connections
                    .max(2 * clients.iter().max().copied().unwrap_or(1)),
            },
            signers + n * measurements,
        )?;
        let messages = Messages::sign(&pki, signers, n, measurements, &bar)?;
        let mut sets = messages.sets.iter();
        let mut next_set = || {
            sets.next()
                .ok_or_else(|| anyhow!("fewer message sets than measurements"))
        };
        let engine = self.engine.engine()?;
        let filter = |set| filter(&pki, &entity, engine.clone(), batch, &messages.warm_up, set);
        let mut runs = vec![filter(next_set()?)?];
        bar.inc(n as u64);

        let vss = Vss::open_unattended(&entity.config).context("cannot open the bench's entity")?;
        let warm: Vec<&[u8]> = messages.warm_up.iter().map(Vec::as_slice).collect();
        let valid = vss
            .verify_batch(&warm)?
            .iter()
            .filter(|o| matches!(o, Outcome::Valid { .. }))
            .count();
        all_valid(valid, signers, "the entity in process")?;
        for &k in &clients {
            let parts = split(next_set()?, k);
            let (cpu, started) = (own_cpu()?, Instant::now());
            let seen = load::in_process(&vss, &parts)?;
            let cpu = own_cpu()? - cpu;
            runs.push(Run::new(Path::InProcess, k, started.elapsed(), cpu, seen));
            bar.inc(n as u64);
        }
        drop(vss);

        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("no runtime for the gRPC clients")?;
        let socket = &entity.config.daemon.socket;
        let daemon = Daemon::start(&binary, &entity.path, socket, entity.dir(), &runtime)?;
        let warm = runtime.block_on(load::unary(socket, vec![messages.warm_up.clone()]))?;
        all_valid(warm.valid, signers, "vssd")?;
        for path in [Path::Unary, Path::Stream] {
            for &k in &clients {
                let parts = split(next_set()?, k);
                let (cpu, client_cpu) = (process_cpu(daemon.pid())?, own_cpu()?);
                let started = Instant::now();
                let seen = match path {
                    Path::Stream => {
                        runtime.block_on(load::stream(socket, parts, self.window as usize))
                    }
                    _ => runtime.block_on(load::unary(socket, parts)),
                }?;
                let wall = started.elapsed();
                let (cpu, client_cpu) = (process_cpu(daemon.pid())? - cpu, own_cpu()? - client_cpu);
                runs.push(Run {
                    client_cpu: Some(client_cpu),
                    ..Run::new(path, k, wall, cpu, seen)
                });
                bar.inc(n as u64);
            }
        }
        daemon.stop()?;
        runs.push(filter(next_set()?)?);
        bar.finish_and_clear();
        self.report(&runs, engine.as_ref())
    }

    fn report(&self, runs: &[Run], engine: &dyn VerifyEngine) -> Result<ExitCode> {
        // The reference: the filter's verifications per CPU-second, first and last averaged.
        let filters: Vec<f64> = runs
            .iter()
            .filter(|r| r.path == Path::Filter)
            .filter_map(Run::per_cpu_second)
            .collect();
        let filter =
            (!filters.is_empty()).then(|| filters.iter().sum::<f64>() / filters.len() as f64);
        let share = |run: &Run| Some(run.per_cpu_second()? / filter?);
        let find = |path, clients| runs.iter().find(|r| r.path == path && r.clients == clients);
        let stream = find(Path::Stream, STREAM_CLIENTS).and_then(share);
        let unary_p99 = find(Path::Unary, 1).and_then(|r| r.latency_ms(0.99));
        let success = runs.iter().all(|r| r.valid == r.messages);
        let json = json!({
            "benchmark": "daemon",
            "messages": self.messages,
            "signers": self.signers,
            "batch": self.batch,
            "deadline_ms": self.deadline_ms,
            "window": self.window,
            "filter_per_cpu_second": filter,
            "engine": engine.name(),
            "device": engine.device(),
            "runs": runs.iter().map(|r| json!({
                "path": r.path.name(),
                "clients": r.clients,
                "messages": r.messages,
                "valid": r.valid,
                "seconds": r.wall.as_secs_f64(),
                "cpu_seconds": r.cpu.as_secs_f64(),
                "client_cpu_seconds": r.client_cpu.map(|c| c.as_secs_f64()),
                "verifications_per_second": r.per_second(),
                "verifications_per_cpu_second": r.per_cpu_second(),
                "per_cpu_second_ratio_to_filter": share(r),
                "p50_ms": r.latency_ms(0.50),
                "p99_ms": r.latency_ms(0.99),
            })).collect::<Vec<_>>(),
            "acceptance": {
                "stream_clients": STREAM_CLIENTS,
                "stream_per_cpu_second_ratio_to_filter": stream,
                "stream_met": stream.map(|s| s >= STREAM_SHARE),
                "unary_one_client_p99_ms": unary_p99,
                "unary_met": unary_p99.map(|p| p <= UNARY_P99.as_secs_f64() * 1e3),
            },
            "success": success,
        });
        let mut table = Table::new(&[
            "path",
            "clients",
            "verif./s",
            "verif./CPU-s",
            "× filter /CPU-s",
            "p50 ms",
            "p99 ms",
        ]);
        let shown = |v: Option<f64>, places: usize| {
            v.map_or_else(|| "-".into(), |v| format!("{v:.places$}"))
        };
        for r in runs {
            table.row(vec![
                r.path.name().into(),
                r.clients.to_string(),
                format!("{:.0}", r.per_second()),
                shown(r.per_cpu_second(), 0),
                shown(share(r), 2),
                shown(r.latency_ms(0.50), 3),
                shown(r.latency_ms(0.99), 3),
            ]);
        }
        let mut text = table.render();
        if let Some(filter) = filter {
            text.push_str(&format!(
                "× filter: against the filter's {filter:.0} verifications per CPU-second (its \
                 first and last runs averaged)\n"
            ));
        }
        if let Some(stream) = stream {
            text.push_str(&format!(
                "VerifyStream from {STREAM_CLIENTS} clients: {stream:.2}× the filter's \
                 verifications per CPU-second (at least {STREAM_SHARE} asked)\n"
            ));
        }
        if let Some(p99) = unary_p99 {
            text.push_str(&format!(
                "unary Verify from 1 client: p99 {p99:.3} ms (at most {} ms asked)\n",
                UNARY_P99.as_millis()
            ));
        }
        finish(
            self.format,
            &json,
            &text,
            success,
            "a message of the benchmark was not verified valid",
        )
    }
}

/// `vss filter`'s loop in this process on `set`, after an untimed first round on `warm_up`.
fn filter(
    pki: &Pki,
    entity: &Entity,
    engine: Arc<dyn VerifyEngine>,
    batch: BatchConfig,
    warm_up: &[Vec<u8>],
    set: &[Vec<u8>],
) -> Result<Run> {
    let filter = Filter::new(
        validator(pki)?,
        engine,
        batch,
        entity.config.replay.window(),
    );
    all_valid(
        inspect(&filter, batch.max_batch, warm_up),
        warm_up.len(),
        "the filter",
    )?;
    let (cpu, started) = (own_cpu()?, Instant::now());
    let valid = inspect(&filter, batch.max_batch, set);
    let cpu = own_cpu()? - cpu;
    let seen = Seen {
        messages: set.len(),
        latencies: Vec::new(),
        valid,
    };
    Ok(Run::new(Path::Filter, 1, started.elapsed(), cpu, seen))
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

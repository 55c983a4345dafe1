//! The GeoNetworking bench's report: every measurement, and the acceptance figures of issue
//! 34, each a check of the run (a missed one fails it). The figures are the verifying
//! direction's (radio → stack: the traffic of every station in range); the signing
//! direction carries the station's own packets, tens per second, and is reported beside.

use std::time::Duration;

use serde_json::{json, Value};
use vss_engine::VerifyEngine;

use super::cpu::{Throughput, Work};
use super::paced::{Paced, Path};
use super::GnOptions;
use crate::report::{Report, Table};

/// The bridge verifies at least this share of the filter's packets per CPU-second …
const SHARE: f64 = 0.9;
/// … adds at most [`P99`] at the 99th percentile at this rate …
const LATENCY_RATE: u32 = 1_000;
/// … this much …
const P99: Duration = Duration::from_millis(1);
/// … and loses nothing at rates up to this one.
const LOSSLESS_RATE: u32 = 10_000;

/// What the run measured.
pub(super) struct Figures<'a> {
    /// Raw P-256 verifications per second (one core) on the same signatures.
    pub(super) raw: f64,
    /// Whether every raw verification succeeded.
    pub(super) raw_valid: bool,
    pub(super) throughput: Vec<Throughput>,
    pub(super) paced: Vec<Paced>,
    /// The filter's engine (the bridge's entity has its own of the same kind).
    pub(super) engine: &'a dyn VerifyEngine,
}

/// The acceptance figures.
struct Acceptance {
    /// The filter's packets per CPU-second: the mean of its runs.
    filter: f64,
    /// The bridge's radio → stack packets per CPU-second (the mean of its runs) over the
    /// filter's.
    share: f64,
    /// The bridge's radio → stack p99 at [`LATENCY_RATE`], in ms.
    p99_ms: Option<f64>,
    /// Packets the bridge lost radio → stack at rates up to [`LOSSLESS_RATE`].
    lost: Option<usize>,
}

impl Acceptance {
    fn of(f: &Figures<'_>) -> Acceptance {
        let per_cpu = |work| {
            let runs: Vec<f64> = f
                .throughput
                .iter()
                .filter(|t| t.work == work)
                .map(Throughput::per_cpu_second)
                .collect();
            runs.iter().sum::<f64>() / runs.len().max(1) as f64
        };
        let filter = per_cpu(Work::Filter);
        let bridge = || f.paced.iter().filter(|p| p.path == Path::ToStack);
        let at_rate = bridge().filter(|p| p.rate == LATENCY_RATE);
        let lossless = bridge().filter(|p| p.rate <= LOSSLESS_RATE);
        Acceptance {
            filter,
            share: per_cpu(Work::ToStack) / filter,
            p99_ms: at_rate.filter_map(|p| p.latency_ms(0.99)).reduce(f64::max),
            lost: lossless.map(Paced::lost).reduce(|a, b| a + b),
        }
    }

    /// Whether the bridge verified its share (not when a rate could not be measured).
    fn share_met(&self) -> bool {
        self.share >= SHARE
    }

    /// What it misses, one sentence each.
    fn misses(&self) -> Vec<String> {
        let mut misses = Vec::new();
        if !self.share_met() {
            misses.push(format!(
                "the bridge verified {:.2}x the filter's packets per CPU-second (at least \
                 {SHARE} asked)",
                self.share
            ));
        }
        if let Some(p99) = self.p99_ms.filter(|&p| p > P99.as_secs_f64() * 1e3) {
            misses.push(format!(
                "the bridge's p99 radio -> stack at {LATENCY_RATE} packets/s was {p99:.3} ms \
                 (at most {} ms asked)",
                P99.as_millis()
            ));
        }
        if let Some(lost) = self.lost.filter(|&l| l > 0) {
            misses.push(format!(
                "the bridge lost {lost} packets radio -> stack at rates up to {LOSSLESS_RATE} \
                 packets/s"
            ));
        }
        misses
    }
}

/// The report: a failure names every acceptance figure missed and any packet refused.
pub(super) fn report(options: &GnOptions, figures: &Figures<'_>) -> Report {
    let acceptance = Acceptance::of(figures);
    let valid = figures.raw_valid
        && figures.throughput.iter().all(|t| t.passed == t.packets)
        && figures.paced.iter().all(|p| p.refused == 0);
    let mut misses = acceptance.misses();
    if !valid {
        misses.insert(0, "a packet of the benchmark was refused".into());
    }
    Report::checked(
        json(options, figures, &acceptance, valid),
        text(figures, &acceptance),
        misses.is_empty(),
        misses.join("; "),
    )
}

fn json(options: &GnOptions, f: &Figures<'_>, a: &Acceptance, valid: bool) -> Value {
    json!({
        "benchmark": "gn",
        "messages": options.messages,
        "signers": options.signers,
        "seconds": options.seconds,
        "cores": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "filter_batch": options.batch.max_batch,
        "filter_deadline_ms": options.batch.deadline.as_secs_f64() * 1e3,
        "bridge_batch": vss_core::gn_bridge::run::MAX_BATCH,
        "engine": f.engine.name(),
        "device": f.engine.device(),
        "raw_verify_per_second": f.raw,
        "in_process": f.throughput.iter().map(|t| json!({
            "work": t.work.name(),
            "packets": t.packets,
            "passed": t.passed,
            "seconds": t.wall.as_secs_f64(),
            "cpu_seconds": t.cpu.as_secs_f64(),
            "packets_per_second": t.per_second(),
            "packets_per_cpu_second": t.per_cpu_second(),
            "per_cpu_second_ratio_to_filter": t.per_cpu_second() / a.filter,
            "ratio_to_raw_verify": t.per_second() / f.raw,
        })).collect::<Vec<_>>(),
        "paced": f.paced.iter().map(|p| json!({
            "path": p.path.name(),
            "rate": p.rate,
            "achieved_rate": p.achieved,
            "sent": p.sent + p.full,
            "arrived": p.arrived,
            "lost": p.lost(),
            "refused": p.refused,
            "p50_ms": p.latency_ms(0.50),
            "p99_ms": p.latency_ms(0.99),
            "max_ms": p.latency_ms(1.0),
        })).collect::<Vec<_>>(),
        "acceptance": {
            "filter_per_cpu_second": a.filter,
            "bridge_per_cpu_second_ratio_to_filter": a.share,
            "share_met": a.share_met(),
            "latency_rate": LATENCY_RATE,
            "to_stack_p99_ms": a.p99_ms,
            "p99_met": a.p99_ms.map(|p| p <= P99.as_secs_f64() * 1e3),
            "lossless_rate": LOSSLESS_RATE,
            "to_stack_lost": a.lost,
            "lossless_met": a.lost.map(|l| l == 0),
        },
        "success": valid,
    })
}

fn text(f: &Figures<'_>, a: &Acceptance) -> String {
    let mut table = Table::new(&[
        "in process",
        "packets/s",
        "packets/CPU-s",
        "× filter /CPU-s",
    ]);
    table.row(vec![
        "raw ECDSA verify (p256, one core)".into(),
        format!("{:.0}", f.raw),
        String::new(),
        String::new(),
    ]);
    for t in &f.throughput {
        table.row(vec![
            t.work.name().into(),
            format!("{:.0}", t.per_second()),
            format!("{:.0}", t.per_cpu_second()),
            format!("{:.2}", t.per_cpu_second() / a.filter),
        ]);
    }
    let mut paced = Table::new(&[
        "paced", "rate /s", "sent", "lost", "refused", "p50 ms", "p99 ms",
    ]);
    let ms = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.3}"));
    for p in &f.paced {
        paced.row(vec![
            p.path.name().into(),
            p.rate.to_string(),
            (p.sent + p.full).to_string(),
            p.lost().to_string(),
            p.refused.to_string(),
            ms(p.latency_ms(0.50)),
            ms(p.latency_ms(0.99)),
        ]);
    }
    let mut text = table.render();
    text.push('\n');
    text.push_str(&paced.render());
    text.push_str(&format!(
        "bridge radio -> stack: {:.2}x the filter's packets per CPU-second (the means of \
         their runs; at least {SHARE} asked)\n",
        a.share
    ));
    if let Some(p99) = a.p99_ms {
        text.push_str(&format!(
            "bridge p99 radio -> stack at {LATENCY_RATE}/s: {p99:.3} ms (at most {} ms asked)\n",
            P99.as_millis()
        ));
    }
    if let Some(lost) = a.lost {
        text.push_str(&format!(
            "bridge lost {lost} packets radio -> stack at rates up to {LOSSLESS_RATE}/s (none \
             asked)\n"
        ));
    }
    text
}

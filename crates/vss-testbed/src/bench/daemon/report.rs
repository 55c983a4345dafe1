//! The daemon bench's report: every measurement against the filter's verifications per
//! CPU-second, and the acceptance figures of the daemon's issue.

use std::time::Duration;

use serde_json::{json, Value};
use vss_engine::VerifyEngine;

use super::runs::{Path, Run};
use super::DaemonOptions;
use crate::report::{Report, Table};

/// The acceptance figures of the daemon's issue: `VerifyStream` from this many clients …
const STREAM_CLIENTS: usize = 8;
/// … verifies at least this share of the filter's verifications per CPU-second …
const STREAM_SHARE: f64 = 0.8;
/// … and unary `Verify` from one client answers within this at the 99th percentile.
const UNARY_P99: Duration = Duration::from_millis(1);

/// What the runs add up to.
struct Summary {
    /// The reference: the filter's verifications per CPU-second, first and last averaged.
    filter: Option<f64>,
    /// `VerifyStream` from [`STREAM_CLIENTS`] clients, as a share of the filter's.
    stream: Option<f64>,
    /// Unary `Verify` from one client: p99 in milliseconds.
    unary_p99: Option<f64>,
    /// Whether every message was valid.
    success: bool,
}

impl Summary {
    fn of(runs: &[Run]) -> Summary {
        let filters: Vec<f64> = runs
            .iter()
            .filter(|r| r.path == Path::Filter)
            .filter_map(Run::per_cpu_second)
            .collect();
        let filter =
            (!filters.is_empty()).then(|| filters.iter().sum::<f64>() / filters.len() as f64);
        let find = |path, clients| runs.iter().find(|r| r.path == path && r.clients == clients);
        Summary {
            filter,
            stream: find(Path::Stream, STREAM_CLIENTS).and_then(|r| share(r, filter)),
            unary_p99: find(Path::Unary, 1).and_then(|r| r.latency_ms(0.99)),
            success: runs.iter().all(|r| r.valid == r.messages),
        }
    }

    /// `run`'s verifications per CPU-second as a share of the filter's.
    fn share(&self, run: &Run) -> Option<f64> {
        share(run, self.filter)
    }
}

/// `run`'s verifications per CPU-second as a share of `filter`'s.
fn share(run: &Run, filter: Option<f64>) -> Option<f64> {
    Some(run.per_cpu_second()? / filter?)
}

/// The report of `runs`, verified with `engine`.
pub(super) fn report(options: &DaemonOptions, runs: &[Run], engine: &dyn VerifyEngine) -> Report {
    let summary = Summary::of(runs);
    Report::checked(
        json(options, runs, engine, &summary),
        text(runs, &summary),
        summary.success,
        "a message of the benchmark was not verified valid",
    )
}

fn json(options: &DaemonOptions, runs: &[Run], engine: &dyn VerifyEngine, s: &Summary) -> Value {
    json!({
        "benchmark": "daemon",
        "messages": options.messages,
        "signers": options.signers,
        "batch": options.batch.max_batch,
        "deadline_ms": options.batch.deadline.as_millis() as u64,
        "window": options.window,
        "filter_per_cpu_second": s.filter,
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
            "per_cpu_second_ratio_to_filter": s.share(r),
            "p50_ms": r.latency_ms(0.50),
            "p99_ms": r.latency_ms(0.99),
        })).collect::<Vec<_>>(),
        "acceptance": {
            "stream_clients": STREAM_CLIENTS,
            "stream_per_cpu_second_ratio_to_filter": s.stream,
            "stream_met": s.stream.map(|v| v >= STREAM_SHARE),
            "unary_one_client_p99_ms": s.unary_p99,
            "unary_met": s.unary_p99.map(|p| p <= UNARY_P99.as_secs_f64() * 1e3),
        },
        "success": s.success,
    })
}

fn text(runs: &[Run], s: &Summary) -> String {
    let mut table = Table::new(&[
        "path",
        "clients",
        "verif./s",
        "verif./CPU-s",
        "× filter /CPU-s",
        "p50 ms",
        "p99 ms",
    ]);
    let shown =
        |v: Option<f64>, places: usize| v.map_or_else(|| "-".into(), |v| format!("{v:.places$}"));
    for r in runs {
        table.row(vec![
            r.path.name().into(),
            r.clients.to_string(),
            format!("{:.0}", r.per_second()),
            shown(r.per_cpu_second(), 0),
            shown(s.share(r), 2),
            shown(r.latency_ms(0.50), 3),
            shown(r.latency_ms(0.99), 3),
        ]);
    }
    let mut text = table.render();
    if let Some(filter) = s.filter {
        text.push_str(&format!(
            "× filter: against the filter's {filter:.0} verifications per CPU-second (its \
             first and last runs averaged)\n"
        ));
    }
    if let Some(stream) = s.stream {
        text.push_str(&format!(
            "VerifyStream from {STREAM_CLIENTS} clients: {stream:.2}× the filter's \
             verifications per CPU-second (at least {STREAM_SHARE} asked)\n"
        ));
    }
    if let Some(p99) = s.unary_p99 {
        text.push_str(&format!(
            "unary Verify from 1 client: p99 {p99:.3} ms (at most {} ms asked)\n",
            UNARY_P99.as_millis()
        ));
    }
    text
}

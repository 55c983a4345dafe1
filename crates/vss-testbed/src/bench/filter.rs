//! `vss bench filter`: messages per second through `vss filter`'s loop, one at a time (one
//! core) and in batches on an engine, in process and over UDP on loopback, as a ratio to
//! the raw P-256 verify rate (one core) of the same run.

use std::net::UdpSocket;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use serde_json::json;
use vss_core::filter::{buffered_datagrams, listen_socket, BatchConfig, Filter};
use vss_core::replay::{ReplayConfig, MAX_AGE_LIMIT};
use vss_crypto::Curve;
use vss_engine::{EngineKind, VerifyEngine};
use vss_its::{ItsTime, SignerKind, Validator};

use super::ticket_pki::{build_pki, Pki};
use crate::report::{progress, Report, Table};

/// Messages sent but not yet seen forwarded, one at a time; in batches, twice the batch
/// (so one fills while the last is verified), as far as the filter's receive buffer holds
/// them (a forwarded payload proves every earlier datagram was handled).
const WINDOW: usize = 64;

/// The filter's replay check as `vss filter` runs it, but an hour wide: the messages are
/// all signed before the first of the four runs starts.
const REPLAY: ReplayConfig = ReplayConfig {
    max_age: MAX_AGE_LIMIT,
    max_lead: Duration::from_secs(1),
    capacity: 65_536,
};

/// Options of the filter benchmark.
#[derive(Debug, Clone)]
pub struct FilterOptions {
    /// Messages through the filter (at least 1).
    pub messages: u32,
    /// Distinct signers (tickets): each one's first message carries its certificate, the
    /// rest name it by digest (at least 1).
    pub signers: u32,
    /// The engine that checks the batches.
    pub engine: EngineKind,
    /// The batches of the second measurement (the first verifies one at a time).
    pub batch: BatchConfig,
}

/// What `vss filter` builds from `--anchor` and `--authority`: the PKI's root trusted, its
/// AA validated and cached.
pub(crate) fn validator(pki: &Pki) -> Result<Validator> {
    let mut v = Validator::new(pki.trust()?, 16_384);
    let report = v.verify_certificate(&pki.aa, &[], ItsTime::now());
    if !report.is_valid() {
        return Err(anyhow!("the AA does not validate: {}", report.reason));
    }
    Ok(v)
}

/// Inspects `messages` in order in batches of `max_batch` (one at a time through
/// [`Filter::inspect`] when it is 1), as `vss filter` does; how many were valid.
pub(crate) fn inspect(filter: &Filter, max_batch: usize, messages: &[Vec<u8>]) -> usize {
    if max_batch == 1 {
        return messages
            .iter()
            .filter(|m| filter.inspect(m).is_ok())
            .count();
    }
    messages
        .chunks(max_batch)
        .map(|chunk| {
            let chunk: Vec<&[u8]> = chunk.iter().map(Vec::as_slice).collect();
            filter
                .inspect_batch(&chunk)
                .iter()
                .filter(|r| r.is_ok())
                .count()
        })
        .sum()
}

/// How the filter verifies: the engine and the batches.
struct Mode {
    engine: Arc<dyn VerifyEngine>,
    batch: BatchConfig,
}

impl Mode {
    fn filter(&self, pki: &Pki) -> Result<Filter> {
        Ok(Filter::new(
            validator(pki)?,
            self.engine.clone(),
            self.batch,
            Some(REPLAY),
        ))
    }

    /// Messages per second through [`Filter::inspect_batch`] in batches (one at a time
    /// through [`Filter::inspect`]), and how many were valid.
    fn in_process(&self, pki: &Pki, messages: &[Vec<u8>]) -> Result<(f64, usize)> {
        let filter = self.filter(pki)?;
        let started = Instant::now();
        let valid = inspect(&filter, self.batch.max_batch, messages);
        Ok((
            messages.len() as f64 / started.elapsed().as_secs_f64(),
            valid,
        ))
    }

    /// Sends `messages` through a filter on a thread; messages per second and how many
    /// came out.
    fn through_udp(
        &self,
        pki: &Pki,
        messages: &[Vec<u8>],
        bar: &indicatif::ProgressBar,
    ) -> Result<(f64, usize)> {
        let loopback = ([127, 0, 0, 1], 0).into();
        let listen = listen_socket(loopback, &self.batch).context("cannot bind on loopback")?;
        let window = if self.batch.max_batch == 1 {
            WINDOW
        } else {
            (2 * self.batch.max_batch).clamp(WINDOW, buffered_datagrams(&listen)?.max(WINDOW))
        };
        // Payloads come out in bursts of a batch: the receiver's buffer holds them too.
        let receiver = listen_socket(loopback, &self.batch).context("cannot bind on loopback")?;
        receiver.set_read_timeout(Some(Duration::from_secs(10)))?;
        let forward = UdpSocket::bind("127.0.0.1:0").context("cannot bind on loopback")?;
        forward.connect(receiver.local_addr()?)?;
        let sender = UdpSocket::bind("127.0.0.1:0").context("cannot bind on loopback")?;
        let to = listen.local_addr()?;
        let filter = self.filter(pki)?;
        let limit = messages.len() as u64;
        std::thread::scope(|scope| {
            let running = scope.spawn(|| filter.run(&listen, &forward, Some(limit)));
            let mut buffer = vec![0u8; 65_536];
            let mut out = 0usize;
            let started = Instant::now();
            for (i, message) in messages.iter().enumerate() {
                sender.send_to(message, to)?;
                while i + 1 - out > window {
                    receiver
                        .recv_from(&mut buffer)
                        .context("the filter stalled")?;
                    out += 1;
                    bar.inc(1);
                }
            }
            while out < messages.len() {
                receiver
                    .recv_from(&mut buffer)
                    .context("the filter stalled")?;
                out += 1;
                bar.inc(1);
            }
            let rate = messages.len() as f64 / started.elapsed().as_secs_f64();
            let counts = running
                .join()
                .map_err(|_| anyhow!("the filter thread panicked"))??;
            Ok((rate, counts.forwarded as usize))
        })
    }
}

/// What one run measured, in messages per second.
struct Rates {
    raw: f64,
    one_inspect: f64,
    one_udp: f64,
    bulk_inspect: f64,
    bulk_udp: f64,
    success: bool,
}

/// Runs the benchmark.
pub fn run(options: &FilterOptions) -> Result<Report> {
    let now = ItsTime::now();
    let pki = build_pki(Curve::P256, options.signers, now)?;
    let n = options.messages as usize;
    let one = Mode {
        engine: options.engine.engine_on(None)?,
        batch: BatchConfig::ONE_AT_A_TIME,
    };
    let bulk = Mode {
        engine: one.engine.clone(),
        batch: options.batch,
    };
    let bar = progress(n as u64 * 5, "signing, then filtering");
    let mut messages = Vec::with_capacity(n);
    for i in 0..n {
        let kind = if i < options.signers as usize {
            SignerKind::Certificate
        } else {
            SignerKind::Digest
        };
        messages.push(pki.sign(i, kind, now)?);
        bar.inc(1);
    }
    let (raw, raw_ok) = pki.raw_verify_rate(&messages)?;
    let mut success = raw_ok == n;
    let mut measure = |mode: &Mode| -> Result<(f64, f64)> {
        let (inspect_rate, inspected) = mode.in_process(&pki, &messages)?;
        bar.inc(n as u64);
        let (udp_rate, forwarded) = mode.through_udp(&pki, &messages, &bar)?;
        success &= inspected == n && forwarded == n;
        Ok((inspect_rate, udp_rate))
    };
    let (one_inspect, one_udp) = measure(&one)?;
    let (bulk_inspect, bulk_udp) = measure(&bulk)?;
    bar.finish_and_clear();
    let rates = Rates {
        raw,
        one_inspect,
        one_udp,
        bulk_inspect,
        bulk_udp,
        success,
    };
    Ok(report(options, &bulk, &rates))
}

/// The report of a run: its rates as JSON and as a table.
fn report(options: &FilterOptions, bulk: &Mode, rates: &Rates) -> Report {
    let raw_rate = rates.raw;
    let ratio = |rate: f64| json!({"messages_per_second": rate, "ratio_to_raw": rate / raw_rate});
    let json = json!({
        "messages": options.messages,
        "signers": options.signers,
        "raw_verify_per_second": raw_rate,
        "in_process": ratio(rates.one_inspect),
        "udp": ratio(rates.one_udp),
        "threads": 1,
        "bulk": {
            "batch": bulk.batch.max_batch,
            "deadline_ms": bulk.batch.deadline.as_secs_f64() * 1e3,
            "engine": bulk.engine.name(),
            "device": bulk.engine.device(),
            "in_process": ratio(rates.bulk_inspect),
            "udp": ratio(rates.bulk_udp),
        },
        "success": rates.success,
    });
    let mut table = Table::new(&[
        "measurement",
        "in process /s",
        "ratio",
        "UDP on loopback /s",
        "ratio",
    ]);
    table.row(vec![
        "raw ECDSA verify (p256, one core)".into(),
        format!("{raw_rate:.0}"),
        "1.00".into(),
        String::new(),
        String::new(),
    ]);
    let bulk_name = format!(
        "filter, batches of {} within {} ms ({}: {})",
        bulk.batch.max_batch,
        bulk.batch.deadline.as_millis(),
        bulk.engine.name(),
        bulk.engine.device()
    );
    for (name, inspect_rate, udp_rate) in [
        (
            "filter, one at a time (one core)".to_string(),
            rates.one_inspect,
            rates.one_udp,
        ),
        (bulk_name, rates.bulk_inspect, rates.bulk_udp),
    ] {
        table.row(vec![
            name,
            format!("{inspect_rate:.0}"),
            format!("{:.2}", inspect_rate / raw_rate),
            format!("{udp_rate:.0}"),
            format!("{:.2}", udp_rate / raw_rate),
        ]);
    }
    Report::checked(
        json,
        table.render(),
        rates.success,
        "a message of the benchmark was not forwarded",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_is_forwarded_one_at_a_time_and_in_batches() {
        let options = FilterOptions {
            messages: 12,
            signers: 3,
            engine: EngineKind::Cpu,
            batch: BatchConfig {
                max_batch: 4,
                deadline: Duration::from_millis(2),
            },
        };
        let report = run(&options).expect("filter bench");
        assert!(report.failure.is_none(), "{}", report.json);
        assert_eq!(report.json["bulk"]["batch"], 4);
        assert_eq!(report.json["bulk"]["engine"], "cpu");
        assert!(report.table.contains("filter, batches of 4 within 2 ms"));
    }
}

//! `vss bench gn`: the GeoNetworking bridge (issue 34) beside `vss filter`, on the same
//! messages in the same run. In this process, packets per second and per CPU-second: the
//! filter's decision on its batches (first and last; the reference is their mean), the
//! bridge's radio → stack direction on its batches, its stack → radio direction (signing),
//! and the raw P-256 verify rate of the same signatures. Then, for each rate, latency and
//! loss through the bridge's own loop over unprivileged socket-pair links, both directions,
//! and through the filter's loop over UDP on loopback.
//!
//! The packets are single-hop CAMs signed by the bench PKI's tickets: the filter gets the
//! 1609.2 messages, the bridge the same messages in secured GN frames. Each measurement
//! opens its bridge (or filter) afresh, so every one verifies the same packets.

mod cpu;
mod paced;
mod packets;
mod report;
mod station;

use anyhow::Result;
use vss_core::filter::BatchConfig;
use vss_crypto::Curve;
use vss_engine::EngineKind;
use vss_its::ItsTime;

use super::ticket_pki::build_pki;
use crate::report::{progress, spinner, Report};
use cpu::new_filter;
use paced::Path;
use packets::Packets;
use report::Figures;
use station::Station;

/// The bridge's radio → stack measurements in process, each between two of the filter's
/// (the machine may be faster or slower from one to the next; the means are compared).
const ROUNDS: usize = 3;

/// Options of the GeoNetworking bench.
#[derive(Debug, Clone)]
pub struct GnOptions {
    /// Packets through each in-process measurement (at least 1).
    pub messages: u32,
    /// Distinct signers of the radio's packets (tickets): each one's first packet carries
    /// its certificate, the rest name it by digest (at least 1).
    pub signers: u32,
    /// The rates of the paced measurements, packets per second (each at least 1).
    pub rates: Vec<u32>,
    /// How long each paced measurement sends, in seconds.
    pub seconds: f64,
    /// The filter's batches (`vss filter`'s `--batch` and `--deadline-ms`).
    pub batch: BatchConfig,
    /// The engine of the bridge's entity and of the filter.
    pub engine: EngineKind,
}

impl GnOptions {
    /// The packets of a paced measurement at `rate`.
    fn paced_count(&self, rate: u32) -> usize {
        ((f64::from(rate) * self.seconds).ceil() as usize).max(1)
    }
}

/// Runs the benchmark.
pub fn run(options: &GnOptions) -> Result<Report> {
    let now = ItsTime::now();
    let pki = build_pki(Curve::P256, options.signers, now)?;
    let m = options.messages as usize;
    let n = options
        .rates
        .iter()
        .map(|&r| options.paced_count(r))
        .chain([m])
        .max()
        .unwrap_or(m);
    let bar = progress(n as u64, "signing");
    let packets = Packets::sign(&pki, n, now, &bar)?;
    bar.finish_and_clear();
    let station = Station::new(&pki, options.engine, n)?;
    let engine = options.engine.engine()?;
    let replay = station.replay();
    let filter = || new_filter(&pki, &engine, options.batch, replay);
    let max_batch = options.batch.max_batch;
    let bar = spinner("measuring");
    let (raw, raw_valid) = pki.raw_verify_rate(&packets.messages[..m])?;
    let mut throughput = vec![cpu::filter(&filter()?, max_batch, &packets.messages[..m])];
    for _ in 0..ROUNDS {
        throughput.push(cpu::to_stack(&station.bridge()?, &packets.secured[..m]));
        throughput.push(cpu::filter(&filter()?, max_batch, &packets.messages[..m]));
    }
    throughput.push(cpu::to_radio(&station.bridge()?, &packets.unsecured[..m]));
    let mut paced = Vec::new();
    for &rate in &options.rates {
        let count = options.paced_count(rate);
        for path in [Path::ToStack, Path::ToRadio] {
            let bridge = station.bridge()?;
            paced.push(paced::through_bridge(bridge, path, &packets, rate, count)?);
        }
        paced.push(paced::through_filter(
            &filter()?,
            &options.batch,
            &packets.messages[..count],
            rate,
        )?);
    }
    bar.finish_and_clear();
    let figures = Figures {
        raw,
        raw_valid: raw_valid == m,
        throughput,
        paced,
        engine: engine.as_ref(),
    };
    Ok(report::report(options, &figures))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn every_packet_crosses_the_bridge_both_ways_and_the_filter() {
        let options = GnOptions {
            messages: 40,
            signers: 3,
            rates: vec![400],
            seconds: 0.1,
            batch: BatchConfig {
                max_batch: 8,
                deadline: Duration::from_millis(2),
            },
            engine: EngineKind::Cpu,
        };
        let report = run(&options).expect("the bench");
        let json = &report.json;
        assert_eq!(json["success"], true, "{json}");
        let runs = json["in_process"].as_array().expect("in-process runs");
        assert_eq!(runs.len(), 2 * ROUNDS + 2);
        for r in runs {
            assert_eq!(r["passed"], 40, "{r}");
        }
        let paced = json["paced"].as_array().expect("paced runs");
        assert_eq!(paced.len(), 3);
        for p in paced {
            assert_eq!(p["rate"], 400);
            assert_eq!(p["sent"], 40, "{p}");
            assert_eq!(p["lost"], 0, "{p}");
            assert!(p["p99_ms"].as_f64().expect("a p99") > 0.0, "{p}");
        }
        assert!(report.table.contains("bridge_to_stack"));
    }
}

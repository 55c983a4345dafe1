//! `vss bench its-verify --traffic SECONDS`: what a station hears in seed 001's traffic
//! model (§6.2), verified as it arrives. `--signers` neighbours are in range, each beaconing
//! CAMs at 10 Hz; an encounter lasts 65 s (Seada's freeway measurement) and a pseudonym 60 s
//! (Papadimitratos et al.), each with its own random phase, so a neighbour leaves (a new one
//! takes its place) or changes its ticket now and then. A ticket's first message, and one a
//! second after it, carry the certificate (the CAM profile of TS 103 097 §7.1.1); the others
//! its digest. Every message is verified in order on one thread, with the library alone and
//! with prepared keys, beside `openssl speed` measured in the same run.

use std::time::Instant;

use anyhow::{bail, Result};
use rayon::prelude::*;
use serde_json::json;
use vss_crypto::Curve;
use vss_its::{CacheStats, ItsTime, PreparedKeyPolicy, SignerKind, Validator};

use super::measure::openssl_speed_verify;
use super::ticket_pki::{build_pki, Pki};
use crate::report::{progress, Report, Table};

/// CAMs per second of each neighbour.
pub const BEACON_HZ: u64 = 10;
/// Seconds a neighbour stays in range.
pub const ENCOUNTER_SECONDS: u64 = 65;
/// Seconds a pseudonym (ticket) is used.
pub const PSEUDONYM_SECONDS: u64 = 60;
/// The longest simulation `--traffic` takes, in seconds.
pub const MAX_SECONDS: u32 = 3600;

/// Microseconds between two beacons of one neighbour.
const TICK_MICROS: u64 = 1_000_000 / BEACON_HZ;

/// One message of the stream: the tick it is sent at, its ticket, and the ticket's count
/// of messages before it.
struct Beacon {
    tick: u64,
    ticket: usize,
    sent_before: u64,
}

impl Beacon {
    /// How it names its signer: by certificate in the ticket's first message and one a
    /// second after it, by digest in the others.
    fn signer(&self) -> SignerKind {
        if self.sent_before.is_multiple_of(BEACON_HZ) {
            SignerKind::Certificate
        } else {
            SignerKind::Digest
        }
    }
}

/// The schedule of `neighbours` stations over `seconds`: every beacon in the order heard,
/// and how many tickets sign them. Phases come from a fixed-seed generator, so a run is
/// the same every time.
fn schedule(neighbours: u32, seconds: u32) -> (Vec<Beacon>, usize) {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    let ticks = u64::from(seconds) * BEACON_HZ;
    let encounter = ENCOUNTER_SECONDS * BEACON_HZ;
    let pseudonym = PSEUDONYM_SECONDS * BEACON_HZ;
    let phases: Vec<(u64, u64)> = (0..neighbours)
        .map(|_| (next(encounter), next(pseudonym)))
        .collect();
    let mut current: Vec<(usize, u64)> = (0..neighbours as usize).map(|k| (k, 0)).collect();
    let mut tickets = neighbours as usize;
    let mut beacons = Vec::with_capacity((ticks * u64::from(neighbours)) as usize);
    for tick in 0..ticks {
        for (slot, &(e, p)) in phases.iter().enumerate() {
            let changes = tick > 0 && ((tick + e) % encounter == 0 || (tick + p) % pseudonym == 0);
            if changes {
                current[slot] = (tickets, 0);
                tickets += 1;
            }
            let (ticket, sent) = &mut current[slot];
            beacons.push(Beacon {
                tick,
                ticket: *ticket,
                sent_before: *sent,
            });
            *sent += 1;
        }
    }
    (beacons, tickets)
}

/// One pass over the stream.
struct Pass {
    rate: f64,
    stats: CacheStats,
    ok: usize,
}

/// Verifies `messages` (sent at `ticks`) in order with a fresh validator of `capacity`
/// certificates, keys prepared under `policy`, each at the time it was sent.
fn pass(
    pki: &Pki,
    messages: &[(u64, Vec<u8>)],
    policy: PreparedKeyPolicy,
    capacity: usize,
    start: ItsTime,
) -> Result<Pass> {
    let mut validator = Validator::new(pki.trust()?, capacity).with_prepared_keys(policy);
    let chain = [pki.aa.clone()];
    let started = Instant::now();
    let mut ok = 0;
    for (tick, bytes) in messages {
        let now = start.plus_micros(tick * TICK_MICROS);
        ok += usize::from(validator.verify_data(bytes, &chain, now).is_valid());
    }
    Ok(Pass {
        rate: messages.len() as f64 / started.elapsed().as_secs_f64(),
        stats: validator.cache_stats(),
        ok,
    })
}

/// The prepared keys' policy (the default) and counters, as a report gives them.
pub(super) fn prepared_keys_json(stats: &CacheStats) -> serde_json::Value {
    let policy = PreparedKeyPolicy::default();
    json!({
        "max_bytes": policy.max_bytes,
        "after": policy.after,
        "bytes": stats.prepared_bytes,
        "builds": stats.prepared_builds,
        "hits": stats.prepared_hits,
        "evictions": stats.prepared_evictions,
    })
}

/// Simulates `seconds` of traffic from `neighbours` stations on `curve` and verifies it.
pub fn run(curve: Curve, neighbours: u32, seconds: u32) -> Result<Report> {
    if !(1..=MAX_SECONDS).contains(&seconds) {
        bail!("--traffic takes 1 to {MAX_SECONDS} seconds");
    }
    let (beacons, tickets) = schedule(neighbours, seconds);
    let start = ItsTime::now();
    let pki = build_pki(curve, tickets as u32, start)?;
    let bar = progress(beacons.len() as u64, "signing the traffic");
    let messages: Vec<(u64, Vec<u8>)> = beacons
        .par_iter()
        .enumerate()
        .map(|(i, b)| {
            let now = start.plus_micros(b.tick * TICK_MICROS);
            let bytes = pki.sign_with(b.ticket, &(i as u64).to_be_bytes(), b.signer(), now)?;
            bar.inc(1);
            Ok((b.tick, bytes))
        })
        .collect::<Result<_>>()?;
    bar.finish_and_clear();
    let with_certificate = beacons
        .iter()
        .filter(|b| b.signer() == SignerKind::Certificate)
        .count();
    // Room for the neighbours in range, their last tickets and the AA.
    let capacity = 2 * neighbours as usize + 16;
    let reference = openssl_speed_verify(curve, 3);
    let library = pass(&pki, &messages, PreparedKeyPolicy::OFF, capacity, start)?;
    let prepared = pass(
        &pki,
        &messages,
        PreparedKeyPolicy::default(),
        capacity,
        start,
    )?;
    let success = library.ok == messages.len() && prepared.ok == messages.len();
    let ratio = |rate: f64| reference.map(|r| rate / r);
    let stats = prepared.stats;
    let hit_rate = stats.hits as f64 / (stats.hits + stats.misses).max(1) as f64;
    let json = json!({
        "benchmark": "its-verify-traffic",
        "curve": curve.name(),
        "neighbours": neighbours,
        "seconds": seconds,
        "model": {
            "beacon_hz": BEACON_HZ,
            "encounter_seconds": ENCOUNTER_SECONDS,
            "pseudonym_seconds": PSEUDONYM_SECONDS,
        },
        "messages": messages.len(),
        "with_certificate": with_certificate,
        "tickets": tickets,
        "openssl_speed_verify_per_second": reference,
        "library": {
            "messages_per_second": library.rate,
            "ratio_to_openssl": ratio(library.rate),
            "chain_validations": library.stats.inserts,
        },
        "prepared": {
            "messages_per_second": prepared.rate,
            "ratio_to_openssl": ratio(prepared.rate),
            "chain_validations": stats.inserts,
            "certificate_cache_hit_rate": hit_rate,
            "keys": prepared_keys_json(&stats),
        },
        "success": success,
    });
    let mut table = Table::new(&["measurement", "messages/s (one core)", "x openssl speed"]);
    let x = |rate: f64| ratio(rate).map_or("-".into(), |r| format!("{r:.2}"));
    if let Some(r) = reference {
        table.row(vec![
            format!("openssl speed verify ({curve})"),
            format!("{r:.0}"),
            "1.00".into(),
        ]);
    }
    table.row(vec![
        format!(
            "{neighbours} neighbours, {seconds} s: {} messages, {tickets} tickets, library",
            messages.len()
        ),
        format!("{:.0}", library.rate),
        x(library.rate),
    ]);
    table.row(vec![
        format!(
            "same, prepared keys ({} built, {} KiB at the end, {:.2}% certificate cache hits)",
            stats.prepared_builds,
            stats.prepared_bytes >> 10,
            100.0 * hit_rate
        ),
        format!("{:.0}", prepared.rate),
        x(prepared.rate),
    ]);
    Ok(Report::checked(
        json,
        table.render(),
        success,
        "a message of the traffic did not verify",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_changes_tickets_at_encounters_and_pseudonym_changes() {
        let (beacons, tickets) = schedule(20, 130);
        assert_eq!(beacons.len(), 20 * 130 * 10);
        // In 130 s each neighbour's encounter ends once or twice and its pseudonym changes
        // twice or three times: four to six tickets each.
        assert!((20 * 4..=20 * 6).contains(&tickets), "{tickets} tickets");
        // A ticket's beacons are counted from 0, one per tick.
        let first = beacons.iter().filter(|b| b.sent_before == 0).count();
        assert_eq!(first, tickets);
        assert!(beacons.iter().all(|b| b.tick < 1300));
    }

    #[test]
    fn the_traffic_verifies_with_and_without_prepared_keys() {
        let report = run(Curve::P256, 3, 2).expect("traffic");
        assert!(report.failure.is_none(), "{}", report.json);
        assert_eq!(report.json["messages"], 60);
        // Three tickets, each with a certificate at 0 s and 1 s.
        assert_eq!(report.json["with_certificate"], 6);
        assert_eq!(
            report.json["prepared"]["chain_validations"], 4,
            "3 tickets + the AA"
        );
        assert_eq!(
            report.json["prepared"]["keys"]["builds"], 3,
            "{}",
            report.json
        );
        assert!(report.table.contains("prepared keys (3 built"));
        assert!(run(Curve::P256, 1, 0).is_err());
        assert!(run(Curve::P256, 1, MAX_SECONDS + 1).is_err());
    }
}

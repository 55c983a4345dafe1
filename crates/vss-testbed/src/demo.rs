//! The demo (`vss demo`): the whole system in a temporary directory, with no setup. Two TS 102 941
//! PKIs are served on loopback, two stations enrol (one at each) and fill their pseudonym
//! pools, then exchange signed CAM-like messages over UDP on loopback, each verifying what
//! the other sends, with pseudonym changes (the network id changing with them), refills
//! from the AA and certificate caching. It prints what happened and removes what it made.

use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use serde_json::{json, Value};
use vss_core::config::PseudonymConfig;
use vss_core::pseudonym::ChangeListener;
use vss_core::verify::Outcome;
use vss_core::Vss;
use vss_its::HashedId8;

use crate::loopback::{Testbed, PIN};
use crate::report::{progress, Report, Table};
use crate::HsmOptions;

/// How long a receiver waits for the last messages once its peer has sent everything.
const DRAIN: Duration = Duration::from_millis(500);

/// What the demo sends.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// Messages each station sends.
    pub messages: u64,
    /// Messages per second each station sends.
    pub rate: u64,
    /// Signatures per pseudonym before it changes.
    pub max_uses: u64,
}

/// The station's network id (its station id in the CAM), changed with each pseudonym.
struct NetworkId {
    station_id: AtomicU32,
}

impl ChangeListener for NetworkId {
    fn before_change(&self, _from: Option<HashedId8>, _to: HashedId8) -> bool {
        true
    }

    fn after_change(&self, _from: Option<HashedId8>, to: HashedId8) {
        let id = u32::from_be_bytes([to.0[4], to.0[5], to.0[6], to.0[7]]);
        self.station_id.store(id, Ordering::SeqCst);
    }
}

/// One station of the demo, running.
struct Station {
    name: &'static str,
    pki: String,
    vss: Vss,
    network: Arc<NetworkId>,
    socket: UdpSocket,
    stats: PathBuf,
    sent: AtomicU64,
    with_certificate: AtomicU64,
    ids: std::sync::Mutex<Vec<u32>>,
}

/// What a station received.
#[derive(Default)]
struct Received {
    messages: u64,
    valid: u64,
    invalid: BTreeMap<&'static str, u64>,
}

impl DemoOptions {
    /// Runs the demo; its checks pass when every message received verified, (almost) none
    /// was lost on the way and the directory was removed.
    pub fn run(&self) -> Result<Report> {
        if self.messages == 0 || self.rate == 0 || self.max_uses == 0 {
            return Err(anyhow!(
                "--messages, --rate and --max-uses must be at least 1"
            ));
        }
        let started = Instant::now();
        let testbed = Testbed::new(&["pki-a", "pki-b"])?;
        let dir = testbed.dir().to_path_buf();
        eprintln!(
            "two PKIs on loopback: pki-a at {}, pki-b at {}",
            testbed.pkis[0].url(),
            testbed.pkis[1].url()
        );
        let stations = [
            self.station(&testbed, "car-a", 0)?,
            self.station(&testbed, "car-b", 1)?,
        ];
        let setup = started.elapsed();
        let received = self.exchange(&stations)?;
        let summary = self.summary(&stations, &received, setup)?;
        let ok = stations.iter().zip(&received).all(|(s, r)| {
            let peer_sent = stations
                .iter()
                .find(|p| p.name != s.name)
                .map_or(0, |p| p.sent.load(Ordering::SeqCst));
            r.invalid.is_empty() && r.messages * 100 >= peer_sent * 99
        });
        drop(stations);
        drop(testbed);
        let removed = !dir.exists();
        let mut summary = summary;
        summary["removed"] = json!(removed);
        summary["dir"] = json!(dir.display().to_string());
        let table = format!(
            "{}{} {}\n",
            render(&summary),
            if removed {
                "removed"
            } else {
                "could not remove"
            },
            dir.display()
        );
        Ok(Report::checked(
            summary,
            table,
            ok && removed,
            "a message was refused or lost, or the directory is left behind",
        ))
    }

    /// Station `name`: enrolled at PKI `home`, its pool filled from that PKI's AA, its
    /// security entity open with a network-id listener.
    fn station(&self, testbed: &Testbed, name: &'static str, home: usize) -> Result<Station> {
        let pki = &testbed.pkis[home];
        let station = testbed.station(name, &HsmOptions::soft())?;
        station.enroll(pki)?;
        station.pseudonyms(pki, pki, 5)?;
        let stats = station.dir.join("stats");
        let mut config = station.config(testbed, pki, pki, &stats);
        config.pseudonyms = PseudonymConfig {
            max_uses: self.max_uses,
            min_pool: 3,
            request_count: 5,
            ..PseudonymConfig::default()
        };
        let vss = Vss::open(&config, PIN)?;
        let network = Arc::new(NetworkId {
            station_id: AtomicU32::new(0),
        });
        vss.register_network_id_listener(network.clone());
        // The first pseudonym, and with it the first station id, before the first message.
        vss.change_pseudonym()?;
        let socket = UdpSocket::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .context("cannot bind a UDP socket on loopback")?;
        socket.set_read_timeout(Some(DRAIN))?;
        Ok(Station {
            name,
            pki: pki.name.clone(),
            vss,
            network,
            socket,
            stats,
            sent: AtomicU64::new(0),
            with_certificate: AtomicU64::new(0),
            ids: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// Both stations send to each other and verify what arrives.
    fn exchange(&self, stations: &[Station; 2]) -> Result<[Received; 2]> {
        let bar = progress(self.messages * 2, "signed CAMs over UDP");
        let done = [AtomicBool::new(false), AtomicBool::new(false)];
        let results = std::thread::scope(|scope| {
            let mut senders = Vec::new();
            let mut receivers = Vec::new();
            for (i, station) in stations.iter().enumerate() {
                let peer = stations[1 - i].socket.local_addr()?;
                let (bar, done) = (&bar, &done);
                senders.push(scope.spawn(move || {
                    let sent = self.send(station, peer, bar);
                    done[i].store(true, Ordering::SeqCst);
                    sent
                }));
                receivers.push(scope.spawn(move || receive(station, &done[1 - i])));
            }
            for sender in senders {
                sender.join().map_err(|_| anyhow!("a sender panicked"))??;
            }
            let mut received = Vec::new();
            for receiver in receivers {
                received.push(
                    receiver
                        .join()
                        .map_err(|_| anyhow!("a receiver panicked"))??,
                );
            }
            Ok::<_, anyhow::Error>(received)
        })?;
        bar.finish_and_clear();
        let [a, b]: [Received; 2] = results
            .try_into()
            .map_err(|_| anyhow!("two receivers expected"))?;
        Ok([a, b])
    }

    /// Sends `messages` CAMs to `peer` at `rate` per second.
    fn send(
        &self,
        station: &Station,
        peer: SocketAddr,
        bar: &indicatif::ProgressBar,
    ) -> Result<()> {
        let start = Instant::now();
        for n in 0..self.messages {
            let due = start + Duration::from_secs_f64(n as f64 / self.rate as f64);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            let station_id = station.network.station_id.load(Ordering::SeqCst);
            let cam = format!(
                "CAM station={station_id} seq={n} lat=48.{:06} lon=11.{:06} speed=13.9",
                n * 7 % 1_000_000,
                n * 11 % 1_000_000
            );
            let signed = station
                .vss
                .create_signature(vss_its::Psid::CAM, cam.as_bytes())?;
            station.socket.send_to(&signed.bytes, peer)?;
            station.sent.fetch_add(1, Ordering::SeqCst);
            if signed.with_certificate {
                station.with_certificate.fetch_add(1, Ordering::SeqCst);
            }
            let mut ids = station.ids.lock().unwrap_or_else(|p| p.into_inner());
            if ids.last() != Some(&station_id) {
                ids.push(station_id);
            }
            bar.inc(1);
        }
        Ok(())
    }

    fn summary(
        &self,
        stations: &[Station; 2],
        received: &[Received; 2],
        setup: Duration,
    ) -> Result<Value> {
        let mut rows = Vec::new();
        let mut timing = Vec::new();
        for (station, got) in stations.iter().zip(received) {
            let pseudonyms = station.vss.pseudonyms().stats();
            let cache = station.vss.cache_stats();
            rows.push(json!({
                "station": station.name,
                "pki": station.pki,
                "sent": station.sent.load(Ordering::SeqCst),
                "sent_with_certificate": station.with_certificate.load(Ordering::SeqCst),
                "station_ids": station.ids.lock().unwrap_or_else(|p| p.into_inner()).len(),
                "received": got.messages,
                "valid": got.valid,
                "invalid": got.invalid,
                "pseudonym_changes": pseudonyms.changes,
                "pseudonyms_retired": pseudonyms.retired,
                "refills": pseudonyms.refills,
                "tickets_received": pseudonyms.tickets_received,
                "cache_hits": cache.hits,
                "cache_inserts": cache.inserts,
                "prepared_key_hits": cache.prepared_hits,
            }));
            let (functions, _) = vss_core::stats::report(&station.stats)?;
            for f in functions {
                timing.push(json!({
                    "station": station.name,
                    "function": f.function,
                    "calls": f.calls,
                    "mean_us": f.mean_us,
                    "p50_us": f.p50_us,
                    "p99_us": f.p99_us,
                    "max_resident_kib": f.max_resident_kib,
                }));
            }
        }
        Ok(json!({
            "messages_per_station": self.messages,
            "rate": self.rate,
            "setup_seconds": setup.as_secs_f64(),
            "stations": rows,
            "timing": timing,
        }))
    }
}

/// Verifies what arrives at `station` until its peer is `done` and nothing more comes.
fn receive(station: &Station, done: &AtomicBool) -> Result<Received> {
    let mut got = Received::default();
    let mut buffer = vec![0u8; 65_507];
    loop {
        match station.socket.recv_from(&mut buffer) {
            Ok((len, _)) => {
                got.messages += 1;
                match station.vss.verify_signature(&buffer[..len])? {
                    Outcome::Valid { .. } => got.valid += 1,
                    refused => *got.invalid.entry(refused.name()).or_default() += 1,
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if done.load(Ordering::SeqCst) {
                    return Ok(got);
                }
            }
            Err(e) => return Err(e).context("receiving"),
        }
    }
}

/// The summary as tables.
fn render(summary: &Value) -> String {
    let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let mut out = format!(
        "two PKIs, two stations, {} signed CAMs each at {}/s over UDP on loopback (set up in {:.1} s)\n\n",
        summary["messages_per_station"], summary["rate"],
        summary["setup_seconds"].as_f64().unwrap_or(0.0)
    );
    let columns = [
        "station",
        "pki",
        "sent",
        "sent_with_certificate",
        "station_ids",
        "received",
        "valid",
        "invalid",
        "pseudonym_changes",
        "refills",
        "tickets_received",
        "cache_hits",
    ];
    let mut table = Table::new(&columns);
    for row in summary["stations"].as_array().into_iter().flatten() {
        table.row(
            columns
                .iter()
                .map(|c| match row[*c].as_object() {
                    Some(reasons) if reasons.is_empty() => "0".to_string(),
                    Some(reasons) => reasons
                        .iter()
                        .map(|(reason, n)| format!("{reason} {n}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    None => text(&row[*c]),
                })
                .collect(),
        );
    }
    out.push_str(&table.render());
    out.push_str("\ntime per call, from the statistics log (µs)\n");
    let columns = [
        "station", "function", "calls", "mean_us", "p50_us", "p99_us",
    ];
    let mut table = Table::new(&columns);
    for row in summary["timing"].as_array().into_iter().flatten() {
        table.row(
            columns
                .iter()
                .map(|c| match row[*c].as_f64() {
                    Some(x) if *c == "mean_us" => format!("{x:.0}"),
                    _ => text(&row[*c]),
                })
                .collect(),
        );
    }
    out.push_str(&table.render());
    out
}

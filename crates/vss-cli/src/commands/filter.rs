//! `vss filter`: seed 001's transparent mode. Secured messages (IEEE 1609.2 signed data, one
//! per UDP datagram) are verified, the payloads of valid ones are forwarded in arrival order,
//! the rest are dropped and counted by reason. Datagrams are verified in batches on an
//! engine, each batch sent on when it is full or its deadline has passed. Each message is
//! forwarded once, and only while fresh (`--replay-*`, `--no-replay-check`).

use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use serde_json::json;
use vss_core::events::EventHub;
use vss_core::filter::{listen_socket, BatchConfig, Filter, FilterCounts};
use vss_core::replay::{ReplayConfig, MAX_AGE_LIMIT, MAX_CAPACITY, MAX_LEAD_LIMIT};
use vss_engine::VerifyEngine;
use vss_its::{TrustAnchors, Validator, Verdict};

use crate::files::read_cert;
use crate::output::{emit, print_json, printable, Format, Table};
use vss_engine::EngineKind;

/// An address written `udp:HOST:PORT`.
#[derive(Debug, Clone, Copy)]
pub struct UdpAddr(SocketAddr);

impl std::str::FromStr for UdpAddr {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let address = text
            .strip_prefix("udp:")
            .ok_or_else(|| format!("'{text}' is not udp:HOST:PORT"))?;
        address
            .parse()
            .map(UdpAddr)
            .map_err(|e| format!("'{address}': {e}"))
    }
}

/// `vss filter`.
#[derive(clap::Args)]
pub struct FilterArgs {
    /// Where secured messages arrive (udp:HOST:PORT).
    #[arg(long, value_name = "udp:ADDR")]
    listen: UdpAddr,
    /// Where the payloads of valid ones go (udp:HOST:PORT).
    #[arg(long, value_name = "udp:ADDR")]
    forward: UdpAddr,
    /// A root certificate (COER) to trust. Repeatable; at least one.
    #[arg(long = "anchor", value_name = "FILE", required = true)]
    anchors: Vec<PathBuf>,
    /// An EA or AA certificate known in advance (so digest-signed messages resolve).
    /// Repeatable.
    #[arg(long = "authority", value_name = "FILE")]
    authorities: Vec<PathBuf>,
    /// Certificates kept in the cache once validated.
    #[arg(long, default_value_t = 4096)]
    cache_capacity: usize,
    #[command(flatten)]
    bulk: BulkArgs,
    #[command(flatten)]
    replay: ReplayArgs,
    /// Tell the outer system of every dropped datagram: one JSON line per drop (its report
    /// and code, PSID, signer, sender) to every client connected to this Unix socket
    /// (16 clients; one that stops reading loses lines, never slows the filter) [default: none].
    #[arg(long, value_name = "SOCKET")]
    events: Option<PathBuf>,
    /// Stop after this many datagrams and print what happened [default: run until killed].
    #[arg(long, value_name = "N")]
    count: Option<u64>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// How signatures are verified in bulk (`vss filter`, `vss bench filter`).
#[derive(clap::Args)]
pub struct BulkArgs {
    /// The engine that checks batches of signatures.
    #[arg(long, value_enum, default_value_t = EngineKind::Cpu)]
    engine: EngineKind,
    /// The most datagrams verified together; 1 verifies each as it arrives. The default
    /// (256, with the 2 ms deadline) keeps the engine busy under load and delays a message
    /// by at most the deadline plus one batch's verification when traffic is light.
    #[arg(long, value_name = "N", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    batch: u32,
    /// The longest a batch waits for more datagrams after its first one arrived.
    #[arg(long, value_name = "MS", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    deadline_ms: u32,
}

/// Replay protection of `vss filter`: each message forwarded once, and only while fresh.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// Forward copies of a message and stale messages too (no replay check).
    #[arg(long)]
    no_replay_check: bool,
    /// How old a message's generation time may be.
    #[arg(long, value_name = "MS",
          default_value_t = ReplayConfig::default().max_age.as_millis() as u32,
          value_parser = clap::value_parser!(u32).range(1..=MAX_AGE_LIMIT.as_millis() as i64))]
    replay_max_age_ms: u32,
    /// How far ahead of this clock a generation time may be.
    #[arg(long, value_name = "MS",
          default_value_t = ReplayConfig::default().max_lead.as_millis() as u32,
          value_parser = clap::value_parser!(u32).range(0..=MAX_LEAD_LIMIT.as_millis() as i64))]
    replay_max_lead_ms: u32,
    /// Accepted messages remembered (their keys: about 100 bytes each).
    #[arg(long, value_name = "N",
          default_value_t = ReplayConfig::default().capacity as u32,
          value_parser = clap::value_parser!(u32).range(1..=MAX_CAPACITY as i64))]
    replay_capacity: u32,
}

impl ReplayArgs {
    /// The replay window these options ask for (none: off).
    pub fn window(&self) -> Option<ReplayConfig> {
        (!self.no_replay_check).then(|| ReplayConfig {
            max_age: Duration::from_millis(self.replay_max_age_ms.into()),
            max_lead: Duration::from_millis(self.replay_max_lead_ms.into()),
            capacity: self.replay_capacity as usize,
        })
    }
}

impl BulkArgs {
    /// The kind of engine these options ask for.
    pub fn engine_kind(&self) -> EngineKind {
        self.engine
    }

    /// The engine these options ask for.
    pub fn engine(&self) -> Result<Arc<dyn VerifyEngine>> {
        Ok(self.engine.engine_on(None)?)
    }

    /// The batches these options ask for.
    pub fn batch(&self) -> BatchConfig {
        BatchConfig {
            max_batch: self.batch as usize,
            deadline: Duration::from_millis(self.deadline_ms.into()),
        }
    }
}

impl FilterArgs {
    /// Runs the filter.
    pub fn run(self) -> Result<ExitCode> {
        let mut anchors = TrustAnchors::new();
        for path in &self.anchors {
            anchors
                .add(read_cert(path)?)
                .with_context(|| format!("{}", path.display()))?;
        }
        let mut validator = Validator::new(anchors, self.cache_capacity);
        for path in &self.authorities {
            let report =
                validator.verify_certificate(&read_cert(path)?, &[], vss_its::ItsTime::now());
            if report.verdict != Verdict::Valid {
                return Err(anyhow!(
                    "{}: not valid under the anchors: {}",
                    path.display(),
                    report.reason
                ));
            }
        }
        let engine = self.bulk.engine()?;
        let batch = self.bulk.batch();
        let listen = listen_socket(self.listen.0, &batch)
            .with_context(|| format!("cannot listen on udp:{}", self.listen.0))?;
        let unspecified: SocketAddr = if self.forward.0.is_ipv4() {
            ([0, 0, 0, 0], 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let forward = UdpSocket::bind(unspecified).context("cannot open the forward socket")?;
        forward
            .connect(self.forward.0)
            .with_context(|| format!("cannot forward to udp:{}", self.forward.0))?;
        let replay = self.replay.window();
        let events = match &self.events {
            Some(path) => Some((
                path,
                Arc::new(
                    EventHub::bind(path)
                        .with_context(|| format!("events socket {}", path.display()))?,
                ),
            )),
            None => None,
        };
        eprintln!(
            "filtering udp:{} -> udp:{} (batches of up to {} within {} ms on {}: {}; {}){}",
            listen.local_addr()?,
            self.forward.0,
            self.bulk.batch,
            self.bulk.deadline_ms,
            engine.name(),
            engine.device(),
            match replay {
                Some(window) => format!(
                    "each message once, generated at most {} ms before and {} ms after now",
                    window.max_age.as_millis(),
                    window.max_lead.as_millis()
                ),
                None => "no replay check".into(),
            },
            match &events {
                Some((path, _)) => format!(
                    "; dropped datagrams told on {}",
                    printable(&path.display().to_string())
                ),
                None => String::new(),
            }
        );
        let mut filter = Filter::new(validator, engine, batch, replay);
        if let Some((_, hub)) = events {
            filter = filter.with_events(hub);
        }
        let counts = filter
            .run(&listen, &forward, self.count)
            .context("the filter stopped")?;
        summary(self.format, &counts)?;
        Ok(ExitCode::SUCCESS)
    }
}

fn summary(format: Format, counts: &FilterCounts) -> Result<()> {
    let dropped: u64 = counts.dropped.values().sum();
    match format {
        Format::Json => print_json(&json!({
            "received": counts.received,
            "forwarded": counts.forwarded,
            "forward_refused": counts.forward_refused,
            "dropped": dropped,
            "dropped_by_reason": counts.dropped,
        })),
        Format::Table => {
            let mut table = Table::new(&["what", "messages"]);
            table.row(vec!["received".into(), counts.received.to_string()]);
            table.row(vec!["forwarded".into(), counts.forwarded.to_string()]);
            if counts.forward_refused > 0 {
                table.row(vec![
                    "valid, forward refused".into(),
                    counts.forward_refused.to_string(),
                ]);
            }
            for (reason, n) in &counts.dropped {
                table.row(vec![format!("dropped: {reason}"), n.to_string()]);
            }
            emit(&table.render())
        }
    }
}

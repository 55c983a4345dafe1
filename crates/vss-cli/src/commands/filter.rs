//! `vss filter`: seed 001's transparent mode. Secured messages (IEEE 1609.2 signed data, one
//! per UDP datagram) are verified, the payloads of valid ones are forwarded in arrival order,
//! the rest are dropped and counted by reason. Datagrams are verified in batches on an
//! engine, each batch sent on when it is full or its deadline has passed. Each message is
//! forwarded once, and only while fresh (`--replay-*`, `--no-replay-check`). With an
//! entity (`--config`), payloads arriving on `--sign-listen` are signed with its current
//! pseudonym and sent to `--sign-to`.

use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::json;
use vss_core::config::TrustConfig;
use vss_core::entity::trust_validator;
use vss_core::events::EventHub;
use vss_core::filter::{
    listen_socket, sending_socket, BatchConfig, Filter, FilterCounts, Outgoing, SignCounts, Signing,
};
use vss_core::replay::{ReplayConfig, MAX_AGE_LIMIT, MAX_CAPACITY, MAX_LEAD_LIMIT};
use vss_core::{Config, Vss};
use vss_engine::VerifyEngine;
use vss_its::{ItsTime, Psid};
use vss_net::{Throttle, WARN_INTERVAL};

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
    /// A root certificate (COER) to trust. Repeatable; at least one, unless --config is
    /// given [default: what the --config entity trusts].
    #[arg(
        long = "anchor",
        value_name = "FILE",
        required_unless_present = "config"
    )]
    anchors: Vec<PathBuf>,
    /// An EA or AA certificate known in advance (so digest-signed messages resolve).
    /// Repeatable.
    #[arg(long = "authority", value_name = "FILE")]
    authorities: Vec<PathBuf>,
    /// Certificates kept in the cache once validated.
    #[arg(long, default_value_t = 4096)]
    cache_capacity: usize,
    /// The entity's configuration (the TOML vssd reads; its PIN from the PIN file, the
    /// systemd credential or VSS_PIN): it signs for --sign-listen [default: none].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Where payloads to sign arrive (udp:HOST:PORT); needs --config and --sign-to
    /// [default: nothing is signed].
    #[arg(long, value_name = "udp:ADDR", requires_all = ["config", "sign_to"])]
    sign_listen: Option<UdpAddr>,
    /// Where the signed messages (Ieee1609Dot2Data) go (udp:HOST:PORT).
    #[arg(long, value_name = "udp:ADDR", requires = "sign_listen")]
    sign_to: Option<UdpAddr>,
    /// The ITS-AID payloads are signed for, under its TS 103 097 profile: a CAM (36) names
    /// its signer by digest but once a second, a DENM (37) carries the certificate.
    #[arg(long, value_name = "PSID", default_value_t = 36,
          value_parser = clap::value_parser!(u64).range(0..=u32::MAX as u64))]
    sign_psid: u64,
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
        let config = match &self.config {
            Some(path) => Some(
                Config::load(path).with_context(|| format!("cannot load {}", path.display()))?,
            ),
            None => None,
        };
        let trust = match &config {
            Some(config) if self.anchors.is_empty() => TrustConfig {
                authorities: [&config.trust.authorities[..], &self.authorities].concat(),
                ..config.trust.clone()
            },
            _ => TrustConfig::new(
                self.anchors.clone(),
                self.authorities.clone(),
                self.cache_capacity,
            ),
        };
        let prepared = config.as_ref().map(|c| c.verification.prepared_keys());
        let validator = trust_validator(&trust, prepared.unwrap_or_default(), ItsTime::now())?;
        let engine = self.bulk.engine()?;
        let batch = self.bulk.batch();
        let listen = listen_socket(self.listen.0, &batch)
            .with_context(|| format!("cannot listen on udp:{}", self.listen.0))?;
        let forward = connected(self.forward)?;
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
        let told = match &events {
            Some((path, _)) => {
                format!("; drops told on {}", printable(&path.display().to_string()))
            }
            None => String::new(),
        };
        eprintln!(
            "filtering udp:{} -> udp:{} ({batch} on {}: {}; {}){told}",
            listen.local_addr()?,
            self.forward.0,
            engine.name(),
            engine.device(),
            replay.map_or_else(|| "no replay check".into(), |w| w.to_string()),
        );
        let hub = events.map(|(_, hub)| hub);
        let signing = match (config, self.sign_listen, self.sign_to) {
            (Some(config), Some(from), Some(to)) => {
                Some(self.start_signing(&config, from, to, hub.clone())?)
            }
            _ => None,
        };
        let mut filter = Filter::new(validator, engine, batch, replay);
        if let Some(hub) = hub {
            filter = filter.with_events(hub);
        }
        let counts = filter
            .run(&listen, &forward, self.count)
            .context("the filter stopped")?;
        let signed = match signing {
            Some(signing) => Some(signing.stop().context("the signer stopped")?),
            None => None,
        };
        summary(self.format, &counts, signed.as_ref())?;
        Ok(ExitCode::SUCCESS)
    }

    /// The outgoing direction on a thread of its own: payloads from `from` signed by the
    /// entity of `config` and sent to `to`.
    fn start_signing(
        &self,
        config: &Config,
        from: UdpAddr,
        to: UdpAddr,
        events: Option<Arc<EventHub>>,
    ) -> Result<Signing> {
        let vss = Arc::new(Vss::open_unattended(config).context("cannot open the entity")?);
        let outgoing = Outgoing::new(vss, Psid::new(self.sign_psid), events);
        let listen =
            UdpSocket::bind(from.0).with_context(|| format!("cannot listen on udp:{}", from.0))?;
        eprintln!(
            "signing udp:{} -> udp:{} for ITS-AID {}",
            listen.local_addr()?,
            to.0,
            self.sign_psid
        );
        let throttle = Throttle::new(WARN_INTERVAL);
        let warn = move |e: &vss_core::Error| {
            if let Some(n) = throttle.hit() {
                eprintln!("vss filter: cannot sign ({n} since the last line): {e}");
            }
        };
        Ok(outgoing.spawn(listen, connected(to)?, warn)?)
    }
}

/// A socket connected to `to`.
fn connected(to: UdpAddr) -> Result<UdpSocket> {
    sending_socket(to.0).with_context(|| format!("cannot send to udp:{}", to.0))
}

fn summary(format: Format, counts: &FilterCounts, signed: Option<&SignCounts>) -> Result<()> {
    let dropped: u64 = counts.dropped.values().sum();
    match format {
        Format::Json => print_json(&json!({
            "received": counts.received,
            "forwarded": counts.forwarded,
            "forward_refused": counts.forward_refused,
            "dropped": dropped,
            "dropped_by_reason": counts.dropped,
            "signed": signed,
        })),
        Format::Table => {
            let mut table = Table::new(&["what", "messages"]);
            let mut row = |what: String, n: u64| table.row(vec![what, n.to_string()]);
            row("received".into(), counts.received);
            row("forwarded".into(), counts.forwarded);
            if counts.forward_refused > 0 {
                row("valid, forward refused".into(), counts.forward_refused);
            }
            for (reason, n) in &counts.dropped {
                row(format!("dropped: {reason}"), *n);
            }
            if let Some(s) = signed {
                row("to sign: received".into(), s.received);
                row("to sign: sent signed".into(), s.sent);
                row("to sign: send refused".into(), s.send_refused);
                row("to sign: signing failed".into(), s.sign_failed);
                row("to sign: too large".into(), s.oversized);
            }
            emit(&table.render())
        }
    }
}

//! `vss gn bridge`: seed 001's transparent security on the GeoNetworking wire. An unsecured
//! ITS stack on one interface, the radio on another: what the stack sends is signed with the
//! current pseudonym and sent on as a secured packet from the pseudonym's MAC; what the
//! radio brings is verified and passed to the stack unsecured, or dropped and announced on
//! the events socket. SIGTERM or SIGINT stops it: what is queued is still delivered, then
//! the counts are printed and it exits 0.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use vss_core::events::EventHub;
use vss_core::gn_bridge::link::Link;
use vss_core::gn_bridge::run::{self, BridgeCounts};
use vss_core::gn_bridge::{Bridge, BridgeConfig, BridgeMetrics};
use vss_core::{Config, Vss};
use vss_gn::Limits;
use vss_net::metrics::Registry;

use crate::output::{emit, print_json, Format, Table};

/// `vss gn`.
#[derive(clap::Subcommand)]
pub enum GnCommand {
    /// Sign what an unsecured ITS stack sends and verify what it receives (GeoNetworking,
    /// EtherType 0x8947, on two interfaces; raw sockets: needs CAP_NET_RAW).
    Bridge(BridgeArgs),
}

/// `vss gn bridge`.
#[derive(clap::Args)]
pub struct BridgeArgs {
    /// The entity's configuration: the TOML vssd reads (its PIN from the PIN file, the
    /// systemd credential or VSS_PIN).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The interface on the radio side.
    #[arg(long, value_name = "IFACE")]
    radio: String,
    /// The interface towards the unsecured stack.
    #[arg(long, value_name = "IFACE")]
    stack: String,
    /// A Unix socket on which every connected client reads one JSON line per dropped packet
    /// and pseudonym change [default: none].
    #[arg(long, value_name = "PATH")]
    events: Option<PathBuf>,
    /// Pass unsecured packets from the radio on to the stack [default: dropped].
    #[arg(long)]
    allow_unsecured: bool,
    /// Accept reserved Common Header flag bits (FlexStack sets one in its beacons and
    /// Location Service packets) [default: refused].
    #[arg(long)]
    allow_reserved_flags: bool,
    /// Serve Prometheus metrics at http://ADDR/metrics: vss_gn_frames_total by direction
    /// and result (passed, or the reason a frame was dropped), vss_gn_id_changes_total
    /// [default: off].
    #[arg(long, value_name = "ADDR")]
    metrics: Option<SocketAddr>,
    /// Output format of the counts printed at the end.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

impl GnCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            GnCommand::Bridge(args) => args.run(),
        }
    }
}

impl BridgeArgs {
    fn run(self) -> Result<ExitCode> {
        let stop = Arc::new(AtomicBool::new(false));
        let (metrics, registry) = BridgeMetrics::new();
        let served = background(Arc::clone(&stop), self.metrics.map(|a| (a, registry)))?;
        let config = Config::load(&self.config)
            .with_context(|| format!("cannot load {}", self.config.display()))?;
        let vss = Arc::new(Vss::open_unattended(&config).context("cannot open the entity")?);
        let events = match &self.events {
            Some(path) => Some(Arc::new(
                EventHub::bind(path).with_context(|| format!("events {}", path.display()))?,
            )),
            None => None,
        };
        let radio = Link::open(&self.radio, run::POLL)?;
        let stack = Link::open(&self.stack, run::POLL)?;
        let bridge_config = BridgeConfig {
            limits: Limits {
                allow_reserved_flags: self.allow_reserved_flags,
                ..Limits::default()
            },
            allow_unsecured: self.allow_unsecured,
            stack_side_mac: stack.mac,
        };
        eprintln!(
            "bridging stack {} ({}) <-> radio {} ({}); unsecured packets from the radio {}; \
             metrics {}",
            self.stack,
            stack.mac,
            self.radio,
            radio.mac,
            if self.allow_unsecured {
                "pass"
            } else {
                "are dropped"
            },
            served.map_or_else(|| "off".into(), |a| format!("http://{a}/metrics"))
        );
        let bridge = Arc::new(Bridge::with_metrics(vss, bridge_config, events, metrics));
        let counts = run::run(bridge, radio, stack, stop).context("the bridge stopped")?;
        summary(self.format, &counts)?;
        Ok(ExitCode::SUCCESS)
    }
}

/// On a thread of its own: sets `stop` on SIGTERM or SIGINT, and serves `metrics` (its
/// registry at the address) until then; the address it listens on.
fn background(
    stop: Arc<AtomicBool>,
    metrics: Option<(SocketAddr, Registry)>,
) -> Result<Option<SocketAddr>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("no runtime for the signal handler")?;
    let listener = match metrics {
        Some((address, registry)) => Some((
            runtime
                .block_on(tokio::net::TcpListener::bind(address))
                .with_context(|| format!("cannot listen on {address} for --metrics"))?,
            registry,
        )),
        None => None,
    };
    let bound = match &listener {
        Some((l, _)) => Some(l.local_addr()?),
        None => None,
    };
    std::thread::Builder::new()
        .name("vss-signals".into())
        .spawn(move || {
            runtime.block_on(async move {
                if let Some((listener, registry)) = listener {
                    let limits = vss_net::metrics::default_limits();
                    tokio::spawn(vss_net::metrics::serve(
                        listener,
                        Arc::new(registry),
                        limits,
                    ));
                }
                super::signal::shutdown_signal().await;
            });
            stop.store(true, Ordering::SeqCst);
        })
        .context("cannot start the signal handler")?;
    Ok(bound)
}

fn summary(format: Format, counts: &BridgeCounts) -> Result<()> {
    match format {
        Format::Json => print_json(&serde_json::json!(counts)),
        Format::Table => {
            let mut table = Table::new(&["direction", "what", "frames"]);
            for (name, c) in [
                ("stack -> radio", &counts.to_radio),
                ("radio -> stack", &counts.to_stack),
            ] {
                let mut row = |what: String, n: u64| {
                    table.row(vec![name.into(), what, n.to_string()]);
                };
                row("received".into(), c.received);
                row("passed".into(), c.passed);
                if c.send_errors > 0 {
                    row("send errors".into(), c.send_errors);
                }
                for (reason, n) in &c.dropped {
                    row(format!("dropped: {reason}"), *n);
                }
            }
            emit(&table.render())
        }
    }
}

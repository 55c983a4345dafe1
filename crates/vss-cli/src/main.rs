//! `vss`: the command line of the VSS security subsystem.

mod commands;
mod files;
mod output;
mod secrets;
mod store;

use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use vss_net::logging::{LogError, LogFilter, LogFormat};

/// VSS: V2X security subsystem — key store, ECDSA, key encapsulation, ITS certificates and
/// signed data, the TS 102 941 PKI and its station client, and benchmarks.
#[derive(Parser)]
#[command(name = "vss", version, about, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    log: LogArgs,
    #[command(subcommand)]
    command: Command,
}

/// Log events on stderr (`vss_net::logging`): their format and which are written.
#[derive(clap::Args)]
struct LogArgs {
    /// Log lines on stderr as text, or as one JSON object per line.
    #[arg(long, global = true, value_name = "FORMAT", default_value = "text",
          value_parser = PossibleValuesParser::new(["text", "json"]).try_map(|s| s.parse::<LogFormat>()))]
    log_format: LogFormat,
    /// Which log events are written, in RUST_LOG syntax: a level (error, warn, info, debug,
    /// trace, off) or TARGET=LEVEL, comma-separated, at most 1,024 bytes [default: info for
    /// `pki serve`, `pki dc serve` and `cred serve`, warn for the other commands].
    #[arg(long, global = true, value_name = "FILTER", env = "VSS_LOG")]
    log_level: Option<LogFilter>,
}

impl LogArgs {
    /// Sets up this process's logs for `command`.
    fn init(&self, command: &Command) -> Result<(), LogError> {
        let filter = match &self.log_level {
            Some(filter) => filter.clone(),
            None => command.default_log_filter().parse()?,
        };
        vss_net::logging::init(self.log_format, &filter)
    }
}

#[derive(Subcommand)]
enum Command {
    /// The whole system in a temporary directory: two PKIs, two stations, signed CAMs
    /// over UDP; prints what happened and removes what it made.
    Demo(commands::demo::DemoArgs),
    /// Create and administer a key store (init, status, PIN and PUK).
    #[command(subcommand)]
    Hsm(commands::hsm::HsmCommand),
    /// Generate, list, export and delete keys in a key store.
    #[command(subcommand)]
    Keys(commands::keys::KeysCommand),
    /// Key encapsulation: PSEC-KEM, ECIES-KEM, IEEE 1609.2 ECIES (keygen, encap, decap).
    #[command(subcommand)]
    Kem(commands::kem::KemCommand),
    /// IEEE 1609.2 / ETSI TS 103 097: decode, verify, issue certificates, sign.
    #[command(subcommand)]
    Its(commands::its::ItsCommand),
    /// ETSI TS 102 941 PKI: init, serve, register stations, trust another PKI.
    #[command(subcommand)]
    Pki(commands::pki::PkiCommand),
    /// A station's PKI client: enrol, get pseudonyms, list them.
    #[command(subcommand)]
    Station(commands::station::StationCommand),
    /// Statistics of a security entity: summarise its rotating stats files.
    #[command(subcommand)]
    Stats(commands::stats::StatsCommand),
    /// Bulk verification engines: what this vss has and the devices they see.
    #[command(subcommand)]
    Engine(commands::engine::EngineCommand),
    /// TLS termination with the keys in the store (serve).
    #[command(subcommand)]
    Tls(commands::tls::TlsCommand),
    /// Privacy credentials (seed 003): setup, issue, policy, present, verify, inspect,
    /// revoke, and the VIP-ticket scenario.
    #[command(subcommand)]
    Cred(commands::cred::CredCommand),
    /// The IoT smart card holding a credential user's secret: serve, setup, erase.
    #[command(subcommand)]
    Card(commands::card::CardCommand),
    /// Verify secured messages arriving over UDP and forward the payloads of valid ones.
    Filter(commands::filter::FilterArgs),
    /// GeoNetworking: the bridge that secures an unsecured ITS stack's packets.
    #[command(subcommand)]
    Gn(commands::gn::GnCommand),
    /// Seed 000's validation suite against two PKIs on loopback: PASS/FAIL per case.
    Selftest(commands::selftest::SelftestArgs),
    /// A playground for vssd: PKIs on loopback, a provisioned station, DIR/vss.toml (up).
    #[command(subcommand)]
    Testbed(commands::testbed::TestbedCommand),
    /// Sign and verify streams of JSON lines.
    #[command(subcommand)]
    Ecdsa(commands::ecdsa::EcdsaCommand),
    /// Measure signing and verification speed.
    #[command(subcommand)]
    Bench(commands::bench::BenchCommand),
}

impl Command {
    /// The log filter without `--log-level`: the servers' requests and start at info, only
    /// warnings from the other commands.
    fn default_log_filter(&self) -> &'static str {
        match self {
            Command::Pki(pki) if pki.serves() => "info",
            Command::Cred(commands::cred::CredCommand::Serve(_)) => "info",
            _ => "warn",
        }
    }
}

/// Parses the command line. A group named without its subcommand (`vss keys`) is a usage
/// error like any other, not its help printed on stderr.
fn parse() -> Result<Cli, clap::Error> {
    fn no_help_when_empty(command: clap::Command) -> clap::Command {
        command
            .arg_required_else_help(false)
            .mut_subcommands(no_help_when_empty)
    }
    let mut matches = no_help_when_empty(Cli::command()).try_get_matches()?;
    Cli::from_arg_matches_mut(&mut matches)
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(e) => return output::usage_error(e),
    };
    if let Err(e) = cli.log.init(&cli.command) {
        eprintln!("vss: {}", output::error_line(&e.into()));
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Demo(c) => c.run(),
        Command::Hsm(c) => c.run(),
        Command::Keys(c) => c.run(),
        Command::Kem(c) => c.run(),
        Command::Its(c) => c.run(),
        Command::Pki(c) => c.run(),
        Command::Station(c) => c.run(),
        Command::Stats(c) => c.run(),
        Command::Engine(c) => c.run(),
        Command::Tls(c) => c.run(),
        Command::Cred(c) => c.run(),
        Command::Card(c) => c.run(),
        Command::Filter(c) => c.run(),
        Command::Gn(c) => c.run(),
        Command::Selftest(c) => c.run(),
        Command::Testbed(c) => c.run(),
        Command::Ecdsa(c) => c.run(),
        Command::Bench(c) => c.run(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vss: {}", output::error_line(&e));
            ExitCode::FAILURE
        }
    }
}

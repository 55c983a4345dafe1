//! `vss card`: the IoT smart card of seed 003 as its own process, and its setup.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use vss_card::connect::{CardChoice, CardKind};
use vss_card::process::{card_binary, command};
use vss_cred::spec::SystemParameters;
use vss_hsm::pin::{PinSource, PIN_ENV, PUK_ENV};

use crate::output::{self, Format, Table};
use crate::secrets::ReadOrAsk;

/// The card.
#[derive(Subcommand)]
pub enum CardCommand {
    /// Run the card: execs the `vss-card` binary, so this process is the card, reached by
    /// vpcd (pcscd shows it as a reader) or on a TCP port.
    Serve(ServeArgs),
    /// Card setup: PIN (VSS_PIN) and PUK (VSS_PUK), the card's secret generated on it, the
    /// system parameters stored.
    Setup(SetupArgs),
    /// Return a card to its factory state with the PUK (VSS_PUK): its secret is erased.
    Erase(EraseArgs),
}

/// `vss card serve`'s arguments.
#[derive(Args)]
pub struct ServeArgs {
    /// The card's state file (created on first start, encrypted at rest).
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// Connect to vsmartcard's vpcd driver at HOST:PORT (its default port is 35963).
    #[arg(
        long,
        value_name = "HOST:PORT",
        conflicts_with = "listen",
        required_unless_present = "listen"
    )]
    vpcd: Option<String>,
    /// Listen for the user service on ADDR (length-prefixed APDUs, as in the seed).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// With --listen: close a client silent this many milliseconds (1–3600000).
    #[arg(long, value_name = "MS",
          default_value_t = vss_card::tcp::IDLE_TIMEOUT.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..=vss_net::MAX_TIMEOUT.as_millis() as u64))]
    idle_timeout_ms: u64,
    /// With --listen: close a client whose frame has not arrived whole this many
    /// milliseconds after its first byte (1–3600000).
    #[arg(long, value_name = "MS",
          default_value_t = vss_card::tcp::FRAME_TIMEOUT.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..=vss_net::MAX_TIMEOUT.as_millis() as u64))]
    frame_timeout_ms: u64,
    /// With --listen: close a client that has not read an answer this many milliseconds
    /// after it was written (1–3600000).
    #[arg(long, value_name = "MS",
          default_value_t = vss_card::tcp::default_limits().write_timeout.as_millis() as u64,
          value_parser = clap::value_parser!(u64).range(1..=vss_net::MAX_TIMEOUT.as_millis() as u64))]
    write_timeout_ms: u64,
    /// With --listen: connections held, the one served and those waiting; past it a new one
    /// takes the place of the oldest without a whole command, else it is closed.
    #[arg(long, value_name = "N",
          default_value_t = vss_card::tcp::MAX_CONNECTIONS_HELD as u64,
          value_parser = clap::value_parser!(u64).range(1..=vss_net::MAX_CONNECTIONS as u64))]
    max_connections: u64,
}

/// How to reach a card.
#[derive(Args, Clone)]
pub struct CardArgs {
    /// Where the card is.
    #[arg(long, value_enum, default_value_t = CardKind::Tcp)]
    pub card: CardKind,
    /// The card's TCP address (`vss card serve --listen`), for --card tcp.
    #[arg(long, value_name = "ADDR")]
    pub card_addr: Option<String>,
    /// The PC/SC reader, for --card pcsc (default: the first whose card has the application).
    #[arg(long, value_name = "NAME")]
    pub reader: Option<String>,
}

impl CardArgs {
    /// The card as the options name it.
    pub fn choice(&self) -> CardChoice {
        CardChoice {
            kind: self.card,
            addr: self.card_addr.clone(),
            reader: self.reader.clone(),
        }
    }
}

/// The card's PIN: VSS_PIN or a prompt.
pub fn pin() -> Result<zeroize::Zeroizing<String>> {
    PinSource::new("card PIN", PIN_ENV).read_or_ask(false)
}

/// The card's PUK: VSS_PUK or a prompt (twice when it is a new one).
pub fn puk(new: bool) -> Result<zeroize::Zeroizing<String>> {
    PinSource::new("card PUK", PUK_ENV).read_or_ask(new)
}

/// `vss card setup`'s arguments.
#[derive(Args)]
pub struct SetupArgs {
    #[command(flatten)]
    card: CardArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `vss card erase`'s arguments.
#[derive(Args)]
pub struct EraseArgs {
    #[command(flatten)]
    card: CardArgs,
}

impl CardCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            CardCommand::Serve(args) => {
                let bounds = [
                    ("--idle-timeout-ms", args.idle_timeout_ms.to_string()),
                    ("--frame-timeout-ms", args.frame_timeout_ms.to_string()),
                    ("--write-timeout-ms", args.write_timeout_ms.to_string()),
                    ("--max-connections", args.max_connections.to_string()),
                ];
                let transport = match (&args.vpcd, &args.listen) {
                    (Some(vpcd), _) => vec!["--vpcd", vpcd],
                    (None, Some(listen)) => {
                        let mut transport = vec!["--listen", listen.as_str()];
                        for (flag, value) in &bounds {
                            transport.extend([*flag, value.as_str()]);
                        }
                        transport
                    }
                    (None, None) => bail!("give --vpcd or --listen"),
                };
                let bin = card_binary();
                let error = command(&bin, &args.state, &transport).exec();
                bail!("cannot run {}: {error}", bin.display())
            }
            CardCommand::Setup(args) => {
                let mut card = args.card.choice().open()?;
                let (pin, puk) = (pin()?, puk(true)?);
                card.setup(&pin, &puk, &SystemParameters::generate())
                    .context("card setup")?;
                let traffic = card.traffic();
                match args.format {
                    Format::Json => output::print_json(&serde_json::json!({
                        "apdus": traffic.apdus, "bytes": traffic.bytes,
                    }))?,
                    Format::Table => {
                        let mut table = Table::new(&["card setup", "APDUs", "bytes"]);
                        table.row(vec![
                            "done".into(),
                            traffic.apdus.to_string(),
                            traffic.bytes.to_string(),
                        ]);
                        output::emit(&table.render())?;
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            CardCommand::Erase(args) => {
                let mut card = args.card.choice().open()?;
                card.erase(&puk(false)?).context("erase")?;
                Ok(ExitCode::SUCCESS)
            }
        }
    }
}

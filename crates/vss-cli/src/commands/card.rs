//! `vss card`: the IoT smart card of seed 003 as its own process, and its setup.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use vss_card::connect::{self, CardAddress};
use vss_card::process::card_binary;
use vss_cred::holder::Card;
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
    #[arg(long, value_name = "MS", default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    idle_timeout_ms: u64,
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

/// Kinds of card.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CardKind {
    /// A software card in this process; its state ends with it.
    Soft,
    /// A card process on TCP.
    Tcp,
    /// A card in a PC/SC reader (pcscd).
    Pcsc,
}

impl CardArgs {
    /// The card's address; `tcp` needs --card-addr.
    pub fn address(&self) -> Result<CardAddress> {
        check_card_options(self.card, self.card_addr.as_deref(), self.reader.as_deref())?;
        Ok(match self.card {
            CardKind::Soft => CardAddress::Software,
            CardKind::Tcp => match &self.card_addr {
                Some(addr) => CardAddress::Tcp(addr.clone()),
                None => {
                    bail!("--card tcp needs --card-addr (the address of `vss card serve --listen`)")
                }
            },
            CardKind::Pcsc => CardAddress::Pcsc(self.reader.clone()),
        })
    }

    /// Opens the card.
    pub fn open(&self) -> Result<Box<dyn Card + Send>> {
        let address = self.address()?;
        connect::open(&address).with_context(|| format!("cannot reach the card ({address:?})"))
    }
}

/// The longest --card-addr or --reader accepted, in bytes.
pub const MAX_CARD_ADDRESS_LEN: usize = 255;

/// --card-addr goes with --card tcp and --reader with --card pcsc; each is 1–255 bytes with
/// no control characters.
pub fn check_card_options(kind: CardKind, addr: Option<&str>, reader: Option<&str>) -> Result<()> {
    for (name, value, wanted) in [
        ("--card-addr", addr, CardKind::Tcp),
        ("--reader", reader, CardKind::Pcsc),
    ] {
        let Some(value) = value else { continue };
        if kind != wanted {
            bail!(
                "{name} goes with --card {}",
                if wanted == CardKind::Tcp {
                    "tcp"
                } else {
                    "pcsc"
                }
            );
        }
        if value.is_empty()
            || value.len() > MAX_CARD_ADDRESS_LEN
            || value.chars().any(char::is_control)
        {
            bail!("{name} must be 1 to {MAX_CARD_ADDRESS_LEN} bytes without control characters");
        }
    }
    Ok(())
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
                let bin = card_binary();
                let mut command = std::process::Command::new(&bin);
                command.arg("--state").arg(&args.state);
                match (&args.vpcd, &args.listen) {
                    (Some(vpcd), _) => command.arg("--vpcd").arg(vpcd),
                    (None, Some(listen)) => command
                        .arg("--listen")
                        .arg(listen)
                        .arg("--idle-timeout-ms")
                        .arg(args.idle_timeout_ms.to_string()),
                    (None, None) => bail!("give --vpcd or --listen"),
                };
                let error = command.exec();
                bail!("cannot run {}: {error}", bin.display())
            }
            CardCommand::Setup(args) => {
                let mut card = args.card.open()?;
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
                let mut card = args.card.open()?;
                card.erase(&puk(false)?).context("erase")?;
                Ok(ExitCode::SUCCESS)
            }
        }
    }
}

//! `vss pki …`: an ETSI TS 102 941 PKI in a directory — create it, register stations, trust
//! another PKI, serve its EA and AA over HTTP, and issue, show and serve its lists.

mod args;
mod authority;
mod lists;
mod show;

pub use args::GivenStore;

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

/// An ETSI TS 102 941 PKI: root CA, enrolment authority (EA), authorization authority (AA).
#[derive(Subcommand)]
pub enum PkiCommand {
    /// Create a PKI in DIR: keys in DIR/keys, DIR/root.cert, DIR/ea.cert, DIR/aa.cert (COER);
    /// or, with --role tlm, a Trust List Manager: DIR/tlm.cert.
    Init(authority::InitArgs),
    /// Serve the EA and AA over HTTP until stopped.
    Serve(authority::ServeArgs),
    /// Register a station at the EA: its canonical id and key, and the PSIDs of its tickets.
    RegisterStation(authority::RegisterStationArgs),
    /// Certificate trust lists: the TLM's ECTL of root CAs, a root CA's CTL of EAs and AAs.
    #[command(subcommand)]
    Ctl(lists::CtlCommand),
    /// Certificate revocation lists of root CAs.
    #[command(subcommand)]
    Crl(lists::CrlCommand),
    /// A distribution centre: the lists of PKIs and TLMs over HTTP.
    #[command(subcommand)]
    Dc(lists::DcCommand),
    /// Trust another PKI: this AA accepts its EA's credentials, this EA its AA's requests.
    Trust(authority::TrustArgs),
}

impl PkiCommand {
    /// Whether the subcommand serves until stopped.
    pub fn serves(&self) -> bool {
        matches!(self, PkiCommand::Serve(_) | PkiCommand::Dc(_))
    }

    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            PkiCommand::Init(args) => args.run(),
            PkiCommand::Serve(args) => args.run(),
            PkiCommand::RegisterStation(args) => args.run(),
            PkiCommand::Ctl(command) => command.run(),
            PkiCommand::Crl(command) => command.run(),
            PkiCommand::Dc(command) => command.run(),
            PkiCommand::Trust(args) => args.run(),
        }
    }
}

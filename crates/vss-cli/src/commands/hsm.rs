//! `vss hsm …`: create a key store and administer its PIN and PUK.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::json;
use vss_hsm::SoftHsm;

use crate::output::{emit, print_json, Format, Table};
use crate::secrets::SecretSource;
use crate::store::StoreArgs;

/// Key-store administration.
#[derive(Subcommand)]
pub enum HsmCommand {
    /// Initialise a new key store in an empty (or missing) directory, with a PIN and a PUK.
    Init {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        puk: PukArgs,
    },
    /// Show the store's backend and how many PIN and PUK tries are left (uses no try).
    Status {
        #[command(flatten)]
        store: StoreArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Change the user PIN (asks for the current one).
    ChangePin {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        new_pin: NewPinArgs,
    },
    /// Unblock a blocked PIN with the PUK and set a new PIN.
    Unblock {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        puk: PukArgs,
        #[command(flatten)]
        new_pin: NewPinArgs,
    },
}

/// Where the PUK comes from.
#[derive(Args)]
pub struct PukArgs {
    /// Read the PUK from the first line of this file (else $VSS_PUK, else a prompt).
    #[arg(long, value_name = "FILE")]
    puk_file: Option<PathBuf>,
}

/// Where a new PIN comes from.
#[derive(Args)]
pub struct NewPinArgs {
    /// Read the new PIN from the first line of this file (else $VSS_NEW_PIN, else a prompt).
    #[arg(long, value_name = "FILE")]
    new_pin_file: Option<PathBuf>,
}

impl PukArgs {
    fn source(&self, confirm: bool) -> SecretSource<'_> {
        SecretSource {
            name: "PUK",
            file: self.puk_file.as_deref(),
            env: "VSS_PUK",
            confirm,
        }
    }
}

impl NewPinArgs {
    fn source(&self) -> SecretSource<'_> {
        SecretSource {
            name: "new PIN",
            file: self.new_pin_file.as_deref(),
            env: "VSS_NEW_PIN",
            confirm: true,
        }
    }
}

impl HsmCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            HsmCommand::Init { store, puk } => {
                let dir = store.dir()?;
                let pin = SecretSource {
                    confirm: true,
                    ..store.pin()
                }
                .read()?;
                let puk = puk.source(true).read()?;
                SoftHsm::init(&dir, &pin, &puk)?;
                eprintln!("initialised key store {} (backend: soft)", dir.display());
            }
            HsmCommand::Status { store, format } => {
                let dir = store.dir()?;
                let status = SoftHsm::status(&dir)?;
                match format {
                    Format::Json => print_json(&json!({
                        "store": dir,
                        "backend": "soft",
                        "pin_tries_left": status.pin_tries_left,
                        "puk_tries_left": status.puk_tries_left,
                    }))?,
                    Format::Table => {
                        let mut t =
                            Table::new(&["store", "backend", "PIN tries left", "PUK tries left"]);
                        t.row(vec![
                            dir.display().to_string(),
                            "soft".into(),
                            status.pin_tries_left.to_string(),
                            status.puk_tries_left.to_string(),
                        ]);
                        emit(&t.render())?;
                    }
                }
            }
            HsmCommand::ChangePin { store, new_pin } => {
                let dir = store.dir()?;
                let old = store.pin().read()?;
                let new = new_pin.source().read()?;
                SoftHsm::change_pin(&dir, &old, &new)?;
                eprintln!("PIN changed");
            }
            HsmCommand::Unblock {
                store,
                puk,
                new_pin,
            } => {
                let dir = store.dir()?;
                let puk = puk.source(false).read()?;
                let new = new_pin.source().read()?;
                SoftHsm::unblock(&dir, &puk, &new)?;
                eprintln!("PIN unblocked and replaced");
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

//! `vss hsm …`: create a key store and administer its PIN and PUK.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use serde_json::json;
use vss_hsm::pin::{PinSource, NEW_PIN_ENV, PUK_ENV, SO_PIN_ENV};
use vss_hsm::{Backend, KeyLocation, Pkcs11Hsm, SoftHsm, StoreConfig, TokenRef};

use crate::output::{emit, print_json, printable, Format, Table};
use crate::secrets::ReadOrAsk;
use crate::store::StoreArgs;

/// Key-store administration.
#[derive(Subcommand)]
pub enum HsmCommand {
    /// Initialise a new key store in an empty (or missing) directory: soft (a PIN and a PUK)
    /// or on a PKCS#11 token (initialised with VSS_SO_PIN and the user PIN when it is new).
    Init {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        puk: PukArgs,
        /// Where the keys live.
        #[arg(long, value_enum, default_value_t)]
        backend: Backend,
        #[command(flatten)]
        token: TokenArgs,
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

/// Which PKCS#11 token (with --backend pkcs11).
#[derive(Args)]
pub struct TokenArgs {
    /// PKCS#11 module (shared library).
    #[arg(long, value_name = "PATH", default_value = vss_hsm::DEFAULT_PKCS11_MODULE)]
    module: PathBuf,
    /// Label of the token (required with --backend pkcs11).
    #[arg(long, value_name = "LABEL")]
    token_label: Option<String>,
    /// Read the token's SO PIN from this file (else $VSS_SO_PIN, else a prompt); needed only
    /// to initialise a new token.
    #[arg(long, value_name = "FILE")]
    so_pin_file: Option<PathBuf>,
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
    /// Where the PUK comes from.
    pub(crate) fn source(&self) -> PinSource<'_> {
        PinSource::new("PUK", PUK_ENV).file(self.puk_file.as_deref())
    }
}

impl NewPinArgs {
    fn source(&self) -> PinSource<'_> {
        PinSource::new("new PIN", NEW_PIN_ENV).file(self.new_pin_file.as_deref())
    }
}

impl HsmCommand {
    /// Runs the subcommand.
    pub fn run(self) -> Result<ExitCode> {
        match self {
            HsmCommand::Init {
                store,
                puk,
                backend: Backend::Soft,
                ..
            } => {
                let dir = store.dir()?;
                let pin = store.pin().read_or_ask(true)?;
                let puk = puk.source().read_or_ask(true)?;
                SoftHsm::init(&dir, &pin, &puk)?;
                eprintln!(
                    "initialised key store {} (backend: soft)",
                    printable(&dir.display().to_string())
                );
            }
            HsmCommand::Init {
                store,
                backend: Backend::Pkcs11,
                token,
                ..
            } => init_pkcs11(&store, &token)?,
            HsmCommand::Status { store, format } => status(&store.dir()?, format)?,
            HsmCommand::ChangePin { store, new_pin } => {
                let dir = store.dir()?;
                let old = store.pin().read_or_ask(false)?;
                let new = new_pin.source().read_or_ask(true)?;
                SoftHsm::change_pin(&dir, &old, &new)?;
                eprintln!("PIN changed");
            }
            HsmCommand::Unblock {
                store,
                puk,
                new_pin,
            } => {
                let dir = store.dir()?;
                let puk = puk.source().read_or_ask(false)?;
                let new = new_pin.source().read_or_ask(true)?;
                SoftHsm::unblock(&dir, &puk, &new)?;
                eprintln!("PIN unblocked and replaced");
            }
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Creates a store whose keys live on a PKCS#11 token, initialising the token if it is new.
fn init_pkcs11(store: &StoreArgs, args: &TokenArgs) -> Result<()> {
    let dir = store.dir()?;
    let Some(label) = args.token_label.clone() else {
        bail!("--backend pkcs11 needs --token-label");
    };
    let has_files = std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some());
    if has_files {
        return Err(vss_hsm::Error::NotEmpty(dir).into());
    }
    let token = TokenRef {
        module: args.module.clone(),
        token_label: label,
    };
    let pin = store.pin().read_or_ask(false)?;
    if Pkcs11Hsm::token_exists(&token)? {
        Pkcs11Hsm::open(&token, &pin)?;
    } else {
        let so_pin = PinSource::new("SO PIN", SO_PIN_ENV)
            .file(args.so_pin_file.as_deref())
            .read_or_ask(true)?;
        Pkcs11Hsm::init_token(&token, &so_pin, &pin)?;
        eprintln!("initialised token '{}'", printable(&token.token_label));
    }
    StoreConfig::create_pkcs11(&dir, &token)?;
    eprintln!(
        "initialised key store {} (backend: pkcs11, token '{}' in {})",
        printable(&dir.display().to_string()),
        printable(&token.token_label),
        printable(&token.module.display().to_string())
    );
    Ok(())
}

/// Prints a store's backend and PIN state, using no PIN try.
fn status(dir: &std::path::Path, format: Format) -> Result<()> {
    let (backend, fields): (&str, Vec<(&str, serde_json::Value)>) =
        match StoreConfig::read(dir)?.location {
            KeyLocation::Soft => {
                let s = SoftHsm::status(dir)?;
                (
                    "soft",
                    vec![
                        ("pin_tries_left", json!(s.pin_tries_left)),
                        ("puk_tries_left", json!(s.puk_tries_left)),
                    ],
                )
            }
            KeyLocation::Pkcs11 {
                module,
                token_label,
            } => {
                let s = Pkcs11Hsm::pin_status(&TokenRef {
                    module: module.clone(),
                    token_label: token_label.clone(),
                })?;
                (
                    "pkcs11",
                    vec![
                        ("module", json!(module)),
                        ("token_label", json!(token_label)),
                        ("pin_count_low", json!(s.count_low)),
                        ("pin_final_try", json!(s.final_try)),
                        ("pin_locked", json!(s.locked)),
                    ],
                )
            }
            other => bail!("unknown backend {other:?}"),
        };
    match format {
        Format::Json => {
            let mut object = serde_json::Map::new();
            object.insert("store".into(), json!(dir));
            object.insert("backend".into(), json!(backend));
            for (name, value) in fields {
                object.insert(name.into(), value);
            }
            print_json(&serde_json::Value::Object(object))
        }
        Format::Table => {
            let mut t = Table::new(&["field", "value"]);
            t.row(vec!["store".into(), dir.display().to_string()]);
            t.row(vec!["backend".into(), backend.into()]);
            for (name, value) in fields {
                let shown = match value {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                t.row(vec![name.replace('_', " "), shown]);
            }
            emit(&t.render())
        }
    }
}

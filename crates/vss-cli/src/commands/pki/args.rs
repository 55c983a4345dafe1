//! The options the `vss pki` commands share: the PKI directory and its PIN, where its
//! records live, and a server's bounds.

use std::convert::Infallible;
use std::path::PathBuf;
use std::time::Duration;
use vss_hsm::pin::{PinSource, PIN_ENV};

use anyhow::Result;
use vss_hsm::SoftHsm;
use vss_net::{ServeLimits, MAX_CONNECTIONS, MAX_TIMEOUT};
use vss_pki::authority::PkiDir;
use vss_pki::store::{PkiStore, StoreLocation};

use crate::secrets::ReadOrAsk;

/// How long `vss pki serve` and `vss pki dc serve` wait for clients, and how many they serve
/// at once: a [`ServeLimits`], its defaults `ServeLimits::default()`.
#[derive(clap::Args)]
pub struct LimitArgs {
    /// The longest wait for a request head, on a new connection or a kept-alive one.
    #[arg(long, value_name = "MS", default_value_t = millis(ServeLimits::default().header_timeout),
          value_parser = timeout_ms())]
    pub header_timeout_ms: u64,
    /// The longest wait for a request body once its head arrived (then 408).
    #[arg(long, value_name = "MS", default_value_t = millis(ServeLimits::default().body_timeout),
          value_parser = timeout_ms())]
    pub body_timeout_ms: u64,
    /// How long an answered connection may sit idle before it is closed.
    #[arg(long, value_name = "MS",
          default_value_t = millis(ServeLimits::default().idle_timeout),
          value_parser = timeout_ms())]
    pub keep_alive_timeout_ms: u64,
    /// The longest a write may stay blocked because the client does not read its answers;
    /// then the connection is closed.
    #[arg(long, value_name = "MS",
          default_value_t = millis(ServeLimits::default().write_timeout),
          value_parser = timeout_ms())]
    pub write_timeout_ms: u64,
    /// Connections served at once; more are answered 503 with Retry-After and closed (at
    /// most the open-file limit less 64).
    #[arg(long, value_name = "N", default_value_t = ServeLimits::default().max_connections as u64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_CONNECTIONS as u64))]
    max_connections: u64,
}

fn millis(duration: Duration) -> u64 {
    duration.as_millis() as u64
}

fn timeout_ms() -> clap::builder::RangedU64ValueParser {
    clap::value_parser!(u64).range(1..=millis(MAX_TIMEOUT))
}

impl LimitArgs {
    /// The bounds these options ask for.
    pub fn limits(&self) -> ServeLimits {
        ServeLimits {
            header_timeout: Duration::from_millis(self.header_timeout_ms),
            body_timeout: Duration::from_millis(self.body_timeout_ms),
            idle_timeout: Duration::from_millis(self.keep_alive_timeout_ms),
            write_timeout: Duration::from_millis(self.write_timeout_ms),
            max_connections: self.max_connections as usize,
            ..ServeLimits::default()
        }
    }
}

/// The PKI directory and the PIN of its key store.
#[derive(clap::Args)]
pub struct PkiArgs {
    /// The PKI directory.
    #[arg(long)]
    pub dir: PathBuf,
    /// Read the key store's PIN from the first line of this file (else $VSS_PIN, else a
    /// prompt).
    #[arg(long, value_name = "FILE")]
    pin_file: Option<PathBuf>,
}

impl PkiArgs {
    /// The PKI directory, checked to hold a PKI before its PIN is asked for, and its key
    /// store opened with that PIN.
    pub fn open(&self) -> Result<(PkiDir, SoftHsm)> {
        let dir = PkiDir::new(&self.dir);
        dir.check()?;
        self.unlock(dir)
    }

    /// The same for a directory that holds a PKI or a TLM (the lists' commands).
    pub fn open_lists(&self) -> Result<(PkiDir, SoftHsm)> {
        let dir = PkiDir::new(&self.dir);
        if !dir.holds_tlm() {
            dir.check()?;
        }
        self.unlock(dir)
    }

    fn unlock(&self, dir: PkiDir) -> Result<(PkiDir, SoftHsm)> {
        let pin = self.pin().read_or_ask(false)?;
        let hsm = SoftHsm::open(&dir.keys(), &pin)?;
        Ok((dir, hsm))
    }

    /// Where the key store's PIN comes from.
    pub fn pin(&self) -> PinSource<'_> {
        PinSource::new("PIN", PIN_ENV).file(self.pin_file.as_deref())
    }
}

/// Where the PKI's records live.
#[derive(clap::Args)]
pub struct DatabaseArgs {
    /// postgres://… to share one database between processes [default: DIR/pki.sqlite].
    #[arg(long, value_name = "URL|PATH", value_parser = GivenStore::parse)]
    database: Option<GivenStore>,
}

impl DatabaseArgs {
    /// Where --database says the records live (none: the default).
    pub fn given(&self) -> Option<&StoreLocation> {
        GivenStore::location(self.database.as_ref())
    }

    /// The store of the PKI (or TLM) in `dir`: --database, or its SQLite file.
    pub fn open(&self, dir: &PkiDir) -> Result<Box<dyn PkiStore>> {
        Ok(dir.open_store(self.given())?)
    }
}

/// A `--database` value: where the records live, or nothing when it is empty (the default,
/// as when the option is not given).
#[derive(Clone)]
pub struct GivenStore(Option<StoreLocation>);

impl GivenStore {
    /// Any text: a postgres:// or postgresql:// URL, else an SQLite file; empty, the default.
    pub fn parse(text: &str) -> Result<GivenStore, Infallible> {
        Ok(GivenStore(text.parse().ok()))
    }

    /// The location an option gave, if it gave one.
    pub fn location(given: Option<&GivenStore>) -> Option<&StoreLocation> {
        given.and_then(|given| given.0.as_ref())
    }
}

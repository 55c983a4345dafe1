//! Choosing and opening the key store a command works on.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;
use vss_hsm::pin::{PinSource, PIN_ENV};
use vss_hsm::Hsm;

use crate::secrets::ReadOrAsk;

/// Options shared by every command that uses a key store.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// Key-store directory [default: $VSS_STORE, else the user's data directory]/vss/store.
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Read the user PIN from the first line of this file (else $VSS_PIN, else a prompt).
    #[arg(long, value_name = "FILE")]
    pub pin_file: Option<PathBuf>,
}

impl StoreArgs {
    /// The store directory this command uses: `--store`, else [`vss_hsm::default_store_dir`].
    pub fn dir(&self) -> Result<PathBuf> {
        if let Some(dir) = &self.store {
            if dir.as_os_str().is_empty() {
                bail!("--store is empty: name a key-store directory");
            }
            return Ok(dir.clone());
        }
        Ok(vss_hsm::default_store_dir()?)
    }

    /// Where the user PIN comes from.
    pub fn pin(&self) -> PinSource<'_> {
        PinSource::new("PIN", PIN_ENV).file(self.pin_file.as_deref())
    }

    /// Opens the store with the user PIN; a directory that is no store is named as such
    /// before the PIN is asked for.
    pub fn open(&self) -> Result<Box<dyn Hsm>> {
        let dir = self.dir()?;
        vss_hsm::StoreConfig::read(&dir)?;
        let pin = self.pin().read_or_ask(false)?;
        Ok(vss_hsm::open(&dir, &pin)?)
    }
}

//! The prompt: a key store's code ([`vss_hsm::pin`]) asked for on the terminal when no file
//! or variable gives one.

use std::io::IsTerminal;

use anyhow::{bail, Result};
use vss_hsm::pin::{Origin, PinSource};
use zeroize::Zeroizing;

/// Reads a code from its source, else asks for it on the terminal.
pub trait ReadOrAsk {
    /// The code: the source's file, then its variable, then a prompt on a terminal (asked
    /// twice when `confirm`, for a new code). Checked by the rules of every code, so a
    /// refused one never reaches a key store. Never echoes or logs it.
    fn read_or_ask(&self, confirm: bool) -> Result<Zeroizing<String>>;
}

impl ReadOrAsk for PinSource<'_> {
    fn read_or_ask(&self, confirm: bool) -> Result<Zeroizing<String>> {
        if let Some(code) = self.find()? {
            return Ok(code);
        }
        let name = self.name();
        if !std::io::stdin().is_terminal() {
            bail!(
                "no {name}: set {env}, pass a {name} file, or run on a terminal to be asked",
                env = self.env()
            );
        }
        let first = Zeroizing::new(rpassword::prompt_password(format!("{name}: "))?);
        if confirm {
            let again = Zeroizing::new(rpassword::prompt_password(format!("{name} again: "))?);
            if first != again {
                bail!("the two {name}s differ");
            }
        }
        Ok(self.check(first, Origin::Prompt)?)
    }
}

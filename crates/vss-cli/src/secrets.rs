//! Where PINs and PUKs come from: a file, an environment variable, or a prompt.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::{bail, Context, Result};
use zeroize::Zeroizing;

/// One secret the user must supply.
pub struct SecretSource<'a> {
    /// What it is called in messages: "PIN", "PUK", "new PIN".
    pub name: &'a str,
    /// The file named by a `--…-file` option, if given.
    pub file: Option<&'a Path>,
    /// The environment variable scripts use.
    pub env: &'a str,
    /// Whether a prompt asks twice (for a new secret).
    pub confirm: bool,
}

impl SecretSource<'_> {
    /// Reads the secret: the file (first line) first, then the variable, then a prompt on
    /// a terminal. Never echoes or logs it.
    pub fn read(&self) -> Result<Zeroizing<String>> {
        if let Some(path) = self.file {
            let text = Zeroizing::new(std::fs::read_to_string(path).with_context(|| {
                format!("cannot read the {} file {}", self.name, path.display())
            })?);
            let line = text.lines().next().unwrap_or_default();
            return Ok(Zeroizing::new(line.to_owned()));
        }
        if let Ok(value) = std::env::var(self.env) {
            return Ok(Zeroizing::new(value));
        }
        if !std::io::stdin().is_terminal() {
            bail!(
                "no {name}: set {env}, pass a {name} file, or run on a terminal to be asked",
                name = self.name,
                env = self.env
            );
        }
        let first = Zeroizing::new(rpassword::prompt_password(format!("{}: ", self.name))?);
        if self.confirm {
            let again = Zeroizing::new(rpassword::prompt_password(format!(
                "{} again: ",
                self.name
            ))?);
            if first != again {
                bail!("the two {}s differ", self.name);
            }
        }
        Ok(first)
    }
}

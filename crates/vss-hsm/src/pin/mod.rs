//! A key store's codes (the user PIN, the PUK, a token's SO PIN, a new PIN) and where they
//! come from, first found wins:
//!
//! 1. a file the caller names (`--pin-file`, `[hsm] pin_file`);
//! 2. a systemd credential the caller names (`$CREDENTIALS_DIRECTORY/NAME`, as
//!    `LoadCredential=` provides it), read like a file;
//! 3. an environment variable ([`PIN_ENV`], [`PUK_ENV`], …).
//!
//! A caller that may ask a person (`vss` on a terminal) asks when none of them has one, and
//! checks the answer with [`PinSource::check`]. Every code obeys the same rules wherever it
//! comes from: a file gives its first line (its `\n` or `\r\n` dropped, later lines
//! ignored), read no further than [`MAX_PIN_LEN`] + 1 bytes whatever the file is
//! (`/dev/zero`, a pipe); a code is UTF-8, 1 to [`MAX_PIN_LEN`] bytes long and holds no
//! control character. A refused code never reaches a key store, so it costs no try.

mod error;
#[cfg(test)]
mod tests;

use std::io::Read;
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

pub use error::{Origin, PinError, Problem};

/// The environment variable of the user PIN (of a key store, or of a card).
pub const PIN_ENV: &str = "VSS_PIN";
/// The environment variable of the PUK (a soft store's, or a card's).
pub const PUK_ENV: &str = "VSS_PUK";
/// The environment variable of the new PIN that `change-pin` and `unblock` set.
pub const NEW_PIN_ENV: &str = "VSS_NEW_PIN";
/// The environment variable of a PKCS#11 token's SO PIN, for initialising the token.
pub const SO_PIN_ENV: &str = "VSS_SO_PIN";
/// The name of the systemd credential that holds an unattended entity's PIN.
pub const PIN_CREDENTIAL: &str = "vss-pin";
/// The longest code, in bytes (a file's line end not counted).
pub const MAX_PIN_LEN: usize = 1024;
/// The variable in which systemd names the directory of a service's credentials.
const CREDENTIALS_DIRECTORY: &str = "CREDENTIALS_DIRECTORY";

/// One code a caller needs and the places to look for it.
#[derive(Debug, Clone, Copy)]
pub struct PinSource<'a> {
    name: &'a str,
    env: &'a str,
    file: Option<&'a Path>,
    credential: Option<&'a str>,
}

impl<'a> PinSource<'a> {
    /// The code called `name` in messages ("PIN", "PUK", "new PIN"), from the environment
    /// variable `env`.
    pub fn new(name: &'a str, env: &'a str) -> Self {
        PinSource {
            name,
            env,
            file: None,
            credential: None,
        }
    }

    /// Looks in `file` first, when there is one (it then wins over everything else).
    pub fn file(self, file: Option<&'a Path>) -> Self {
        PinSource { file, ..self }
    }

    /// Looks for the systemd credential `name` after the file and before the variable.
    pub fn credential(self, name: &'a str) -> Self {
        PinSource {
            credential: Some(name),
            ..self
        }
    }

    /// What the code is called in messages.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The environment variable looked at.
    pub fn env(&self) -> &'a str {
        self.env
    }

    /// The code from the first place that has one, checked; `None` when none has one (a
    /// variable that is not Unicode counts as unset).
    pub fn find(&self) -> Result<Option<Zeroizing<String>>, PinError> {
        if let Some(path) = self.file {
            return self.read_file(path).map(Some);
        }
        if let Some(path) = self.credential_path() {
            return self.read_file(&path).map(Some);
        }
        match std::env::var(self.env) {
            Ok(value) => self
                .check(Zeroizing::new(value), Origin::Env(self.env.to_owned()))
                .map(Some),
            Err(_) => Ok(None),
        }
    }

    /// `code` from `origin` (a prompt) if it obeys the rules every code obeys.
    pub fn check(
        &self,
        code: Zeroizing<String>,
        origin: Origin,
    ) -> Result<Zeroizing<String>, PinError> {
        let problem = if code.is_empty() {
            Problem::Empty
        } else if code.len() > MAX_PIN_LEN {
            Problem::TooLong
        } else if code.chars().any(char::is_control) {
            Problem::ControlCharacter
        } else {
            return Ok(code);
        };
        Err(self.error(origin, problem))
    }

    fn credential_path(&self) -> Option<PathBuf> {
        let dir = std::env::var_os(CREDENTIALS_DIRECTORY)?;
        let path = PathBuf::from(dir).join(self.credential?);
        path.exists().then_some(path)
    }

    fn read_file(&self, path: &Path) -> Result<Zeroizing<String>, PinError> {
        let origin = || Origin::File(path.to_path_buf());
        let line = first_line(path).map_err(|problem| self.error(origin(), problem))?;
        self.check(line, origin())
    }

    fn error(&self, origin: Origin, problem: Problem) -> PinError {
        PinError::new(self.name, origin, problem)
    }
}

/// The first line of the file at `path` (without its `\n` or `\r\n`), reading no more than
/// [`MAX_PIN_LEN`] + 2 bytes (the longest line and its `\r\n`) whatever the file is
/// (`/dev/zero`, a pipe, a huge file).
fn first_line(path: &Path) -> Result<Zeroizing<String>, Problem> {
    let mut file = std::fs::File::open(path).map_err(Problem::Open)?;
    let mut buf = Zeroizing::new([0u8; MAX_PIN_LEN + 2]);
    let mut len = 0;
    while len < buf.len() && !buf[..len].contains(&b'\n') {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Problem::Read(e)),
        }
    }
    let end = buf[..len].iter().position(|&b| b == b'\n').unwrap_or(len);
    let line = &buf[..end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() > MAX_PIN_LEN {
        return Err(Problem::TooLong);
    }
    let text = std::str::from_utf8(line).map_err(Problem::NotUtf8)?;
    Ok(Zeroizing::new(text.to_owned()))
}

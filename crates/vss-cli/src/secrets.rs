//! Where PINs and PUKs come from: a file, an environment variable, or a prompt.

use std::io::{IsTerminal, Read};
use std::path::Path;

use anyhow::{bail, Context, Result};
use zeroize::Zeroizing;

/// The longest first line read from a secret file, in bytes (its line end not counted).
pub const MAX_SECRET_LINE: usize = 1024;

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
    /// Reads the secret: the file (its first line, at most [`MAX_SECRET_LINE`] bytes)
    /// first, then the variable, then a prompt on a terminal. An empty secret is refused
    /// here, before a key store can count it as a try. Never echoes or logs it.
    pub fn read(&self) -> Result<Zeroizing<String>> {
        let (secret, from) = self.read_any()?;
        if secret.is_empty() {
            bail!("the {} is empty ({from}): nothing was tried", self.name);
        }
        Ok(secret)
    }

    /// The secret and where it came from, for messages.
    fn read_any(&self) -> Result<(Zeroizing<String>, String)> {
        if let Some(path) = self.file {
            let from = format!("the {} file {}", self.name, path.display());
            return Ok((first_line(path).with_context(|| from.clone())?, from));
        }
        if let Ok(value) = std::env::var(self.env) {
            return Ok((Zeroizing::new(value), self.env.to_owned()));
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
        Ok((first, "the prompt".to_owned()))
    }
}

/// The first line of the file at `path` (without its `\n` or `\r\n`), reading no more than
/// [`MAX_SECRET_LINE`] + 1 bytes whatever the file is (`/dev/zero`, a pipe, a huge file).
fn first_line(path: &Path) -> Result<Zeroizing<String>> {
    let mut file = std::fs::File::open(path).context("cannot open it")?;
    let mut buf = Zeroizing::new([0u8; MAX_SECRET_LINE + 1]);
    let mut len = 0;
    while len < buf.len() && !buf[..len].contains(&b'\n') {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e).context("cannot read it"),
        }
    }
    let line = match buf[..len].iter().position(|&b| b == b'\n') {
        Some(end) => &buf[..end],
        None if len <= MAX_SECRET_LINE => &buf[..len],
        None => bail!("its first line is longer than {MAX_SECRET_LINE} bytes"),
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).context("its first line is not UTF-8")?;
    Ok(Zeroizing::new(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(path: &Path) -> SecretSource<'_> {
        SecretSource {
            name: "PIN",
            file: Some(path),
            env: "VSS_TEST_UNSET_SECRET",
            confirm: false,
        }
    }

    fn written(bytes: &[u8]) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::write(file.path(), bytes).expect("write");
        file
    }

    #[test]
    fn a_secret_file_gives_its_first_line() {
        for (bytes, pin) in [
            (&b"1234\n"[..], "1234"),
            (b"1234", "1234"),
            (b"1234\r\nsecond line", "1234"),
            (b"\xc3\xa9t\xc3\xa9 1\n", "\u{e9}t\u{e9} 1"),
        ] {
            let file = written(bytes);
            assert_eq!(source(file.path()).read().expect("PIN").as_str(), pin);
        }
        let longest = [b'7'; MAX_SECRET_LINE];
        let file = written(&[&longest[..], b"\n", &[b'x'; 10_000]].concat());
        assert_eq!(
            source(file.path()).read().expect("PIN").len(),
            MAX_SECRET_LINE
        );
    }

    #[test]
    fn a_first_line_over_1_kib_is_refused() {
        let file = written(&[b'7'; MAX_SECRET_LINE + 1]);
        let error = format!("{:#}", source(file.path()).read().expect_err("too long"));
        assert!(error.contains("longer than 1024 bytes"), "{error}");
        assert!(
            error.contains(&file.path().display().to_string()),
            "{error}"
        );
    }

    #[test]
    fn dev_zero_is_read_only_up_to_the_bound() {
        let error = format!(
            "{:#}",
            source(Path::new("/dev/zero")).read().expect_err("no line")
        );
        assert!(error.contains("longer than 1024 bytes"), "{error}");
    }

    #[test]
    fn an_empty_secret_is_refused() {
        for bytes in [&b""[..], b"\n", b"\r\n1234\n"] {
            let file = written(bytes);
            let error = format!("{:#}", source(file.path()).read().expect_err("empty"));
            assert!(error.contains("the PIN is empty"), "{error}");
        }
        let file = written(b"\xff\xfe\n");
        let error = format!("{:#}", source(file.path()).read().expect_err("binary"));
        assert!(error.contains("not UTF-8"), "{error}");
    }
}

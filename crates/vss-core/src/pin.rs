//! Where an unattended entity (the daemon, the C library, the Python package) finds its key
//! store's PIN, first found wins:
//!
//! 1. `[hsm] pin_file` in the configuration;
//! 2. the systemd credential `vss-pin` (`$CREDENTIALS_DIRECTORY/vss-pin`, as `LoadCredential=`
//!    provides it);
//! 3. the environment variable `VSS_PIN`.
//!
//! A file holds the PIN on one line (a final newline is dropped) and at most
//! [`MAX_PIN_FILE_LEN`] bytes.

use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use crate::config::HsmConfig;
use crate::{Error, Result};

/// The name of the systemd credential that holds the PIN.
pub const CREDENTIAL_NAME: &str = "vss-pin";
/// The environment variable read last.
pub const PIN_ENV: &str = "VSS_PIN";
/// The largest PIN file read.
pub const MAX_PIN_FILE_LEN: u64 = 256;

/// The PIN of `hsm`'s key store, from the first place that has one.
pub fn read_pin(hsm: &HsmConfig) -> Result<Zeroizing<String>> {
    if let Some(path) = &hsm.pin_file {
        return read_pin_file(path);
    }
    if let Some(dir) = std::env::var_os("CREDENTIALS_DIRECTORY") {
        let path = PathBuf::from(dir).join(CREDENTIAL_NAME);
        if path.exists() {
            return read_pin_file(&path);
        }
    }
    match std::env::var(PIN_ENV) {
        Ok(pin) => checked(Zeroizing::new(pin)).map_err(|detail| Error::NoPin(detail.into())),
        Err(_) => Err(Error::NoPin(format!(
            "no [hsm] pin_file, no {CREDENTIAL_NAME} credential and no {PIN_ENV}"
        ))),
    }
}

fn read_pin_file(path: &Path) -> Result<Zeroizing<String>> {
    let error = |detail: String| Error::Config {
        path: path.to_path_buf(),
        detail,
    };
    let bytes = Zeroizing::new(
        vss_hsm::read_bounded(path, MAX_PIN_FILE_LEN).map_err(|e| error(e.to_string()))?,
    );
    let text = std::str::from_utf8(&bytes).map_err(|_| error("the PIN is not UTF-8".into()))?;
    let line = text
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .unwrap_or(text);
    checked(Zeroizing::new(line.to_string())).map_err(|detail| error(detail.into()))
}

/// A PIN is one line of printable characters.
fn checked(pin: Zeroizing<String>) -> Result<Zeroizing<String>, &'static str> {
    if pin.is_empty() {
        return Err("the PIN is empty");
    }
    if pin.chars().any(char::is_control) {
        return Err("the PIN holds a control character (more than one line?)");
    }
    Ok(pin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hsm(pin_file: Option<PathBuf>) -> HsmConfig {
        HsmConfig {
            store: PathBuf::from("keys"),
            pin_file,
        }
    }

    #[test]
    fn a_pin_file_gives_its_line_without_the_newline() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("pin");
        for (text, pin) in [("1234\n", "1234"), ("5678\r\n", "5678"), ("90ab", "90ab")] {
            std::fs::write(&path, text).expect("write");
            assert_eq!(
                read_pin(&hsm(Some(path.clone()))).expect("pin").as_str(),
                pin
            );
        }
    }

    #[test]
    fn empty_multi_line_oversized_and_missing_pin_files_are_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("pin");
        for text in [
            "".to_string(),
            "\n".into(),
            "12\n34\n".into(),
            "1".repeat(300),
        ] {
            std::fs::write(&path, &text).expect("write");
            let error = read_pin(&hsm(Some(path.clone()))).expect_err("refused");
            assert!(matches!(error, Error::Config { .. }), "{error}");
        }
        let missing = dir.path().join("missing");
        assert!(matches!(
            read_pin(&hsm(Some(missing))),
            Err(Error::Config { .. })
        ));
    }
}

//! Where an unattended entity (the daemon, the C library, the Python package) finds its key
//! store's PIN, first found wins (the rules are [`vss_hsm::pin`]'s, as for `vss`):
//!
//! 1. `[hsm] pin_file` in the configuration;
//! 2. the systemd credential [`PIN_CREDENTIAL`] (`$CREDENTIALS_DIRECTORY/vss-pin`, as
//!    `LoadCredential=` provides it);
//! 3. the environment variable [`PIN_ENV`].
//!
//! A file gives its first line (its line end dropped), at most
//! [`MAX_PIN_LEN`](vss_hsm::pin::MAX_PIN_LEN) bytes.

use vss_hsm::pin::{Origin, PinSource, PIN_CREDENTIAL, PIN_ENV};
use zeroize::Zeroizing;

use crate::config::HsmConfig;
use crate::{Error, Result};

/// The PIN of `hsm`'s key store, from the first place that has one: a file that cannot be
/// read or gives no PIN is [`Error::Config`], no PIN anywhere or a refused one from the
/// environment [`Error::NoPin`].
pub fn read_pin(hsm: &HsmConfig) -> Result<Zeroizing<String>> {
    let source = PinSource::new("PIN", PIN_ENV)
        .file(hsm.pin_file.as_deref())
        .credential(PIN_CREDENTIAL);
    match source.find() {
        Ok(Some(pin)) => Ok(pin),
        Ok(None) => Err(Error::NoPin(format!(
            "no [hsm] pin_file, no {PIN_CREDENTIAL} credential and no {PIN_ENV}"
        ))),
        Err(e) => Err(match e.origin() {
            Origin::File(path) => Error::Config {
                path: path.clone(),
                detail: e.reason(),
            },
            Origin::Env(_) | Origin::Prompt => Error::NoPin(e.reason()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

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
    fn empty_control_oversized_and_missing_pin_files_are_configuration_errors() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("pin");
        for text in [
            "".to_string(),
            "\n".into(),
            "\n1234\n".into(),
            "12\t34\n".into(),
            "1".repeat(vss_hsm::pin::MAX_PIN_LEN + 1),
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

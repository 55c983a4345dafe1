//! Slots: one per key store. `VSS_PKCS11_CONF` names a file listing the stores, one
//! directory per line (slot 0 first; blank lines and lines starting with `#` are skipped);
//! without it there is one slot, the store named by `VSS_STORE` (else the user's default).

use std::path::{Path, PathBuf};

use cryptoki_sys::*;

use crate::error::{Error, Result};
use crate::token::Token;
use crate::{padded, version};

/// The environment variable naming the list of stores.
pub(crate) const CONF_ENV: &str = "VSS_PKCS11_CONF";
/// The most stores (slots) a list names.
pub(crate) const MAX_SLOTS: usize = 64;
/// The largest list file read.
const MAX_CONF_LEN: u64 = 64 * 1024;

/// The store directory of each slot, in slot order (`None`: no directory could be named;
/// that slot has no token).
pub(crate) fn store_dirs() -> Result<Vec<Option<PathBuf>>> {
    match std::env::var_os(CONF_ENV) {
        Some(path) if !path.is_empty() => {
            Ok(read_conf(Path::new(&path))?.into_iter().map(Some).collect())
        }
        _ => Ok(vec![vss_hsm::default_store_dir().ok()]),
    }
}

/// The stores a list file names; [`Error::Configuration`] when it cannot be read, is too
/// long, names none or more than [`MAX_SLOTS`].
fn read_conf(path: &Path) -> Result<Vec<PathBuf>> {
    let bytes = vss_hsm::read_bounded(path, MAX_CONF_LEN).map_err(|_| Error::Configuration)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| Error::Configuration)?;
    parse_conf(text)
}

fn parse_conf(text: &str) -> Result<Vec<PathBuf>> {
    let dirs: Vec<PathBuf> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() || dirs.len() > MAX_SLOTS {
        return Err(Error::Configuration);
    }
    Ok(dirs)
}

/// The token of `slot`, or [`Error::SlotIdInvalid`].
pub(crate) fn token(tokens: &[Token], slot: CK_SLOT_ID) -> Result<&Token> {
    usize::try_from(slot)
        .ok()
        .and_then(|i| tokens.get(i))
        .ok_or(Error::SlotIdInvalid)
}

/// The slots to list: every slot, or (`token_present`) those holding a token.
pub(crate) fn list(tokens: &[Token], token_present: bool) -> Vec<CK_SLOT_ID> {
    tokens
        .iter()
        .enumerate()
        .filter(|(_, token)| !token_present || token.dir().is_ok())
        .map(|(i, _)| i as CK_SLOT_ID)
        .collect()
}

/// `CK_SLOT_INFO` of a slot.
pub(crate) fn info(token: &Token) -> CK_SLOT_INFO {
    CK_SLOT_INFO {
        slotDescription: padded(&token.description()),
        manufacturerID: padded("VSS"),
        flags: if token.dir().is_ok() {
            CKF_TOKEN_PRESENT
        } else {
            0
        },
        hardwareVersion: version(),
        firmwareVersion: version(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_without_a_store_is_listed_only_when_empty_slots_are_asked_for() {
        let tokens = [Token::new(None)];
        assert_eq!(list(&tokens, false), vec![0]);
        assert!(list(&tokens, true).is_empty());
        assert_eq!(info(&tokens[0]).flags & CKF_TOKEN_PRESENT, 0);
        assert!(matches!(token(&tokens, 1), Err(Error::SlotIdInvalid)));
        assert!(matches!(
            token(&tokens, CK_SLOT_ID::MAX),
            Err(Error::SlotIdInvalid)
        ));
    }

    #[test]
    fn the_list_names_stores_one_per_line_and_is_bounded() {
        let dirs = parse_conf("# stores\n/var/lib/vss/a\n\n  /var/lib/vss/b  \n").expect("two");
        assert_eq!(
            dirs,
            [PathBuf::from("/var/lib/vss/a"), "/var/lib/vss/b".into()]
        );
        assert!(matches!(
            parse_conf("# none\n\n"),
            Err(Error::Configuration)
        ));
        let many: String = (0..=MAX_SLOTS).map(|i| format!("/s{i}\n")).collect();
        assert!(matches!(parse_conf(&many), Err(Error::Configuration)));
    }
}

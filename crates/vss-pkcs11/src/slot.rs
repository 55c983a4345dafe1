//! The one slot: it holds the token of the store named by `VSS_STORE`.

use cryptoki_sys::*;

use crate::error::{Error, Result};
use crate::token::Token;
use crate::{padded, version};

/// The id of the module's only slot.
pub(crate) const SLOT_ID: CK_SLOT_ID = 0;

/// Checks that `slot` is the module's slot.
pub(crate) fn check(slot: CK_SLOT_ID) -> Result<()> {
    if slot == SLOT_ID {
        Ok(())
    } else {
        Err(Error::SlotIdInvalid)
    }
}

/// The slots to list: every slot, or (`token_present`) those holding a token.
pub(crate) fn list(token: &Token, token_present: bool) -> Vec<CK_SLOT_ID> {
    if token_present && token.dir().is_err() {
        Vec::new()
    } else {
        vec![SLOT_ID]
    }
}

/// `CK_SLOT_INFO` of the slot.
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
        let token = Token::new(None);
        assert_eq!(list(&token, false), vec![SLOT_ID]);
        assert!(list(&token, true).is_empty());
        assert_eq!(info(&token).flags & CKF_TOKEN_PRESENT, 0);
        assert!(matches!(check(SLOT_ID + 1), Err(Error::SlotIdInvalid)));
    }
}

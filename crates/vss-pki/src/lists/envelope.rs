//! A signed list opened: its signer, generation time and `EtsiTs102941Data`, checked to be
//! signed for the list's PSID and of version 1.

use vss_its::{HashedId8, ItsTime, Psid, SignedMessage};

use crate::messages::{decode, EtsiTs102941Data};
use crate::{Error, Result};

/// A signed list opened: who signed it and when, and its `EtsiTs102941Data`.
pub(super) struct Envelope {
    /// Who signed it.
    pub signer: Option<HashedId8>,
    /// When it was signed, when the header says.
    pub generated: Option<ItsTime>,
    /// What it carries.
    pub data: EtsiTs102941Data,
}

/// Opens a signed list, checked to carry `psid`.
pub(super) fn open(what: &'static str, bytes: &[u8], psid: Psid) -> Result<Envelope> {
    let malformed = |detail: String| Error::Malformed { what, detail };
    let message = SignedMessage::from_bytes(bytes)?;
    if message.psid() != Some(psid) {
        let signed_for = message
            .psid()
            .map_or_else(|| "a PSID beyond 64 bits".into(), |p| format!("PSID {p}"));
        return Err(malformed(format!(
            "signed for {signed_for}, not PSID {psid}"
        )));
    }
    let payload = message
        .payload()
        .ok_or_else(|| malformed("no inline payload".into()))?;
    Ok(Envelope {
        signer: message.signer_id(),
        generated: message
            .header()
            .generation_time
            .as_ref()
            .map(ItsTime::from_time64),
        data: decode(what, payload)?,
    })
}

pub(super) fn check_version(what: &'static str, version: &rasn::types::Integer) -> Result<()> {
    if *version != rasn::types::Integer::from(1) {
        return Err(Error::Malformed {
            what,
            detail: format!("version {version}, not 1"),
        });
    }
    Ok(())
}

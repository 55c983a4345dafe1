//! The PSID (ITS-AID, IEEE 1609.12 / ETSI TS 102 965): the number of the application a
//! message is signed for, or a certificate permits. 1609.2's `Psid` is `INTEGER (0..MAX)`;
//! VSS handles the PSIDs that fit in 64 bits.

use std::fmt;
use std::num::ParseIntError;
use std::str::FromStr;

use rasn::types::Integer;
use serde::{Deserialize, Serialize};

use crate::asn;

/// A PSID (ITS-AID). Shown, parsed and serialized as its decimal number (serde: a bare
/// number, so `psids = [36, 37]` reads and writes as it always has).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Psid(u64);

impl Psid {
    /// Cooperative Awareness (CAM, ETSI EN 302 637-2).
    pub const CAM: Psid = Psid(36);
    /// Decentralized Environmental Notification (DENM, ETSI EN 302 637-3).
    pub const DENM: Psid = Psid(37);
    /// The CRL service (ETSI TS 102 965): a root CA's permission to sign CRLs.
    pub const CRL: Psid = Psid(622);
    /// The secured certificate request service (TS 102 941): ECs and authorities sign
    /// requests and responses.
    pub const CERT_REQUEST: Psid = Psid(623);
    /// The CTL service: a root CA's or the TLM's permission to sign certificate trust lists.
    pub const CTL: Psid = Psid(624);

    /// The PSID numbered `value`.
    pub const fn new(value: u64) -> Psid {
        Psid(value)
    }

    /// Its number.
    pub const fn value(self) -> u64 {
        self.0
    }

    /// A 1609.2 `Psid`, when it fits in 64 bits.
    pub fn from_asn(psid: &asn::Psid) -> Option<Psid> {
        u64::try_from(&psid.0).ok().map(Psid)
    }

    /// As a 1609.2 `Psid`.
    pub fn to_asn(self) -> asn::Psid {
        asn::Psid(Integer::from(self.0))
    }
}

impl From<u64> for Psid {
    fn from(value: u64) -> Psid {
        Psid(value)
    }
}

impl From<Psid> for u64 {
    fn from(psid: Psid) -> u64 {
        psid.0
    }
}

impl fmt::Display for Psid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// The bare number too, as messages that list PSIDs with `{:?}` have always shown them.
impl fmt::Debug for Psid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Decimal, as command lines take it (`--psid 36`).
impl FromStr for Psid {
    type Err = ParseIntError;

    fn from_str(s: &str) -> Result<Psid, ParseIntError> {
        s.parse().map(Psid)
    }
}

#[cfg(test)]
mod tests {
    use super::Psid;

    #[test]
    fn number_in_every_form() {
        let psid: Psid = "36".parse().expect("decimal");
        assert_eq!(psid, Psid::CAM);
        assert_eq!(psid.to_string(), "36");
        assert_eq!(format!("{:?}", [Psid::CAM, Psid::DENM]), "[36, 37]");
        assert_eq!(
            serde_json::to_string(&[Psid::CAM, Psid::DENM])
                .ok()
                .as_deref(),
            Some("[36,37]")
        );
        let read: Vec<Psid> = serde_json::from_str("[622, 624]").unwrap_or_default();
        assert_eq!(read, [Psid::CRL, Psid::CTL]);
        assert!("-1".parse::<Psid>().is_err() && "x".parse::<Psid>().is_err());
        assert_eq!(
            Psid::from_asn(&Psid::CERT_REQUEST.to_asn()),
            Some(Psid::from(623))
        );
        assert_eq!(u64::from(Psid::new(u64::MAX)), u64::MAX);
    }
}

//! BTP (ETSI EN 302 636-5-1 V2.2.1 §7): the 4-byte BTP-A and BTP-B headers, and the
//! well-known ports of ETSI TS 103 248 with the ITS-AID each message is signed under.

use crate::{CommonNextHeader, GnError};

/// A BTP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BtpHeader {
    /// BTP-A, interactive: destination and source ports.
    A {
        /// The destination port.
        destination: u16,
        /// The source port.
        source: u16,
    },
    /// BTP-B, non-interactive: the destination port and its info.
    B {
        /// The destination port.
        destination: u16,
        /// Destination port info (0 unless the port's service defines it).
        destination_info: u16,
    },
}

impl BtpHeader {
    /// Its length on the wire (either kind).
    pub const LEN: usize = 4;

    /// The destination port.
    pub fn destination_port(&self) -> u16 {
        match *self {
            Self::A { destination, .. } | Self::B { destination, .. } => destination,
        }
    }

    /// The Common Header next header that announces this kind.
    pub fn next_header(&self) -> CommonNextHeader {
        match self {
            Self::A { .. } => CommonNextHeader::BtpA,
            Self::B { .. } => CommonNextHeader::BtpB,
        }
    }

    /// The 4 bytes on the wire.
    pub fn to_bytes(&self) -> [u8; 4] {
        let (a, b) = match *self {
            Self::A {
                destination,
                source,
            } => (destination, source),
            Self::B {
                destination,
                destination_info,
            } => (destination, destination_info),
        };
        let [a0, a1] = a.to_be_bytes();
        let [b0, b1] = b.to_be_bytes();
        [a0, a1, b0, b1]
    }

    /// Splits a GeoNetworking payload announced as `next` into its BTP header and the
    /// facilities' bytes; `None` when `next` is not BTP.
    pub fn split(next: CommonNextHeader, payload: &[u8]) -> Result<Option<(Self, &[u8])>, GnError> {
        if !matches!(next, CommonNextHeader::BtpA | CommonNextHeader::BtpB) {
            return Ok(None);
        }
        let (head, rest) = payload
            .split_first_chunk::<4>()
            .ok_or_else(|| GnError::Truncated {
                what: "BTP header",
                needed: Self::LEN - payload.len(),
            })?;
        let a = u16::from_be_bytes([head[0], head[1]]);
        let b = u16::from_be_bytes([head[2], head[3]]);
        let header = match next {
            CommonNextHeader::BtpA => Self::A {
                destination: a,
                source: b,
            },
            _ => Self::B {
                destination: a,
                destination_info: b,
            },
        };
        Ok(Some((header, rest)))
    }
}

/// A well-known BTP port, its message and the ITS-AID that message is signed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WellKnownPort {
    /// The BTP destination port (ETSI TS 103 248 V2.1.1, table 1).
    pub port: u16,
    /// The ITS-AID / PSID (ETSI TS 102 965 annex A; the IEEE 1609.12 PSID registry).
    pub its_aid: u64,
    /// The message's short name.
    pub message: &'static str,
}

/// The ports of the messages whose security profile TS 103 097 or their standards give.
pub const WELL_KNOWN_PORTS: [WellKnownPort; 9] = [
    port(2001, 36, "CAM"),
    port(2002, 37, "DENM"),
    port(2003, 138, "MAPEM"),
    port(2004, 137, "SPATEM"),
    port(2006, 139, "IVIM"),
    port(2007, 140, "SREM"),
    port(2008, 637, "SSEM"),
    port(2009, 639, "CPM"),
    port(2018, 638, "VAM"),
];

/// A table row.
const fn port(port: u16, its_aid: u64, message: &'static str) -> WellKnownPort {
    WellKnownPort {
        port,
        its_aid,
        message,
    }
}

/// The ITS-AID of the messages sent to BTP port `port`, if it is well known.
pub fn its_aid_for_port(port: u16) -> Option<u64> {
    WELL_KNOWN_PORTS
        .iter()
        .find(|p| p.port == port)
        .map(|p| p.its_aid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cam_and_denm_ports_map_to_their_aids() {
        assert_eq!(its_aid_for_port(2001), Some(36));
        assert_eq!(its_aid_for_port(2002), Some(37));
        assert_eq!(its_aid_for_port(2018), Some(638));
        assert_eq!(its_aid_for_port(2005), None);
        assert_eq!(its_aid_for_port(0), None);
    }

    #[test]
    fn ports_and_aids_are_each_listed_once() {
        for (i, a) in WELL_KNOWN_PORTS.iter().enumerate() {
            for b in &WELL_KNOWN_PORTS[i + 1..] {
                assert!(a.port != b.port && a.its_aid != b.its_aid, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn both_kinds_split_and_rebuild() {
        let bytes = [0x07, 0xd1, 0x00, 0x05, 0xaa];
        let (b, rest) = BtpHeader::split(CommonNextHeader::BtpB, &bytes)
            .expect("long enough")
            .expect("BTP");
        assert_eq!(
            b,
            BtpHeader::B {
                destination: 2001,
                destination_info: 5
            }
        );
        assert_eq!((rest, b.to_bytes()), (&[0xaa][..], [0x07, 0xd1, 0, 5]));
        let (a, _) = BtpHeader::split(CommonNextHeader::BtpA, &bytes)
            .expect("long enough")
            .expect("BTP");
        assert_eq!(
            a,
            BtpHeader::A {
                destination: 2001,
                source: 5
            }
        );
        assert_eq!(a.next_header(), CommonNextHeader::BtpA);
        assert_eq!(BtpHeader::split(CommonNextHeader::Ipv6, &bytes), Ok(None));
        let short = BtpHeader::split(CommonNextHeader::BtpB, &bytes[..3]);
        assert_eq!(
            short,
            Err(GnError::Truncated {
                what: "BTP header",
                needed: 1
            })
        );
    }
}

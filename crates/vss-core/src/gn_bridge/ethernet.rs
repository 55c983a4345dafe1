//! Ethernet II frames carrying GeoNetworking: destination, source, EtherType 0x8947, packet.

use std::fmt;

use vss_gn::ETHERTYPE_GN;

/// A 48-bit MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mac(pub [u8; 6]);

impl Mac {
    /// The broadcast address, where single-hop and area broadcasts go.
    pub const BROADCAST: Mac = Mac([0xff; 6]);

    /// Whether it is a group (multicast or broadcast) address: the I/G bit is set.
    pub fn is_group(&self) -> bool {
        self.0[0] & 0x01 != 0
    }
}

impl fmt::Display for Mac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

impl std::str::FromStr for Mac {
    type Err = String;

    /// Six hexadecimal bytes separated by colons (`02:00:00:00:00:01`).
    fn from_str(text: &str) -> Result<Self, String> {
        let bytes: Vec<u8> = text
            .split(':')
            .map(|b| u8::from_str_radix(b, 16).map_err(|_| format!("'{text}' is not a MAC")))
            .collect::<Result<_, _>>()?;
        let mac: [u8; 6] = bytes
            .try_into()
            .map_err(|_| format!("'{text}' is not six bytes"))?;
        Ok(Mac(mac))
    }
}

/// The length of the Ethernet II header.
pub const HEADER_LEN: usize = 14;

/// A frame read from a link: its addresses and its GeoNetworking packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// Where it goes.
    pub destination: Mac,
    /// Who sent it on the link.
    pub source: Mac,
    /// The GeoNetworking packet (Basic Header on).
    pub packet: &'a [u8],
}

impl<'a> Frame<'a> {
    /// Splits an Ethernet II frame; `None` unless it is long enough and its EtherType is
    /// GeoNetworking's.
    pub fn parse(bytes: &'a [u8]) -> Option<Self> {
        if bytes.len() < HEADER_LEN || bytes[12..14] != ETHERTYPE_GN.to_be_bytes() {
            return None;
        }
        let mac = |at: usize| {
            let mut m = [0u8; 6];
            m.copy_from_slice(&bytes[at..at + 6]);
            Mac(m)
        };
        Some(Frame {
            destination: mac(0),
            source: mac(6),
            packet: &bytes[HEADER_LEN..],
        })
    }
}

/// The Ethernet II frame from `source` to `destination` carrying `packet`.
pub fn frame(destination: Mac, source: Mac, packet: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + packet.len());
    out.extend_from_slice(&destination.0);
    out.extend_from_slice(&source.0);
    out.extend_from_slice(&ETHERTYPE_GN.to_be_bytes());
    out.extend_from_slice(packet);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_and_join() {
        let bytes = frame(Mac::BROADCAST, Mac([2, 0, 0, 0, 0, 1]), &[0x11, 0, 5, 1]);
        let parsed = Frame::parse(&bytes).expect("GN frame");
        assert_eq!(parsed.destination, Mac::BROADCAST);
        assert_eq!(parsed.source.to_string(), "02:00:00:00:00:01");
        assert_eq!(parsed.packet, [0x11, 0, 5, 1]);
        let mut ipv4 = bytes.clone();
        ipv4[12..14].copy_from_slice(&[0x08, 0x00]);
        assert_eq!(Frame::parse(&ipv4), None);
        assert_eq!(Frame::parse(&bytes[..13]), None);
        assert!(Mac::BROADCAST.is_group() && !parsed.source.is_group());
        assert_eq!("02:00:00:00:00:01".parse(), Ok(parsed.source));
        assert!("02:00:00:00:01".parse::<Mac>().is_err());
        assert!("02:00:00:00:00:zz".parse::<Mac>().is_err());
    }
}

//! The Basic Header (EN 302 636-4-1 V1.4.1 §9.6) and the Common Header (§9.7), less the
//! fields the codec derives: the Basic Header's next header comes from the packet's body,
//! the Common Header's type and subtype from the extended header, its payload length from
//! the payload.

use crate::wire::Reader;
use crate::GnError;

/// The GeoNetworking protocol version this codec speaks (`itsGnProtocolVersion`).
pub const GN_VERSION: u8 = 1;

/// The Basic Header's next header: a Common Header follows.
pub(crate) const NH_COMMON: u8 = 1;
/// The Basic Header's next header: a secured packet (`EtsiTs103097Data`) follows.
pub(crate) const NH_SECURED: u8 = 2;

/// LT, the packet's lifetime: a 6-bit multiplier and a 2-bit base (50 ms, 1 s, 10 s, 100 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lifetime(pub u8);

impl Lifetime {
    /// The base units of the two low bits, in milliseconds.
    const BASES_MS: [u32; 4] = [50, 1_000, 10_000, 100_000];

    /// The lifetime in milliseconds.
    pub fn millis(self) -> u32 {
        u32::from(self.0 >> 2) * Self::BASES_MS[usize::from(self.0 & 3)]
    }

    /// A lifetime not over `ms`: exact where a base holds it (the smallest such base), else
    /// rounded down in the smallest base whose multiplier fits; at most 63 × 100 s.
    pub fn from_millis(ms: u32) -> Self {
        let exact = Self::BASES_MS
            .iter()
            .position(|&b| ms.is_multiple_of(b) && ms / b < 64);
        let base = exact.unwrap_or_else(|| {
            Self::BASES_MS
                .iter()
                .position(|&b| ms / b < 64)
                .unwrap_or(3)
        });
        let multiplier = (ms / Self::BASES_MS[base]).min(63) as u8;
        Self((multiplier << 2) | base as u8)
    }
}

/// The Basic Header's own fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BasicHeader {
    /// LT: how long the packet may be buffered.
    pub lifetime: Lifetime,
    /// RHL: hops left (decremented by each forwarder; 1 for a single hop).
    pub remaining_hop_limit: u8,
}

impl BasicHeader {
    /// Its length on the wire.
    pub const LEN: usize = 4;

    /// The 4 bytes with next header `next`.
    pub(crate) fn to_bytes(self, next: u8) -> [u8; 4] {
        [
            (GN_VERSION << 4) | next,
            0,
            self.lifetime.0,
            self.remaining_hop_limit,
        ]
    }

    /// Reads the header and its next header; the version must be 1 and the reserved byte 0.
    pub(crate) fn read(r: &mut Reader<'_>) -> Result<(Self, u8), GnError> {
        let [vn, reserved, lt, rhl] = r.take::<4>("Basic Header")?;
        if vn >> 4 != GN_VERSION {
            return Err(GnError::BadVersion(vn >> 4));
        }
        if reserved != 0 {
            return Err(GnError::Reserved("Basic Header reserved"));
        }
        let header = Self {
            lifetime: Lifetime(lt),
            remaining_hop_limit: rhl,
        };
        Ok((header, vn & 0x0f))
    }
}

/// The Common Header's next header: what the payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommonNextHeader {
    /// Unspecified (beacons and Location Service packets, which carry no payload).
    Any = 0,
    /// BTP-A (interactive transport: destination and source ports).
    BtpA = 1,
    /// BTP-B (non-interactive transport: destination port and its info).
    BtpB = 2,
    /// IPv6 (GN6ASL).
    Ipv6 = 3,
}

impl CommonNextHeader {
    /// The header named by its 4-bit number.
    fn from_nibble(n: u8) -> Result<Self, GnError> {
        Ok(match n {
            0 => Self::Any,
            1 => Self::BtpA,
            2 => Self::BtpB,
            3 => Self::Ipv6,
            other => return Err(GnError::UnknownCommonNextHeader(other)),
        })
    }
}

/// TC, the traffic class: SCF (bit 7), channel offload (bit 6) and the 6-bit TC ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TrafficClass(pub u8);

impl TrafficClass {
    /// Store-carry-forward: buffer the packet while there is no neighbour.
    pub fn store_carry_forward(self) -> bool {
        self.0 & 0x80 != 0
    }
    /// The packet may be offloaded to another channel.
    pub fn channel_offload(self) -> bool {
        self.0 & 0x40 != 0
    }
    /// The TC ID (the media-dependent class, e.g. the DCC profile).
    pub fn id(self) -> u8 {
        self.0 & 0x3f
    }
}

/// The Common Header's flags: bit 7 (the standard's bit 0) is "mobile"; the rest reserved.
pub const FLAG_MOBILE: u8 = 0x80;

/// The Common Header's own fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CommonHeader {
    /// NH: what the payload is.
    pub next_header: CommonNextHeader,
    /// TC: the traffic class.
    pub traffic_class: TrafficClass,
    /// Flags: [`FLAG_MOBILE`] and seven reserved bits.
    pub flags: u8,
    /// MHL: the hop limit the source set.
    pub max_hop_limit: u8,
}

/// The Common Header as read: its fields, the type and subtype, and the payload length.
pub(crate) struct RawCommon {
    pub(crate) header: CommonHeader,
    pub(crate) header_type: u8,
    pub(crate) subtype: u8,
    pub(crate) payload_length: usize,
}

impl CommonHeader {
    /// Its length on the wire.
    pub const LEN: usize = 8;

    /// The station is mobile (flags bit 0 in the standard's numbering, the top bit).
    pub fn mobile(&self) -> bool {
        self.flags & FLAG_MOBILE != 0
    }

    /// Appends the 8 bytes, with the type, subtype and payload length given.
    pub(crate) fn write(
        &self,
        (header_type, subtype): (u8, u8),
        payload_length: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), GnError> {
        let pl = u16::try_from(payload_length).map_err(|_| GnError::OutOfRange {
            field: "payload length",
            value: i64::try_from(payload_length).unwrap_or(i64::MAX),
        })?;
        out.extend_from_slice(&[
            (self.next_header as u8) << 4,
            (header_type << 4) | subtype,
            self.traffic_class.0,
            self.flags,
        ]);
        out.extend_from_slice(&pl.to_be_bytes());
        out.extend_from_slice(&[self.max_hop_limit, 0]);
        Ok(())
    }

    /// Reads the 8 bytes; reserved fields must be zero, and so must the reserved flag bits
    /// unless `reserved_flags` allows them.
    pub(crate) fn read(r: &mut Reader<'_>, reserved_flags: bool) -> Result<RawCommon, GnError> {
        let [nh, ht, tc, flags] = r.take::<4>("Common Header")?;
        let pl = r.u16("Common Header")?;
        let [mhl, reserved] = r.take::<2>("Common Header")?;
        if nh & 0x0f != 0 {
            return Err(GnError::Reserved("Common Header reserved nibble"));
        }
        if reserved != 0 {
            return Err(GnError::Reserved("Common Header reserved"));
        }
        if !reserved_flags && flags & !FLAG_MOBILE != 0 {
            return Err(GnError::Reserved("Common Header flags"));
        }
        let header = Self {
            next_header: CommonNextHeader::from_nibble(nh >> 4)?,
            traffic_class: TrafficClass(tc),
            flags,
            max_hop_limit: mhl,
        };
        Ok(RawCommon {
            header,
            header_type: ht >> 4,
            subtype: ht & 0x0f,
            payload_length: pl.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_decode_by_base() {
        assert_eq!(Lifetime(0x05).millis(), 1_000);
        assert_eq!(Lifetime(0x1a).millis(), 60_000);
        assert_eq!(Lifetime(0xff).millis(), 6_300_000);
        assert_eq!(Lifetime(0x00).millis(), 0);
    }

    #[test]
    fn lifetimes_encode_exactly_where_they_can() {
        for ms in [
            0, 50, 1_000, 1_050, 5_000, 20_000, 60_000, 600_000, 6_300_000,
        ] {
            assert_eq!(Lifetime::from_millis(ms).millis(), ms, "{ms} ms");
        }
        assert_eq!(Lifetime::from_millis(u32::MAX).millis(), 6_300_000);
        assert!(Lifetime::from_millis(3_210).millis() <= 3_210);
    }

    #[test]
    fn basic_header_checks_version_and_reserved() {
        let ok = BasicHeader::read(&mut Reader::new(&[0x11, 0, 5, 1]));
        let lt = Lifetime(5);
        let header = BasicHeader {
            lifetime: lt,
            remaining_hop_limit: 1,
        };
        assert_eq!(ok, Ok((header, 1)));
        assert_eq!(header.to_bytes(NH_SECURED), [0x12, 0, 5, 1]);
        let v0 = BasicHeader::read(&mut Reader::new(&[0x01, 0, 5, 1]));
        assert_eq!(v0, Err(GnError::BadVersion(0)));
        let res = BasicHeader::read(&mut Reader::new(&[0x11, 1, 5, 1]));
        assert_eq!(res, Err(GnError::Reserved("Basic Header reserved")));
    }

    #[test]
    fn common_header_reserved_fields_and_flags() {
        let good = [0x20, 0x50, 0x02, 0x80, 0x00, 0x10, 0x01, 0x00];
        let raw = CommonHeader::read(&mut Reader::new(&good), false).expect("valid");
        assert!(raw.header.mobile());
        assert_eq!(
            (raw.header_type, raw.subtype, raw.payload_length),
            (5, 0, 16)
        );
        let mut out = Vec::new();
        raw.header.write((5, 0), 16, &mut out).expect("fits");
        assert_eq!(out, good);
        for (i, byte, what) in [
            (0, 0x21, "Common Header reserved nibble"),
            (7, 0x01, "Common Header reserved"),
            (3, 0x81, "Common Header flags"),
        ] {
            let mut bad = good;
            bad[i] = byte;
            let err = CommonHeader::read(&mut Reader::new(&bad), false).err();
            assert_eq!(err, Some(GnError::Reserved(what)));
        }
        let mut flagged = good;
        flagged[3] = 0x01;
        let lenient = CommonHeader::read(&mut Reader::new(&flagged), true).expect("allowed");
        assert_eq!(lenient.header.flags, 0x01);
        let mut nh = good;
        nh[0] = 0x40;
        let err = CommonHeader::read(&mut Reader::new(&nh), false).err();
        assert_eq!(err, Some(GnError::UnknownCommonNextHeader(4)));
    }

    #[test]
    fn traffic_class_bits() {
        let tc = TrafficClass(0xc3);
        assert!(tc.store_carry_forward() && tc.channel_offload());
        assert_eq!(tc.id(), 3);
    }
}

//! A whole GeoNetworking packet: the Basic Header, then either the unsecured Common Header,
//! extended header and payload, or the secured packet (`EtsiTs103097Data`) whose signed
//! payload is that same Common Header, extended header and payload.

use crate::headers::{RawCommon, NH_COMMON, NH_SECURED};
use crate::wire::Reader;
use crate::{
    its_aid_for_port, BasicHeader, BtpHeader, CommonHeader, ExtendedHeader, GnAddress, GnError,
    LongPositionVector,
};

/// The default for [`Limits::max_packet_len`]: an Ethernet frame's payload (the MTU of the
/// links the bridge reads), which holds FlexStack's largest unsecured packet
/// (`itsGnMaxSduSize` 1398 + `itsGnMaxGeoNetworkingHeaderSize` 88).
pub const DEFAULT_MAX_PACKET_LEN: usize = 1500;

/// The bounds of decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest packet (from the Basic Header on) decoded; default
    /// [`DEFAULT_MAX_PACKET_LEN`].
    pub max_packet_len: usize,
    /// Accept set reserved bits in the Common Header's flags (default `false`: refused).
    /// FlexStack 0.11.2 sets the lowest bit in beacons and Location Service packets, where
    /// the standard's "mobile" bit is the highest.
    pub allow_reserved_flags: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_packet_len: DEFAULT_MAX_PACKET_LEN,
            allow_reserved_flags: false,
        }
    }
}

impl Limits {
    /// Refuses `len` bytes over the maximum.
    fn check_len(&self, len: usize) -> Result<(), GnError> {
        if len > self.max_packet_len {
            return Err(GnError::TooLong {
                len,
                max: self.max_packet_len,
            });
        }
        Ok(())
    }
}

/// What follows the Common Header's start: the part of a packet a signature covers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Unsecured {
    /// The Common Header's own fields.
    pub common: CommonHeader,
    /// The extended header (which gives the packet's type).
    pub extended: ExtendedHeader,
    /// The payload: BTP header and facilities message, IPv6, or nothing.
    pub payload: Vec<u8>,
}

impl Unsecured {
    /// Decodes a Common Header, extended header and payload, which must fill `bytes` exactly
    /// (the payload length says where it ends).
    pub fn decode(bytes: &[u8], limits: &Limits) -> Result<Self, GnError> {
        limits.check_len(bytes.len())?;
        let mut r = Reader::new(bytes);
        let RawCommon {
            header,
            header_type,
            subtype,
            payload_length,
        } = CommonHeader::read(&mut r, limits.allow_reserved_flags)?;
        let extended = ExtendedHeader::read(header_type, subtype, &mut r)?;
        let rest = r.rest();
        match payload_length.cmp(&rest.len()) {
            std::cmp::Ordering::Greater => Err(GnError::PayloadOverPacket {
                declared: payload_length,
                available: rest.len(),
            }),
            std::cmp::Ordering::Less => Err(GnError::TrailingBytes {
                declared: payload_length,
                actual: rest.len(),
            }),
            std::cmp::Ordering::Equal => Ok(Self {
                common: header,
                extended,
                payload: rest.to_vec(),
            }),
        }
    }

    /// Appends the Common Header (its type and payload length derived), extended header and
    /// payload.
    fn write(&self, out: &mut Vec<u8>) -> Result<(), GnError> {
        let kind = self.extended.type_and_subtype();
        self.common.write(kind, self.payload.len(), out)?;
        self.extended.write(out)?;
        out.extend_from_slice(&self.payload);
        Ok(())
    }

    /// The bytes a signature covers: Common Header, extended header, payload.
    pub fn encode(&self) -> Result<Vec<u8>, GnError> {
        let mut out = Vec::with_capacity(CommonHeader::LEN + 48 + self.payload.len());
        self.write(&mut out)?;
        Ok(out)
    }

    /// The BTP header and the facilities' bytes, if the payload is BTP.
    pub fn btp(&self) -> Result<Option<(BtpHeader, &[u8])>, GnError> {
        BtpHeader::split(self.common.next_header, &self.payload)
    }

    /// The ITS-AID of the BTP destination port, if the payload is BTP to a well-known port.
    pub fn its_aid(&self) -> Option<u64> {
        let (btp, _) = self.btp().ok().flatten()?;
        its_aid_for_port(btp.destination_port())
    }

    /// The source's position vector.
    pub fn source(&self) -> &LongPositionVector {
        self.extended.source()
    }

    /// Replaces the source's position vector (address included).
    pub fn set_source(&mut self, source: LongPositionVector) {
        *self.extended.source_mut() = source;
    }

    /// Replaces the source's GN address only (its MID is the radio-side MAC), as a pseudonym
    /// change does.
    pub fn set_source_address(&mut self, address: GnAddress) {
        self.extended.source_mut().address = address;
    }
}

/// A packet's body: what the Basic Header's next header announces.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Body {
    /// Next header 1: the Common Header, extended header and payload in clear.
    Unsecured(Unsecured),
    /// Next header 2: the `EtsiTs103097Data` bytes (not decoded here), up to the end.
    Secured(Vec<u8>),
}

/// A GeoNetworking packet.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GnPacket {
    /// The Basic Header (its next header follows from `body`).
    pub basic: BasicHeader,
    /// What follows it.
    pub body: Body,
}

impl GnPacket {
    /// Decodes a packet (the Ethernet frame's payload for ethertype 0x8947).
    pub fn decode(bytes: &[u8], limits: &Limits) -> Result<Self, GnError> {
        limits.check_len(bytes.len())?;
        let mut r = Reader::new(bytes);
        let (basic, next) = BasicHeader::read(&mut r)?;
        let rest = r.rest();
        match next {
            NH_COMMON => Self::unsecured(basic, Unsecured::decode(rest, limits)?),
            NH_SECURED if rest.is_empty() => Err(GnError::EmptySecured),
            NH_SECURED => Ok(Self::secured(basic, rest.to_vec())),
            other => Err(GnError::UnknownBasicNextHeader(other)),
        }
    }

    /// An unsecured packet; fails if the remaining hop limit exceeds the maximum.
    pub fn unsecured(basic: BasicHeader, body: Unsecured) -> Result<Self, GnError> {
        if basic.remaining_hop_limit > body.common.max_hop_limit {
            return Err(GnError::HopLimit {
                remaining: basic.remaining_hop_limit,
                maximum: body.common.max_hop_limit,
            });
        }
        Ok(Self {
            basic,
            body: Body::Unsecured(body),
        })
    }

    /// A secured packet: `basic`, then the signed (or encrypted) data's bytes.
    pub fn secured(basic: BasicHeader, data: Vec<u8>) -> Self {
        Self {
            basic,
            body: Body::Secured(data),
        }
    }

    /// The unsecured packet a verified secured one carries: `basic` (from the secured packet)
    /// and the signed data's payload.
    pub fn from_signed_payload(
        basic: BasicHeader,
        payload: &[u8],
        limits: &Limits,
    ) -> Result<Self, GnError> {
        limits.check_len(BasicHeader::LEN + payload.len())?;
        Self::unsecured(basic, Unsecured::decode(payload, limits)?)
    }

    /// The packet's bytes.
    pub fn encode(&self) -> Result<Vec<u8>, GnError> {
        match &self.body {
            Body::Unsecured(body) => {
                let mut out = Vec::with_capacity(BasicHeader::LEN + 56 + body.payload.len());
                out.extend_from_slice(&self.basic.to_bytes(NH_COMMON));
                body.write(&mut out)?;
                Ok(out)
            }
            Body::Secured(data) if data.is_empty() => Err(GnError::EmptySecured),
            Body::Secured(data) => {
                let mut out = Vec::with_capacity(BasicHeader::LEN + data.len());
                out.extend_from_slice(&self.basic.to_bytes(NH_SECURED));
                out.extend_from_slice(data);
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CommonNextHeader, Lifetime, TrafficClass};

    fn shb(payload: &[u8]) -> GnPacket {
        let source = LongPositionVector {
            address: GnAddress::from_mac([2, 1, 2, 3, 4, 5], 5),
            timestamp: 7,
            latitude: 1,
            longitude: -1,
            accurate: true,
            speed: 0,
            heading: 0,
        };
        let body = Unsecured {
            common: CommonHeader {
                next_header: CommonNextHeader::BtpB,
                traffic_class: TrafficClass(2),
                flags: crate::FLAG_MOBILE,
                max_hop_limit: 1,
            },
            extended: ExtendedHeader::SingleHop {
                source,
                media_dependent: [0; 4],
            },
            payload: payload.to_vec(),
        };
        let basic = BasicHeader {
            lifetime: Lifetime::from_millis(1_000),
            remaining_hop_limit: 1,
        };
        GnPacket::unsecured(basic, body).expect("hops fit")
    }

    fn wire() -> Vec<u8> {
        shb(&[0x07, 0xd1, 0, 0, 0xaa, 0xbb])
            .encode()
            .expect("encodes")
    }

    fn decode(bytes: &[u8]) -> Result<GnPacket, GnError> {
        GnPacket::decode(bytes, &Limits::default())
    }

    #[test]
    fn a_packet_round_trips_and_every_prefix_is_truncated() {
        let bytes = wire();
        assert_eq!(bytes.len(), 4 + 8 + 28 + 6);
        assert_eq!(decode(&bytes), Ok(shb(&[0x07, 0xd1, 0, 0, 0xaa, 0xbb])));
        for cut in 0..bytes.len() - 6 {
            let err = decode(&bytes[..cut]);
            assert!(
                matches!(err, Err(GnError::Truncated { .. })),
                "cut at {cut}: {err:?}"
            );
        }
    }

    #[test]
    fn lengths_that_disagree_are_refused() {
        let bytes = wire();
        let over = decode(&bytes[..bytes.len() - 1]);
        assert_eq!(
            over,
            Err(GnError::PayloadOverPacket {
                declared: 6,
                available: 5
            })
        );
        let mut longer = bytes.clone();
        longer.push(0);
        let trailing = decode(&longer);
        assert_eq!(
            trailing,
            Err(GnError::TrailingBytes {
                declared: 6,
                actual: 7
            })
        );
    }

    #[test]
    fn the_size_limit_holds_for_every_entry_point() {
        let bytes = wire();
        let tight = Limits {
            max_packet_len: bytes.len() - 1,
            ..Limits::default()
        };
        let too_long = GnError::TooLong {
            len: bytes.len(),
            max: bytes.len() - 1,
        };
        assert_eq!(GnPacket::decode(&bytes, &tight), Err(too_long.clone()));
        let basic = shb(&[]).basic;
        let from_payload = GnPacket::from_signed_payload(basic, &bytes[4..], &tight);
        assert_eq!(from_payload, Err(too_long));
        let huge = vec![0u8; DEFAULT_MAX_PACKET_LEN + 1];
        assert!(matches!(decode(&huge), Err(GnError::TooLong { .. })));
    }

    #[test]
    fn next_headers_hop_limits_and_empty_secured_packets() {
        let mut bytes = wire();
        bytes[0] = 0x13;
        assert_eq!(decode(&bytes), Err(GnError::UnknownBasicNextHeader(3)));
        bytes[0] = 0x10;
        assert_eq!(decode(&bytes), Err(GnError::UnknownBasicNextHeader(0)));
        bytes[0] = 0x21;
        assert_eq!(decode(&bytes), Err(GnError::BadVersion(2)));
        let mut hops = wire();
        hops[3] = 2;
        assert_eq!(
            decode(&hops),
            Err(GnError::HopLimit {
                remaining: 2,
                maximum: 1
            })
        );
        assert_eq!(decode(&[0x12, 0, 5, 1]), Err(GnError::EmptySecured));
        let empty = GnPacket::secured(shb(&[]).basic, Vec::new());
        assert_eq!(empty.encode(), Err(GnError::EmptySecured));
    }

    #[test]
    fn btp_and_its_aid_come_from_the_payload() {
        let Body::Unsecured(body) = shb(&[0x07, 0xd2, 0, 0]).body else {
            panic!("unsecured")
        };
        assert_eq!(body.its_aid(), Some(37));
        let Body::Unsecured(short) = shb(&[0x07]).body else {
            panic!("unsecured")
        };
        assert!(matches!(short.btp(), Err(GnError::Truncated { .. })));
        assert_eq!(short.its_aid(), None);
    }

    #[test]
    fn a_payload_over_sixty_four_kib_does_not_encode() {
        let big = shb(&vec![0; 65_536]);
        assert!(matches!(
            big.encode(),
            Err(GnError::OutOfRange { value: 65_536, .. })
        ));
    }
}

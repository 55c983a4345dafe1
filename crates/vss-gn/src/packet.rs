//! A whole GeoNetworking packet: the Basic Header, then either the unsecured Common Header,
//! extended header and payload, or the secured packet (`EtsiTs103097Data`) whose signed
//! payload is that same Common Header, extended header and payload.

use crate::headers::{RawCommon, NH_COMMON, NH_SECURED};
use crate::wire::Reader;
use crate::{
    its_aid_for_port, BasicHeader, BtpHeader, CommonHeader, ExtendedHeader, GnError,
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

    /// Replaces the source's position vector (address included), as a pseudonym change does.
    pub fn set_source(&mut self, source: LongPositionVector) {
        *self.extended.source_mut() = source;
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

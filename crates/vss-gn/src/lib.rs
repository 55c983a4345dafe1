//! GeoNetworking (ETSI EN 302 636-4-1 V1.4.1) and the Basic Transport Protocol (ETSI EN
//! 302 636-5-1): the wire format of ITS-G5 packets (ethertype 0x8947), decoded strictly and
//! within bounds, and encoded back byte for byte.
//!
//! [`GnPacket::decode`] splits a packet into its [`BasicHeader`] and [`Body`]: either
//! [`Unsecured`] (a [`CommonHeader`], an [`ExtendedHeader`] — beacon, SHB, TSB, GUC, GBC,
//! GAC, LS request or reply — and the payload, BTP and facilities) or the bytes of a secured
//! packet (`EtsiTs103097Data`, signed or encrypted, for vss-its to handle), whose signed
//! payload is in turn an [`Unsecured`] ([`GnPacket::from_signed_payload`]). Every length is
//! checked against the others and against [`Limits`]; a reserved field that is not zero, an
//! unknown type, a version other than 1 are refused with a [`GnError`]; no input panics.
//!
//! [`its_aid_for_port`] gives the ITS-AID of each well-known BTP port ([`WELL_KNOWN_PORTS`],
//! ETSI TS 103 248), under which a message is signed and its signer's permissions checked.

mod address;
mod btp;
mod error;
mod extended;
mod headers;
mod packet;
mod position;
mod wire;

pub use address::GnAddress;
pub use btp::{its_aid_for_port, BtpHeader, WellKnownPort, WELL_KNOWN_PORTS};
pub use error::GnError;
pub use extended::{Area, AreaShape, ExtendedHeader};
pub use headers::{
    BasicHeader, CommonHeader, CommonNextHeader, Lifetime, TrafficClass, FLAG_MOBILE, GN_VERSION,
};
pub use packet::{Body, GnPacket, Limits, Unsecured, DEFAULT_MAX_PACKET_LEN};
pub use position::{LongPositionVector, ShortPositionVector};

/// The EtherType of GeoNetworking frames (the IEEE EtherType registry).
pub const ETHERTYPE_GN: u16 = 0x8947;

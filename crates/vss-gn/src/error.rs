//! The one error of the codec.

/// Why bytes are not a GeoNetworking packet (decoding), or a value cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GnError {
    /// The bytes end inside a header (`what`), `needed` bytes short of it.
    #[error("{what} truncated: {needed} more bytes needed")]
    Truncated {
        /// The header or field being read.
        what: &'static str,
        /// How many bytes were missing.
        needed: usize,
    },
    /// The Basic Header's version is not 1 (EN 302 636-4-1 V1.4.1, `itsGnProtocolVersion`).
    #[error("GeoNetworking version {0}: only version 1 is supported")]
    BadVersion(u8),
    /// The Basic Header's next header is neither 1 (Common Header) nor 2 (secured packet).
    #[error("unknown Basic Header next header {0}")]
    UnknownBasicNextHeader(u8),
    /// The Common Header's next header is not 0 (any), 1 (BTP-A), 2 (BTP-B) or 3 (IPv6).
    #[error("unknown Common Header next header {0}")]
    UnknownCommonNextHeader(u8),
    /// The Common Header's header type and subtype name no packet of EN 302 636-4-1.
    #[error("unknown header type {header_type}, subtype {subtype}")]
    UnknownHeaderType {
        /// HT, the high nibble.
        header_type: u8,
        /// HST, the low nibble.
        subtype: u8,
    },
    /// A field the standard reserves (to be sent as zero) is not zero.
    #[error("reserved field {0} is not zero")]
    Reserved(&'static str),
    /// The Common Header's payload length is more than the bytes after the headers.
    #[error("payload length {declared} over the {available} bytes left in the packet")]
    PayloadOverPacket {
        /// PL, from the Common Header.
        declared: usize,
        /// The bytes after the extended header.
        available: usize,
    },
    /// Bytes follow the payload whose length the Common Header gives.
    #[error("payload length {declared} but {actual} bytes follow the headers")]
    TrailingBytes {
        /// PL, from the Common Header.
        declared: usize,
        /// The bytes after the extended header.
        actual: usize,
    },
    /// The Basic Header's remaining hop limit exceeds the Common Header's maximum hop limit
    /// (EN 302 636-4-1 §10.3.5: such a packet is discarded).
    #[error("remaining hop limit {remaining} above the maximum hop limit {maximum}")]
    HopLimit {
        /// RHL, from the Basic Header.
        remaining: u8,
        /// MHL, from the Common Header.
        maximum: u8,
    },
    /// The packet is longer than [`Limits::max_packet_len`](crate::Limits).
    #[error("packet of {len} bytes over the maximum of {max}")]
    TooLong {
        /// The packet's length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A secured packet with no secured data after the Basic Header.
    #[error("secured packet without secured data")]
    EmptySecured,
    /// A value does not fit its field (encoding).
    #[error("{field} value {value} does not fit its field")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The value given.
        value: i64,
    },
}

//! How the artefacts are written: JSON, with points and scalars as hex of their octet
//! encodings, a `version` in every artefact, and a bound on every file read.

use crate::group::{g1_from_bytes, g1_to_bytes, scalar_from_bytes, scalar_to_bytes, Scalar, G1};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serializer};

/// The artefacts' format version.
pub const VERSION: u32 = 1;
/// The largest artefact read, in bytes.
pub const MAX_ARTEFACT_LEN: usize = 1024 * 1024;

/// Why an artefact could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// Longer than its bound ([`MAX_ARTEFACT_LEN`] for most artefacts).
    #[error("artefact is {len} bytes, at most {max} are read")]
    TooLarge {
        /// Its length.
        len: usize,
        /// The bound.
        max: usize,
    },
    /// Not the JSON of the artefact (or a value out of range inside it).
    #[error("malformed artefact: {0}")]
    Json(#[from] serde_json::Error),
    /// Written by another format version.
    #[error("artefact version {0} is not {VERSION}")]
    Version(u32),
}

/// Something with a format version.
pub trait Versioned {
    /// The version the artefact was written with.
    fn version(&self) -> u32;
}

/// Reads an artefact from JSON bytes: bounded by [`MAX_ARTEFACT_LEN`], parsed, and of this
/// format version.
pub fn from_json<T: DeserializeOwned + Versioned>(bytes: &[u8]) -> crate::Result<T> {
    Ok(from_json_bounded(bytes, MAX_ARTEFACT_LEN)?)
}

/// [`from_json`] with another bound (the few artefacts that are larger), and the codec's
/// own error for the caller to say where the bytes came from.
pub(crate) fn from_json_bounded<T: DeserializeOwned + Versioned>(
    bytes: &[u8],
    max: usize,
) -> Result<T, CodecError> {
    if bytes.len() > max {
        return Err(CodecError::TooLarge {
            len: bytes.len(),
            max,
        });
    }
    let value: T = serde_json::from_slice(bytes)?;
    if value.version() != VERSION {
        return Err(CodecError::Version(value.version()));
    }
    Ok(value)
}

/// Writes an artefact as pretty JSON.
pub fn to_json<T: serde::Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec_pretty(value).expect("artefacts serialize")
}

fn hex_bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    let text = String::deserialize(d)?;
    hex::decode(text).map_err(serde::de::Error::custom)
}

/// A G1 point as hex of its compressed form.
pub mod g1 {
    use super::*;

    /// Writes the point.
    pub fn serialize<S: Serializer>(p: &G1, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(g1_to_bytes(p)))
    }

    /// Reads a point, checked to be in the subgroup.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<G1, D::Error> {
        g1_from_bytes(&hex_bytes(d)?).map_err(serde::de::Error::custom)
    }
}

/// An optional G1 point.
pub mod g1_option {
    use super::*;

    /// Writes the point or null.
    pub fn serialize<S: Serializer>(p: &Option<G1>, s: S) -> Result<S::Ok, S::Error> {
        match p {
            Some(p) => s.serialize_some(&hex::encode(g1_to_bytes(p))),
            None => s.serialize_none(),
        }
    }

    /// Reads a point or null.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<G1>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| {
            let bytes = hex::decode(t).map_err(serde::de::Error::custom)?;
            g1_from_bytes(&bytes).map_err(serde::de::Error::custom)
        })
        .transpose()
    }
}

/// A scalar as hex of its 32 big-endian octets.
pub mod scalar {
    use super::*;

    /// Writes the scalar.
    pub fn serialize<S: Serializer>(v: &Scalar, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(scalar_to_bytes(v)))
    }

    /// Reads a scalar below the group order.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        scalar_from_bytes(&hex_bytes(d)?).map_err(serde::de::Error::custom)
    }
}

/// Bytes as hex.
pub mod bytes {
    use super::*;

    /// Writes the bytes.
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(v))
    }

    /// Reads hex bytes.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        hex_bytes(d)
    }
}

//! Statements about hidden attributes, proved beside the BBS proof of knowledge and linked to
//! it by a shared blinding.
//!
//! Every sub-proof follows one shape. The prover calls `init` with the statement, the
//! witness, the hidden attribute's value `m` and the blinding `m~` that the BBS proof uses
//! for that attribute; `challenge_bytes` appends the statement and the commitments to the
//! transcript the caller hashes into the Fiat–Shamir challenge `c`; `gen_proof(&c)` consumes
//! the protocol (its secrets are zeroized) and yields a proof whose `value_response()` is
//! `m^ = m~ + c·m`. The verifier appends exactly the same bytes with the proof's
//! `challenge_bytes`, recomputes `c`, calls `verify` and compares `value_response()` with the
//! BBS proof's response for the attribute: equal responses under one challenge show that the
//! sub-proof is about the signed value.
//!
//! - [`revocation`]: the revocation authority's accumulator of live revocation handles and
//!   the proof that a hidden handle is still in it.
//! - [`inspection`]: ElGamal encryption in the exponent of a hidden integer for the
//!   inspector, with a proof that it encrypts the signed value.
//! - [`range`]: `min ≤ m ≤ max` for a hidden integer.

pub mod inspection;
pub mod range;
pub mod revocation;
#[cfg(test)]
mod timing;

use crate::group::{
    g1_from_bytes, g1_nonzero_from_bytes, g1_to_bytes, g2_from_bytes, g2_to_bytes,
    scalar_from_bytes, scalar_to_bytes, EncodingError, Scalar, G1, G1_LEN, G2, G2_LEN, SCALAR_LEN,
};
use ark_bls12_381::G1Affine;

/// Why a predicate could not be set up, proved, verified or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PredicateError {
    /// A scalar or point inside the bytes is malformed.
    #[error("bad encoding: {0}")]
    Encoding(#[from] EncodingError),
    /// The bytes end before the structure does.
    #[error("bytes end early")]
    Truncated,
    /// Bytes are left after the structure.
    #[error("trailing bytes after the structure")]
    TrailingBytes,
    /// The bytes are not valid hex (JSON form).
    #[error("not hex")]
    Hex,
    /// A count or length in the bytes or in an argument exceeds its documented bound.
    #[error("{what} exceeds its bound of {max}")]
    TooLarge {
        /// What is too large.
        what: &'static str,
        /// The bound.
        max: usize,
    },
    /// The bytes are well formed but describe an inconsistent structure.
    #[error("inconsistent structure: {0}")]
    Malformed(&'static str),
    /// The proof does not verify.
    #[error("proof does not verify: {0}")]
    InvalidProof(&'static str),
    /// The revocation handle is not a live member (never issued, or already revoked).
    #[error("revocation handle is not live")]
    UnknownHandle,
    /// The handle was revoked: its witness cannot be brought up to date.
    #[error("revocation handle has been revoked")]
    Revoked,
    /// The witness was made for another epoch than the accumulator given.
    #[error("witness is for epoch {witness}, accumulator is at epoch {accumulator}")]
    StaleWitness {
        /// The witness's epoch.
        witness: u64,
        /// The accumulator's epoch.
        accumulator: u64,
    },
    /// The removal log given does not continue the witness's epoch (entries missing or
    /// already dropped from the bounded log): ask the authority for a fresh witness.
    #[error("removal log does not continue from epoch {0}")]
    LogGap(u64),
    /// An integer attribute is outside what the statement or the encoding allows.
    #[error("value outside the allowed range")]
    ValueOutOfRange,
    /// The bounds of a range statement are unusable (`min ≥ max`, or `max` too large).
    #[error("bad range bounds")]
    BadBounds,
    /// Decryption found no integer in `[0, 2^max_bits)`.
    #[error("no plaintext below 2^{0}")]
    NotFound(u32),
}

/// The predicate error of a result, for the tests that compare it.
#[cfg(test)]
fn own<T>(result: crate::Result<T>) -> Result<T, PredicateError> {
    result.map_err(|e| match e {
        crate::Error::Predicate(e) => e,
        other => panic!("not a predicate error: {other}"),
    })
}

/// The G1 point `p` in affine form.
fn affine(p: &G1) -> G1Affine {
    (*p).into()
}

/// Reads a byte string field by field, refusing to run past its end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], PredicateError> {
        if self.bytes.len() < n {
            return Err(PredicateError::Truncated);
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn u16(&mut self) -> Result<u16, PredicateError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, PredicateError> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_be_bytes(a))
    }

    fn u64(&mut self) -> Result<u64, PredicateError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_be_bytes(a))
    }

    /// A count bounded by `max` before anything is allocated for it.
    fn count(&mut self, what: &'static str, max: usize) -> Result<usize, PredicateError> {
        let n = self.u32()? as usize;
        if n > max {
            return Err(PredicateError::TooLarge { what, max });
        }
        Ok(n)
    }

    fn scalar(&mut self) -> Result<Scalar, PredicateError> {
        Ok(scalar_from_bytes(self.take(SCALAR_LEN)?)?)
    }

    fn g1(&mut self) -> Result<G1Affine, PredicateError> {
        Ok(affine(&g1_from_bytes(self.take(G1_LEN)?)?))
    }

    fn g1_nonzero(&mut self) -> Result<G1Affine, PredicateError> {
        Ok(affine(&g1_nonzero_from_bytes(self.take(G1_LEN)?)?))
    }

    fn g2(&mut self) -> Result<G2, PredicateError> {
        Ok(g2_from_bytes(self.take(G2_LEN)?)?)
    }

    fn finish(self) -> Result<(), PredicateError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(PredicateError::TrailingBytes)
        }
    }
}

/// Appends the compressed encoding of an affine G1 point.
fn put_g1(out: &mut Vec<u8>, p: &G1Affine) {
    out.extend_from_slice(&g1_to_bytes(&G1::from(*p)));
}

/// Appends the compressed encoding of a G2 point.
fn put_g2(out: &mut Vec<u8>, p: &G2) {
    out.extend_from_slice(&g2_to_bytes(p));
}

/// Appends a scalar as 32 big-endian octets.
fn put_scalar(out: &mut Vec<u8>, s: &Scalar) {
    out.extend_from_slice(&scalar_to_bytes(s));
}

/// Decodes the hex of a JSON string.
fn from_hex(s: &str) -> Result<Vec<u8>, PredicateError> {
    hex::decode(s).map_err(|_| PredicateError::Hex)
}

/// `Serialize`/`Deserialize` as the hex string of `to_bytes`/`from_bytes`.
macro_rules! hex_serde {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&hex::encode(self.to_bytes()))
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <String as serde::Deserialize>::deserialize(d)?;
                let bytes = $crate::predicates::from_hex(&s).map_err(serde::de::Error::custom)?;
                <$t>::from_bytes(&bytes).map_err(serde::de::Error::custom)
            }
        }
    };
}
use hex_serde;

/// The value of an integer attribute, refused when it is not below 2^64.
fn scalar_to_u64(s: &Scalar) -> Result<u64, PredicateError> {
    let bytes = scalar_to_bytes(s);
    if bytes[..SCALAR_LEN - 8].iter().any(|b| *b != 0) {
        return Err(PredicateError::ValueOutOfRange);
    }
    let mut a = [0u8; 8];
    a.copy_from_slice(&bytes[SCALAR_LEN - 8..]);
    Ok(u64::from_be_bytes(a))
}

//! Key encapsulation: PSEC-KEM and ECIES-KEM of ISO/IEC 18033-2, and the ECIES key
//! encryption of IEEE 1609.2 with its AES-128-CCM data encryption.
//!
//! Decapsulation never sees the private key: it asks a caller-supplied ECDH function (the
//! HSM's) for the x coordinate of `x × point`.

pub mod ecies_1609;
pub mod ecies_kem;
mod known_answer;
pub mod psec_kem;
mod scheme;

pub use known_answer::KnownAnswerSeed;
pub use scheme::{Kem, KemParams, Scheme};

use zeroize::Zeroizing;

pub(crate) use crate::point::{encode, multiply, reduce_mod_order, times, x_coordinate};

/// What encapsulation produces: the ciphertext to send and the key to keep.
#[derive(Debug)]
pub struct Encapsulation {
    /// The ciphertext C0.
    pub ciphertext: Vec<u8>,
    /// The shared key K (zeroized on drop).
    pub key: Zeroizing<Vec<u8>>,
}

/// `a ⊕ b` for equal lengths.
pub(crate) fn xor(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// `Display` and `FromStr` of an option by the names of its `name()` and `ALL`.
macro_rules! named {
    ($option:ident, $what:literal) => {
        impl std::fmt::Display for $option {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $option {
            type Err = String;

            fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
                $crate::kem::parse_name(s, &$option::ALL, $option::name, $what)
            }
        }
    };
}
pub(crate) use named;

/// The value of `all` called `s`, or a message listing the names.
pub(crate) fn parse_name<T: Copy>(
    s: &str,
    all: &[T],
    name: fn(T) -> &'static str,
    what: &str,
) -> std::result::Result<T, String> {
    all.iter().copied().find(|&v| name(v) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&v| name(v)).collect();
        format!(
            "unknown {what} '{s}' (expected one of {})",
            names.join(", ")
        )
    })
}

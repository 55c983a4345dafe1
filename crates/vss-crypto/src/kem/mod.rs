//! Key encapsulation: PSEC-KEM and ECIES-KEM of ISO/IEC 18033-2, and the ECIES key
//! encryption of IEEE 1609.2 with its AES-128-CCM data encryption.
//!
//! Decapsulation never sees the private key: it asks a caller-supplied ECDH function (the
//! HSM's) for the x coordinate of `x × point`.

pub mod ecies_1609;
pub mod ecies_kem;
pub mod psec_kem;

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

//! Key encapsulation: PSEC-KEM and ECIES-KEM of ISO/IEC 18033-2, and the ECIES key
//! encryption of IEEE 1609.2 with its AES-128-CCM data encryption.
//!
//! Decapsulation never sees the private key: it asks a caller-supplied ECDH function (the
//! HSM's) for the x coordinate of `x × point`.

pub mod ecies_1609;
pub mod psec_kem;

use openssl::bn::{BigNum, BigNumContext, BigNumRef};
use openssl::ec::{EcPoint, EcPointRef, PointConversionForm};
use zeroize::Zeroizing;

use crate::{Curve, Error, PublicKey, Result};

/// What encapsulation produces: the ciphertext to send and the key to keep.
#[derive(Debug)]
pub struct Encapsulation {
    /// The ciphertext C0.
    pub ciphertext: Vec<u8>,
    /// The shared key K (zeroized on drop).
    pub key: Zeroizing<Vec<u8>>,
}

/// `OS2IP(bytes) mod μ`.
pub(crate) fn reduce_mod_order(curve: Curve, bytes: &[u8]) -> Result<BigNum> {
    let mut ctx = BigNumContext::new_secure().map_err(|_| Error::Library("BigNumContext"))?;
    let value = BigNum::from_slice(bytes).map_err(|_| Error::Library("BigNum"))?;
    let order = curve.order()?;
    let mut reduced = BigNum::new_secure().map_err(|_| Error::Library("BigNum"))?;
    reduced
        .nnmod(&value, &order, &mut ctx)
        .map_err(|_| Error::Library("BigNum::nnmod"))?;
    Ok(reduced)
}

/// `k × G`, or `k × point` when a point is given.
pub(crate) fn multiply(curve: Curve, point: Option<&EcPointRef>, k: &BigNumRef) -> Result<EcPoint> {
    let group = curve.group()?;
    let mut ctx = BigNumContext::new_secure().map_err(|_| Error::Library("BigNumContext"))?;
    let mut out = EcPoint::new(group).map_err(|_| Error::Library("EcPoint"))?;
    match point {
        None => out.mul_generator2(group, k, &mut ctx),
        Some(p) => out.mul2(group, p, k, &mut ctx),
    }
    .map_err(|_| Error::Library("EC_POINT_mul"))?;
    if out.is_infinity(group) {
        return Err(Error::Library("scalar multiple is the point at infinity"));
    }
    Ok(out)
}

/// A point's SEC1 encoding in the given form.
pub(crate) fn encode(
    curve: Curve,
    point: &EcPointRef,
    form: PointConversionForm,
) -> Result<Vec<u8>> {
    let mut ctx = BigNumContext::new().map_err(|_| Error::Library("BigNumContext"))?;
    point
        .to_bytes(curve.group()?, form, &mut ctx)
        .map_err(|_| Error::Library("EcPoint::to_bytes"))
}

/// FE2OSP of a point's x coordinate (field-element length).
pub(crate) fn x_coordinate(curve: Curve, point: &EcPointRef) -> Result<Zeroizing<Vec<u8>>> {
    let uncompressed = Zeroizing::new(encode(curve, point, PointConversionForm::UNCOMPRESSED)?);
    Ok(Zeroizing::new(
        uncompressed[1..=curve.scalar_len()].to_vec(),
    ))
}

/// `a ⊕ b` for equal lengths.
pub(crate) fn xor(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// A public key's point in OpenSSL's form.
pub(crate) fn point_of(key: &PublicKey) -> Result<EcPoint> {
    key.to_point()
}

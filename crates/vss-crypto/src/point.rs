//! Arithmetic on OpenSSL's points for the schemes built from scalar multiplications:
//! products, reduction modulo the order, SEC1 encodings and x coordinates.

use openssl::bn::{BigNum, BigNumContext, BigNumRef};
use openssl::ec::{EcPoint, EcPointRef, PointConversionForm};
use zeroize::Zeroizing;

use crate::{Curve, Error, Result};

/// `OS2IP(bytes) mod μ`.
pub(crate) fn reduce_mod_order(curve: Curve, bytes: &[u8]) -> Result<BigNum> {
    let mut ctx = BigNumContext::new_secure().map_err(|_| Error::Library("BigNumContext"))?;
    // The input is secret (PSEC-KEM's u′): a secure BigNum, cleared when freed.
    let mut value = BigNum::new_secure().map_err(|_| Error::Library("BigNum"))?;
    value
        .copy_from_slice(bytes)
        .map_err(|_| Error::Library("BigNum::copy_from_slice"))?;
    let order = curve.order()?;
    let mut reduced = BigNum::new_secure().map_err(|_| Error::Library("BigNum"))?;
    reduced
        .nnmod(&value, &order, &mut ctx)
        .map_err(|_| Error::Library("BigNum::nnmod"))?;
    Ok(reduced)
}

/// `k × G`, or `k × point` when a point is given; `None` for the point at infinity.
///
/// OpenSSL multiplies one point by one scalar with its constant-time ladder (or P-256's
/// constant-time code), whatever the scalar's flags: safe for secret scalars.
pub(crate) fn times(
    curve: Curve,
    point: Option<&EcPointRef>,
    k: &BigNumRef,
) -> Result<Option<EcPoint>> {
    let group = curve.group()?;
    let mut ctx = BigNumContext::new_secure().map_err(|_| Error::Library("BigNumContext"))?;
    let mut out = EcPoint::new(group).map_err(|_| Error::Library("EcPoint"))?;
    match point {
        None => out.mul_generator2(group, k, &mut ctx),
        Some(p) => out.mul2(group, p, k, &mut ctx),
    }
    .map_err(|_| Error::Library("EC_POINT_mul"))?;
    Ok((!out.is_infinity(group)).then_some(out))
}

/// [`times`] where the point at infinity cannot occur for valid inputs.
pub(crate) fn multiply(curve: Curve, point: Option<&EcPointRef>, k: &BigNumRef) -> Result<EcPoint> {
    times(curve, point, k)?.ok_or(Error::Library("scalar multiple is the point at infinity"))
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

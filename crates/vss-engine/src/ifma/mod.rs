//! The AVX-512 IFMA verifier: P-256 and brainpoolP256r1 signatures checked eight at a time
//! in 52-bit limbs. Verification touches only public data, so the arithmetic is written
//! here (and is not constant-time). Jobs it cannot take (other curves, signatures of the
//! wrong length) and the rare lanes where two added points met are verified by the
//! library, so every verdict equals [`VerifyJob::verify_one`]'s.

// The lanes' arithmetic is safe Rust on `#[target_feature]` functions; unsafe is needed to
// enter them (after the CPU is checked) and for the table gathers (see verify.rs).
#![allow(unsafe_code)]

mod field;
mod point;
mod scalar;
#[cfg(test)]
mod tests;
mod verify;

use std::collections::HashMap;

use vss_crypto::{Curve, PublicKey};

use self::scalar::Limbs;
use self::verify::{CurveParams, Lane};
use crate::VerifyJob;

/// Whether this CPU has AVX-512 IFMA (and AVX-512 F).
pub(crate) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512ifma")
}

/// A job's key: its affine coordinates, or `None` when it is not a valid point.
type ParsedKey = Option<(Limbs, Limbs)>;

/// The lanes of one curve, with the index of the job each came from.
#[derive(Default)]
struct CurveLanes {
    index: Vec<usize>,
    lanes: Vec<Lane>,
}

/// Parses a 32-byte big-endian number.
fn number(bytes: &[u8]) -> Option<scalar::U256> {
    <&[u8; 32]>::try_from(bytes).ok().map(scalar::from_be)
}

/// The digest as ECDSA's integer e for a 256-bit order: its leftmost 256 bits, or all of
/// it when shorter.
fn digest_integer(digest: &[u8]) -> scalar::U256 {
    let mut bytes = [0u8; 32];
    let used = digest.len().min(32);
    bytes[32 - used..].copy_from_slice(&digest[..used]);
    scalar::from_be(&bytes)
}

/// The lane for `job`, or its verdict when it is decided without arithmetic.
fn prepare(job: &VerifyJob<'_>, params: &CurveParams, key: &ParsedKey) -> Result<Lane, bool> {
    let Some((qx, qy)) = key else {
        return Err(false);
    };
    let e = digest_integer(job.digest);
    let (Some(r), Some(s)) = (number(&job.signature[..32]), number(&job.signature[32..])) else {
        return Err(false);
    };
    let in_range = |v: &scalar::U256| !scalar::is_zero(v) && scalar::lt(v, params.n());
    if !in_range(&r) || !in_range(&s) {
        return Err(false);
    }
    let (r_plus_n, carry) = scalar::add(&r, params.n());
    Ok(Lane {
        qx: *qx,
        qy: *qy,
        e: scalar::to_limbs(&e),
        r: scalar::to_limbs(&r),
        s: scalar::to_limbs(&s),
        r_plus_n: (!carry && scalar::lt(&r_plus_n, params.p()))
            .then(|| scalar::to_limbs(&r_plus_n)),
    })
}

/// The affine coordinates of a SEC 1 key, if it is a point of the curve.
fn parse_key(curve: Curve, bytes: &[u8]) -> ParsedKey {
    let key = PublicKey::from_sec1(curve, bytes).ok()?;
    let coordinate = |c: &[u8]| number(c).map(|v| scalar::to_limbs(&v));
    Some((coordinate(key.x())?, coordinate(key.y())?))
}

/// Verdicts for `jobs` into `verdicts` (same length). Must only be called when
/// [`available`] is true.
pub(crate) fn verify(jobs: &[VerifyJob<'_>], verdicts: &mut [bool]) {
    debug_assert!(available());
    let mut keys: HashMap<(Curve, &[u8]), ParsedKey> = HashMap::new();
    let mut p256 = CurveLanes::default();
    let mut bp256 = CurveLanes::default();
    for (index, job) in jobs.iter().enumerate() {
        let (params, lanes) = match job.curve {
            Curve::P256 => (CurveParams::p256(), &mut p256),
            Curve::Bp256 => (CurveParams::bp256(), &mut bp256),
            _ => {
                verdicts[index] = job.verify_one();
                continue;
            }
        };
        if job.signature.len() != 64 {
            verdicts[index] = job.verify_one();
            continue;
        }
        let key = keys
            .entry((job.curve, job.public_key))
            .or_insert_with(|| parse_key(job.curve, job.public_key));
        match prepare(job, params, key) {
            Ok(lane) => {
                lanes.index.push(index);
                lanes.lanes.push(lane);
            }
            Err(verdict) => verdicts[index] = verdict,
        }
    }
    for (params, lanes) in [(CurveParams::p256(), p256), (CurveParams::bp256(), bp256)] {
        if lanes.lanes.is_empty() {
            continue;
        }
        // SAFETY: the caller checked that the CPU has AVX-512 F and IFMA, the only target
        // features `verify_lanes` is compiled for.
        let groups = unsafe { verify::verify_lanes(params, &lanes.lanes) };
        for (group, indices) in groups.iter().zip(lanes.index.chunks(8)) {
            for (lane, &index) in indices.iter().enumerate() {
                verdicts[index] = if group.exceptional & (1 << lane) != 0 {
                    jobs[index].verify_one()
                } else {
                    group.valid & (1 << lane) != 0
                };
            }
        }
    }
}

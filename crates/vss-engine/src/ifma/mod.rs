//! The AVX-512 IFMA verifier: P-256 and brainpoolP256r1 signatures checked eight at a time
//! in 52-bit limbs. Verification touches only public data, so the arithmetic is written
//! here (and is not constant-time). Jobs are parsed and checked by [`crate::staging`], which
//! leaves other curves to the library; the rare lanes where two added points met are
//! verified by the library too, so every verdict equals [`VerifyJob::verify_one`]'s.

// The lanes' arithmetic is safe Rust on `#[target_feature]` functions; unsafe is needed to
// enter them (after the CPU is checked) and for the table gathers (see verify.rs).
#![allow(unsafe_code)]

mod detect;
mod field;
mod point;
mod scalar;
#[cfg(test)]
mod tests;
mod verify;

use vss_crypto::Curve;

use self::scalar::U256;
use self::verify::{CurveParams, Lane};
use crate::staging::{self, KeyCheck, StagedJob};
use crate::VerifyJob;

pub(crate) use self::detect::available;

/// The curve's constants.
fn params(curve: Curve) -> &'static CurveParams {
    match curve {
        Curve::P256 => CurveParams::p256(),
        _ => CurveParams::bp256(),
    }
}

/// A staged job in the lanes' radix, with r + n when it is below p.
fn lane(job: &StagedJob) -> Lane {
    let params = params(job.curve);
    let limbs = |v: &[u8; 32]| scalar::to_limbs(&scalar::from_be(v));
    let r: U256 = scalar::from_be(&job.r);
    let (r_plus_n, carry) = scalar::add(&r, params.n());
    Lane {
        qx: limbs(&job.qx),
        qy: limbs(&job.qy),
        e: limbs(&job.e),
        r: scalar::to_limbs(&r),
        s: limbs(&job.s),
        r_plus_n: (!carry && scalar::lt(&r_plus_n, params.p()))
            .then(|| scalar::to_limbs(&r_plus_n)),
    }
}

/// Verdicts for `jobs` into `verdicts` (same length). Must only be called when
/// [`available`] is true.
pub(crate) fn verify(jobs: &[VerifyJob<'_>], verdicts: &mut [bool]) {
    debug_assert!(available());
    let staged = staging::stage(jobs, verdicts, KeyCheck::Library).jobs;
    for curve in [Curve::P256, Curve::Bp256] {
        let (index, lanes): (Vec<usize>, Vec<Lane>) = staged
            .iter()
            .filter(|job| job.curve == curve)
            .map(|job| (job.index, lane(job)))
            .unzip();
        if lanes.is_empty() {
            continue;
        }
        // SAFETY: the caller checked that the CPU has AVX-512 F and IFMA, the only target
        // features `verify_lanes` is compiled for.
        let groups = unsafe { verify::verify_lanes(params(curve), &lanes) };
        for (group, indices) in groups.iter().zip(index.chunks(8)) {
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

//! The GPU engine's kernel (`kernels/`) built for the host by the C++ compiler: the same
//! source that NVRTC compiles for the GPU, so its arithmetic is tested against OpenSSL on
//! any machine, and the GPU's tables are made by the code that reads them.
//!
//! [`KernelCurve`] exposes the arithmetic (Montgomery field and scalar operations, Jacobian
//! points, u1·G + u2·Q, one verification, the tables of G and of prepared keys) for P-256
//! and brainpoolP256r1; [`crate::HostKernelEngine`] runs its batch kernels on one CPU thread.

// Calls into the host build of kernels/host.cpp. Every call passes pointers to values of the
// `#[repr(C)]` types below, which mirror the C structs field for field (all `u32`, so
// there is no padding), or to arrays of the lengths the C side reads.
#![allow(unsafe_code)]

use std::os::raw::c_int;
use std::sync::OnceLock;

use vss_crypto::Curve;

use crate::staging::Be256;

/// The kernel's source as NVRTC compiles it: the arithmetic, then the batch kernel.
#[cfg(feature = "gpu")]
pub(crate) const SOURCE: &str = concat!(
    include_str!("../kernels/ecdsa_verify.cuh"),
    include_str!("../kernels/ecdsa_verify.cu")
);

/// The batch kernel's name in [`SOURCE`].
#[cfg(feature = "gpu")]
pub(crate) const KERNEL_NAME: &str = "vss_ecdsa_verify_batch";

/// The batch kernel for prepared keys, in [`SOURCE`].
#[cfg(feature = "gpu")]
pub(crate) const PREPARED_KERNEL_NAME: &str = "vss_ecdsa_verify_prepared_batch";

/// A 256-bit integer as the kernel holds it: eight 32-bit limbs, least significant first.
pub type Limbs = [u32; 8];

/// Number of affine points in a curve's table of multiples of G (32 windows of 8 bits, 255
/// nonzero digits each).
pub const G_TABLE_LEN: usize = 32 * 255;

/// Words of one such table in device memory (16 per affine point).
#[cfg(feature = "gpu")]
pub(crate) const TABLE_WORDS: usize = G_TABLE_LEN * 16;

/// Words of one job in the kernel's input (Qx, Qy, e, r, s).
pub(crate) const JOB_WORDS: usize = 5 * 8;

/// An odd modulus (the field prime p or the group order n) and its Montgomery constants,
/// R = 2^256.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modulus {
    m: Limbs,
    r2: Limbs,
    one: Limbs,
    minv: u32,
    p256: u32,
}

/// A curve's constants as the kernel reads them (C `vss_curve`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CurveParams {
    p: Modulus,
    n: Modulus,
    a: Limbs,
    b: Limbs,
    gx: Limbs,
    gy: Limbs,
    a_is_minus_3: u32,
}

/// An affine point, coordinates in Montgomery form (C `vss_affine`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AffinePoint {
    /// x·R mod p.
    pub x: Limbs,
    /// y·R mod p.
    pub y: Limbs,
}

/// A Jacobian point (x = X/Z², y = Y/Z³), coordinates in Montgomery form; Z = 0 is the
/// point at infinity (C `vss_jacobian`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JacobianPoint {
    /// X·R mod p.
    pub x: Limbs,
    /// Y·R mod p.
    pub y: Limbs,
    /// Z·R mod p.
    pub z: Limbs,
}

mod ffi {
    use super::{AffinePoint, CurveParams, JacobianPoint, Modulus};
    use std::os::raw::c_int;

    extern "C" {
        pub(super) fn vss_host_curve(id: c_int, out: *mut CurveParams) -> c_int;
        pub(super) fn vss_host_table(
            c: *const CurveParams,
            p: *const AffinePoint,
            out: *mut AffinePoint,
        );
        pub(super) fn vss_host_mont_mul(
            m: *const Modulus,
            r: *mut u32,
            a: *const u32,
            b: *const u32,
        );
        pub(super) fn vss_host_mod_add(
            m: *const Modulus,
            r: *mut u32,
            a: *const u32,
            b: *const u32,
        );
        pub(super) fn vss_host_mod_sub(
            m: *const Modulus,
            r: *mut u32,
            a: *const u32,
            b: *const u32,
        );
        pub(super) fn vss_host_mont_inv(m: *const Modulus, r: *mut u32, a: *const u32);
        pub(super) fn vss_host_on_curve(c: *const CurveParams, q: *const AffinePoint) -> c_int;
        pub(super) fn vss_host_point_double(
            c: *const CurveParams,
            r: *mut JacobianPoint,
            p: *const JacobianPoint,
        );
        pub(super) fn vss_host_point_add(
            c: *const CurveParams,
            r: *mut JacobianPoint,
            p: *const JacobianPoint,
            q: *const JacobianPoint,
        );
        pub(super) fn vss_host_point_add_mixed(
            c: *const CurveParams,
            r: *mut JacobianPoint,
            p: *const JacobianPoint,
            q: *const AffinePoint,
        );
        pub(super) fn vss_host_point_mul(
            c: *const CurveParams,
            r: *mut JacobianPoint,
            k: *const u32,
            q: *const AffinePoint,
        );
        pub(super) fn vss_host_point_mul_add(
            c: *const CurveParams,
            table: *const AffinePoint,
            r: *mut JacobianPoint,
            u1: *const u32,
            u2: *const u32,
            q: *const AffinePoint,
        );
        pub(super) fn vss_host_verify(
            c: *const CurveParams,
            table: *const AffinePoint,
            qx: *const u32,
            qy: *const u32,
            e: *const u32,
            r: *const u32,
            s: *const u32,
        ) -> c_int;
        pub(super) fn vss_ecdsa_verify_batch(
            c: *const CurveParams,
            table: *const AffinePoint,
            input: *const u32,
            verdicts: *mut u8,
            count: u32,
        );
        pub(super) fn vss_ecdsa_verify_prepared_batch(
            c: *const CurveParams,
            table: *const AffinePoint,
            key_tables: *const AffinePoint,
            key_count: u32,
            input: *const u32,
            verdicts: *mut u8,
            count: u32,
        );
    }
}

/// A big-endian integer of at most 32 bytes as limbs; `None` when it is longer.
pub fn limbs_from_be(bytes: &[u8]) -> Option<Limbs> {
    if bytes.len() > 32 {
        return None;
    }
    let mut padded = [0u8; 32];
    padded[32 - bytes.len()..].copy_from_slice(bytes);
    let mut limbs = [0u32; 8];
    for (i, limb) in limbs.iter_mut().enumerate() {
        let at = 32 - 4 * (i + 1);
        *limb = u32::from_be_bytes([padded[at], padded[at + 1], padded[at + 2], padded[at + 3]]);
    }
    Some(limbs)
}

/// Limbs as 32 big-endian bytes.
pub fn limbs_to_be(limbs: &Limbs) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, limb) in limbs.iter().enumerate() {
        let at = 32 - 4 * (i + 1);
        out[at..at + 4].copy_from_slice(&limb.to_be_bytes());
    }
    out
}

impl Modulus {
    /// The modulus m.
    pub fn modulus(&self) -> Limbs {
        self.m
    }

    /// R² mod m.
    pub fn r2(&self) -> Limbs {
        self.r2
    }

    /// R mod m (one in Montgomery form).
    pub fn one(&self) -> Limbs {
        self.one
    }

    /// −m⁻¹ mod 2³².
    pub fn minv(&self) -> u32 {
        self.minv
    }

    /// Whether m is the P-256 prime, which the kernel reduces by shifts and adds.
    pub fn is_p256_prime(&self) -> bool {
        self.p256 != 0
    }

    /// a·b·R⁻¹ mod m (the kernel's Montgomery product; a below 2^256, b below m).
    pub fn mul(&self, a: &Limbs, b: &Limbs) -> Limbs {
        let mut r = [0u32; 8];
        // SAFETY: `self`, `a`, `b` and `r` are valid for the 8 limbs (and the struct) read
        // and written.
        unsafe { ffi::vss_host_mont_mul(self, r.as_mut_ptr(), a.as_ptr(), b.as_ptr()) };
        r
    }

    /// a + b mod m (a, b below m).
    pub fn add(&self, a: &Limbs, b: &Limbs) -> Limbs {
        let mut r = [0u32; 8];
        // SAFETY: as in `mul`.
        unsafe { ffi::vss_host_mod_add(self, r.as_mut_ptr(), a.as_ptr(), b.as_ptr()) };
        r
    }

    /// a − b mod m (a, b below m).
    pub fn sub(&self, a: &Limbs, b: &Limbs) -> Limbs {
        let mut r = [0u32; 8];
        // SAFETY: as in `mul`.
        unsafe { ffi::vss_host_mod_sub(self, r.as_mut_ptr(), a.as_ptr(), b.as_ptr()) };
        r
    }

    /// The inverse in Montgomery form: a⁻¹·R² mod m for a = x·R, i.e. (x⁻¹)·R; zero for zero.
    pub fn inv(&self, a: &Limbs) -> Limbs {
        let mut r = [0u32; 8];
        // SAFETY: as in `mul`.
        unsafe { ffi::vss_host_mont_inv(self, r.as_mut_ptr(), a.as_ptr()) };
        r
    }

    /// x·R mod m.
    pub fn to_montgomery(&self, x: &Limbs) -> Limbs {
        self.mul(x, &self.r2)
    }

    /// x·R⁻¹ mod m.
    pub fn from_montgomery(&self, x: &Limbs) -> Limbs {
        self.mul(x, &[1, 0, 0, 0, 0, 0, 0, 0])
    }
}

impl CurveParams {
    /// The field: p.
    pub fn field(&self) -> &Modulus {
        &self.p
    }

    /// The group order: n.
    pub fn order(&self) -> &Modulus {
        &self.n
    }

    /// The coefficient a, Montgomery form.
    pub fn a(&self) -> Limbs {
        self.a
    }

    /// The coefficient b, Montgomery form.
    pub fn b(&self) -> Limbs {
        self.b
    }

    /// Whether a = −3 (doubling then takes a shortcut).
    pub fn a_is_minus_3(&self) -> bool {
        self.a_is_minus_3 != 0
    }

    /// The generator G.
    pub fn generator(&self) -> AffinePoint {
        AffinePoint {
            x: self.gx,
            y: self.gy,
        }
    }

    /// The struct as the words the kernel reads.
    #[cfg(feature = "gpu")]
    pub(crate) fn as_words(&self) -> &[u32] {
        // SAFETY: `CurveParams` is `#[repr(C)]` and made of `u32`s and arrays of them only,
        // so it is `size_of / 4` initialised, aligned `u32`s without padding.
        unsafe {
            std::slice::from_raw_parts(
                (self as *const CurveParams).cast::<u32>(),
                std::mem::size_of::<CurveParams>() / 4,
            )
        }
    }
}

/// The curves the kernel verifies on, in the C code's numbering.
pub(crate) const KERNEL_CURVES: [Curve; 2] = [Curve::P256, Curve::Bp256];

/// One of the kernel's curves: its constants and its table of multiples of G, both made by
/// the kernel's code on the host.
#[derive(Debug)]
pub struct KernelCurve {
    curve: Curve,
    params: CurveParams,
    table: Vec<AffinePoint>,
}

impl KernelCurve {
    /// The kernel's P-256 or brainpoolP256r1 (built once per process); `None` for the
    /// curves the kernel does not take.
    pub fn get(curve: Curve) -> Option<&'static KernelCurve> {
        static CURVES: [OnceLock<KernelCurve>; 2] = [OnceLock::new(), OnceLock::new()];
        let id = KERNEL_CURVES.iter().position(|&c| c == curve)?;
        Some(CURVES[id].get_or_init(|| KernelCurve::build(curve, id)))
    }

    fn build(curve: Curve, id: usize) -> KernelCurve {
        let zero = [0u32; 8];
        let zero_modulus = Modulus {
            m: zero,
            r2: zero,
            one: zero,
            minv: 0,
            p256: 0,
        };
        let mut params = CurveParams {
            p: zero_modulus,
            n: zero_modulus,
            a: zero,
            b: zero,
            gx: zero,
            gy: zero,
            a_is_minus_3: 0,
        };
        // SAFETY: `params` is a valid `vss_curve` to write; `id` is 0 or 1, a curve the C
        // side knows (`KERNEL_CURVES` has two entries), so it fills every field.
        let known = unsafe { ffi::vss_host_curve(id as c_int, &mut params) };
        assert_eq!(known, 1, "the C side knows curve {id}");
        let mut kernel = KernelCurve {
            curve,
            params,
            table: Vec::new(),
        };
        kernel.table = kernel.table_of(&params.generator());
        kernel
    }

    /// d·2^(8w)·p at index w·255 + d − 1, for w < 32 and 1 ≤ d ≤ 255: the table the kernel
    /// walks for G, and for a prepared key. `p` must be a point of the curve.
    pub fn table_of(&self, p: &AffinePoint) -> Vec<AffinePoint> {
        let zero = [0u32; 8];
        let mut table = vec![AffinePoint { x: zero, y: zero }; G_TABLE_LEN];
        // SAFETY: `table` holds the `G_TABLE_LEN` points that the C side writes; `p` is a
        // valid point value.
        unsafe { ffi::vss_host_table(&self.params, p, table.as_mut_ptr()) };
        table
    }

    /// The table of a key given by its plain affine coordinates (big-endian, on the curve:
    /// staging checked them).
    pub(crate) fn key_table(&self, qx: &Be256, qy: &Be256) -> Vec<AffinePoint> {
        let limbs = |v: &Be256| limbs_from_be(v).unwrap_or_default();
        self.table_of(&self.point(&limbs(qx), &limbs(qy)))
    }

    /// The curve.
    pub fn curve(&self) -> Curve {
        self.curve
    }

    /// Its constants.
    pub fn params(&self) -> &CurveParams {
        &self.params
    }

    /// d·2^(8w)·G at index w·255 + d − 1, for w < 32 and 1 ≤ d ≤ 255.
    pub fn g_table(&self) -> &[AffinePoint] {
        &self.table
    }

    /// The point with plain affine coordinates x, y (below p; not checked to be on the curve).
    pub fn point(&self, x: &Limbs, y: &Limbs) -> AffinePoint {
        AffinePoint {
            x: self.params.p.to_montgomery(x),
            y: self.params.p.to_montgomery(y),
        }
    }

    /// Whether plain affine coordinates (big-endian) are a point of the curve: both below
    /// p, and the curve equation holds.
    pub(crate) fn is_key(&self, qx: &Be256, qy: &Be256) -> bool {
        let p = limbs_to_be(&self.params.p.m);
        if *qx >= p || *qy >= p {
            return false;
        }
        let limbs = |v: &Be256| limbs_from_be(v).unwrap_or_default();
        self.on_curve(&self.point(&limbs(qx), &limbs(qy)))
    }

    /// Whether `q` satisfies the curve equation.
    pub fn on_curve(&self, q: &AffinePoint) -> bool {
        // SAFETY: both pointers are to valid values of the mirrored structs.
        unsafe { ffi::vss_host_on_curve(&self.params, q) != 0 }
    }

    /// The point at infinity.
    pub fn infinity(&self) -> JacobianPoint {
        JacobianPoint {
            x: self.params.p.one,
            y: self.params.p.one,
            z: [0; 8],
        }
    }

    /// `q` in Jacobian coordinates (Z = 1).
    pub fn jacobian(&self, q: &AffinePoint) -> JacobianPoint {
        JacobianPoint {
            x: q.x,
            y: q.y,
            z: self.params.p.one,
        }
    }

    /// The plain affine coordinates of `q`; `None` for the point at infinity.
    pub fn coordinates(&self, q: &JacobianPoint) -> Option<(Limbs, Limbs)> {
        let f = &self.params.p;
        if q.z == [0; 8] {
            return None;
        }
        let zinv = f.inv(&q.z);
        let zinv2 = f.mul(&zinv, &zinv);
        let zinv3 = f.mul(&zinv2, &zinv);
        Some((
            f.from_montgomery(&f.mul(&q.x, &zinv2)),
            f.from_montgomery(&f.mul(&q.y, &zinv3)),
        ))
    }

    /// 2·p.
    pub fn double(&self, p: &JacobianPoint) -> JacobianPoint {
        let mut r = self.infinity();
        // SAFETY: all pointers are to valid values of the mirrored structs.
        unsafe { ffi::vss_host_point_double(&self.params, &mut r, p) };
        r
    }

    /// p + q.
    pub fn add(&self, p: &JacobianPoint, q: &JacobianPoint) -> JacobianPoint {
        let mut r = self.infinity();
        // SAFETY: all pointers are to valid values of the mirrored structs.
        unsafe { ffi::vss_host_point_add(&self.params, &mut r, p, q) };
        r
    }

    /// p + q, q affine (the kernel's mixed addition).
    pub fn add_mixed(&self, p: &JacobianPoint, q: &AffinePoint) -> JacobianPoint {
        let mut r = self.infinity();
        // SAFETY: all pointers are to valid values of the mirrored structs.
        unsafe { ffi::vss_host_point_add_mixed(&self.params, &mut r, p, q) };
        r
    }

    /// k·q with the kernel's 4-bit windows (any k below 2^256).
    pub fn mul(&self, k: &Limbs, q: &AffinePoint) -> JacobianPoint {
        let mut r = self.infinity();
        // SAFETY: all pointers are to valid values of the mirrored structs or to 8 limbs.
        unsafe { ffi::vss_host_point_mul(&self.params, &mut r, k.as_ptr(), q) };
        r
    }

    /// u1·G + u2·q, as the verifier computes it (the table for G, windows for q).
    pub fn mul_add(&self, u1: &Limbs, u2: &Limbs, q: &AffinePoint) -> JacobianPoint {
        let mut r = self.infinity();
        // SAFETY: the table holds the `G_TABLE_LEN` points the C side may read; the other
        // pointers are to valid values of the mirrored structs or to 8 limbs.
        unsafe {
            ffi::vss_host_point_mul_add(
                &self.params,
                self.table.as_ptr(),
                &mut r,
                u1.as_ptr(),
                u2.as_ptr(),
                q,
            )
        };
        r
    }

    /// The kernel's verdict for one signature: plain integers, e the digest's leftmost 256
    /// bits. The kernel itself refuses r or s outside 1..n−1 and a key off the curve.
    pub fn verify(&self, qx: &Limbs, qy: &Limbs, e: &Limbs, r: &Limbs, s: &Limbs) -> bool {
        // SAFETY: the table holds `G_TABLE_LEN` points; the others are 8 limbs each.
        unsafe {
            ffi::vss_host_verify(
                &self.params,
                self.table.as_ptr(),
                qx.as_ptr(),
                qy.as_ptr(),
                e.as_ptr(),
                r.as_ptr(),
                s.as_ptr(),
            ) != 0
        }
    }

    /// The table as the words the kernel reads.
    #[cfg(feature = "gpu")]
    pub(crate) fn table_words(&self) -> &[u32] {
        point_words(&self.table)
    }
}

/// Points as the words the kernel reads.
#[cfg(feature = "gpu")]
pub(crate) fn point_words(points: &[AffinePoint]) -> &[u32] {
    // SAFETY: `AffinePoint` is `#[repr(C)]` of two `[u32; 8]`, so the points are 16
    // initialised, aligned `u32`s each, without padding.
    unsafe {
        std::slice::from_raw_parts(
            points.as_ptr().cast::<u32>(),
            std::mem::size_of_val(points) / 4,
        )
    }
}

/// Jobs per kernel call; a larger batch is staged and verified in parts of this size, so the
/// kernel's 32-bit indices never overflow.
pub(crate) const MAX_KERNEL_JOBS: usize = 1 << 20;

impl KernelCurve {
    /// Runs the batch kernel on the host: one verdict byte in `out` per job of `input`
    /// (`JOB_WORDS` words each, at most MAX_KERNEL_JOBS jobs), with the prepared kernel when
    /// `key_tables` is given (`G_TABLE_LEN` points per slot; the kernel refuses a slot
    /// beyond them).
    pub(crate) fn run_batch(
        &self,
        input: &[u32],
        out: &mut [u8],
        key_tables: Option<&[AffinePoint]>,
    ) {
        let count = out.len().min(input.len() / JOB_WORDS).min(MAX_KERNEL_JOBS);
        let (params, table) = (&self.params, self.table.as_ptr());
        // SAFETY: `input` holds `JOB_WORDS` words for each of the `count` jobs and `out`
        // one byte each (count is at most MAX_KERNEL_JOBS, so it fits u32); the table holds
        // `G_TABLE_LEN` points, and `key_tables` `key_count` tables of as many.
        unsafe {
            match key_tables {
                Some(points) => ffi::vss_ecdsa_verify_prepared_batch(
                    params,
                    table,
                    points.as_ptr(),
                    (points.len() / G_TABLE_LEN) as u32,
                    input.as_ptr(),
                    out.as_mut_ptr(),
                    count as u32,
                ),
                None => ffi::vss_ecdsa_verify_batch(
                    params,
                    table,
                    input.as_ptr(),
                    out.as_mut_ptr(),
                    count as u32,
                ),
            }
        }
    }
}

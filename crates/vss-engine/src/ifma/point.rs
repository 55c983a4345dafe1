//! Short Weierstrass points in Jacobian coordinates (x = X/Z², y = Y/Z³), eight lanes at
//! once, all coordinates in Montgomery form. The addition formulas are the textbook ones
//! and are wrong when the two points are equal or opposite: each addition reports the lanes
//! where that happened (H = 0), and the caller treats them apart. The point at infinity is
//! not represented; callers track it per lane with a mask.

use std::arch::x86_64::__mmask8;

use super::field::{select, Fe, Field};

/// A curve y² = x³ + ax + b over the field (b is not needed to add points).
pub(super) struct CurveField {
    /// The base field.
    pub(super) f: Field,
    /// a, in Montgomery form.
    a: Fe,
    /// Whether a = −3 (P-256), which makes doubling cheaper.
    a_is_minus_3: bool,
}

/// Eight points in Jacobian coordinates.
#[derive(Clone, Copy)]
pub(super) struct Jacobian {
    pub(super) x: Fe,
    pub(super) y: Fe,
    pub(super) z: Fe,
}

/// Eight affine points.
#[derive(Clone, Copy)]
pub(super) struct Affine {
    pub(super) x: Fe,
    pub(super) y: Fe,
}

impl Jacobian {
    /// Per lane: `b` where `mask` is set, else `a`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn select(mask: __mmask8, a: &Jacobian, b: &Jacobian) -> Jacobian {
        Jacobian {
            x: select(mask, &a.x, &b.x),
            y: select(mask, &a.y, &b.y),
            z: select(mask, &a.z, &b.z),
        }
    }
}

impl CurveField {
    /// The curve with coefficient `a` (in Montgomery form) over `f`.
    pub(super) fn new(f: Field, a: Fe, a_is_minus_3: bool) -> CurveField {
        CurveField { f, a, a_is_minus_3 }
    }

    /// An affine point with Z = 1.
    pub(super) fn lift(&self, p: &Affine) -> Jacobian {
        Jacobian {
            x: p.x,
            y: p.y,
            z: self.f.one(),
        }
    }

    /// 2P (correct for every point but the point at infinity; the curves here have no
    /// point of order two).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn double(&self, p: &Jacobian) -> Jacobian {
        let f = &self.f;
        let zz = f.sqr(&p.z);
        let m = if self.a_is_minus_3 {
            // 3(X − Z²)(X + Z²)
            let m = f.mul(&f.sub_lazy(&p.x, &zz), &f.add_lazy(&p.x, &zz));
            f.add_lazy(&f.add(&m, &m), &m)
        } else {
            // 3X² + aZ⁴
            let xx = f.sqr(&p.x);
            let a_z4 = f.mul(&self.a, &f.sqr(&zz));
            f.add_lazy(&f.add(&f.add(&xx, &xx), &xx), &a_z4)
        };
        let y2 = f.add_lazy(&p.y, &p.y);
        let y2y2 = f.sqr(&y2); // 4Y²
        let s = f.mul(&p.x, &y2y2); // 4XY²
        let x3 = f.sub(&f.sqr(&m), &f.add(&s, &s));
        let y8 = f.half(&f.sqr(&y2y2)); // 8Y⁴
        let y3 = f.sub(&f.mul(&m, &f.sub_lazy(&s, &x3)), &y8);
        let z3 = f.mul(&y2, &p.z);
        Jacobian {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// P + Q for a Jacobian P and an affine Q; the lanes where P = ±Q (not handled).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn add_affine(&self, p: &Jacobian, q: &Affine) -> (Jacobian, __mmask8) {
        let f = &self.f;
        let z1z1 = f.sqr(&p.z);
        let u2 = f.mul(&q.x, &z1z1);
        let s2 = f.mul(&q.y, &f.mul(&p.z, &z1z1));
        self.finish_add(&p.x, &p.y, &u2, &s2, &p.z)
    }

    /// P + Q for Jacobian P and Q; the lanes where P = ±Q (not handled).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn add(&self, p: &Jacobian, q: &Jacobian) -> (Jacobian, __mmask8) {
        let f = &self.f;
        let z1z1 = f.sqr(&p.z);
        let z2z2 = f.sqr(&q.z);
        let u1 = f.mul(&p.x, &z2z2);
        let u2 = f.mul(&q.x, &z1z1);
        let s1 = f.mul(&p.y, &f.mul(&q.z, &z2z2));
        let s2 = f.mul(&q.y, &f.mul(&p.z, &z1z1));
        self.finish_add(&u1, &s1, &u2, &s2, &f.mul(&p.z, &q.z))
    }

    /// The common end of both additions, from U1, S1, U2, S2 and Z1·Z2.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn finish_add(&self, u1: &Fe, s1: &Fe, u2: &Fe, s2: &Fe, z1z2: &Fe) -> (Jacobian, __mmask8) {
        let f = &self.f;
        let h = f.sub(u2, u1);
        let r = f.sub_lazy(s2, s1); // only ever multiplied
        let hh = f.sqr(&h);
        let hhh = f.mul(&h, &hh);
        let v = f.mul(u1, &hh);
        let x3 = f.sub(&f.sub(&f.sqr(&r), &hhh), &f.add(&v, &v));
        let y3 = f.sub(&f.mul(&r, &f.sub_lazy(&v, &x3)), &f.mul(s1, &hhh));
        let z3 = f.mul(z1z2, &h);
        (
            Jacobian {
                x: x3,
                y: y3,
                z: z3,
            },
            f.is_zero(&h),
        )
    }
}

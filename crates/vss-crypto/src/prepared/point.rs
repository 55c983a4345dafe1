//! Points: affine (the tables' entries) and Jacobian (X/Z², Y/Z³; the identity has Z = 0),
//! with doubling, addition and mixed addition that handle every exceptional case (the
//! identity, P + P, P + (−P)): the inputs of verification are chosen by whoever sent them.

use super::curves::CurveSpec;
use super::field::Fe;

/// An element of the field of curve `C`.
pub(crate) type Fp<C, const N: usize> = Fe<<C as CurveSpec<N>>::Fp, N>;

/// A point other than the identity, as (x, y).
pub(crate) struct Affine<C: CurveSpec<N>, const N: usize> {
    /// x.
    pub(crate) x: Fp<C, N>,
    /// y.
    pub(crate) y: Fp<C, N>,
}

impl<C: CurveSpec<N>, const N: usize> Clone for Affine<C, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: CurveSpec<N>, const N: usize> Copy for Affine<C, N> {}

impl<C: CurveSpec<N>, const N: usize> Affine<C, N> {
    /// The point of big-endian coordinates, refused unless both are below p and the point is
    /// on the curve (the identity has no affine coordinates, so it cannot be given).
    pub(crate) fn from_coordinates(x: &[u8], y: &[u8]) -> Option<Self> {
        let point = Affine {
            x: Fe::from_be_bytes(x)?,
            y: Fe::from_be_bytes(y)?,
        };
        point.is_on_curve().then_some(point)
    }

    /// The generator.
    pub(crate) fn generator() -> Self {
        Affine {
            x: C::G.0,
            y: C::G.1,
        }
    }

    /// Whether y² = x³ + a·x + b.
    pub(crate) fn is_on_curve(&self) -> bool {
        self.y.square() == (self.x.square() + C::A) * self.x + C::B
    }

    /// −self.
    #[inline(always)]
    pub(crate) fn neg(self) -> Self {
        Affine {
            x: self.x,
            y: -self.y,
        }
    }
}

/// A point in Jacobian coordinates.
pub(crate) struct Jacobian<C: CurveSpec<N>, const N: usize> {
    /// X.
    pub(crate) x: Fp<C, N>,
    /// Y.
    pub(crate) y: Fp<C, N>,
    /// Z; zero for the identity.
    pub(crate) z: Fp<C, N>,
}

impl<C: CurveSpec<N>, const N: usize> Clone for Jacobian<C, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: CurveSpec<N>, const N: usize> Copy for Jacobian<C, N> {}

impl<C: CurveSpec<N>, const N: usize> From<Affine<C, N>> for Jacobian<C, N> {
    fn from(p: Affine<C, N>) -> Self {
        Jacobian {
            x: p.x,
            y: p.y,
            z: Fe::ONE,
        }
    }
}

impl<C: CurveSpec<N>, const N: usize> Jacobian<C, N> {
    /// The identity (the point at infinity).
    pub(crate) const IDENTITY: Self = Jacobian {
        x: Fe::ONE,
        y: Fe::ONE,
        z: Fe::ZERO,
    };

    /// Whether this is the identity.
    pub(crate) fn is_identity(&self) -> bool {
        self.z.is_zero()
    }

    /// 2·self (dbl-2001-b for a = −3, dbl-2007-bl otherwise); the identity doubles to
    /// itself (Z stays zero), and no point of a prime-order curve has y = 0.
    pub(crate) fn double(&self) -> Self {
        let (x, y, z) = (self.x, self.y, self.z);
        let zz = z.square();
        let yy = y.square();
        let m = if C::A_IS_MINUS_3 {
            let t = (x - zz) * (x + zz);
            t.double() + t
        } else {
            let xx = x.square();
            xx.double() + xx + C::A * zz.square()
        };
        let s = (x * yy).double().double();
        let x3 = m.square() - s.double();
        let yyyy8 = yy.square().double().double().double();
        Jacobian {
            x: x3,
            y: m * (s - x3) - yyyy8,
            z: (y + z).square() - yy - zz,
        }
    }

    /// self + other, both Jacobian (add-2007-bl).
    pub(crate) fn add(&self, other: &Self) -> Self {
        if self.is_identity() {
            return *other;
        }
        if other.is_identity() {
            return *self;
        }
        let z1z1 = self.z.square();
        let z2z2 = other.z.square();
        let u1 = self.x * z2z2;
        let u2 = other.x * z1z1;
        let s1 = self.y * other.z * z2z2;
        let s2 = other.y * self.z * z1z1;
        self.add_tail(u1, s1, u2, s2, self.z * other.z)
    }

    /// self + other for an affine `other` (madd: 8 multiplications and 3 squarings).
    #[inline]
    pub(crate) fn add_affine(&self, other: &Affine<C, N>) -> Self {
        if self.is_identity() {
            return Jacobian::from(*other);
        }
        let z1z1 = self.z.square();
        let u2 = other.x * z1z1;
        let s2 = other.y * self.z * z1z1;
        self.add_tail(self.x, self.y, u2, s2, self.z)
    }

    /// The common end of both additions, from U1 = X1·Z2², S1 = Y1·Z2³, U2 = X2·Z1²,
    /// S2 = Y2·Z1³ and Z1·Z2: equal points double, opposite points give the identity.
    #[inline(always)]
    fn add_tail(
        &self,
        u1: Fp<C, N>,
        s1: Fp<C, N>,
        u2: Fp<C, N>,
        s2: Fp<C, N>,
        z1z2: Fp<C, N>,
    ) -> Self {
        let h = u2 - u1;
        let r = s2 - s1;
        if h.is_zero() {
            return if r.is_zero() {
                self.double()
            } else {
                Self::IDENTITY
            };
        }
        let hh = h.square();
        let hhh = h * hh;
        let v = u1 * hh;
        let x3 = r.square() - hhh - v.double();
        Jacobian {
            x: x3,
            y: r * (v - x3) - s1 * hhh,
            z: z1z2 * h,
        }
    }
}

/// The affine forms of points none of which is the identity, with one inversion
/// (Montgomery's trick); `None` if one is the identity.
pub(crate) fn to_affine_batch<C: CurveSpec<N>, const N: usize>(
    points: &[Jacobian<C, N>],
) -> Option<Vec<Affine<C, N>>> {
    let mut prefix = Vec::with_capacity(points.len());
    let mut acc = Fe::ONE;
    for p in points {
        if p.is_identity() {
            return None;
        }
        prefix.push(acc);
        acc = acc * p.z;
    }
    let mut inv = acc.invert();
    let mut out = vec![
        Affine {
            x: Fe::ZERO,
            y: Fe::ZERO
        };
        points.len()
    ];
    for (i, p) in points.iter().enumerate().rev() {
        let z_inv = inv * prefix[i];
        inv = inv * p.z;
        let zz = z_inv.square();
        out[i] = Affine {
            x: p.x * zz,
            y: p.y * zz * z_inv,
        };
    }
    Some(out)
}

#[cfg(test)]
#[path = "point_tests.rs"]
mod tests;

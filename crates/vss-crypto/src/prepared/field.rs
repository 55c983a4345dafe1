//! Prime fields in Montgomery form over `N` 64-bit limbs (4 for 256-bit primes, 6 for
//! 384-bit): a [`Modulus`] names the prime, and the Montgomery constants follow from it at
//! compile time. Multiplication is CIOS (coarsely integrated operand scanning) on `u128`
//! products. Nothing here is constant-time: the fields serve verification, on public data.

use std::marker::PhantomData;
use std::ops::{Add, Mul, Neg, Sub};

use super::limbs;

/// An odd prime below 2^(64·N), with its Montgomery constants (R = 2^(64·N)).
pub(crate) trait Modulus<const N: usize>: Copy + 'static {
    /// The prime.
    const P: [u64; N];
    /// −P⁻¹ mod 2⁶⁴.
    const INV: u64 = neg_inverse(Self::P[0]);
    /// R mod P: one, in Montgomery form.
    const R: [u64; N] = pow2_mod(&Self::P, 64 * N);
    /// R² mod P: the factor that brings an integer into Montgomery form.
    const R2: [u64; N] = pow2_mod(&Self::P, 128 * N);
    /// P − 2: the exponent of Fermat's inversion.
    const P_MINUS_2: [u64; N] = limbs::sub(&Self::P, &limbs::small(2)).0;
}

/// −p⁻¹ mod 2⁶⁴ for odd `p`, by Newton's iteration (each step doubles the correct bits).
const fn neg_inverse(p: u64) -> u64 {
    let mut inv = 1u64;
    let mut i = 0;
    while i < 6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
        i += 1;
    }
    inv.wrapping_neg()
}

/// 2^k mod p, by k modular doublings of one.
const fn pow2_mod<const N: usize>(p: &[u64; N], k: usize) -> [u64; N] {
    let mut x = limbs::small::<N>(1);
    let mut i = 0;
    while i < k {
        x = add_mod(&x, &x, p);
        i += 1;
    }
    x
}

/// `a + b mod p` for `a, b < p`.
#[inline(always)]
const fn add_mod<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N]) -> [u64; N] {
    let (sum, carry) = limbs::add(a, b);
    let (reduced, borrow) = limbs::sub(&sum, p);
    if carry == 1 || borrow == 0 {
        reduced
    } else {
        sum
    }
}

/// `a − b mod p` for `a, b < p`.
#[inline(always)]
const fn sub_mod<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N]) -> [u64; N] {
    let (diff, borrow) = limbs::sub(a, b);
    if borrow == 1 {
        limbs::add(&diff, p).0
    } else {
        diff
    }
}

/// Montgomery's product `a·b·R⁻¹ mod p` for `a·b < p·R` (CIOS).
#[inline(always)]
const fn mont_mul<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N], inv: u64) -> [u64; N] {
    let mut t = [0u64; N];
    let mut top = 0u64;
    let mut i = 0;
    while i < N {
        let mut carry = 0;
        let mut j = 0;
        while j < N {
            (t[j], carry) = limbs::mac(t[j], a[j], b[i], carry);
            j += 1;
        }
        let (t_n, t_n1) = limbs::adc(top, carry, 0);
        let m = t[0].wrapping_mul(inv);
        let (_, mut carry) = limbs::mac(t[0], m, p[0], 0);
        j = 1;
        while j < N {
            (t[j - 1], carry) = limbs::mac(t[j], m, p[j], carry);
            j += 1;
        }
        let (low, high) = limbs::adc(t_n, carry, 0);
        t[N - 1] = low;
        top = t_n1 + high;
        i += 1;
    }
    let (reduced, borrow) = limbs::sub(&t, p);
    if top == 1 || borrow == 0 {
        reduced
    } else {
        t
    }
}

/// An element of the field of `M`, held as `x·R mod P` (always fully reduced, so equal
/// elements have equal limbs).
pub(crate) struct Fe<M, const N: usize> {
    limbs: [u64; N],
    modulus: PhantomData<M>,
}

impl<M, const N: usize> Clone for Fe<M, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M, const N: usize> Copy for Fe<M, N> {}

impl<M, const N: usize> PartialEq for Fe<M, N> {
    fn eq(&self, other: &Self) -> bool {
        self.limbs == other.limbs
    }
}

impl<M, const N: usize> Eq for Fe<M, N> {}

impl<M, const N: usize> std::fmt::Debug for Fe<M, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fe({:016x?})", self.limbs)
    }
}

impl<M: Modulus<N>, const N: usize> Fe<M, N> {
    /// Zero.
    pub(crate) const ZERO: Self = Self::montgomery([0; N]);
    /// One.
    pub(crate) const ONE: Self = Self::montgomery(M::R);

    const fn montgomery(limbs: [u64; N]) -> Self {
        Fe {
            limbs,
            modulus: PhantomData,
        }
    }

    /// The element of an integer below P (a compile-time constant of a curve).
    pub(crate) const fn from_canonical(x: &[u64; N]) -> Self {
        assert!(limbs::lt(x, &M::P), "constant not below its modulus");
        Self::montgomery(mont_mul(x, &M::R2, &M::P, M::INV))
    }

    /// The element of `x` if `x < P`.
    pub(crate) fn new(x: &[u64; N]) -> Option<Self> {
        limbs::lt(x, &M::P).then(|| Self::from_canonical(x))
    }

    /// The element of `x mod P`, for any `x` of `N` limbs.
    pub(crate) fn reduce(x: &[u64; N]) -> Self {
        let mut x = *x;
        while !limbs::lt(&x, &M::P) {
            x = limbs::sub(&x, &M::P).0;
        }
        Self::from_canonical(&x)
    }

    /// The element of a big-endian integer of at most `8·N` bytes, refused unless below P.
    pub(crate) fn from_be_bytes(bytes: &[u8]) -> Option<Self> {
        limbs::from_be_bytes(bytes).and_then(|x| Self::new(&x))
    }

    /// The integer this element stands for, below P.
    pub(crate) fn to_canonical(self) -> [u64; N] {
        mont_mul(&self.limbs, &limbs::small(1), &M::P, M::INV)
    }

    /// The `8·N` big-endian bytes of the integer this element stands for.
    #[cfg(test)]
    pub(crate) fn to_be_bytes(self) -> Vec<u8> {
        limbs::to_be_bytes(&self.to_canonical())
    }

    /// `self · x` as a plain integer, for `x` a plain integer below P: one Montgomery
    /// product, no conversion (`self = a·R`, so the product is `a·x`).
    pub(crate) fn mul_canonical(self, x: &[u64; N]) -> [u64; N] {
        mont_mul(&self.limbs, x, &M::P, M::INV)
    }

    /// Whether this is zero.
    pub(crate) fn is_zero(self) -> bool {
        limbs::is_zero(&self.limbs)
    }

    /// `self²`.
    #[inline(always)]
    pub(crate) fn square(self) -> Self {
        self * self
    }

    /// `2·self`.
    #[inline(always)]
    pub(crate) fn double(self) -> Self {
        self + self
    }

    /// `self^e` for an exponent of `N` limbs (variable time: 4-bit fixed windows).
    pub(crate) fn pow(self, e: &[u64; N]) -> Self {
        let mut powers = [Self::ONE; 16];
        for i in 1..16 {
            powers[i] = powers[i - 1] * self;
        }
        let mut acc = Self::ONE;
        for nibble in (0..16 * N).rev() {
            acc = acc.square().square().square().square();
            let d = limbs::bits(e, 4 * nibble, 4) as usize;
            if d != 0 {
                acc = acc * powers[d];
            }
        }
        acc
    }

    /// `self⁻¹` by Fermat (`self^(P−2)`); zero has no inverse and gives zero.
    pub(crate) fn invert(self) -> Self {
        self.pow(&M::P_MINUS_2)
    }
}

impl<M: Modulus<N>, const N: usize> Add for Fe<M, N> {
    type Output = Self;
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Self::montgomery(add_mod(&self.limbs, &rhs.limbs, &M::P))
    }
}

impl<M: Modulus<N>, const N: usize> Sub for Fe<M, N> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        Self::montgomery(sub_mod(&self.limbs, &rhs.limbs, &M::P))
    }
}

impl<M: Modulus<N>, const N: usize> Neg for Fe<M, N> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self::ZERO - self
    }
}

impl<M: Modulus<N>, const N: usize> Mul for Fe<M, N> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        Self::montgomery(mont_mul(&self.limbs, &rhs.limbs, &M::P, M::INV))
    }
}

#[cfg(test)]
#[path = "field_tests.rs"]
mod tests;

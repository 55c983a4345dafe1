//! Prime fields in Montgomery form over `N` 64-bit limbs (4 for 256-bit primes, 6 for
//! 384-bit): a [`Modulus`] names the prime, and the Montgomery constants follow from it at
//! compile time. Multiplication is CIOS (coarsely integrated operand scanning) on `u128`
//! products. Nothing here is constant-time: the fields serve verification, on public data.

use std::marker::PhantomData;
use std::ops::{Add, Mul, Neg, Sub};

use super::{inverse, limbs};

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
    /// R³ mod P: the factor that brings the inverse of a Montgomery form back to one.
    const R3: [u64; N] = mont_mul(&Self::R2, &Self::R2, &Self::P, Self::INV);
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

/// Montgomery's square `a²·R⁻¹ mod p` for `a < p`: the N(N−1)/2 cross products once,
/// doubled, the squares on the diagonal, then N rounds of reduction.
#[inline(always)]
const fn mont_square<const N: usize>(a: &[u64; N], p: &[u64; N], inv: u64) -> [u64; N] {
    assert!(N <= 6, "at most 384-bit moduli");
    let mut t = [0u64; 12];
    let mut i = 0;
    while i < N {
        let mut carry = 0;
        let mut j = i + 1;
        while j < N {
            (t[i + j], carry) = limbs::mac(t[i + j], a[i], a[j], carry);
            j += 1;
        }
        t[i + N] = carry;
        i += 1;
    }
    let mut shifted_out = 0;
    i = 0;
    while i < 2 * N {
        let v = t[i];
        t[i] = (v << 1) | shifted_out;
        shifted_out = v >> 63;
        i += 1;
    }
    let mut carry = 0;
    i = 0;
    while i < N {
        let (low, high) = limbs::mac(0, a[i], a[i], 0);
        let c;
        (t[2 * i], c) = limbs::adc(t[2 * i], low, carry);
        (t[2 * i + 1], carry) = limbs::adc(t[2 * i + 1], high, c);
        i += 1;
    }
    let mut top = 0;
    i = 0;
    while i < N {
        let m = t[i].wrapping_mul(inv);
        let mut carry = 0;
        let mut j = 0;
        while j < N {
            (t[i + j], carry) = limbs::mac(t[i + j], m, p[j], carry);
            j += 1;
        }
        (t[i + N], top) = limbs::adc(t[i + N], carry, top);
        i += 1;
    }
    let mut out = [0u64; N];
    i = 0;
    while i < N {
        out[i] = t[i + N];
        i += 1;
    }
    let (reduced, borrow) = limbs::sub(&out, p);
    if top == 1 || borrow == 0 {
        reduced
    } else {
        out
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
        Self::montgomery(mont_square(&self.limbs, &M::P, M::INV))
    }

    /// `2·self`.
    #[inline(always)]
    pub(crate) fn double(self) -> Self {
        self + self
    }

    /// `self⁻¹` (variable time); zero has no inverse and gives zero.
    pub(crate) fn invert(self) -> Self {
        if self.is_zero() {
            return self;
        }
        // The integer a·R inverts to a⁻¹·R⁻¹; times R³ in Montgomery's product, a⁻¹·R.
        let inverse = inverse::invert(&self.limbs, &M::P, M::INV.wrapping_neg());
        Self::montgomery(mont_mul(&inverse, &M::R3, &M::P, M::INV))
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

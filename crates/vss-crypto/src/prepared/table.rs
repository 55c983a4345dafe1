//! Fixed-base tables for signed (Booth) windows of `w` bits: for a base B, sub-table j holds
//! the affine points k·2^(w·j)·B for k = 1 … 2^(w−1), so that a scalar below 2^(bits−1)
//! written in ⌈bits/w⌉ signed digits costs one mixed addition per nonzero digit and no
//! doubling. A curve's generator table is built once per process.

use std::sync::OnceLock;

use super::curves::{Bp256, Bp384, CurveSpec, P256, P384};
use super::field::Modulus;
use super::limbs;
use super::point::{to_affine_batch, Affine, Jacobian};

/// The window of the generator tables: 8 bits (P-256: 32 × 128 points, 256 KiB per curve).
pub(crate) const GENERATOR_WINDOW: u32 = 8;

/// The multiples of one base point for signed windows of `window` bits.
pub(crate) struct Table<C: CurveSpec<N>, const N: usize> {
    window: u32,
    points: Vec<Affine<C, N>>,
}

impl<C: CurveSpec<N>, const N: usize> Table<C, N> {
    /// The number of signed digits of a scalar below 2^(bits−1).
    pub(crate) fn windows(window: u32) -> usize {
        C::BITS.div_ceil(window as usize)
    }

    /// The table of `base` (window between 2 and 16 bits; the caller checks its range).
    /// Each sub-table's base B_j is made affine (one inversion) so that its multiples are
    /// mixed additions, and B_(j+1) = 2·(2^(w−1)·B_j) is one doubling of its last entry; the
    /// entries are made affine together at the end.
    pub(crate) fn new(base: &Affine<C, N>, window: u32) -> Option<Self> {
        let entries = 1usize << (window - 1);
        let mut points = Vec::with_capacity(Self::windows(window) * entries);
        let mut b = *base;
        for j in 0..Self::windows(window) {
            let mut k_b = Jacobian::from(b);
            points.push(k_b);
            for _ in 1..entries {
                k_b = k_b.add_affine(&b);
                points.push(k_b);
            }
            if j + 1 < Self::windows(window) {
                b = *to_affine_batch(&[k_b.double()])?.first()?;
            }
        }
        Some(Table {
            window,
            points: to_affine_batch(&points)?,
        })
    }

    /// The window in bits.
    pub(crate) fn window(&self) -> u32 {
        self.window
    }

    /// The bytes the points take.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.points.len() * std::mem::size_of::<Affine<C, N>>()
    }

    /// The signed digits of a scalar `k` below n, one per sub-table, least significant
    /// first: k is read as ±k′ with k′ below n/2 (k′ = n − k and every digit negated when k
    /// is above n/2), then in Booth windows of `window` bits, each digit in
    /// [−2^(w−1), 2^(w−1)].
    pub(crate) fn digits(&self, k: &[u64; N]) -> Digits {
        let n = <C::Fn as Modulus<N>>::P;
        let negate = limbs::lt(&limbs::shr(&n, 0, 1), k);
        let k = if negate { limbs::sub(&n, k).0 } else { *k };
        let half = 1i32 << (self.window - 1);
        let mut digits = Digits {
            values: [0; MAX_DIGITS],
            len: Self::windows(self.window),
        };
        let mut carry = 0;
        for (j, digit) in digits.values[..digits.len].iter_mut().enumerate() {
            let raw = limbs::bits(&k, j * self.window as usize, self.window) as i32 + carry;
            carry = i32::from(raw > half);
            let signed = raw - (carry << self.window);
            *digit = if negate { -signed } else { signed };
        }
        debug_assert_eq!(carry, 0, "a scalar below n/2 needs no digit past the table");
        digits
    }

    /// The point of `digit` in sub-table `j`: digit·2^(w·j)·B, `None` for a zero digit.
    #[inline(always)]
    pub(crate) fn entry(&self, j: usize, digit: i32) -> Option<Affine<C, N>> {
        let entries = 1usize << (self.window - 1);
        debug_assert!(
            digit.unsigned_abs() as usize <= entries,
            "a digit of another window"
        );
        let point = *self
            .points
            .get(j * entries + (digit.unsigned_abs() as usize).checked_sub(1)?)?;
        Some(if digit < 0 { point.neg() } else { point })
    }
}

/// The most digits a scalar has: 384 bits in windows of 2.
const MAX_DIGITS: usize = 192;

/// The signed digits of a scalar for one table ([`Table::digits`]).
pub(crate) struct Digits {
    values: [i32; MAX_DIGITS],
    len: usize,
}

impl Digits {
    /// The number of digits (the table's sub-tables).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Digit `j`; zero past the end.
    #[inline(always)]
    pub(crate) fn get(&self, j: usize) -> i32 {
        if j < self.len {
            self.values[j]
        } else {
            0
        }
    }
}

/// The curves whose generator table is kept for the whole process.
pub(crate) trait GeneratorTable<const N: usize>: CurveSpec<N> {
    /// The generator's table, built on first use.
    fn generator_table() -> &'static Table<Self, N>;
}

/// The generator tables, one static per curve.
macro_rules! generator_table {
    ($($curve:ident, $n:literal;)*) => {$(
        impl GeneratorTable<$n> for $curve {
            fn generator_table() -> &'static Table<Self, $n> {
                static TABLE: OnceLock<Table<$curve, $n>> = OnceLock::new();
                TABLE.get_or_init(|| {
                    Table::new(&Affine::generator(), GENERATOR_WINDOW)
                        .expect("the multiples of the generator are not the identity")
                })
            }
        }
    )*};
}

generator_table! {
    P256, 4;
    P384, 6;
    Bp256, 4;
    Bp384, 6;
}

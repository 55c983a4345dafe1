//! ECDSA verification with two fixed-base tables (SEC 1 §4.1.4, FIPS 186-5 §6.4.2): e is the
//! digest's leftmost bits (as many as n has), w = s⁻¹, u1 = e·w and u2 = r·w mod n,
//! R = u1·G + u2·Q in one accumulator, and x(R) ≡ r (mod n) checked without an inversion.

use super::curves::CurveSpec;
use super::field::{Fe, Modulus};
use super::limbs;
use super::point::{Fp, Jacobian};
use super::table::{GeneratorTable, Table};

/// A scalar of a signature, if it is `8·N` big-endian bytes and in [1, n − 1].
fn scalar<C: CurveSpec<N>, const N: usize>(bytes: &[u8]) -> Option<[u64; N]> {
    let n = <C::Fn as Modulus<N>>::P;
    let x = limbs::from_be_bytes::<N>(bytes).filter(|_| bytes.len() == 8 * N)?;
    (!limbs::is_zero(&x) && limbs::lt(&x, &n)).then_some(x)
}

/// The integer e of a digest, reduced modulo n: the digest's leftmost `8·N` bytes (n's bit
/// length is a multiple of 8), or all of a shorter digest.
fn digest_scalar<C: CurveSpec<N>, const N: usize>(digest: &[u8]) -> [u64; N] {
    let leftmost = &digest[..digest.len().min(8 * N)];
    let e = limbs::from_be_bytes::<N>(leftmost).unwrap_or([0; N]);
    Fe::<C::Fn, N>::reduce(&e).to_canonical()
}

/// Whether (r, s) is a valid signature of `digest` under the key of `table`.
pub(crate) fn verify<C: GeneratorTable<N>, const N: usize>(
    table: &Table<C, N>,
    digest: &[u8],
    r: &[u8],
    s: &[u8],
) -> bool {
    let (Some(r), Some(s)) = (scalar::<C, N>(r), scalar::<C, N>(s)) else {
        return false;
    };
    let e = digest_scalar::<C, N>(digest);
    let w = Fe::<C::Fn, N>::from_canonical(&s).invert();
    let u1 = w.mul_canonical(&e);
    let u2 = w.mul_canonical(&r);
    let g_table = C::generator_table();
    let (g_digits, q_digits) = (g_table.digits(&u1), table.digits(&u2));
    // Two accumulators, u1·G and u2·Q, whose additions are independent: the processor
    // overlaps them.
    let (mut g_sum, mut q_sum) = (Jacobian::IDENTITY, Jacobian::IDENTITY);
    for j in 0..g_digits.len().max(q_digits.len()) {
        if let Some(point) = g_table.entry(j, g_digits.get(j)) {
            g_sum = g_sum.add_affine(&point);
        }
        if let Some(point) = table.entry(j, q_digits.get(j)) {
            q_sum = q_sum.add_affine(&point);
        }
    }
    x_matches(&g_sum.add(&q_sum), &r)
}

/// Whether x(R) mod n = r for R ≠ identity: X = r·Z², or X = (r + n)·Z² when r + n < p
/// (the only other x below p that reduces to r, as n < p < 2n).
fn x_matches<C: CurveSpec<N>, const N: usize>(point: &Jacobian<C, N>, r: &[u64; N]) -> bool {
    if point.is_identity() {
        return false;
    }
    let zz = point.z.square();
    let candidate = |x: &[u64; N]| Fp::<C, N>::new(x).is_some_and(|x| x * zz == point.x);
    let (r_plus_n, carry) = limbs::add(r, &<C::Fn as Modulus<N>>::P);
    candidate(r) || (carry == 0 && candidate(&r_plus_n))
}

//! Plain 256-bit integers (four little-endian 64-bit words) for the work around the lanes:
//! parsing, range checks, the constants of Montgomery arithmetic, and window recoding.

/// A 256-bit unsigned integer, least significant word first.
pub(super) type U256 = [u64; 4];

/// Five 52-bit limbs, least significant first: the lanes' radix.
pub(super) type Limbs = [u64; 5];

const MASK52: u64 = (1 << 52) - 1;

/// Parses 32 big-endian bytes.
pub(super) fn from_be(bytes: &[u8; 32]) -> U256 {
    let mut out = [0u64; 4];
    for (i, word) in out.iter_mut().enumerate() {
        let start = 32 - 8 * (i + 1);
        let mut be = [0u8; 8];
        be.copy_from_slice(&bytes[start..start + 8]);
        *word = u64::from_be_bytes(be);
    }
    out
}

/// Parses a big-endian hex constant of at most 64 digits.
pub(super) fn from_hex(hex: &str) -> U256 {
    let mut out = [0u64; 4];
    for (i, digit) in hex.bytes().rev().enumerate() {
        let value = match digit {
            b'0'..=b'9' => digit - b'0',
            b'a'..=b'f' => digit - b'a' + 10,
            _ => panic!("constant is not lower-case hex"),
        };
        out[i / 16] |= u64::from(value) << (4 * (i % 16));
    }
    out
}

/// `a < b`.
pub(super) fn lt(a: &U256, b: &U256) -> bool {
    a.iter().rev().cmp(b.iter().rev()).is_lt()
}

/// `a + b` and the carry out.
pub(super) fn add(a: &U256, b: &U256) -> (U256, bool) {
    let mut out = [0u64; 4];
    let mut carry = false;
    for i in 0..4 {
        let (s, c1) = a[i].overflowing_add(b[i]);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        out[i] = s;
        carry = c1 || c2;
    }
    (out, carry)
}

/// `a - b` and the borrow out.
pub(super) fn sub(a: &U256, b: &U256) -> (U256, bool) {
    let mut out = [0u64; 4];
    let mut borrow = false;
    for i in 0..4 {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        out[i] = d;
        borrow = b1 || b2;
    }
    (out, borrow)
}

/// `2a mod m`, for `a < m`.
fn double_mod(a: &U256, m: &U256) -> U256 {
    let (twice, carry) = add(a, a);
    let (reduced, borrow) = sub(&twice, m);
    if carry || !borrow {
        reduced
    } else {
        twice
    }
}

/// `2^k mod m` (for `m > 1`), by doubling.
pub(super) fn pow2_mod(k: u32, m: &U256) -> U256 {
    let mut x = [1, 0, 0, 0];
    for _ in 0..k {
        x = double_mod(&x, m);
    }
    x
}

/// `-m⁻¹ mod 2⁵²` for odd `m` (Newton's iteration on the low word).
pub(super) fn neg_inverse52(m0: u64) -> u64 {
    let mut inv: u64 = 1;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
    }
    inv.wrapping_neg() & MASK52
}

/// The 52-bit limbs of `a`.
pub(super) fn to_limbs(a: &U256) -> Limbs {
    let mut out = [0u64; 5];
    for (i, limb) in out.iter_mut().enumerate() {
        *limb = bits(a, 52 * i as u32, 52);
    }
    out
}

/// The integer of 52-bit limbs (each below 2⁵², the value below 2²⁵⁶).
pub(super) fn from_limbs(limbs: &Limbs) -> U256 {
    let mut out = [0u64; 4];
    for (i, limb) in limbs.iter().enumerate() {
        let at = 52 * i;
        let (word, shift) = (at / 64, at % 64);
        out[word] |= limb << shift;
        if shift > 12 && word + 1 < 4 {
            out[word + 1] |= limb >> (64 - shift);
        }
    }
    out
}

/// `width` bits of `a` from bit `at` (bits past the top read as zero).
fn bits(a: &U256, at: u32, width: u32) -> u64 {
    let (word, shift) = ((at / 64) as usize, at % 64);
    if word >= 4 {
        return 0;
    }
    let mut v = a[word] >> shift;
    if shift + width > 64 && word + 1 < 4 {
        v |= a[word + 1] << (64 - shift);
    }
    v & ((1u64 << width) - 1)
}

/// Signed radix-2^w digits of `k` (below 2²⁵⁶), least significant first: each in
/// `-2^(w-1) ..= 2^(w-1)`, with `Σ digits[i]·2^(w·i) = k`.
pub(super) fn signed_digits(k: &U256, w: u32, digits: &mut [i32]) {
    let half = 1i32 << (w - 1);
    let mut carry = 0;
    for (i, d) in digits.iter_mut().enumerate() {
        let mut v = bits(k, w * i as u32, w) as i32 + carry;
        carry = 0;
        if v > half {
            v -= 1 << w;
            carry = 1;
        }
        *d = v;
    }
    debug_assert_eq!(carry, 0, "too few digits for the scalar");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limbs_round_trip() {
        let a = from_hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff");
        assert_eq!(from_limbs(&to_limbs(&a)), a);
        assert!(to_limbs(&a).iter().all(|l| *l <= MASK52));
    }

    #[test]
    fn digits_sum_to_the_scalar() {
        let k = from_hex("a9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a6");
        for w in [4u32, 5, 7] {
            let mut digits = vec![0i32; 257usize.div_ceil(w as usize)];
            signed_digits(&k, w, &mut digits);
            // Horner's rule from the top digit, in i128 words of 256 + some bits.
            let mut acc: [i128; 5] = [0; 5];
            for d in digits.iter().rev() {
                for limb in acc.iter_mut() {
                    *limb <<= w;
                }
                acc[0] += i128::from(*d);
                for i in 0..4 {
                    let carry = acc[i] >> 64;
                    acc[i] -= carry << 64;
                    acc[i + 1] += carry;
                }
            }
            let got: Vec<u64> = acc[..4].iter().map(|v| *v as u64).collect();
            assert_eq!(got, k.to_vec(), "w = {w}");
            assert_eq!(acc[4], 0);
        }
    }

    #[test]
    fn montgomery_constants() {
        // P-256's prime is -1 modulo 2^52, so -p^-1 is 1.
        let p = from_hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff");
        assert_eq!(neg_inverse52(p[0]), 1);
        let n = from_hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
        let inv = neg_inverse52(n[0]);
        assert_eq!(n[0].wrapping_mul(inv) & MASK52, MASK52, "n·(-n⁻¹) ≡ -1");
        // 2^256 mod p = 2^224 - 2^192 - 2^96 + 1.
        let r = pow2_mod(256, &p);
        assert_eq!(
            r,
            from_hex("00000000fffffffeffffffffffffffffffffffff000000000000000000000001")
        );
    }
}

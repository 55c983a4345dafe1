//! Unsigned integers of `N` 64-bit limbs, least significant first: the carries, comparisons
//! and conversions the fields and the scalars share. Every function is `const`, so the curve
//! constants and the Montgomery constants are computed at compile time.

/// `a + b + carry` as (sum, carry out).
///
/// On 64-bit targets through u128, which compiles to add-with-carry chains; on 32-bit
/// targets with u64 halves. Built for armv7 by `rustc` 1.96 (Debian's rustc-web, as
/// `scripts/cross` builds), the u128 forms of `adc` and `mac` gave field squares off by
/// 2^160 (`scripts/cross armv7-unknown-linux-gnueabihf test` found it; the same source is
/// right on x86-64 and aarch64), the u64 forms the right ones; on x86-64 the u64 forms are
/// 32% slower.
#[cfg(target_pointer_width = "64")]
#[inline(always)]
pub(crate) const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// `a + b + carry` as (sum, carry out), in u64 halves (see the 64-bit form).
#[cfg(not(target_pointer_width = "64"))]
#[inline(always)]
pub(crate) const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let (sum, c1) = a.overflowing_add(b);
    let (sum, c2) = sum.overflowing_add(carry);
    (sum, c1 as u64 + c2 as u64)
}

/// `a - b - borrow` as (difference, borrow out); `borrow` is 0 or 1.
#[cfg(target_pointer_width = "64")]
#[inline(always)]
pub(crate) const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub(b as u128 + borrow as u128);
    (t as u64, (t >> 127) as u64)
}

/// `a - b - borrow` as (difference, borrow out), in u64 halves (see [`adc`]).
#[cfg(not(target_pointer_width = "64"))]
#[inline(always)]
pub(crate) const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let (difference, b1) = a.overflowing_sub(b);
    let (difference, b2) = difference.overflowing_sub(borrow);
    (difference, (b1 | b2) as u64)
}

/// `acc + a·b + carry` as (low, high): never overflows 128 bits.
#[cfg(target_pointer_width = "64")]
#[inline(always)]
pub(crate) const fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = acc as u128 + (a as u128) * (b as u128) + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// `acc + a·b + carry` as (low, high), the additions in u64 halves (see [`adc`]).
#[cfg(not(target_pointer_width = "64"))]
#[inline(always)]
pub(crate) const fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let product = (a as u128) * (b as u128);
    let (low, c1) = (product as u64).overflowing_add(acc);
    let (low, c2) = low.overflowing_add(carry);
    (low, (product >> 64) as u64 + c1 as u64 + c2 as u64)
}

/// `a + b` and the carry out.
#[inline(always)]
pub(crate) const fn add<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], u64) {
    let mut out = [0u64; N];
    let mut carry = 0;
    let mut i = 0;
    while i < N {
        (out[i], carry) = adc(a[i], b[i], carry);
        i += 1;
    }
    (out, carry)
}

/// `a - b` and the borrow out.
#[inline(always)]
pub(crate) const fn sub<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], u64) {
    let mut out = [0u64; N];
    let mut borrow = 0;
    let mut i = 0;
    while i < N {
        (out[i], borrow) = sbb(a[i], b[i], borrow);
        i += 1;
    }
    (out, borrow)
}

/// Whether `a < b`.
#[inline(always)]
pub(crate) const fn lt<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    sub(a, b).1 == 1
}

/// Whether every limb is zero.
#[inline(always)]
pub(crate) const fn is_zero<const N: usize>(a: &[u64; N]) -> bool {
    let mut i = 0;
    while i < N {
        if a[i] != 0 {
            return false;
        }
        i += 1;
    }
    true
}

/// The integer `v` (below 2⁶⁴) as limbs.
pub(crate) const fn small<const N: usize>(v: u64) -> [u64; N] {
    let mut out = [0u64; N];
    out[0] = v;
    out
}

/// `(a + top·2^(64·N)) >> t` for `0 < t < 64` (the bits shifted past the top are lost).
#[inline(always)]
pub(crate) fn shr<const N: usize>(a: &[u64; N], top: u64, t: u32) -> [u64; N] {
    let mut out = [0u64; N];
    for i in 0..N {
        let next = if i + 1 < N { a[i + 1] } else { top };
        out[i] = (a[i] >> t) | (next << (64 - t));
    }
    out
}

/// `width` bits of `a` from bit `start` (`width` at most 32; bits past the top read as zero).
#[inline(always)]
pub(crate) fn bits<const N: usize>(a: &[u64; N], start: usize, width: u32) -> u32 {
    let (limb, shift) = (start / 64, start % 64);
    let low = a.get(limb).map_or(0, |l| l >> shift);
    let high = match a.get(limb + 1) {
        Some(l) if shift + width as usize > 64 => l << (64 - shift),
        _ => 0,
    };
    ((low | high) & ((1u64 << width) - 1)) as u32
}

/// The big-endian hex string of a constant (at most `16·N` digits) as limbs; panics at
/// compile time on a digit that is not hex.
pub(crate) const fn from_hex<const N: usize>(hex: &str) -> [u64; N] {
    let digits = hex.as_bytes();
    assert!(digits.len() <= 16 * N, "hex constant too long");
    let mut out = [0u64; N];
    let mut i = 0;
    while i < digits.len() {
        let d = digits[digits.len() - 1 - i];
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => panic!("not a hex digit"),
        };
        out[i / 16] |= (v as u64) << (4 * (i % 16));
        i += 1;
    }
    out
}

/// A big-endian integer of at most `8·N` bytes as limbs; `None` if it is longer.
pub(crate) fn from_be_bytes<const N: usize>(bytes: &[u8]) -> Option<[u64; N]> {
    if bytes.len() > 8 * N {
        return None;
    }
    let mut out = [0u64; N];
    for (i, b) in bytes.iter().rev().enumerate() {
        out[i / 8] |= u64::from(*b) << (8 * (i % 8));
    }
    Some(out)
}

/// The `8·N` big-endian bytes of `a`.
#[cfg(test)]
pub(crate) fn to_be_bytes<const N: usize>(a: &[u64; N]) -> Vec<u8> {
    a.iter().rev().flat_map(|l| l.to_be_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_bytes_and_bits_agree() {
        let a: [u64; 4] =
            from_hex("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
        let bytes: Vec<u8> = (1..=32).collect();
        assert_eq!(from_be_bytes::<4>(&bytes), Some(a));
        assert_eq!(to_be_bytes(&a), bytes);
        assert_eq!(from_be_bytes::<4>(&[0u8; 33]), None);
        assert_eq!(bits(&a, 0, 8), 0x20);
        assert_eq!(bits(&a, 60, 8), 0x81, "across a limb boundary");
        assert_eq!(bits(&a, 252, 8), 0, "past the top");
        assert_eq!(shr(&[1u64, 1], 0, 1), [1u64 << 63, 0]);
        assert_eq!(shr(&[0u64, 0], 1, 4), [0, 1u64 << 60]);
    }

    #[test]
    fn carries_and_borrows_propagate() {
        let max = [u64::MAX; 3];
        assert_eq!(add(&max, &small(1)), ([0; 3], 1));
        assert_eq!(sub(&[0; 3], &small(1)), (max, 1));
        assert!(lt(&small::<3>(5), &max) && !lt(&max, &max));
        assert!(is_zero(&[0u64; 3]) && !is_zero(&small::<3>(1)));
    }
}

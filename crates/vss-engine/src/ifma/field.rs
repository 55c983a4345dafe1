//! Montgomery arithmetic modulo a 256-bit odd number, eight lanes at once: five 52-bit limbs
//! per value in five AVX-512 registers, products with IFMA (`vpmadd52luq`/`vpmadd52huq`).
//! R is 2²⁶⁰. Values are kept below 2m, not fully reduced: with 4m < R a Montgomery
//! product of two values below 4m is below 2m, so sums feed products without reduction.

use std::arch::x86_64::*;

use super::scalar::{self, Limbs, U256};

/// Eight field elements, one per lane: limb `i` of every lane in register `i`.
#[derive(Clone, Copy)]
pub(super) struct Fe(pub(super) [__m512i; 5]);

/// A modulus and the constants of its Montgomery arithmetic, as plain integers.
pub(super) struct Modulus {
    m: Limbs,
    two_m: Limbs,
    m_prime: u64,
    r2: Limbs,
    one: Limbs,
    /// m − 2, the exponent of an inversion by Fermat's little theorem.
    inverse_exponent: U256,
}

impl Modulus {
    /// The constants for `m` (odd, 2²⁵⁴ < m < 2²⁵⁶).
    pub(super) fn new(m: &U256) -> Modulus {
        let (two_m, carry) = scalar::add(m, m);
        let mut two_m = scalar::to_limbs(&two_m);
        // 2m has 257 bits; bit 256 is bit 48 of limb 4.
        if carry {
            two_m[4] |= 1 << 48;
        }
        Modulus {
            m: scalar::to_limbs(m),
            two_m,
            m_prime: scalar::neg_inverse52(m[0]),
            r2: scalar::to_limbs(&scalar::pow2_mod(520, m)),
            one: scalar::to_limbs(&scalar::pow2_mod(260, m)),
            inverse_exponent: scalar::sub(m, &[2, 0, 0, 0]).0,
        }
    }
}

/// A modulus broadcast to all lanes.
pub(super) struct Field {
    m: [__m512i; 5],
    two_m: [__m512i; 5],
    m_prime: __m512i,
    mask: __m512i,
    r2: Fe,
    one: Fe,
    inverse_exponent: U256,
}

/// One value in every lane.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn splat(limbs: &Limbs) -> Fe {
    Fe(limbs.map(|l| _mm512_set1_epi64(l as i64)))
}

/// Lane `i` from `lanes[i]`.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn gather_lanes(lanes: &[Limbs; 8]) -> Fe {
    let limb = |i: usize| {
        let l = |k: usize| lanes[k][i] as i64;
        _mm512_set_epi64(l(7), l(6), l(5), l(4), l(3), l(2), l(1), l(0))
    };
    Fe([limb(0), limb(1), limb(2), limb(3), limb(4)])
}

/// The limbs of every lane.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn scatter_lanes(a: &Fe) -> [Limbs; 8] {
    let mut words = [[0u64; 8]; 5];
    for (limb, out) in a.0.iter().zip(words.iter_mut()) {
        let lo = _mm512_castsi512_si256(*limb);
        let hi = _mm512_extracti64x4_epi64::<1>(*limb);
        let quarter = |v: __m256i| {
            [
                _mm256_extract_epi64::<0>(v) as u64,
                _mm256_extract_epi64::<1>(v) as u64,
                _mm256_extract_epi64::<2>(v) as u64,
                _mm256_extract_epi64::<3>(v) as u64,
            ]
        };
        out[..4].copy_from_slice(&quarter(lo));
        out[4..].copy_from_slice(&quarter(hi));
    }
    std::array::from_fn(|lane| std::array::from_fn(|i| words[i][lane]))
}

impl Field {
    /// The field of integers modulo `modulus`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn new(modulus: &Modulus) -> Field {
        Field {
            m: splat(&modulus.m).0,
            two_m: splat(&modulus.two_m).0,
            m_prime: _mm512_set1_epi64(modulus.m_prime as i64),
            mask: _mm512_set1_epi64(((1u64 << 52) - 1) as i64),
            r2: splat(&modulus.r2),
            one: splat(&modulus.one),
            inverse_exponent: modulus.inverse_exponent,
        }
    }

    /// 1 in Montgomery form (R mod m).
    pub(super) fn one(&self) -> Fe {
        self.one
    }

    /// Carries each limb's excess into the next (limbs may be negative: arithmetic shifts).
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn carry(&self, mut r: [__m512i; 5]) -> [__m512i; 5] {
        for i in 0..4 {
            let c = _mm512_srai_epi64::<52>(r[i]);
            r[i] = _mm512_and_si512(r[i], self.mask);
            r[i + 1] = _mm512_add_epi64(r[i + 1], c);
        }
        r
    }

    /// Montgomery reduction of a ten-limb product: `t · R⁻¹ mod m`, below 2m.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn reduce(&self, mut t: [__m512i; 10]) -> Fe {
        let zero = _mm512_setzero_si512();
        for i in 0..5 {
            let q = _mm512_madd52lo_epu64(zero, t[i], self.m_prime);
            for j in 0..5 {
                t[i + j] = _mm512_madd52lo_epu64(t[i + j], self.m[j], q);
                t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], self.m[j], q);
            }
            t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64::<52>(t[i]));
        }
        Fe(self.carry([t[5], t[6], t[7], t[8], t[9]]))
    }

    /// `a · b · R⁻¹`, for `a, b < 4m`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn mul(&self, a: &Fe, b: &Fe) -> Fe {
        let mut t = [_mm512_setzero_si512(); 10];
        for i in 0..5 {
            for j in 0..5 {
                t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.0[i], b.0[j]);
                t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.0[i], b.0[j]);
            }
        }
        self.reduce(t)
    }

    /// `a² · R⁻¹`, for `a < 4m`: the cross products once, doubled.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn sqr(&self, a: &Fe) -> Fe {
        let mut t = [_mm512_setzero_si512(); 10];
        for i in 0..5 {
            for j in i + 1..5 {
                t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.0[i], a.0[j]);
                t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.0[i], a.0[j]);
            }
        }
        for limb in t.iter_mut() {
            *limb = _mm512_add_epi64(*limb, *limb);
        }
        for i in 0..5 {
            t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a.0[i], a.0[i]);
            t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a.0[i], a.0[i]);
        }
        self.reduce(t)
    }

    /// `x` brought from below 4m to below 2m.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn below_two_m(&self, x: [__m512i; 5]) -> Fe {
        let d = self.carry(std::array::from_fn(|i| {
            _mm512_sub_epi64(x[i], self.two_m[i])
        }));
        let negative = _mm512_cmplt_epi64_mask(d[4], _mm512_setzero_si512());
        Fe(std::array::from_fn(|i| {
            _mm512_mask_blend_epi64(negative, d[i], x[i])
        }))
    }

    /// `a + b`, below 2m.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn add(&self, a: &Fe, b: &Fe) -> Fe {
        self.below_two_m(self.carry(std::array::from_fn(|i| _mm512_add_epi64(a.0[i], b.0[i]))))
    }

    /// `a + b` below 4m: only as the input of a product.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn add_lazy(&self, a: &Fe, b: &Fe) -> Fe {
        Fe(self.carry(std::array::from_fn(|i| _mm512_add_epi64(a.0[i], b.0[i]))))
    }

    /// `a − b`, below 2m.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn sub(&self, a: &Fe, b: &Fe) -> Fe {
        self.below_two_m(self.carry(std::array::from_fn(|i| {
            _mm512_sub_epi64(_mm512_add_epi64(a.0[i], self.two_m[i]), b.0[i])
        })))
    }

    /// `a − b` below 4m: only as the input of a product.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn sub_lazy(&self, a: &Fe, b: &Fe) -> Fe {
        Fe(self.carry(std::array::from_fn(|i| {
            _mm512_sub_epi64(_mm512_add_epi64(a.0[i], self.two_m[i]), b.0[i])
        })))
    }

    /// `a / 2`, for `a < 2m`: below 1.5m.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn half(&self, a: &Fe) -> Fe {
        let one = _mm512_set1_epi64(1);
        let odd = _mm512_test_epi64_mask(a.0[0], one);
        let even = self.carry(std::array::from_fn(|i| {
            _mm512_mask_add_epi64(a.0[i], odd, a.0[i], self.m[i])
        }));
        Fe(std::array::from_fn(|i| {
            let down = _mm512_srli_epi64::<1>(even[i]);
            if i == 4 {
                down
            } else {
                let low_bit = _mm512_and_si512(even[i + 1], one);
                _mm512_or_si512(down, _mm512_slli_epi64::<51>(low_bit))
            }
        }))
    }

    /// `−a`, below 2m.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn neg(&self, a: &Fe) -> Fe {
        let zero = Fe([_mm512_setzero_si512(); 5]);
        self.sub(&zero, a)
    }

    /// Into Montgomery form (`a·R mod m`), for `a < 4m`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn to_mont(&self, a: &Fe) -> Fe {
        self.mul(a, &self.r2)
    }

    /// Out of Montgomery form, fully reduced.
    #[cfg(test)]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn out_of_mont(&self, a: &Fe) -> Fe {
        let mut unit = [_mm512_setzero_si512(); 5];
        unit[0] = _mm512_set1_epi64(1);
        self.canonical(&self.mul(a, &Fe(unit)))
    }

    /// The representative below m of a value below 2m.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn canonical(&self, a: &Fe) -> Fe {
        let d = self.carry(std::array::from_fn(|i| _mm512_sub_epi64(a.0[i], self.m[i])));
        let negative = _mm512_cmplt_epi64_mask(d[4], _mm512_setzero_si512());
        Fe(std::array::from_fn(|i| {
            _mm512_mask_blend_epi64(negative, d[i], a.0[i])
        }))
    }

    /// The lanes where `a ≡ b (mod m)`, for `a, b < 2m`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn eq(&self, a: &Fe, b: &Fe) -> __mmask8 {
        let (a, b) = (self.canonical(a), self.canonical(b));
        (0..5).fold(0xff, |acc, i| acc & _mm512_cmpeq_epi64_mask(a.0[i], b.0[i]))
    }

    /// The lanes where `a ≡ 0 (mod m)`, for `a < 2m`: a is 0 or m.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn is_zero(&self, a: &Fe) -> __mmask8 {
        let zero = _mm512_setzero_si512();
        let (mut is_0, mut is_m) = (0xff, 0xff);
        for i in 0..5 {
            is_0 &= _mm512_cmpeq_epi64_mask(a.0[i], zero);
            is_m &= _mm512_cmpeq_epi64_mask(a.0[i], self.m[i]);
        }
        is_0 | is_m
    }

    /// `a⁻¹` in Montgomery form (0 for 0), by Fermat: `a^(m−2)` with 4-bit windows.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn invert(&self, a: &Fe) -> Fe {
        let mut powers = [self.one; 16];
        for i in 1..16 {
            powers[i] = self.mul(&powers[i - 1], a);
        }
        let e = &self.inverse_exponent;
        let mut acc = self.one;
        for nibble in (0..64).rev() {
            for _ in 0..4 {
                acc = self.sqr(&acc);
            }
            let digit = (e[nibble / 16] >> (4 * (nibble % 16))) & 0xf;
            if digit != 0 {
                acc = self.mul(&acc, &powers[digit as usize]);
            }
        }
        acc
    }
}

/// Per lane: `b` where `mask` is set, else `a`.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn select(mask: __mmask8, a: &Fe, b: &Fe) -> Fe {
    Fe(std::array::from_fn(|i| {
        _mm512_mask_blend_epi64(mask, a.0[i], b.0[i])
    }))
}

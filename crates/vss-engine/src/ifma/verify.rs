//! ECDSA verification of eight signatures at once: w = s⁻¹ and u1 = e·w, u2 = r·w modulo
//! n in the lanes; u1·G from a table of signed 7-bit multiples of G (one addition per
//! window, no doubling); u2·Q with signed 4-bit windows over a table of 1Q…8Q; and the
//! check x(R) ≡ r (mod n) without an inversion, as X ≡ r·Z² or (r + n)·Z² (mod p).
//! A lane where two added points were equal or opposite is reported as exceptional, for the
//! caller to verify another way.

use std::arch::x86_64::*;
use std::sync::OnceLock;

use vss_crypto::Curve;

use super::field::{gather_lanes, scatter_lanes, splat, Fe, Field, Modulus};
use super::point::{Affine, CurveField, Jacobian};
use super::scalar::{self, Limbs, U256};

/// Bits per window of u1 (the fixed base G).
const G_WINDOW: u32 = 7;
/// Windows of u1: enough signed digits for a 256-bit scalar.
const G_WINDOWS: usize = 257usize.div_ceil(G_WINDOW as usize);
/// Table entries per window: 1·B … 64·B.
const G_ENTRIES: usize = 1 << (G_WINDOW - 1);
/// Words per table entry: x and y, five limbs each.
const ENTRY_WORDS: usize = 10;
/// Bits per window of u2 (the public key Q).
const Q_WINDOW: u32 = 4;
/// Windows of u2.
const Q_WINDOWS: usize = 257usize.div_ceil(Q_WINDOW as usize);
/// Multiples of Q in its table: 1·Q … 8·Q.
const Q_ENTRIES: usize = 1 << (Q_WINDOW - 1);
/// Room for the digits of either scalar.
const DIGITS: usize = if G_WINDOWS > Q_WINDOWS {
    G_WINDOWS
} else {
    Q_WINDOWS
};

/// A curve's constants, as plain integers, and its table of multiples of G (built on
/// first use).
pub(super) struct CurveParams {
    p: U256,
    n: U256,
    p_modulus: Modulus,
    n_modulus: Modulus,
    a: Limbs,
    a_is_minus_3: bool,
    g: (Limbs, Limbs),
    g_table: OnceLock<Vec<u64>>,
}

impl CurveParams {
    /// The constants from the curve's hex parameters (its order comes from staging).
    fn new(curve: Curve, p: &str, a: &str, gx: &str, gy: &str) -> CurveParams {
        let n = scalar::from_be(crate::staging::order(curve).expect("a staged curve"));
        let (p, a) = (scalar::from_hex(p), scalar::from_hex(a));
        let minus_3 = scalar::sub(&p, &[3, 0, 0, 0]).0;
        CurveParams {
            p,
            n,
            p_modulus: Modulus::new(&p),
            n_modulus: Modulus::new(&n),
            a: scalar::to_limbs(&a),
            a_is_minus_3: a == minus_3,
            g: (
                scalar::to_limbs(&scalar::from_hex(gx)),
                scalar::to_limbs(&scalar::from_hex(gy)),
            ),
            g_table: OnceLock::new(),
        }
    }

    /// NIST P-256 (FIPS 186-4, D.1.2.3).
    pub(super) fn p256() -> &'static CurveParams {
        static PARAMS: OnceLock<CurveParams> = OnceLock::new();
        PARAMS.get_or_init(|| {
            CurveParams::new(
                Curve::P256,
                "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
                "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
                "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
                "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
            )
        })
    }

    /// brainpoolP256r1 (RFC 5639, 3.4).
    pub(super) fn bp256() -> &'static CurveParams {
        static PARAMS: OnceLock<CurveParams> = OnceLock::new();
        PARAMS.get_or_init(|| {
            CurveParams::new(
                Curve::Bp256,
                "a9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377",
                "7d5a0975fc2c3057eef67530417affe7fb8055c126dc5c6ce94a4b44f330b5d9",
                "8bd2aeb9cb7e57cb2c4b482ffc81b7afb9de27e1e3bd23c23a4453bd9ace3262",
                "547ef835c3dac4fd97f8461a14611dc9c27745132ded8e545c1d54c72f046997",
            )
        })
    }

    /// The group order.
    pub(super) fn n(&self) -> &U256 {
        &self.n
    }

    /// The field prime.
    pub(super) fn p(&self) -> &U256 {
        &self.p
    }
}

/// One signature to check, parsed and range-checked: the key's affine coordinates, the
/// digest as an integer, r and s in `1..n`, and r + n when it is below p.
#[derive(Clone, Copy)]
pub(super) struct Lane {
    pub(super) qx: Limbs,
    pub(super) qy: Limbs,
    pub(super) e: Limbs,
    pub(super) r: Limbs,
    pub(super) s: Limbs,
    pub(super) r_plus_n: Option<Limbs>,
}

/// The verdicts of a group of eight lanes: valid ones, and exceptional ones (undecided).
pub(super) struct GroupVerdict {
    pub(super) valid: u8,
    pub(super) exceptional: u8,
}

/// The lane arithmetic of one curve, broadcast.
struct Context<'a> {
    curve: CurveField,
    n: Field,
    g_table: &'a [u64],
}

/// Verifies `lanes` in groups of eight (the last one padded); one verdict per lane.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn verify_lanes(params: &CurveParams, lanes: &[Lane]) -> Vec<GroupVerdict> {
    let f = Field::new(&params.p_modulus);
    let a = f.to_mont(&splat(&params.a));
    let curve = CurveField::new(f, a, params.a_is_minus_3);
    let g_table = params
        .g_table
        .get_or_init(|| build_g_table(&curve, &params.g));
    let context = Context {
        curve,
        n: Field::new(&params.n_modulus),
        g_table,
    };
    lanes
        .chunks(8)
        .map(|chunk| {
            let group: [Lane; 8] = std::array::from_fn(|i| chunk[i.min(chunk.len() - 1)]);
            verify_group(&context, &group)
        })
        .collect()
}

/// Entries `j·2^(7i)·G` (j = 1…64) for every window i, affine, Montgomery form, fully
/// reduced; eight windows are computed at once, one per lane.
#[target_feature(enable = "avx512f,avx512ifma")]
fn build_g_table(curve: &CurveField, g: &(Limbs, Limbs)) -> Vec<u64> {
    let f = &curve.f;
    let g = Affine {
        x: f.to_mont(&splat(&g.0)),
        y: f.to_mont(&splat(&g.1)),
    };
    let mut bases = Vec::with_capacity(G_WINDOWS);
    let mut base = curve.lift(&g);
    for _ in 0..G_WINDOWS {
        bases.push(base);
        for _ in 0..G_WINDOW {
            base = curve.double(&base);
        }
    }
    let mut table = vec![0u64; G_WINDOWS * G_ENTRIES * ENTRY_WORDS];
    for first in (0..G_WINDOWS).step_by(8) {
        let window = |lane: usize| (first + lane).min(G_WINDOWS - 1);
        let base = (0..8).fold(bases[first], |acc, lane| {
            Jacobian::select(1 << lane, &acc, &bases[window(lane)])
        });
        let mut multiple = base;
        for j in 0..G_ENTRIES {
            if j == 1 {
                multiple = curve.double(&base);
            } else if j > 1 {
                multiple = curve.add(&multiple, &base).0;
            }
            let z_inv = f.invert(&multiple.z);
            let z_inv2 = f.sqr(&z_inv);
            let x = scatter_lanes(&f.canonical(&f.mul(&multiple.x, &z_inv2)));
            let y = scatter_lanes(&f.canonical(&f.mul(&multiple.y, &f.mul(&z_inv2, &z_inv))));
            for lane in 0..8 {
                let at = (window(lane) * G_ENTRIES + j) * ENTRY_WORDS;
                table[at..at + 5].copy_from_slice(&x[lane]);
                table[at + 5..at + 10].copy_from_slice(&y[lane]);
            }
        }
    }
    table
}

/// Eight digits, one per lane, as a vector.
#[target_feature(enable = "avx512f,avx512ifma")]
fn digit_vector(digits: &[[i32; DIGITS]; 8], at: usize) -> __m512i {
    let d = |lane: usize| i64::from(digits[lane][at]);
    _mm512_set_epi64(d(7), d(6), d(5), d(4), d(3), d(2), d(1), d(0))
}

/// Entry `|d| − 1` of window `window` of the G table, per lane, negated where d < 0; and
/// the lanes where d = 0.
#[target_feature(enable = "avx512f,avx512ifma")]
fn g_entry(context: &Context<'_>, window: usize, d: __m512i) -> (Affine, __mmask8) {
    let zero = _mm512_setzero_si512();
    let skip = _mm512_cmpeq_epi64_mask(d, zero);
    let negative = _mm512_cmplt_epi64_mask(d, zero);
    let index = _mm512_max_epi64(
        _mm512_sub_epi64(_mm512_abs_epi64(d), _mm512_set1_epi64(1)),
        zero,
    );
    // index · 10 = index · 8 + index · 2
    let offsets = _mm512_add_epi64(
        _mm512_add_epi64(_mm512_slli_epi64::<3>(index), _mm512_slli_epi64::<1>(index)),
        _mm512_set1_epi64((window * G_ENTRIES * ENTRY_WORDS) as i64),
    );
    let table = context.g_table.as_ptr() as *const i64;
    let limb = |k: usize| {
        // SAFETY: every offset is (window·64 + j)·10 with window < G_WINDOWS and j < 64,
        // so offset + k (k < 10) indexes inside the table of G_WINDOWS·64·10 words.
        unsafe { _mm512_i64gather_epi64::<8>(offsets, table.add(k)) }
    };
    let x = Fe([limb(0), limb(1), limb(2), limb(3), limb(4)]);
    let y = Fe([limb(5), limb(6), limb(7), limb(8), limb(9)]);
    let f = &context.curve.f;
    let y = super::field::select(negative, &y, &f.neg(&y));
    (Affine { x, y }, skip)
}

/// Entry `|d| − 1` of the lanes' tables of multiples of Q, negated where d < 0; and the
/// lanes where d = 0.
#[target_feature(enable = "avx512f,avx512ifma")]
fn q_entry(f: &Field, table: &[Jacobian; Q_ENTRIES], d: __m512i) -> (Jacobian, __mmask8) {
    let zero = _mm512_setzero_si512();
    let magnitude = _mm512_abs_epi64(d);
    let mut entry = table[0];
    for (k, multiple) in table.iter().enumerate().skip(1) {
        let hit = _mm512_cmpeq_epi64_mask(magnitude, _mm512_set1_epi64(k as i64 + 1));
        entry = Jacobian::select(hit, &entry, multiple);
    }
    let negative = _mm512_cmplt_epi64_mask(d, zero);
    entry.y = super::field::select(negative, &entry.y, &f.neg(&entry.y));
    (entry, _mm512_cmpeq_epi64_mask(d, zero))
}

/// A running sum of points with per-lane "still the point at infinity" and "an addition
/// met equal or opposite points" masks.
struct Sum {
    point: Jacobian,
    infinity: __mmask8,
    exceptional: __mmask8,
}

impl Sum {
    /// The empty sum.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn new() -> Sum {
        let zero = Fe([_mm512_setzero_si512(); 5]);
        Sum {
            point: Jacobian {
                x: zero,
                y: zero,
                z: zero,
            },
            infinity: 0xff,
            exceptional: 0,
        }
    }

    /// Adds `term` in the lanes not in `skip`, given the formula's result `sum` and its
    /// equal-or-opposite lanes `met`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn absorb(&mut self, sum: &Jacobian, met: __mmask8, term: &Jacobian, skip: __mmask8) {
        self.exceptional |= met & !self.infinity & !skip;
        let added = Jacobian::select(self.infinity, sum, term);
        self.point = Jacobian::select(skip, &added, &self.point);
        self.infinity &= skip;
    }
}

/// Eight verifications.
#[target_feature(enable = "avx512f,avx512ifma")]
fn verify_group(context: &Context<'_>, lanes: &[Lane; 8]) -> GroupVerdict {
    let (curve, fp, fnn) = (&context.curve, &context.curve.f, &context.n);

    // w = s⁻¹, u1 = e·w, u2 = r·w (mod n)
    let r = gather_lanes(&lanes.map(|l| l.r));
    let w = fnn.invert(&fnn.to_mont(&gather_lanes(&lanes.map(|l| l.s))));
    let u1 = scatter_lanes(&fnn.canonical(&fnn.mul(&gather_lanes(&lanes.map(|l| l.e)), &w)));
    let u2 = scatter_lanes(&fnn.canonical(&fnn.mul(&r, &w)));
    let mut digits1 = [[0i32; DIGITS]; 8];
    let mut digits2 = [[0i32; DIGITS]; 8];
    for lane in 0..8 {
        let k1 = scalar::from_limbs(&u1[lane]);
        scalar::signed_digits(&k1, G_WINDOW, &mut digits1[lane][..G_WINDOWS]);
        let k2 = scalar::from_limbs(&u2[lane]);
        scalar::signed_digits(&k2, Q_WINDOW, &mut digits2[lane][..Q_WINDOWS]);
    }

    // u1·G: one mixed addition per window.
    let mut a = Sum::new();
    for window in 0..G_WINDOWS {
        let (entry, skip) = g_entry(context, window, digit_vector(&digits1, window));
        let (sum, met) = curve.add_affine(&a.point, &entry);
        a.absorb(&sum, met, &curve.lift(&entry), skip);
    }

    // u2·Q: 1Q…8Q, then four doublings and one addition per window, from the top.
    let q = Affine {
        x: fp.to_mont(&gather_lanes(&lanes.map(|l| l.qx))),
        y: fp.to_mont(&gather_lanes(&lanes.map(|l| l.qy))),
    };
    let mut multiples = [curve.lift(&q); Q_ENTRIES];
    multiples[1] = curve.double(&multiples[0]);
    let mut table_met = 0;
    for k in 2..Q_ENTRIES {
        let (next, met) = curve.add_affine(&multiples[k - 1], &q);
        multiples[k] = next;
        table_met |= met;
    }
    let mut b = Sum::new();
    b.exceptional = table_met;
    for window in (0..Q_WINDOWS).rev() {
        if window + 1 < Q_WINDOWS {
            for _ in 0..Q_WINDOW {
                b.point = curve.double(&b.point);
            }
        }
        let (entry, skip) = q_entry(fp, &multiples, digit_vector(&digits2, window));
        let (sum, met) = curve.add(&b.point, &entry);
        b.absorb(&sum, met, &entry, skip);
    }

    // R = u1·G + u2·Q, and x(R) ≡ r (mod n)?
    let (sum, met) = curve.add(&a.point, &b.point);
    let mut total = a;
    total.exceptional |= b.exceptional;
    total.absorb(&sum, met, &b.point, b.infinity);
    // R at infinity is invalid; the library says so for these rare lanes.
    let exceptional = total.exceptional | total.infinity;

    let zz = fp.sqr(&total.point.z);
    let x = &total.point.x;
    let mut valid = fp.eq(x, &fp.mul(&fp.to_mont(&r), &zz));
    let mut wrapped: __mmask8 = 0;
    let r_plus_n = lanes.map(|l| l.r_plus_n.unwrap_or([0; 5]));
    for (lane, l) in lanes.iter().enumerate() {
        if l.r_plus_n.is_some() {
            wrapped |= 1 << lane;
        }
    }
    if wrapped != 0 {
        let candidate = fp.mul(&fp.to_mont(&gather_lanes(&r_plus_n)), &zz);
        valid |= wrapped & fp.eq(x, &candidate);
    }
    GroupVerdict {
        valid: valid & !exceptional,
        exceptional,
    }
}

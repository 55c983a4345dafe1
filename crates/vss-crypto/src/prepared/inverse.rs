//! Modular inversion in variable time by Bernstein and Yang's divsteps ("Fast constant-time
//! gcd computation and modular inversion", 2019), 62 at a time on 64-bit words, in the
//! variable-time form of libsecp256k1's `modinv64_var` (Wuille's write-up, `safegcd_implementation.md`):
//! numbers in signed 62-bit limbs, a 2×2 transition matrix per 62 divsteps applied to
//! (f, g) and to the Bézout coefficients (d, e) modulo p.

/// The low 62 bits.
const M62: u64 = u64::MAX >> 2;
/// Room for signed 62-bit limbs of a 384-bit number and its sign: 7 used.
const LIMBS: usize = 8;

/// A signed integer as Σ vᵢ·2^(62·i), every limb but the top one in [0, 2⁶²).
type Signed62 = [i64; LIMBS];

/// The matrix of 62 divsteps, scaled by 2⁶²: [u v; q r].
struct Transition {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

/// `N` 64-bit limbs as signed 62-bit limbs.
fn to_signed62<const N: usize>(x: &[u64; N]) -> Signed62 {
    let mut out = [0i64; LIMBS];
    for (i, limb) in out.iter_mut().enumerate() {
        let bit = 62 * i;
        *limb = (super::limbs::bits(x, bit, 31) as u64
            | (super::limbs::bits(x, bit + 31, 31) as u64) << 31) as i64;
    }
    out
}

/// 62 divsteps from (η, f mod 2⁶⁴, g mod 2⁶⁴), several at once where g has trailing zeros:
/// the new η and the transition matrix.
fn divsteps_62(mut eta: i64, f0: u64, g0: u64) -> (i64, Transition) {
    let (mut u, mut v, mut q, mut r) = (1u64, 0u64, 0u64, 1u64);
    let (mut f, mut g) = (f0, g0);
    let mut i = 62u32;
    loop {
        let zeros = (g | (u64::MAX << i)).trailing_zeros();
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= i64::from(zeros);
        i -= zeros;
        if i == 0 {
            break;
        }
        let w = if eta < 0 {
            eta = -eta;
            (f, g) = (g, f.wrapping_neg());
            (u, q) = (q, u.wrapping_neg());
            (v, r) = (r, v.wrapping_neg());
            let limit = (eta + 1).min(i64::from(i)) as u32;
            let m = (u64::MAX >> (64 - limit)) & 63;
            f.wrapping_mul(g)
                .wrapping_mul(f.wrapping_mul(f).wrapping_sub(2))
                & m
        } else {
            let limit = (eta + 1).min(i64::from(i)) as u32;
            let m = (u64::MAX >> (64 - limit)) & 15;
            let w = f.wrapping_add(((f.wrapping_add(1)) & 4) << 1);
            w.wrapping_neg().wrapping_mul(g) & m
        };
        g = g.wrapping_add(f.wrapping_mul(w));
        q = q.wrapping_add(u.wrapping_mul(w));
        r = r.wrapping_add(v.wrapping_mul(w));
    }
    let t = Transition {
        u: u as i64,
        v: v as i64,
        q: q as i64,
        r: r as i64,
    };
    (eta, t)
}

/// (d, e) ← (t·(d, e) + p·(md, me)) / 2⁶², with md, me chosen so that the division is
/// exact; d and e stay in (−2p, p).
fn update_de(
    d: &mut Signed62,
    e: &mut Signed62,
    t: &Transition,
    p: &Signed62,
    p_inv62: u64,
    len: usize,
) {
    let (sd, se) = (d[len - 1] >> 63, e[len - 1] >> 63);
    let mut md = (t.u & sd) + (t.v & se);
    let mut me = (t.q & sd) + (t.r & se);
    let mut cd = i128::from(t.u) * i128::from(d[0]) + i128::from(t.v) * i128::from(e[0]);
    let mut ce = i128::from(t.q) * i128::from(d[0]) + i128::from(t.r) * i128::from(e[0]);
    md -= (p_inv62.wrapping_mul(cd as u64).wrapping_add(md as u64) & M62) as i64;
    me -= (p_inv62.wrapping_mul(ce as u64).wrapping_add(me as u64) & M62) as i64;
    cd += i128::from(p[0]) * i128::from(md);
    ce += i128::from(p[0]) * i128::from(me);
    debug_assert!(cd as u64 & M62 == 0 && ce as u64 & M62 == 0);
    cd >>= 62;
    ce >>= 62;
    for i in 1..len {
        cd += i128::from(t.u) * i128::from(d[i])
            + i128::from(t.v) * i128::from(e[i])
            + i128::from(p[i]) * i128::from(md);
        ce += i128::from(t.q) * i128::from(d[i])
            + i128::from(t.r) * i128::from(e[i])
            + i128::from(p[i]) * i128::from(me);
        d[i - 1] = (cd as u64 & M62) as i64;
        e[i - 1] = (ce as u64 & M62) as i64;
        cd >>= 62;
        ce >>= 62;
    }
    d[len - 1] = cd as i64;
    e[len - 1] = ce as i64;
}

/// (f, g) ← t·(f, g) / 2⁶² over their first `len` limbs (the division is exact).
fn update_fg(f: &mut Signed62, g: &mut Signed62, t: &Transition, len: usize) {
    let mut cf = i128::from(t.u) * i128::from(f[0]) + i128::from(t.v) * i128::from(g[0]);
    let mut cg = i128::from(t.q) * i128::from(f[0]) + i128::from(t.r) * i128::from(g[0]);
    debug_assert!(cf as u64 & M62 == 0 && cg as u64 & M62 == 0);
    cf >>= 62;
    cg >>= 62;
    for i in 1..len {
        cf += i128::from(t.u) * i128::from(f[i]) + i128::from(t.v) * i128::from(g[i]);
        cg += i128::from(t.q) * i128::from(f[i]) + i128::from(t.r) * i128::from(g[i]);
        f[i - 1] = (cf as u64 & M62) as i64;
        g[i - 1] = (cg as u64 & M62) as i64;
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = cf as i64;
    g[len - 1] = cg as i64;
}

/// `sign·d mod p` in [0, p) for d in (−2p, p) in signed 62-bit limbs, as `N` limbs.
fn normalize<const N: usize>(d: &Signed62, negate: bool, p: &[u64; N]) -> [u64; N] {
    // d as a two's complement integer of N + 1 limbs.
    let mut wide = [0u64; LIMBS];
    let mut acc: i128 = 0;
    let mut bit = 0;
    let mut out_limb = 0;
    for &limb in d {
        acc += i128::from(limb) << bit;
        bit += 62;
        while bit >= 64 && out_limb < LIMBS {
            wide[out_limb] = acc as u64;
            acc >>= 64;
            bit -= 64;
            out_limb += 1;
        }
    }
    for w in wide.iter_mut().skip(out_limb) {
        *w = acc as u64;
        acc >>= 64;
    }
    let mut x = [0u64; N];
    x.copy_from_slice(&wide[..N]);
    let mut top = wide[N] as i64;
    if negate {
        let (neg, borrow) = super::limbs::sub(&[0; N], &x);
        x = neg;
        top = -top - borrow as i64;
    }
    while top < 0 {
        let (sum, carry) = super::limbs::add(&x, p);
        x = sum;
        top += carry as i64;
    }
    while top > 0 || !super::limbs::lt(&x, p) {
        let (diff, borrow) = super::limbs::sub(&x, p);
        x = diff;
        top -= borrow as i64;
    }
    x
}

/// x⁻¹ mod p for `0 < x < p`, p an odd prime of `N` limbs with `p_inv` = p⁻¹ mod 2⁶⁴.
pub(crate) fn invert<const N: usize>(x: &[u64; N], p: &[u64; N], p_inv: u64) -> [u64; N] {
    let modulus = to_signed62(p);
    let p_inv62 = p_inv & M62;
    let mut len = 64 * N / 62 + 1;
    let (mut d, mut e) = ([0i64; LIMBS], [0i64; LIMBS]);
    e[0] = 1;
    let (mut f, mut g) = (modulus, to_signed62(x));
    let mut eta = -1;
    loop {
        let t;
        (eta, t) = divsteps_62(eta, f[0] as u64, g[0] as u64);
        update_de(&mut d, &mut e, &t, &modulus, p_inv62, 64 * N / 62 + 1);
        update_fg(&mut f, &mut g, &t, len);
        if g[..len].iter().all(|&limb| limb == 0) {
            break;
        }
        let (fn_, gn) = (f[len - 1], g[len - 1]);
        if len > 1 && (fn_ ^ (fn_ >> 63)) == 0 && (gn ^ (gn >> 63)) == 0 {
            f[len - 2] |= ((fn_ as u64) << 62) as i64;
            g[len - 2] |= ((gn as u64) << 62) as i64;
            len -= 1;
        }
    }
    normalize(&d, f[len - 1] < 0, p)
}

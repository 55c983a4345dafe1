/*
 * ECDSA verification arithmetic for 256-bit prime curves (P-256, brainpoolP256r1), written
 * once for two compilers: NVRTC builds it for the GPU (the engine's kernel), the host C++
 * compiler builds it for the tests and for the tables the GPU needs. The VSS_ qualifier
 * macros below stand for __device__ and its variants, or for static inline on the host;
 * nothing here uses a library or a header.
 *
 * Numbers are eight 32-bit limbs, least significant first. Field and scalar arithmetic is
 * Montgomery (R = 2^256) over the modulus of a vss_mont; points are Jacobian (x = X/Z^2,
 * y = Y/Z^3) with coordinates in Montgomery form, Z = 0 being the point at infinity.
 * Verification handles public data only, so nothing here is constant-time.
 */
#ifndef VSS_ECDSA_VERIFY_CUH
#define VSS_ECDSA_VERIFY_CUH

/*
 * VSS_INLINE: small helpers, always inlined. VSS_FN: left to the compiler (additions and
 * subtractions, which the point formulas inline). VSS_CALL: kept as calls on the GPU (the
 * Montgomery product, the point formulas and what loops over them), so the kernel's code
 * stays small: inlined everywhere, the product made a 570 KB kernel whose warps waited
 * mostly on instruction fetch; as one call it is 87 KB.
 */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define VSS_INLINE __device__ __forceinline__
#define VSS_FN __device__
#define VSS_CALL __device__ __noinline__
#define VSS_KERNEL extern "C" __global__
#else
#define VSS_INLINE static inline
#define VSS_FN static inline
#define VSS_CALL static inline
#define VSS_KERNEL extern "C"
#endif

typedef unsigned int vss_u32;
typedef unsigned long long vss_u64;

#define VSS_LIMBS 8
/* u1*G: one window of VSS_G_BITS bits per table row, no doublings. */
#define VSS_G_BITS 8
#define VSS_G_WINDOWS (256 / VSS_G_BITS)
#define VSS_G_DIGITS ((1 << VSS_G_BITS) - 1)
#define VSS_G_TABLE_LEN (VSS_G_WINDOWS * VSS_G_DIGITS)
/* u2*Q: signed windows of VSS_Q_BITS bits (Booth digits) over a table of 1Q..8Q made per job. */
#define VSS_Q_BITS 4
#define VSS_Q_TABLE_LEN (1 << (VSS_Q_BITS - 1))
/* A job's input: Qx, Qy, e, r, s, each VSS_LIMBS limbs. */
#define VSS_JOB_FIELDS 5
#define VSS_JOB_WORDS (VSS_JOB_FIELDS * VSS_LIMBS)

/* A modulus and its Montgomery constants. */
typedef struct {
    vss_u32 m[VSS_LIMBS];   /* the odd modulus */
    vss_u32 r2[VSS_LIMBS];  /* R^2 mod m */
    vss_u32 one[VSS_LIMBS]; /* R mod m: 1 in Montgomery form */
    vss_u32 minv;           /* -m^-1 mod 2^32 */
    vss_u32 p256;           /* 1 when m is the P-256 prime 2^256 - 2^224 + 2^192 + 2^96 - 1 */
} vss_mont;

/* A short Weierstrass curve y^2 = x^3 + ax + b over p with a prime order n subgroup. */
typedef struct {
    vss_mont p;
    vss_mont n;
    vss_u32 a[VSS_LIMBS];  /* Montgomery form */
    vss_u32 b[VSS_LIMBS];  /* Montgomery form */
    vss_u32 gx[VSS_LIMBS]; /* Montgomery form */
    vss_u32 gy[VSS_LIMBS]; /* Montgomery form */
    vss_u32 a_is_minus_3;  /* lets doubling use 3(X-Z^2)(X+Z^2) */
} vss_curve;

/* An affine point, coordinates in Montgomery form (never the point at infinity). */
typedef struct {
    vss_u32 x[VSS_LIMBS];
    vss_u32 y[VSS_LIMBS];
} vss_affine;

/* A Jacobian point, coordinates in Montgomery form; z = 0 is the point at infinity. */
typedef struct {
    vss_u32 x[VSS_LIMBS];
    vss_u32 y[VSS_LIMBS];
    vss_u32 z[VSS_LIMBS];
} vss_jacobian;

/* ---- 256-bit integers ---- */

VSS_INLINE void vss_copy(vss_u32 *r, const vss_u32 *a) {
    for (int i = 0; i < VSS_LIMBS; i++) r[i] = a[i];
}

VSS_INLINE int vss_is_zero(const vss_u32 *a) {
    vss_u32 acc = 0;
    for (int i = 0; i < VSS_LIMBS; i++) acc |= a[i];
    return acc == 0;
}

VSS_INLINE int vss_equal(const vss_u32 *a, const vss_u32 *b) {
    vss_u32 acc = 0;
    for (int i = 0; i < VSS_LIMBS; i++) acc |= a[i] ^ b[i];
    return acc == 0;
}

/* a < b */
VSS_INLINE int vss_less(const vss_u32 *a, const vss_u32 *b) {
    for (int i = VSS_LIMBS - 1; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] < b[i];
    }
    return 0;
}

/* r = a + b; returns the carry. r may alias a or b. */
VSS_INLINE vss_u32 vss_add_raw(vss_u32 *r, const vss_u32 *a, const vss_u32 *b) {
    vss_u64 c = 0;
    for (int i = 0; i < VSS_LIMBS; i++) {
        c += (vss_u64)a[i] + b[i];
        r[i] = (vss_u32)c;
        c >>= 32;
    }
    return (vss_u32)c;
}

/* r = a - b; returns the borrow. r may alias a or b. */
VSS_INLINE vss_u32 vss_sub_raw(vss_u32 *r, const vss_u32 *a, const vss_u32 *b) {
    vss_u64 borrow = 0;
    for (int i = 0; i < VSS_LIMBS; i++) {
        vss_u64 d = (vss_u64)a[i] - b[i] - borrow;
        r[i] = (vss_u32)d;
        borrow = (d >> 32) & 1;
    }
    return (vss_u32)borrow;
}

/*
 * ---- carry chains ----
 * The GPU's multiply-add with carry in and out (PTX mad.cc / madc, add.cc / addc, sub.cc /
 * subc): one instruction per limb product. The host emulates the carry flag in *cc, so the
 * chains below run, and are tested, on both; on the GPU *cc is never read.
 */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define VSS_PTX3(op, a, b, c)                                                                \
    vss_u32 r;                                                                               \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                  \
    (void)cc;                                                                                \
    return r
#define VSS_PTX2(op, a, b)                                                                   \
    vss_u32 r;                                                                               \
    asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                              \
    (void)cc;                                                                                \
    return r
/* lo(a b) + c, carry out */
VSS_INLINE vss_u32 vss_mad_lo_cc(vss_u32 *cc, vss_u32 a, vss_u32 b, vss_u32 c) { VSS_PTX3("mad.lo.cc.u32", a, b, c); }
/* lo(a b) + c + carry, carry out */
VSS_INLINE vss_u32 vss_madc_lo_cc(vss_u32 *cc, vss_u32 a, vss_u32 b, vss_u32 c) { VSS_PTX3("madc.lo.cc.u32", a, b, c); }
/* hi(a b) + c, carry out */
VSS_INLINE vss_u32 vss_mad_hi_cc(vss_u32 *cc, vss_u32 a, vss_u32 b, vss_u32 c) { VSS_PTX3("mad.hi.cc.u32", a, b, c); }
/* hi(a b) + c + carry, carry out */
VSS_INLINE vss_u32 vss_madc_hi_cc(vss_u32 *cc, vss_u32 a, vss_u32 b, vss_u32 c) { VSS_PTX3("madc.hi.cc.u32", a, b, c); }
/* a + b, carry out */
VSS_INLINE vss_u32 vss_add_cc(vss_u32 *cc, vss_u32 a, vss_u32 b) { VSS_PTX2("add.cc.u32", a, b); }
/* a + b + carry, carry out */
VSS_INLINE vss_u32 vss_addc_cc(vss_u32 *cc, vss_u32 a, vss_u32 b) { VSS_PTX2("addc.cc.u32", a, b); }
/* a + b + carry */
VSS_INLINE vss_u32 vss_addc(vss_u32 *cc, vss_u32 a, vss_u32 b) { VSS_PTX2("addc.u32", a, b); }
/* a - b, borrow out */
VSS_INLINE vss_u32 vss_sub_cc(vss_u32 *cc, vss_u32 a, vss_u32 b) { VSS_PTX2("sub.cc.u32", a, b); }
/* a - b - borrow, borrow out */
VSS_INLINE vss_u32 vss_subc_cc(vss_u32 *cc, vss_u32 a, vss_u32 b) { VSS_PTX2("subc.cc.u32", a, b); }
/* a - b - borrow */
VSS_INLINE vss_u32 vss_subc(vss_u32 *cc, vss_u32 a, vss_u32 b) { VSS_PTX2("subc.u32", a, b); }
#else
VSS_INLINE vss_u32 vss_wide_out(vss_u32 *cc, vss_u64 v) {
    *cc = (vss_u32)(v >> 32);
    return (vss_u32)v;
}
VSS_INLINE vss_u32 vss_mad_lo_cc(vss_u32 *cc, vss_u32 a, vss_u32 b, vss_u32 c) {
    return vss_wide_out(cc, (vss_u64)(a * b) + c);
}
VSS_INLINE vss_u32 vss_madc_lo_cc(vss_u32 *cc, vss_u32 a, vss_u32 b, vss_u32 c) {
    return vss_wide_out(cc, (vss_u64)(a * b) + c + *cc);
}
VSS_INLINE vss_u32 vss_mad_hi_cc(vss_u32 *cc, vss_u32 a, vss_u32 b, vss_u32 c) {
    return vss_wide_out(cc, (((vss_u64)a * b) >> 32) + c);
}
VSS_INLINE vss_u32 vss_madc_hi_cc(vss_u32 *cc, vss_u32 a, vss_u32 b, vss_u32 c) {
    return vss_wide_out(cc, (((vss_u64)a * b) >> 32) + c + *cc);
}
VSS_INLINE vss_u32 vss_add_cc(vss_u32 *cc, vss_u32 a, vss_u32 b) {
    return vss_wide_out(cc, (vss_u64)a + b);
}
VSS_INLINE vss_u32 vss_addc_cc(vss_u32 *cc, vss_u32 a, vss_u32 b) {
    return vss_wide_out(cc, (vss_u64)a + b + *cc);
}
VSS_INLINE vss_u32 vss_addc(vss_u32 *cc, vss_u32 a, vss_u32 b) { return a + b + *cc; }
VSS_INLINE vss_u32 vss_sub_cc(vss_u32 *cc, vss_u32 a, vss_u32 b) {
    *cc = a < b;
    return a - b;
}
VSS_INLINE vss_u32 vss_subc_cc(vss_u32 *cc, vss_u32 a, vss_u32 b) {
    vss_u64 d = (vss_u64)a - b - *cc;
    *cc = (vss_u32)(d >> 32) & 1;
    return (vss_u32)d;
}
VSS_INLINE vss_u32 vss_subc(vss_u32 *cc, vss_u32 a, vss_u32 b) { return a - b - *cc; }
#endif

/* r = a - m when a (with the extra top word hi) is at least m, else a; a < 2m. */
VSS_INLINE void vss_reduce_once(const vss_mont *m, vss_u32 *r, const vss_u32 *a, vss_u32 hi) {
    vss_u32 cc = 0, u[VSS_LIMBS];
    u[0] = vss_sub_cc(&cc, a[0], m->m[0]);
    for (int i = 1; i < VSS_LIMBS; i++) u[i] = vss_subc_cc(&cc, a[i], m->m[i]);
    vss_u32 borrow = vss_subc(&cc, hi, 0);
    /* borrow is 0 when a >= m, all ones when a < m */
    for (int i = 0; i < VSS_LIMBS; i++) r[i] = (u[i] & ~borrow) | (a[i] & borrow);
}

/* ---- arithmetic modulo m (inputs below m) ---- */

/* r = a + b mod m */
VSS_FN void vss_mod_add(const vss_mont *m, vss_u32 *r, const vss_u32 *a, const vss_u32 *b) {
    vss_u32 cc = 0, t[VSS_LIMBS];
    t[0] = vss_add_cc(&cc, a[0], b[0]);
    for (int i = 1; i < VSS_LIMBS; i++) t[i] = vss_addc_cc(&cc, a[i], b[i]);
    vss_reduce_once(m, r, t, vss_addc(&cc, 0, 0));
}

/* r = a - b mod m */
VSS_FN void vss_mod_sub(const vss_mont *m, vss_u32 *r, const vss_u32 *a, const vss_u32 *b) {
    vss_u32 cc = 0, t[VSS_LIMBS];
    t[0] = vss_sub_cc(&cc, a[0], b[0]);
    for (int i = 1; i < VSS_LIMBS; i++) t[i] = vss_subc_cc(&cc, a[i], b[i]);
    /* mask: all ones when a < b, then m is added back */
    vss_u32 mask = vss_subc(&cc, 0, 0);
    t[0] = vss_add_cc(&cc, t[0], m->m[0] & mask);
    for (int i = 1; i < VSS_LIMBS - 1; i++) t[i] = vss_addc_cc(&cc, t[i], m->m[i] & mask);
    t[VSS_LIMBS - 1] = vss_addc(&cc, t[VSS_LIMBS - 1], m->m[VSS_LIMBS - 1] & mask);
    vss_copy(r, t);
}

/* t[0..9] += a * b, the low halves of the products at limb j, the high halves at j + 1. */
VSS_INLINE void vss_mul_acc(vss_u32 *t, const vss_u32 *a, vss_u32 b) {
    vss_u32 cc = 0;
    t[0] = vss_mad_lo_cc(&cc, a[0], b, t[0]);
    for (int j = 1; j < VSS_LIMBS; j++) t[j] = vss_madc_lo_cc(&cc, a[j], b, t[j]);
    t[VSS_LIMBS] = vss_addc_cc(&cc, t[VSS_LIMBS], 0);
    t[VSS_LIMBS + 1] = vss_addc(&cc, t[VSS_LIMBS + 1], 0);
    t[1] = vss_mad_hi_cc(&cc, a[0], b, t[1]);
    for (int j = 1; j < VSS_LIMBS; j++) t[j + 1] = vss_madc_hi_cc(&cc, a[j], b, t[j + 1]);
    t[VSS_LIMBS + 1] = vss_addc(&cc, t[VSS_LIMBS + 1], 0);
}

/*
 * t[0..9] += q p for the P-256 prime, by shifts and adds: with q = t[0] (-p^-1 = 1 mod
 * 2^32), q p = q 2^96 + q 2^192 + (2^32 - 1) q 2^224 - q, and the -q cancels t[0].
 */
VSS_INLINE void vss_p256_reduce_acc(vss_u32 *t) {
    vss_u32 cc = 0, q = t[0];
    vss_u32 lo = 0u - q;              /* (2^32 - 1) q = hi 2^32 + lo */
    vss_u32 hi = q - (q != 0);
    t[0] = 0;
    t[3] = vss_add_cc(&cc, t[3], q);
    t[4] = vss_addc_cc(&cc, t[4], 0);
    t[5] = vss_addc_cc(&cc, t[5], 0);
    t[6] = vss_addc_cc(&cc, t[6], q);
    t[7] = vss_addc_cc(&cc, t[7], lo);
    t[8] = vss_addc_cc(&cc, t[8], hi);
    t[9] = vss_addc(&cc, t[9], 0);
}

/*
 * r = a * b / R mod m (CIOS over carry chains). Exact for any a < 2^256 and b < m: the
 * result is fully reduced, which the verifier uses to reduce e (below 2^256) and r modulo
 * n. Between rounds t < 2^256 + m, so ten words hold every partial sum.
 */
VSS_CALL void vss_mont_mul(const vss_mont *m, vss_u32 *r, const vss_u32 *a, const vss_u32 *b) {
    vss_u32 t[VSS_LIMBS + 2];
    for (int i = 0; i < VSS_LIMBS + 2; i++) t[i] = 0;
    for (int i = 0; i < VSS_LIMBS; i++) {
        vss_mul_acc(t, a, b[i]);
        if (m->p256) vss_p256_reduce_acc(t);
        else vss_mul_acc(t, m->m, t[0] * m->minv); /* t[0] becomes 0 */
        for (int j = 0; j < VSS_LIMBS + 1; j++) t[j] = t[j + 1];
        t[VSS_LIMBS + 1] = 0;
    }
    /* t < 2m here: subtract m once if t >= m. */
    vss_reduce_once(m, r, t, t[VSS_LIMBS]);
}

/* r = a^e in Montgomery form (a in Montgomery form), 4-bit fixed windows. */
VSS_CALL void vss_mont_pow(const vss_mont *m, vss_u32 *r, const vss_u32 *a, const vss_u32 *e) {
    vss_u32 table[16][VSS_LIMBS];
    vss_copy(table[0], m->one);
    vss_copy(table[1], a);
    for (int i = 2; i < 16; i++) vss_mont_mul(m, table[i], table[i - 1], a);
    vss_u32 acc[VSS_LIMBS];
    vss_copy(acc, m->one);
    for (int i = 63; i >= 0; i--) {
        for (int k = 0; k < 4; k++) vss_mont_mul(m, acc, acc, acc);
        vss_u32 digit = (e[i / 8] >> (4 * (i % 8))) & 15;
        if (digit) vss_mont_mul(m, acc, acc, table[digit]);
    }
    vss_copy(r, acc);
}

/* r = a^-1 in Montgomery form (a in Montgomery form; m prime: a^(m-2)); 0 gives 0. */
VSS_FN void vss_mont_inv(const vss_mont *m, vss_u32 *r, const vss_u32 *a) {
    vss_u32 two[VSS_LIMBS] = {2, 0, 0, 0, 0, 0, 0, 0};
    vss_u32 e[VSS_LIMBS];
    vss_sub_raw(e, m->m, two);
    vss_mont_pow(m, r, a, e);
}

/* ---- points ---- */

VSS_INLINE void vss_set_infinity(const vss_curve *c, vss_jacobian *r) {
    vss_copy(r->x, c->p.one);
    vss_copy(r->y, c->p.one);
    for (int i = 0; i < VSS_LIMBS; i++) r->z[i] = 0;
}

VSS_INLINE void vss_from_affine(const vss_curve *c, vss_jacobian *r, const vss_affine *a) {
    vss_copy(r->x, a->x);
    vss_copy(r->y, a->y);
    vss_copy(r->z, c->p.one);
}

/* Whether y^2 = x^3 + ax + b. */
VSS_CALL int vss_on_curve(const vss_curve *c, const vss_affine *q) {
    const vss_mont *f = &c->p;
    vss_u32 lhs[VSS_LIMBS], rhs[VSS_LIMBS];
    vss_mont_mul(f, lhs, q->y, q->y);
    vss_mont_mul(f, rhs, q->x, q->x);
    vss_mod_add(f, rhs, rhs, c->a);
    vss_mont_mul(f, rhs, rhs, q->x);
    vss_mod_add(f, rhs, rhs, c->b);
    return vss_equal(lhs, rhs);
}

/* r = 2p (dbl-1998-cmo-2); r may alias p. */
VSS_CALL void vss_point_double(const vss_curve *c, vss_jacobian *r, const vss_jacobian *p) {
    const vss_mont *f = &c->p;
    if (vss_is_zero(p->z)) {
        *r = *p;
        return;
    }
    vss_u32 yy[VSS_LIMBS], zz[VSS_LIMBS], s[VSS_LIMBS], m[VSS_LIMBS], t[VSS_LIMBS];
    vss_u32 x3[VSS_LIMBS], y3[VSS_LIMBS], z3[VSS_LIMBS];
    vss_mont_mul(f, yy, p->y, p->y);
    vss_mont_mul(f, zz, p->z, p->z);
    vss_mont_mul(f, s, p->x, yy);
    vss_mod_add(f, s, s, s);
    vss_mod_add(f, s, s, s); /* S = 4 X YY */
    if (c->a_is_minus_3) {
        vss_mod_sub(f, t, p->x, zz);
        vss_mod_add(f, m, p->x, zz);
        vss_mont_mul(f, m, m, t);
        vss_mod_add(f, t, m, m);
        vss_mod_add(f, m, t, m); /* M = 3 (X - ZZ)(X + ZZ) */
    } else {
        vss_mont_mul(f, m, p->x, p->x);
        vss_mod_add(f, t, m, m);
        vss_mod_add(f, m, t, m);
        vss_mont_mul(f, t, zz, zz);
        vss_mont_mul(f, t, t, c->a);
        vss_mod_add(f, m, m, t); /* M = 3 XX + a ZZ^2 */
    }
    vss_mont_mul(f, z3, p->y, p->z);
    vss_mod_add(f, z3, z3, z3); /* Z3 = 2 Y Z */
    vss_mont_mul(f, x3, m, m);
    vss_mod_sub(f, x3, x3, s);
    vss_mod_sub(f, x3, x3, s); /* X3 = M^2 - 2 S */
    vss_mod_sub(f, t, s, x3);
    vss_mont_mul(f, y3, m, t);
    vss_mont_mul(f, t, yy, yy);
    vss_mod_add(f, t, t, t);
    vss_mod_add(f, t, t, t);
    vss_mod_add(f, t, t, t);
    vss_mod_sub(f, y3, y3, t); /* Y3 = M (S - X3) - 8 YY^2 */
    vss_copy(r->x, x3);
    vss_copy(r->y, y3);
    vss_copy(r->z, z3);
}

/*
 * The common end of both additions: with H = U2 - U1 and R = S2 - S1 (both nonzero H),
 * X3 = R^2 - H^3 - 2 U1 H^2, Y3 = R (U1 H^2 - X3) - S1 H^3; the caller sets Z3.
 */
VSS_FN void vss_add_tail(const vss_mont *f, vss_jacobian *r, const vss_u32 *u1,
                         const vss_u32 *s1, const vss_u32 *h, const vss_u32 *rr) {
    vss_u32 hh[VSS_LIMBS], hhh[VSS_LIMBS], v[VSS_LIMBS], t[VSS_LIMBS];
    vss_mont_mul(f, hh, h, h);
    vss_mont_mul(f, hhh, hh, h);
    vss_mont_mul(f, v, u1, hh);
    vss_mont_mul(f, r->x, rr, rr);
    vss_mod_sub(f, r->x, r->x, hhh);
    vss_mod_sub(f, r->x, r->x, v);
    vss_mod_sub(f, r->x, r->x, v);
    vss_mod_sub(f, t, v, r->x);
    vss_mont_mul(f, t, rr, t);
    vss_mont_mul(f, v, s1, hhh);
    vss_mod_sub(f, r->y, t, v);
}

/* r = p + q (add-1998-cmo-2), any of them the point at infinity or equal; r may alias. */
VSS_CALL void vss_point_add(const vss_curve *c, vss_jacobian *r, const vss_jacobian *p,
                          const vss_jacobian *q) {
    const vss_mont *f = &c->p;
    if (vss_is_zero(p->z)) {
        *r = *q;
        return;
    }
    if (vss_is_zero(q->z)) {
        *r = *p;
        return;
    }
    vss_u32 z1z1[VSS_LIMBS], z2z2[VSS_LIMBS], u1[VSS_LIMBS], u2[VSS_LIMBS];
    vss_u32 s1[VSS_LIMBS], s2[VSS_LIMBS], h[VSS_LIMBS], rr[VSS_LIMBS], z3[VSS_LIMBS];
    vss_mont_mul(f, z1z1, p->z, p->z);
    vss_mont_mul(f, z2z2, q->z, q->z);
    vss_mont_mul(f, u1, p->x, z2z2);
    vss_mont_mul(f, u2, q->x, z1z1);
    vss_mont_mul(f, s1, p->y, q->z);
    vss_mont_mul(f, s1, s1, z2z2);
    vss_mont_mul(f, s2, q->y, p->z);
    vss_mont_mul(f, s2, s2, z1z1);
    vss_mod_sub(f, h, u2, u1);
    vss_mod_sub(f, rr, s2, s1);
    if (vss_is_zero(h)) {
        if (vss_is_zero(rr)) vss_point_double(c, r, p); /* p == q */
        else vss_set_infinity(c, r);                     /* p == -q */
        return;
    }
    vss_mont_mul(f, z3, p->z, q->z);
    vss_mont_mul(f, z3, z3, h);
    vss_add_tail(f, r, u1, s1, h, rr);
    vss_copy(r->z, z3);
}

/* r = p + q with q affine (madd): p may be the point at infinity or equal to q. */
VSS_CALL void vss_point_add_mixed(const vss_curve *c, vss_jacobian *r, const vss_jacobian *p,
                                const vss_affine *q) {
    const vss_mont *f = &c->p;
    if (vss_is_zero(p->z)) {
        vss_from_affine(c, r, q);
        return;
    }
    vss_u32 z1z1[VSS_LIMBS], u1[VSS_LIMBS], s1[VSS_LIMBS], u2[VSS_LIMBS], s2[VSS_LIMBS];
    vss_u32 h[VSS_LIMBS], rr[VSS_LIMBS], z3[VSS_LIMBS];
    vss_mont_mul(f, z1z1, p->z, p->z);
    vss_mont_mul(f, u2, q->x, z1z1);
    vss_mont_mul(f, s2, q->y, p->z);
    vss_mont_mul(f, s2, s2, z1z1);
    vss_copy(u1, p->x);
    vss_copy(s1, p->y);
    vss_mod_sub(f, h, u2, u1);
    vss_mod_sub(f, rr, s2, s1);
    if (vss_is_zero(h)) {
        if (vss_is_zero(rr)) vss_point_double(c, r, p);
        else vss_set_infinity(c, r);
        return;
    }
    vss_mont_mul(f, z3, p->z, h);
    vss_add_tail(f, r, u1, s1, h, rr);
    vss_copy(r->z, z3);
}

/*
 * Booth digit i of k in [-8, 8]: bits 4i+3 .. 4i-1 of k (bit -1 and bits above 255 are 0)
 * as -8 b(4i+3) + 4 b(4i+2) + 2 b(4i+1) + b(4i) + b(4i-1); k = sum over i = 0..64 of
 * digit i times 16^i.
 */
VSS_INLINE int vss_booth_digit(const vss_u32 *k, int i) {
    vss_u32 w;
    if (i == 0) {
        w = (k[0] << 1) & 31;
    } else {
        int pos = 4 * i - 1, limb = pos / 32, shift = pos % 32;
        w = k[limb] >> shift;
        if (shift > 27 && limb + 1 < VSS_LIMBS) w |= k[limb + 1] << (32 - shift);
        w &= 31;
    }
    return (int)((w & 1) + ((w >> 1) & 15)) - 16 * (int)(w >> 4);
}

/* r = k q with signed 4-bit windows (Booth digits) over 1q..8q (any k below 2^256). */
VSS_CALL void vss_point_mul(const vss_curve *c, vss_jacobian *r, const vss_u32 *k,
                          const vss_affine *q) {
    vss_jacobian table[VSS_Q_TABLE_LEN];
    vss_from_affine(c, &table[0], q);
    vss_point_double(c, &table[1], &table[0]);
    for (int i = 2; i < VSS_Q_TABLE_LEN; i++) vss_point_add_mixed(c, &table[i], &table[i - 1], q);
    vss_jacobian acc;
    vss_set_infinity(c, &acc);
    for (int i = 256 / VSS_Q_BITS; i >= 0; i--) {
        for (int d = 0; d < VSS_Q_BITS; d++) vss_point_double(c, &acc, &acc);
        /* One addition whatever the sign (the threads of a warp take the same path):
         * -P is (X, p - Y, Z), chosen by a mask. */
        int digit = vss_booth_digit(k, i);
        int magnitude = digit < 0 ? -digit : digit;
        if (magnitude) {
            vss_jacobian t = table[magnitude - 1];
            vss_u32 zero[VSS_LIMBS] = {0, 0, 0, 0, 0, 0, 0, 0}, neg[VSS_LIMBS];
            vss_mod_sub(&c->p, neg, zero, t.y);
            vss_u32 mask = 0u - (vss_u32)(digit < 0);
            for (int j = 0; j < VSS_LIMBS; j++) t.y[j] = (neg[j] & mask) | (t.y[j] & ~mask);
            vss_point_add(c, &acc, &acc, &t);
        }
    }
    *r = acc;
}

/*
 * r = acc + k P with a table of P (vss_host_table): d 2^(8w) P at w * 255 + d - 1, so one
 * mixed addition per nonzero byte of k. The verifier's table of G, and of a prepared key.
 */
VSS_CALL void vss_point_add_mul_table(const vss_curve *c, vss_jacobian *r, const vss_jacobian *acc,
                                      const vss_u32 *k, const vss_affine *table) {
    vss_jacobian sum = *acc;
    for (int w = 0; w < VSS_G_WINDOWS; w++) {
        vss_u32 digit = (k[w / 4] >> (VSS_G_BITS * (w % 4))) & VSS_G_DIGITS;
        if (digit) {
            vss_affine t = table[w * VSS_G_DIGITS + digit - 1];
            vss_point_add_mixed(c, &sum, &sum, &t);
        }
    }
    *r = sum;
}

/* ---- ECDSA ---- */

/*
 * u1 = e s^-1 and u2 = r s^-1 mod n (plain integers), or 0 when r or s is outside 1..n-1
 * (checked again here, so no input reads out of a verdict).
 */
VSS_CALL int vss_verify_scalars(const vss_curve *c, const vss_u32 *e, const vss_u32 *r,
                                const vss_u32 *s, vss_u32 *u1, vss_u32 *u2) {
    const vss_mont *fn = &c->n;
    if (vss_is_zero(r) || !vss_less(r, fn->m) || vss_is_zero(s) || !vss_less(s, fn->m)) return 0;
    /* w = s^-1 (Montgomery form); a plain times a Montgomery factor loses the R. */
    vss_u32 w[VSS_LIMBS];
    vss_mont_mul(fn, w, s, fn->r2);
    vss_mont_inv(fn, w, w);
    vss_mont_mul(fn, u1, e, w);
    vss_mont_mul(fn, u2, r, w);
    return 1;
}

/*
 * Whether x(sum) mod n = r. x(R) = X / Z^2 is below p < 2n, so that holds iff X = r Z^2, or
 * X = (r + n) Z^2 with r + n < p.
 */
VSS_CALL int vss_verify_x(const vss_curve *c, const vss_jacobian *sum, const vss_u32 *r) {
    const vss_mont *fp = &c->p;
    if (vss_is_zero(sum->z)) return 0;
    vss_u32 zz[VSS_LIMBS], t[VSS_LIMBS];
    vss_mont_mul(fp, zz, sum->z, sum->z);
    if (vss_less(r, fp->m)) {
        vss_mont_mul(fp, t, r, fp->r2);
        vss_mont_mul(fp, t, t, zz);
        if (vss_equal(t, sum->x)) return 1;
    }
    vss_u32 rn[VSS_LIMBS];
    if (!vss_add_raw(rn, r, c->n.m) && vss_less(rn, fp->m)) {
        vss_mont_mul(fp, t, rn, fp->r2);
        vss_mont_mul(fp, t, t, zz);
        if (vss_equal(t, sum->x)) return 1;
    }
    return 0;
}

/*
 * Whether (r, s) is a valid signature of e under Q = (qx, qy): plain integers (not
 * Montgomery), e the digest's leftmost 256 bits (any value below 2^256). Checks again what
 * the host checked (1 <= r, s < n; Q on the curve), so no input reads out of a verdict.
 */
VSS_CALL int vss_verify(const vss_curve *c, const vss_affine *table, const vss_u32 *qx,
                      const vss_u32 *qy, const vss_u32 *e, const vss_u32 *r, const vss_u32 *s) {
    const vss_mont *fp = &c->p;
    if (!vss_less(qx, fp->m) || !vss_less(qy, fp->m)) return 0;
    vss_affine q;
    vss_mont_mul(fp, q.x, qx, fp->r2);
    vss_mont_mul(fp, q.y, qy, fp->r2);
    if (!vss_on_curve(c, &q)) return 0;
    vss_u32 u1[VSS_LIMBS], u2[VSS_LIMBS];
    if (!vss_verify_scalars(c, e, r, s, u1, u2)) return 0;
    vss_jacobian sum;
    vss_point_mul(c, &sum, u2, &q);
    vss_point_add_mul_table(c, &sum, &sum, u1, table);
    return vss_verify_x(c, &sum, r);
}

/*
 * The same verdict with the key's own table (a prepared key: vss_host_table of Q, made
 * when Q was checked to be on the curve): u1 G + u2 Q is two table walks, no doubling.
 */
VSS_CALL int vss_verify_prepared(const vss_curve *c, const vss_affine *table,
                                 const vss_affine *key_table, const vss_u32 *e,
                                 const vss_u32 *r, const vss_u32 *s) {
    vss_u32 u1[VSS_LIMBS], u2[VSS_LIMBS];
    if (!vss_verify_scalars(c, e, r, s, u1, u2)) return 0;
    vss_jacobian sum;
    vss_set_infinity(c, &sum);
    vss_point_add_mul_table(c, &sum, &sum, u2, key_table);
    vss_point_add_mul_table(c, &sum, &sum, u1, table);
    return vss_verify_x(c, &sum, r);
}

/* Job i of a batch: its VSS_JOB_WORDS words (Qx, Qy, e, r, s, VSS_LIMBS limbs each) at in[i * VSS_JOB_WORDS]. */
VSS_CALL int vss_verify_job(const vss_curve *c, const vss_affine *table, const vss_u32 *in,
                          vss_u32 i) {
    vss_u32 v[VSS_JOB_FIELDS][VSS_LIMBS];
    const vss_u32 *job = in + (vss_u64)i * VSS_JOB_WORDS;
    for (int f = 0; f < VSS_JOB_FIELDS; f++) {
        for (int k = 0; k < VSS_LIMBS; k++) v[f][k] = job[f * VSS_LIMBS + k];
    }
    return vss_verify(c, table, v[0], v[1], v[2], v[3], v[4]);
}

/*
 * Job i of a prepared batch: the same words, but the first word is the index of the key's
 * table in key_tables (VSS_G_TABLE_LEN points each; the host checks it is below
 * key_count) and the rest of Qx and all of Qy are unused.
 */
VSS_CALL int vss_verify_prepared_job(const vss_curve *c, const vss_affine *table,
                                     const vss_affine *key_tables, vss_u32 key_count,
                                     const vss_u32 *in, vss_u32 i) {
    vss_u32 v[3][VSS_LIMBS];
    const vss_u32 *job = in + (vss_u64)i * VSS_JOB_WORDS;
    vss_u32 slot = job[0];
    if (slot >= key_count) return 0;
    for (int f = 0; f < 3; f++) {
        for (int k = 0; k < VSS_LIMBS; k++) v[f][k] = job[(f + 2) * VSS_LIMBS + k];
    }
    return vss_verify_prepared(c, table, key_tables + (vss_u64)slot * VSS_G_TABLE_LEN, v[0],
                               v[1], v[2]);
}

#endif /* VSS_ECDSA_VERIFY_CUH */

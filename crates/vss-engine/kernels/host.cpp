/*
 * The host build of the kernel (ecdsa_verify.cu) and of what the GPU gets from the host:
 * the curves' constants and the tables of multiples of G and of prepared keys, made with
 * the kernel's own arithmetic. The other entry points expose that arithmetic to the Rust tests.
 */
#include <vector>

#include "ecdsa_verify.cu"

namespace {

/* Domain parameters, big-endian hex as the standards print them (SEC 2, RFC 5639). */
struct CurveHex {
    const char *p, *a, *b, *n, *gx, *gy;
};

const CurveHex CURVES[] = {
    /* P-256 */
    {"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
     "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
     "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
     "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
     "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
     "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"},
    /* brainpoolP256r1 */
    {"a9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377",
     "7d5a0975fc2c3057eef67530417affe7fb8055c126dc5c6ce94a4b44f330b5d9",
     "26dc5c6ce94a4b44f330b5d9bbd77cbf958416295cf7e1ce6bccdc18ff8c07b6",
     "a9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a7",
     "8bd2aeb9cb7e57cb2c4b482ffc81b7afb9de27e1e3bd23c23a4453bd9ace3262",
     "547ef835c3dac4fd97f8461a14611dc9c27745132ded8e545c1d54c72f046997"},
};

void parse_hex(vss_u32 *out, const char *hex) {
    for (int i = 0; i < VSS_LIMBS; i++) out[i] = 0;
    for (int i = 0; i < 64; i++) {
        char ch = hex[i];
        vss_u32 v = ch <= '9' ? (vss_u32)(ch - '0') : (vss_u32)(ch - 'a' + 10);
        int nibble = 63 - i;
        out[nibble / 8] |= v << (4 * (nibble % 8));
    }
}

/* The Montgomery constants of an odd modulus above 2^255. */
void mont_init(vss_mont *m, const char *hex) {
    parse_hex(m->m, hex);
    /* Newton's iteration for m^-1 mod 2^32: m0 * m0 = 1 mod 8, and each step doubles the
     * correct low bits (3, 6, 12, 24, 48). */
    vss_u32 inv = m->m[0];
    for (int i = 0; i < 4; i++) inv *= 2 - m->m[0] * inv;
    m->minv = 0u - inv;
    /* R mod m = 2^256 - m (m > 2^255), then R^2 = R * 2^256 by 256 doublings. */
    vss_u32 zero[VSS_LIMBS] = {0, 0, 0, 0, 0, 0, 0, 0};
    vss_u32 p256[VSS_LIMBS];
    parse_hex(p256, CURVES[0].p);
    m->p256 = vss_equal(m->m, p256);
    vss_sub_raw(m->one, zero, m->m);
    vss_copy(m->r2, m->one);
    for (int i = 0; i < 256; i++) vss_mod_add(m, m->r2, m->r2, m->r2);
}

void to_mont(const vss_mont *m, vss_u32 *out, const char *hex) {
    vss_u32 plain[VSS_LIMBS];
    parse_hex(plain, hex);
    vss_mont_mul(m, out, plain, m->r2);
}

}  // namespace

/* Fills *out with curve id's constants (0: P-256, 1: brainpoolP256r1); 0 for another id. */
extern "C" int vss_host_curve(int id, vss_curve *out) {
    if (id < 0 || id > 1) return 0;
    const CurveHex &h = CURVES[id];
    mont_init(&out->p, h.p);
    mont_init(&out->n, h.n);
    to_mont(&out->p, out->a, h.a);
    to_mont(&out->p, out->b, h.b);
    to_mont(&out->p, out->gx, h.gx);
    to_mont(&out->p, out->gy, h.gy);
    vss_u32 a[VSS_LIMBS], three[VSS_LIMBS] = {3, 0, 0, 0, 0, 0, 0, 0};
    parse_hex(a, h.a);
    vss_add_raw(a, a, three);
    out->a_is_minus_3 = vss_equal(a, out->p.m);
    return 1;
}

/*
 * Fills out[w * 255 + d - 1] with d 2^(8w) P, affine, for w < 32 and 1 <= d <= 255: the
 * table vss_point_add_mul_table walks, of G for every verification and of a prepared key.
 * P must be a point of the curve (Montgomery coordinates).
 */
extern "C" void vss_host_table(const vss_curve *c, const vss_affine *p, vss_affine *out) {
    const vss_mont *f = &c->p;
    std::vector<vss_jacobian> points(VSS_G_TABLE_LEN);
    vss_jacobian base;
    vss_from_affine(c, &base, p);
    for (int w = 0; w < VSS_G_WINDOWS; w++) {
        vss_jacobian *row = &points[w * VSS_G_DIGITS];
        row[0] = base;
        for (int d = 1; d < VSS_G_DIGITS; d++) vss_point_add(c, &row[d], &row[d - 1], &base);
        for (int k = 0; k < VSS_G_BITS; k++) vss_point_double(c, &base, &base);
    }
    /* One inversion for all: prefix products of Z, then back to front. None of these
     * points is the point at infinity: the curves have cofactor 1, so P has the prime
     * order n, which does not divide d 2^(8w). */
    std::vector<vss_u32> prefix(VSS_G_TABLE_LEN * VSS_LIMBS);
    vss_copy(&prefix[0], points[0].z);
    for (int i = 1; i < VSS_G_TABLE_LEN; i++) {
        vss_mont_mul(f, &prefix[i * VSS_LIMBS], &prefix[(i - 1) * VSS_LIMBS], points[i].z);
    }
    vss_u32 inv[VSS_LIMBS];
    vss_mont_inv(f, inv, &prefix[(VSS_G_TABLE_LEN - 1) * VSS_LIMBS]);
    for (int i = VSS_G_TABLE_LEN - 1; i >= 0; i--) {
        vss_u32 zinv[VSS_LIMBS], zz[VSS_LIMBS];
        if (i > 0) {
            vss_mont_mul(f, zinv, inv, &prefix[(i - 1) * VSS_LIMBS]);
            vss_mont_mul(f, inv, inv, points[i].z);
        } else {
            vss_copy(zinv, inv);
        }
        vss_mont_mul(f, zz, zinv, zinv);
        vss_mont_mul(f, out[i].x, points[i].x, zz);
        vss_mont_mul(f, zz, zz, zinv);
        vss_mont_mul(f, out[i].y, points[i].y, zz);
    }
}

/* Field and scalar arithmetic over a modulus (Montgomery form in and out). */
extern "C" void vss_host_mont_mul(const vss_mont *m, vss_u32 *r, const vss_u32 *a,
                                  const vss_u32 *b) {
    vss_mont_mul(m, r, a, b);
}

extern "C" void vss_host_mod_add(const vss_mont *m, vss_u32 *r, const vss_u32 *a,
                                 const vss_u32 *b) {
    vss_mod_add(m, r, a, b);
}

extern "C" void vss_host_mod_sub(const vss_mont *m, vss_u32 *r, const vss_u32 *a,
                                 const vss_u32 *b) {
    vss_mod_sub(m, r, a, b);
}

extern "C" void vss_host_mont_inv(const vss_mont *m, vss_u32 *r, const vss_u32 *a) {
    vss_mont_inv(m, r, a);
}

/* Point arithmetic (Montgomery coordinates). */
extern "C" int vss_host_on_curve(const vss_curve *c, const vss_affine *q) {
    return vss_on_curve(c, q);
}

extern "C" void vss_host_point_double(const vss_curve *c, vss_jacobian *r,
                                      const vss_jacobian *p) {
    vss_point_double(c, r, p);
}

extern "C" void vss_host_point_add(const vss_curve *c, vss_jacobian *r, const vss_jacobian *p,
                                   const vss_jacobian *q) {
    vss_point_add(c, r, p, q);
}

extern "C" void vss_host_point_add_mixed(const vss_curve *c, vss_jacobian *r,
                                         const vss_jacobian *p, const vss_affine *q) {
    vss_point_add_mixed(c, r, p, q);
}

extern "C" void vss_host_point_mul(const vss_curve *c, vss_jacobian *r, const vss_u32 *k,
                                   const vss_affine *q) {
    vss_point_mul(c, r, k, q);
}

/* r = u1 G + u2 q, as the verifier computes it. */
extern "C" void vss_host_point_mul_add(const vss_curve *c, const vss_affine *table,
                                       vss_jacobian *r, const vss_u32 *u1, const vss_u32 *u2,
                                       const vss_affine *q) {
    vss_point_mul(c, r, u2, q);
    vss_point_add_mul_table(c, r, r, u1, table);
}

/* One verification, plain integers in (see vss_verify). */
extern "C" int vss_host_verify(const vss_curve *c, const vss_affine *table, const vss_u32 *qx,
                               const vss_u32 *qy, const vss_u32 *e, const vss_u32 *r,
                               const vss_u32 *s) {
    return vss_verify(c, table, qx, qy, e, r, s);
}

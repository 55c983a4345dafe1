"""An independent Python reference for the `vss kem` schemes, written from the specifications
(ISO/IEC 18033-2 PSEC-KEM and ECIES-KEM, IEEE 1609.2 ECIES, SEC 1 point encodings), not from
the VSS sources.

Prime curves (p256, bp256, and P-192 for the ISO 18033-2 annex C vectors) use python-ecdsa's
point arithmetic; the 283-bit binary curves (k283 = sect283k1, b283 = sect283r1) use the
GF(2^m) arithmetic below. Points are affine `(x, y)` tuples of ints, `None` is the point at
infinity. Nothing here is constant time: it is a test oracle.

Errors: `decode_point` raises `PointError`; the decapsulation functions raise `Rejected`.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

import ecdsa
from ecdsa.ellipticcurve import PointJacobi


class PointError(ValueError):
    """An octet string that is not the SEC 1 encoding of a point of the curve."""


class Rejected(ValueError):
    """A ciphertext the scheme rejects."""



# --------------------------------------------------------------------------------------
# GF(2^m) in polynomial basis: elements are ints, bit i the coefficient of z^i
# --------------------------------------------------------------------------------------


def clmul(a: int, b: int) -> int:
    """Carry-less product of two polynomials over GF(2) (4-bit window)."""
    if a < b:
        a, b = b, a
    if b == 0:
        return 0
    table = [0] * 16
    table[1] = a
    for w in range(2, 16):
        table[w] = table[w >> 1] << 1 if w % 2 == 0 else table[w - 1] ^ a
    r = 0
    for i in range((b.bit_length() + 3) // 4 - 1, -1, -1):
        r = (r << 4) ^ table[(b >> (4 * i)) & 15]
    return r


@dataclass(frozen=True)
class BinaryField:
    """GF(2^m) = GF(2)[z] / f(z), f given by the exponents of its middle terms."""

    m: int
    middle: tuple[int, ...]  # f(z) = z^m + sum(z^e for e in middle) + 1

    @property
    def modulus(self) -> int:
        f = (1 << self.m) | 1
        for e in self.middle:
            f |= 1 << e
        return f

    def reduce(self, c: int) -> int:
        m, mask = self.m, (1 << self.m) - 1
        while c >> m:
            hi = c >> m
            c = (c & mask) ^ hi
            for e in self.middle:
                c ^= hi << e
        return c

    def mul(self, a: int, b: int) -> int:
        return self.reduce(clmul(a, b))

    def sqr(self, a: int) -> int:
        return self.reduce(clmul(a, a))

    def sqr_n(self, a: int, n: int) -> int:
        for _ in range(n):
            a = self.sqr(a)
        return a

    def inv(self, a: int) -> int:
        """Inverse by the extended Euclidean algorithm in GF(2)[z]."""
        if a == 0:
            raise ZeroDivisionError("0 has no inverse in GF(2^m)")
        u, v, g1, g2 = self.reduce(a), self.modulus, 1, 0
        while u != 1:
            j = u.bit_length() - v.bit_length()
            if j < 0:
                u, v, g1, g2 = v, u, g2, g1
                j = -j
            u ^= v << j
            g1 ^= g2 << j
        return self.reduce(g1)

    def div(self, a: int, b: int) -> int:
        return self.mul(a, self.inv(b))

    def trace(self, a: int) -> int:
        """Tr(a) = a + a^2 + a^4 + ... + a^(2^(m-1)), which is 0 or 1."""
        t, s = 0, a
        for _ in range(self.m):
            t ^= s
            s = self.sqr(s)
        assert t in (0, 1), "trace outside GF(2): arithmetic bug"
        return t

    def half_trace(self, a: int) -> int:
        """H(a) = sum of a^(2^(2i)) for i = 0..(m-1)/2; for odd m and Tr(a) = 0,
        z = H(a) solves z^2 + z = a."""
        assert self.m % 2 == 1
        h, s = 0, a
        for _ in range((self.m - 1) // 2 + 1):
            h ^= s
            s = self.sqr(self.sqr(s))
        return h

    def sqrt(self, a: int) -> int:
        """a^(2^(m-1)), the unique square root."""
        return self.sqr_n(a, self.m - 1)


# --------------------------------------------------------------------------------------
# Curves
# --------------------------------------------------------------------------------------


def _h(s: str) -> int:
    return int(s.replace(" ", ""), 16)


@dataclass(frozen=True)
class BinaryCurve:
    """y^2 + xy = x^3 + a x^2 + b over GF(2^m)."""

    name: str
    field: BinaryField
    a: int
    b: int
    gx: int
    gy: int
    n: int
    cofactor: int

    @property
    def L(self) -> int:  # octets of a field element (= of a scalar on these curves)
        return (self.field.m + 7) // 8

    @property
    def G(self):
        return (self.gx, self.gy)

    def on_curve(self, P) -> bool:
        if P is None:
            return True
        F = self.field
        x, y = P
        if x >> F.m or y >> F.m:
            return False
        lhs = F.sqr(y) ^ F.mul(x, y)
        x2 = F.sqr(x)
        rhs = F.mul(x2, x) ^ F.mul(self.a, x2) ^ self.b
        return lhs == rhs

    def neg(self, P):
        return None if P is None else (P[0], P[0] ^ P[1])

    def double(self, P):
        if P is None:
            return None
        F = self.field
        x, y = P
        if x == 0:  # (0, sqrt(b)) has order 2
            return None
        lam = x ^ F.div(y, x)
        x3 = F.sqr(lam) ^ lam ^ self.a
        y3 = F.sqr(x) ^ F.mul(lam ^ 1, x3)
        return (x3, y3)

    def add(self, P, Q):
        if P is None:
            return Q
        if Q is None:
            return P
        F = self.field
        x1, y1 = P
        x2, y2 = Q
        if x1 == x2:
            if y1 == y2:
                return self.double(P)
            return None  # Q = -P (y2 = x1 + y1)
        lam = F.div(y1 ^ y2, x1 ^ x2)
        x3 = F.sqr(lam) ^ lam ^ x1 ^ x2 ^ self.a
        y3 = F.mul(lam, x1 ^ x3) ^ x3 ^ y1
        return (x3, y3)

    def mul(self, k: int, P=None):
        """k * P (P = G when omitted) by left-to-right double-and-add; k is not reduced."""
        if k < 0:
            raise ValueError("negative scalar")
        P = self.G if P is None else P
        R = None
        for bit in bin(k)[2:] if k else "":
            R = self.double(R)
            if bit == "1":
                R = self.add(R, P)
        return R

    # SEC 1 §2.3.3 / §2.3.4 for F_2^m

    def encode(self, P, compressed: bool = True) -> bytes:
        if P is None:
            return b"\x00"
        F, L = self.field, self.L
        x, y = P
        if compressed:
            ybit = 0 if x == 0 else F.div(y, x) & 1
            return bytes([2 | ybit]) + x.to_bytes(L, "big")
        return b"\x04" + x.to_bytes(L, "big") + y.to_bytes(L, "big")

    def decode(self, data: bytes):
        F, L = self.field, self.L
        if data == b"\x00":
            return None
        if len(data) == 1 + L and data[0] in (2, 3):
            x = int.from_bytes(data[1:], "big")
            if x >> F.m:
                raise PointError("x is not a field element")
            if x == 0:
                P = (0, F.sqrt(self.b))
            else:
                beta = x ^ self.a ^ F.mul(self.b, F.sqr(F.inv(x)))
                if F.trace(beta):
                    raise PointError("no point with this x")
                z = F.half_trace(beta)
                assert F.sqr(z) ^ z == beta, "half-trace failed: arithmetic bug"
                if z & 1 != data[0] & 1:
                    z ^= 1
                P = (x, F.mul(z, x))
        elif len(data) == 1 + 2 * L and data[0] == 4:
            P = (int.from_bytes(data[1 : 1 + L], "big"), int.from_bytes(data[1 + L :], "big"))
        else:
            raise PointError(f"not a SEC 1 point encoding ({len(data)} octets)")
        if not self.on_curve(P):
            raise PointError("point is not on the curve")
        return P

    def x_octets(self, P) -> bytes:
        return P[0].to_bytes(self.L, "big")


@dataclass(frozen=True)
class PrimeCurve:
    """y^2 = x^3 + a x + b over F_p; python-ecdsa does the point arithmetic."""

    name: str
    ecdsa_curve: ecdsa.curves.Curve = field(repr=False)

    @property
    def p(self) -> int:
        return self.ecdsa_curve.curve.p()

    @property
    def a(self) -> int:
        return self.ecdsa_curve.curve.a()

    @property
    def b(self) -> int:
        return self.ecdsa_curve.curve.b()

    @property
    def n(self) -> int:
        return self.ecdsa_curve.order

    cofactor = 1

    @property
    def L(self) -> int:
        return (self.p.bit_length() + 7) // 8

    @property
    def G(self):
        g = self.ecdsa_curve.generator
        return (int(g.x()), int(g.y()))

    def on_curve(self, P) -> bool:
        if P is None:
            return True
        x, y = P
        p = self.p
        return 0 <= x < p and 0 <= y < p and (y * y - (x * x * x + self.a * x + self.b)) % p == 0

    def mul(self, k: int, P=None):
        if k < 0:
            raise ValueError("negative scalar")
        if P is None:
            R = self.ecdsa_curve.generator * k
        else:
            R = PointJacobi(self.ecdsa_curve.curve, P[0], P[1], 1, self.n) * k
        if R == ecdsa.ellipticcurve.INFINITY or R.x() is None:
            return None
        return (int(R.x()), int(R.y()))

    def add(self, P, Q):
        if P is None:
            return Q
        if Q is None:
            return P
        c = self.ecdsa_curve.curve
        R = PointJacobi(c, P[0], P[1], 1, self.n) + PointJacobi(c, Q[0], Q[1], 1, self.n)
        if R == ecdsa.ellipticcurve.INFINITY or R.x() is None:
            return None
        return (int(R.x()), int(R.y()))

    def _sqrt(self, v: int) -> int | None:
        p = self.p
        v %= p
        if v == 0:
            return 0
        if pow(v, (p - 1) // 2, p) != 1:
            return None
        if p % 4 == 3:
            return pow(v, (p + 1) // 4, p)
        # Tonelli-Shanks (not needed for the curves used here, kept for completeness)
        q, s = p - 1, 0
        while q % 2 == 0:
            q, s = q // 2, s + 1
        z = 2
        while pow(z, (p - 1) // 2, p) != p - 1:
            z += 1
        m, c, t, r = s, pow(z, q, p), pow(v, q, p), pow(v, (q + 1) // 2, p)
        while t != 1:
            i, t2 = 0, t
            while t2 != 1:
                t2, i = t2 * t2 % p, i + 1
            bb = pow(c, 1 << (m - i - 1), p)
            m, c, t, r = i, bb * bb % p, t * bb * bb % p, r * bb % p
        return r

    def encode(self, P, compressed: bool = True) -> bytes:
        if P is None:
            return b"\x00"
        x, y = P
        L = self.L
        if compressed:
            return bytes([2 | (y & 1)]) + x.to_bytes(L, "big")
        return b"\x04" + x.to_bytes(L, "big") + y.to_bytes(L, "big")

    def decode(self, data: bytes):
        L, p = self.L, self.p
        if data == b"\x00":
            return None
        if len(data) == 1 + L and data[0] in (2, 3):
            x = int.from_bytes(data[1:], "big")
            if x >= p:
                raise PointError("x is not a field element")
            y = self._sqrt(x * x * x + self.a * x + self.b)
            if y is None:
                raise PointError("no point with this x")
            if y & 1 != data[0] & 1:
                y = p - y
            P = (x, y)
        elif len(data) == 1 + 2 * L and data[0] == 4:
            P = (int.from_bytes(data[1 : 1 + L], "big"), int.from_bytes(data[1 + L :], "big"))
        else:
            raise PointError(f"not a SEC 1 point encoding ({len(data)} octets)")
        if not self.on_curve(P):
            raise PointError("point is not on the curve")
        return P

    def x_octets(self, P) -> bytes:
        return P[0].to_bytes(self.L, "big")


GF2_283 = BinaryField(283, (12, 7, 5))

# SEC 2 v2 §3.4.1 (sect283k1) and §3.4.2 (sect283r1).
K283 = BinaryCurve(
    name="k283",
    field=GF2_283,
    a=0,
    b=1,
    gx=_h("0503213F 78CA4488 3F1A3B81 62F188E5 53CD265F 23C1567A 16876913 B0C2AC24 58492836"),
    gy=_h("01CCDA38 0F1C9E31 8D90F95D 07E5426F E87E45C0 E8184698 E4596236 4E341161 77DD2259"),
    n=_h("01FFFFFF FFFFFFFF FFFFFFFF FFFFFFFF FFFFE9AE 2ED07577 265DFF7F 94451E06 1E163C61"),
    cofactor=4,
)
B283 = BinaryCurve(
    name="b283",
    field=GF2_283,
    a=1,
    b=_h("027B680A C8B8596D A5A4AF8A 19A0303F CA97FD76 45309FA2 A581485A F6263E31 3B79A2F5"),
    gx=_h("05F93925 8DB7DD90 E1934F8C 70B0DFEC 2EED25B8 557EAC9C 80E2E198 F8CDBECD 86B12053"),
    gy=_h("03676854 FE24141C B98FE6D4 B20D02B4 516FF702 350EDDB0 826779C8 13F0DF45 BE8112F4"),
    n=_h("03FFFFFF FFFFFFFF FFFFFFFF FFFFFFFF FFFFEF90 399660FC 938A9016 5B042A7C EFADB307"),
    cofactor=2,
)
P256 = PrimeCurve("p256", ecdsa.NIST256p)
BP256 = PrimeCurve("bp256", ecdsa.BRAINPOOLP256r1)
P192 = PrimeCurve("p192", ecdsa.NIST192p)  # only for the ISO/IEC 18033-2 annex C vectors

CURVES = {c.name: c for c in (P256, BP256, K283, B283)}


# --------------------------------------------------------------------------------------
# Key derivation
# --------------------------------------------------------------------------------------

HASHES = {"sha1": hashlib.sha1, "sha256": hashlib.sha256}


def i2osp(value: int, length: int) -> bytes:
    return value.to_bytes(length, "big")


def kdf(x: bytes, length: int, *, variant: str = "kdf2", hash_name: str = "sha256",
        param: bytes = b"") -> bytes:
    """KDF1 (counter from 0) or KDF2 (counter from 1) of ISO/IEC 18033-2:
    Hash(x ‖ I2OSP(counter, 4) ‖ param) ‖ ... cut to `length`. (`param` is the P1 of the
    IEEE 1363a / 1609.2 form; ISO/IEC 18033-2 has none.)"""
    start = {"kdf1": 0, "kdf2": 1}[variant]
    hashfn = HASHES[hash_name]
    out = b""
    counter = start
    while len(out) < length:
        out += hashfn(x + i2osp(counter, 4) + param).digest()
        counter += 1
    return out[:length]


def xor(a: bytes, b: bytes) -> bytes:
    assert len(a) == len(b)
    return bytes(u ^ v for u, v in zip(a, b))


# --------------------------------------------------------------------------------------
# PSEC-KEM (ISO/IEC 18033-2 §10.3), KDF2-SHA256, SeedLen 32, EG compressed
# --------------------------------------------------------------------------------------

PSEC_SEED_LEN = 32


def _psec_derive(curve, seed: bytes, key_len: int) -> tuple[int, bytes]:
    t = kdf(i2osp(0, 4) + seed, curve.L + 16 + key_len)
    u_octets, key = t[: curve.L + 16], t[curve.L + 16 :]
    return int.from_bytes(u_octets, "big") % curve.n, key


def _psec_mask(eg: bytes, peh: bytes) -> bytes:
    return kdf(i2osp(1, 4) + eg + peh, PSEC_SEED_LEN)


def psec_encap(curve, public, seed: bytes, key_len: int = 32) -> tuple[bytes, bytes]:
    """(C0, K) for the recipient's public point `public` and the seed r."""
    assert len(seed) == PSEC_SEED_LEN
    u, key = _psec_derive(curve, seed, key_len)
    h_tilde = curve.mul(u, public)
    g_tilde = curve.mul(u)
    assert h_tilde is not None and g_tilde is not None, "u = 0: astronomically unlikely"
    eg = curve.encode(g_tilde, compressed=True)
    v = xor(seed, _psec_mask(eg, curve.x_octets(h_tilde)))
    return eg + v, key


def psec_decap(curve, private: int, c0: bytes, key_len: int = 32) -> bytes:
    if len(c0) != 1 + curve.L + PSEC_SEED_LEN:
        raise Rejected("C0 has the wrong length")
    eg, v = c0[: 1 + curve.L], c0[1 + curve.L :]
    try:
        g_tilde = curve.decode(eg)
    except PointError as e:
        raise Rejected(f"EG: {e}") from None
    if g_tilde is None:
        raise Rejected("EG is the point at infinity")
    h_tilde = curve.mul(private, g_tilde)
    if h_tilde is None:
        raise Rejected("x * EG is the point at infinity")
    seed = xor(v, _psec_mask(eg, curve.x_octets(h_tilde)))
    u, key = _psec_derive(curve, seed, key_len)
    if curve.mul(u) != g_tilde:
        raise Rejected("u * G differs from EG")
    return key


# --------------------------------------------------------------------------------------
# ECIES-KEM (ISO/IEC 18033-2 §10.2)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EciesKemParams:
    """The system parameters; the defaults are those `vss kem` uses without flags.

    The cofactor modes, as the ISO/IEC 18033-2 ECIES-KEM defines them for a cofactor nu:
    CofactorMode (IEEE 1363 "compatible" cofactor DH) decapsulates with
    h~ = nu * ((nu^-1 * x) mod mu) * g~, the same h~ as plain mode for g~ in <G>, so
    encapsulation is unchanged; OldCofactorMode decapsulates with h~ = nu * x * g~, so
    encapsulation computes h~ = nu * r * h; CheckMode makes decapsulation reject a g~ whose
    order is not mu. Only the plain mode (all off) is spelled out in the VSS test brief; the
    modes here are this module's reading of the standard."""

    key_len: int = 32
    kdf: str = "kdf2"
    hash: str = "sha256"
    compressed: bool = True
    single_hash: bool = False
    cofactor_mode: bool = False
    old_cofactor_mode: bool = False
    check_mode: bool = False

    def __post_init__(self) -> None:
        if self.cofactor_mode and self.old_cofactor_mode:
            raise ValueError("CofactorMode and OldCofactorMode exclude each other")

    def cli_flags(self) -> list[str]:
        """The matching `vss kem` flags (defaults left out)."""
        flags = []
        if self.key_len != 32:
            flags += ["--key-len", str(self.key_len)]
        if self.kdf != "kdf2":
            flags += ["--kdf", self.kdf]
        if self.hash != "sha256":
            flags += ["--hash", self.hash]
        if not self.compressed:
            flags += ["--point-format", "uncompressed"]
        if self.single_hash:
            flags += ["--single-hash-mode"]
        if self.cofactor_mode:
            flags += ["--cofactor-mode"]
        if self.old_cofactor_mode:
            flags += ["--old-cofactor-mode"]
        if self.check_mode:
            flags += ["--check-mode"]
        return flags


def ecies_kem_key(eg: bytes, peh: bytes, params: EciesKemParams) -> bytes:
    z = peh if params.single_hash else eg + peh
    return kdf(z, params.key_len, variant=params.kdf, hash_name=params.hash)


def ecies_kem_encap(curve, public, r: int, params: EciesKemParams = EciesKemParams()):
    """(C0, K) with the ephemeral scalar r in [1, μ)."""
    assert 1 <= r < curve.n
    g_tilde = curve.mul(r)
    h_tilde = curve.mul(curve.cofactor * r if params.old_cofactor_mode else r, public)
    eg = curve.encode(g_tilde, compressed=params.compressed)
    return eg, ecies_kem_key(eg, curve.x_octets(h_tilde), params)


def ecies_kem_decap(curve, private: int, c0: bytes, params: EciesKemParams = EciesKemParams()):
    try:
        g_tilde = curve.decode(c0)
    except PointError as e:
        raise Rejected(f"C0: {e}") from None
    if g_tilde is None:
        raise Rejected("C0 is the point at infinity")
    if params.check_mode and curve.mul(curve.n, g_tilde) is not None:
        raise Rejected("CheckMode: the order of C0 is not mu")
    nu = curve.cofactor
    if params.cofactor_mode:
        scalar = nu * (private * pow(nu, -1, curve.n) % curve.n)
    elif params.old_cofactor_mode:
        scalar = nu * private
    else:
        scalar = private
    h_tilde = curve.mul(scalar, g_tilde)
    if h_tilde is None:
        raise Rejected("h~ is the point at infinity")
    return ecies_kem_key(c0, curve.x_octets(h_tilde), params)


# --------------------------------------------------------------------------------------
# ECIES of IEEE 1609.2 (p256, bp256): a 16-octet AES key encrypted to a recipient
# --------------------------------------------------------------------------------------

DEFAULT_P1 = hashlib.sha256(b"").digest()


def _ecies1609_keys(z: bytes, p1: bytes) -> tuple[bytes, bytes]:
    kk = kdf(z, 16 + 32, param=p1)
    return kk[:16], kk[16:]


def ecies1609_encrypt(curve, recipient, aes_key: bytes, v: int, p1: bytes = DEFAULT_P1) -> bytes:
    """V (compressed) ‖ c ‖ t, with the ephemeral scalar v."""
    assert curve.name in ("p256", "bp256") and len(aes_key) == 16 and 1 <= v < curve.n
    V = curve.mul(v)
    k1, k2 = _ecies1609_keys(curve.x_octets(curve.mul(v, recipient)), p1)
    c = xor(aes_key, k1)
    t = hmac.new(k2, c, hashlib.sha256).digest()[:16]
    return curve.encode(V, compressed=True) + c + t


def ecies1609_decrypt(curve, private: int, ciphertext: bytes, p1: bytes = DEFAULT_P1) -> bytes:
    n = 1 + curve.L
    if len(ciphertext) != n + 32:
        raise Rejected("wrong length")
    try:
        V = curve.decode(ciphertext[:n])
    except PointError as e:
        raise Rejected(f"V: {e}") from None
    if V is None:
        raise Rejected("V is the point at infinity")
    Z = curve.mul(private, V)
    if Z is None:
        raise Rejected("x * V is the point at infinity")
    k1, k2 = _ecies1609_keys(curve.x_octets(Z), p1)
    c, t = ciphertext[n : n + 16], ciphertext[n + 16 :]
    if not hmac.compare_digest(hmac.new(k2, c, hashlib.sha256).digest()[:16], t):
        raise Rejected("tag mismatch")
    return xor(c, k1)


# --------------------------------------------------------------------------------------
# Helpers for building malformed inputs
# --------------------------------------------------------------------------------------


def x_without_point(curve, start: int) -> int:
    """The first field element x >= start that is the x coordinate of no curve point, so
    that 02‖x is a well-formed compressed encoding of no point."""
    x = start
    while True:
        try:
            curve.decode(b"\x02" + x.to_bytes(curve.L, "big"))
        except PointError:
            return x
        x += 1


def small_order_point(curve):
    """A point of order 2 on a binary curve with even cofactor: (0, sqrt(b))."""
    P = (0, curve.field.sqrt(curve.b))
    assert curve.on_curve(P) and curve.double(P) is None
    return P

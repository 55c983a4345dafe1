"""An independent ProofVerify of BBS (draft-irtf-cfrg-bbs-signatures-13) for the ciphersuite
BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_, in pure Python: py_ecc's optimized_bls12_381 for the
curve arithmetic, pairings and hash_to_curve, hashlib for the rest.

Written from the draft, not from crates/vss-cred: expand_message_xmd (RFC 9380 5.3.1),
hash_to_scalar, create_generators, calculate_domain, octets_to_proof, the challenge and the
pairing check. Pure-Python pairings take seconds: verify a handful of proofs, not hundreds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

from py_ecc.bls.hash_to_curve import hash_to_G1
from py_ecc.bls.point_compression import compress_G1, decompress_G1, decompress_G2
from py_ecc.fields import optimized_bls12_381_FQ12 as FQ12
from py_ecc.optimized_bls12_381 import (
    G2,
    Z1,
    add,
    curve_order,
    eq,
    final_exponentiate,
    is_inf,
    multiply,
    neg,
)
from py_ecc.optimized_bls12_381.optimized_pairing import miller_loop

R = curve_order
CIPHERSUITE_ID = b"BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_"
API_ID = CIPHERSUITE_ID + b"H2G_HM2S_"
P1_HEX = ("a8ce256102840821a3e94ea9025e4662b205762f9776b3a766c872b948f1fd22"
          "5e7c59698588e70d11406d161b4e28c9")
G1_LEN, G2_LEN, SCALAR_LEN = 48, 96, 32


class Invalid(Exception):
    """Bytes that do not decode (the draft's INVALID from a deserialization)."""


def i2osp(x: int, n: int) -> bytes:
    return x.to_bytes(n, "big")


def os2ip(b: bytes) -> int:
    return int.from_bytes(b, "big")


def expand_message_xmd(msg: bytes, dst: bytes, len_in_bytes: int) -> bytes:
    """RFC 9380 5.3.1 with SHA-256 (b_in_bytes 32, s_in_bytes 64)."""
    ell = -(-len_in_bytes // 32)
    assert ell <= 255 and len_in_bytes <= 65535 and len(dst) <= 255
    dst_prime = dst + i2osp(len(dst), 1)
    b0 = hashlib.sha256(b"\x00" * 64 + msg + i2osp(len_in_bytes, 2) + b"\x00" + dst_prime).digest()
    bs = [hashlib.sha256(b0 + b"\x01" + dst_prime).digest()]
    for i in range(2, ell + 1):
        mixed = bytes(x ^ y for x, y in zip(b0, bs[-1]))
        bs.append(hashlib.sha256(mixed + i2osp(i, 1) + dst_prime).digest())
    return b"".join(bs)[:len_in_bytes]


def hash_to_scalar(msg: bytes, dst: bytes) -> int:
    return os2ip(expand_message_xmd(msg, dst, 48)) % R


def map_message_to_scalar(msg: bytes) -> int:
    """MapMessageToScalarAsHash."""
    return hash_to_scalar(msg, API_ID + b"MAP_MSG_TO_SCALAR_AS_HASH_")


def hash_to_curve_g1(msg: bytes, dst: bytes):
    return hash_to_G1(msg, dst, hashlib.sha256)


# --------------------------------------------------------------------------------------
# Points
# --------------------------------------------------------------------------------------


def g1_to_bytes(p) -> bytes:
    return i2osp(compress_G1(p), G1_LEN)


def g1_from_bytes(b: bytes):
    """octets_to_point_E1: compressed, on the curve, in the subgroup, not the identity."""
    if len(b) != G1_LEN:
        raise Invalid(f"G1 point of {len(b)} bytes")
    try:
        p = decompress_G1(os2ip(b))
    except ValueError as e:
        raise Invalid(str(e)) from e
    if is_inf(p) or not is_inf(multiply(p, R)):
        raise Invalid("G1 point is the identity or outside the subgroup")
    return p


def g2_from_bytes(b: bytes):
    if len(b) != G2_LEN:
        raise Invalid(f"G2 point of {len(b)} bytes")
    try:
        p = decompress_G2((os2ip(b[:48]), os2ip(b[48:])))
    except ValueError as e:
        raise Invalid(str(e)) from e
    if is_inf(p) or not is_inf(multiply(p, R)):
        raise Invalid("G2 point is the identity or outside the subgroup")
    return p


def msm(pairs):
    acc = Z1
    for point, scalar in pairs:
        acc = add(acc, multiply(point, scalar % R))
    return acc


@lru_cache(maxsize=1)
def p1():
    return g1_from_bytes(bytes.fromhex(P1_HEX))


_GENERATORS: list = []
_GENERATOR_SEED: list[bytes] = []


def generators(count: int) -> list:
    """create_generators(count, api_id): [Q_1, H_1, ..., H_{count-1}] (kept for the process)."""
    seed_dst = API_ID + b"SIG_GENERATOR_SEED_"
    generator_dst = API_ID + b"SIG_GENERATOR_DST_"
    if not _GENERATOR_SEED:
        _GENERATOR_SEED.append(expand_message_xmd(API_ID + b"MESSAGE_GENERATOR_SEED", seed_dst, 48))
    while len(_GENERATORS) < count:
        i = len(_GENERATORS) + 1
        v = expand_message_xmd(_GENERATOR_SEED[-1] + i2osp(i, 8), seed_dst, 48)
        _GENERATOR_SEED.append(v)
        _GENERATORS.append(hash_to_curve_g1(v, generator_dst))
    return _GENERATORS[:count]


# --------------------------------------------------------------------------------------
# ProofVerify
# --------------------------------------------------------------------------------------


@dataclass
class Proof:
    abar: object
    bbar: object
    d: object
    e_hat: int
    r1_hat: int
    r3_hat: int
    m_hat: list
    challenge: int


def octets_to_proof(b: bytes) -> Proof:
    fixed = 3 * G1_LEN + 4 * SCALAR_LEN
    if len(b) < fixed or (len(b) - fixed) % SCALAR_LEN:
        raise Invalid(f"proof of {len(b)} bytes")
    points = [g1_from_bytes(b[i * G1_LEN:(i + 1) * G1_LEN]) for i in range(3)]
    scalars = [os2ip(b[k:k + SCALAR_LEN]) for k in range(3 * G1_LEN, len(b), SCALAR_LEN)]
    if any(s == 0 or s >= R for s in scalars):
        raise Invalid("proof scalar zero or not below r")
    return Proof(*points, scalars[0], scalars[1], scalars[2], scalars[3:-1], scalars[-1])


def calculate_domain(pk_bytes: bytes, gens, header: bytes) -> int:
    dom = pk_bytes + i2osp(len(gens) - 1, 8) + b"".join(g1_to_bytes(g) for g in gens)
    dom += API_ID + i2osp(len(header), 8) + header
    return hash_to_scalar(dom, API_ID + b"H2S_")


def challenge(disclosed, abar, bbar, d, t1, t2, domain: int, ph: bytes) -> int:
    c = i2osp(len(disclosed), 8)
    for i, m in disclosed:
        c += i2osp(i, 8) + i2osp(m, SCALAR_LEN)
    c += b"".join(g1_to_bytes(p) for p in (abar, bbar, d, t1, t2))
    c += i2osp(domain, SCALAR_LEN) + i2osp(len(ph), 8) + ph
    return hash_to_scalar(c, API_ID + b"H2S_")


def proof_verify(pk_bytes: bytes, proof_bytes: bytes, header: bytes, ph: bytes,
                 disclosed: list[tuple[int, int]], trace: dict | None = None) -> bool:
    """ProofVerify(PK, proof, header, ph, disclosed messages as scalars with their indexes).

    Returns the verdict; `trace`, when given, receives domain, T1, T2 and the challenge."""
    try:
        w = g2_from_bytes(pk_bytes)
        proof = octets_to_proof(proof_bytes)
    except Invalid:
        return False
    indexes = [i for i, _ in disclosed]
    count = len(disclosed) + len(proof.m_hat)
    if indexes != sorted(set(indexes)) or any(i >= count for i in indexes):
        return False
    gens = generators(count + 1)
    q1, hs = gens[0], gens[1:]
    domain = calculate_domain(pk_bytes, gens, header)
    c = proof.challenge
    t1 = msm([(proof.bbar, c), (proof.abar, proof.e_hat), (proof.d, proof.r1_hat)])
    bv = add(p1(), msm([(q1, domain)] + [(hs[i], m) for i, m in disclosed]))
    undisclosed = [i for i in range(count) if i not in indexes]
    t2 = msm([(bv, c), (proof.d, proof.r3_hat)]
             + [(hs[j], m) for j, m in zip(undisclosed, proof.m_hat)])
    expected = challenge(disclosed, proof.abar, proof.bbar, proof.d, t1, t2, domain, ph)
    if trace is not None:
        trace.update(domain=domain, T1=g1_to_bytes(t1), T2=g1_to_bytes(t2), challenge=expected)
    if expected != c:
        return False
    # e(Abar, W) * e(Bbar, -BP2) == 1
    f = (miller_loop(w, proof.abar, final_exponentiate=False)
         * miller_loop(neg(G2), proof.bbar, final_exponentiate=False))
    return final_exponentiate(f) == FQ12.one()


def scalar_mul_g1(p, k: int):
    return multiply(p, k % R)


def g1_eq(a, b) -> bool:
    return eq(a, b)


__all__ = [
    "API_ID", "Invalid", "Proof", "R", "add", "calculate_domain", "expand_message_xmd",
    "g1_eq", "g1_from_bytes", "g1_to_bytes", "generators", "hash_to_curve_g1",
    "hash_to_scalar", "i2osp", "map_message_to_scalar", "octets_to_proof", "p1", "proof_verify",
    "scalar_mul_g1",
]

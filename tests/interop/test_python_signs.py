"""Python signs, vss verifies (one `vss ecdsa verify-jsonl` process per curve), one line at
a time with the library and again in batches through the CPU engine (`--engine cpu`, whose
AVX-512 IFMA lanes take P-256 and brainpoolP256r1 where the CPU has them).

For every curve, both reference libraries, every hash and both signature encodings, each
signature is sent as it is (valid), as (r, n-s) (valid: ECDSA has no low-s rule, and both
references accept it), and spoiled five ways (tampered message, a well-formed but different
signature, a flipped byte in the encoding, another key, another hash), all invalid."""

from __future__ import annotations

import pytest

from _support import (
    CURVE_NAMES,
    CURVES,
    FORMATS,
    HASH_NAMES,
    INVALID,
    LIBS,
    VALID,
    Case,
    check_cases,
    decode_sig,
    encode_sig,
    python_sign,
    python_verdict,
    random_key,
    verify_line,
)


def _message_lengths(rng):
    return [0, 1, 32, rng.randrange(2, 200), 1000]


def _flip_bit(data: bytes, rng) -> bytes:
    if not data:
        return b"\x00"
    i = rng.randrange(len(data))
    out = bytearray(data)
    out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


ENGINES = {"library": (), "engine-cpu": ("--engine", "cpu")}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("curve_name", CURVE_NAMES)
def test_python_signatures_verify_in_vss(vss_bin, rng, seed_note, curve_name, engine):
    curve = CURVES[curve_name]
    n = curve.n
    cases: list[Case] = []
    high_s_checked = set()
    for lib in LIBS:
        key = random_key(curve, rng)
        other = random_key(curve, rng)
        for hash_name in HASH_NAMES:
            other_hash = HASH_NAMES[(HASH_NAMES.index(hash_name) + 1) % len(HASH_NAMES)]
            for fmt in FORMATS:
                for length in _message_lengths(rng):
                    msg = rng.randbytes(length)
                    sig = python_sign(lib, key, hash_name, msg, fmt, rng)
                    r, s = decode_sig(curve, sig, fmt)
                    pub = key.uncompressed
                    tag = f"{lib} {hash_name} {fmt} len={length}"

                    def add(what, expected, public_key=pub, m=msg, sg=sig, h=hash_name):
                        cases.append(Case(verify_line(curve_name, h, public_key, m, sg, fmt),
                                          expected, f"{tag}: {what}"))

                    add("as signed", VALID)

                    high = encode_sig(curve, r, n - s, fmt)
                    # Both references accept (r, n-s); check it once per combination.
                    if (lib, hash_name, fmt) not in high_s_checked:
                        high_s_checked.add((lib, hash_name, fmt))
                        assert python_verdict(curve, hash_name, pub, msg, high, fmt) is True
                    add("(r, n-s)", VALID, sg=high)

                    add("tampered message", INVALID, m=_flip_bit(msg, rng))

                    # Well-formed and in range, but not the signature: change s (or r).
                    s2 = s ^ (1 << rng.randrange(min(s.bit_length(), 64) or 1))
                    if not 0 < s2 < n or s2 in (s, n - s):
                        s2 = s + 1 if s + 1 < n else s - 1
                    add("different s", INVALID, sg=encode_sig(curve, r, s2, fmt))
                    r2 = r + 1 if r + 1 < n else r - 1
                    add("different r", INVALID, sg=encode_sig(curve, r2, s, fmt))

                    add("flipped bit in the encoding", INVALID, sg=_flip_bit(sig, rng))
                    add("another key", INVALID, public_key=other.uncompressed)
                    add(f"verified as {other_hash}", INVALID, h=other_hash)
    total = check_cases(vss_bin, "verify-jsonl", cases, seed_note, args=ENGINES[engine])
    assert total == len(LIBS) * len(HASH_NAMES) * len(FORMATS) * 5 * 8


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("curve_name", CURVE_NAMES)
def test_compressed_public_key_verifies_too(vss_bin, rng, seed_note, curve_name, engine):
    """SEC1 compressed keys are public keys too: the same signature checks under 02/03‖x."""
    curve = CURVES[curve_name]
    cases = []
    for i in range(8):
        key = random_key(curve, rng)
        hash_name = HASH_NAMES[i % len(HASH_NAMES)]
        fmt = FORMATS[i % 2]
        msg = rng.randbytes(rng.randrange(0, 64))
        sig = python_sign("cryptography", key, hash_name, msg, fmt, rng)
        assert python_verdict(curve, hash_name, key.compressed, msg, sig, fmt) is True
        cases.append(Case(verify_line(curve_name, hash_name, key.compressed, msg, sig, fmt),
                          VALID, f"compressed key, {hash_name} {fmt}"))
        cases.append(Case(verify_line(curve_name, hash_name, key.compressed, msg + b"!", sig, fmt),
                          INVALID, f"compressed key, {hash_name} {fmt}, tampered message"))
    check_cases(vss_bin, "verify-jsonl", cases, seed_note, args=ENGINES[engine])

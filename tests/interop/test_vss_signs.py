"""vss signs, Python verifies (one `vss ecdsa sign-jsonl` process per curve).

The private scalars come from Python (random ones and the edge scalars 1 and n-1). Every
signature vss returns must verify in python-ecdsa and in cryptography, must be strict DER
(or exactly r‖s for "p1363"), and the returned public key must be the point both libraries
derive from the same scalar."""

from __future__ import annotations

import json

import ecdsa
import ecdsa.util
import pytest

from _support import (
    CURVE_NAMES,
    CURVES,
    HASH_NAMES,
    KeyPair,
    crypto_accepts,
    der_sig,
    ecdsa_accepts,
    random_key,
    run_jsonl,
)

# "format" omitted means DER.
FORMAT_CHOICES = (None, "der", "p1363")


@pytest.mark.parametrize("curve_name", CURVE_NAMES)
def test_vss_signatures_verify_in_python(vss_bin, rng, seed_note, curve_name):
    curve = CURVES[curve_name]
    keys = [KeyPair(curve, 1), KeyPair(curve, curve.n - 1)]
    keys += [random_key(curve, rng) for _ in range(3)]
    # A scalar with a leading zero byte, still written at full width.
    keys.append(KeyPair(curve, rng.randrange(1, 1 << (8 * curve.scalar_len - 8))))

    requests = []
    for ki, key in enumerate(keys):
        for hi, hash_name in enumerate(HASH_NAMES):
            for fi, fmt in enumerate(FORMAT_CHOICES):
                length = (0, 1, 33, 1000, rng.randrange(2, 300))[(ki + hi + fi) % 5]
                msg = rng.randbytes(length)
                req = {
                    "curve": curve_name,
                    "hash": hash_name,
                    "private_key": key.scalar_hex,
                    "msg": msg.hex(),
                }
                if fmt is not None:
                    req["format"] = fmt
                requests.append((key, hash_name, fmt or "der", msg, req))

    replies = run_jsonl(vss_bin, "sign-jsonl", [json.dumps(r[4]) for r in requests])

    bad = []
    for (key, hash_name, fmt, msg, req), got in zip(requests, replies):
        problems = []
        if set(got) != {"public_key", "sig"}:
            bad.append(f"  in: {json.dumps(req)}\n  got: {json.dumps(got)}")
            continue
        pub = bytes.fromhex(got["public_key"])
        sig = bytes.fromhex(got["sig"])
        if pub != key.uncompressed:
            problems.append(f"public_key {pub.hex()} != python's {key.uncompressed.hex()}")
        if fmt == "der":
            try:
                r, s = ecdsa.util.sigdecode_der(sig, curve.n)
            except Exception as e:  # noqa: BLE001 — report whatever python-ecdsa says
                problems.append(f"python-ecdsa cannot parse the DER signature: {e}")
                r = s = None
            if r is not None and der_sig(r, s) != sig:
                problems.append("signature is not canonical DER")
        else:
            if len(sig) != 2 * curve.scalar_len:
                problems.append(f"P1363 signature is {len(sig)} bytes, not {2 * curve.scalar_len}")
        if not problems:
            if not ecdsa_accepts(curve, hash_name, key.uncompressed, msg, sig, fmt):
                problems.append("python-ecdsa rejects the signature")
            if not crypto_accepts(curve, hash_name, key.uncompressed, msg, sig, fmt):
                problems.append("cryptography rejects the signature")
            # And it is a signature of this message only.
            other = msg + b"\x00"
            if ecdsa_accepts(curve, hash_name, key.uncompressed, other, sig, fmt):
                problems.append("python-ecdsa accepts the signature for another message")
        if problems:
            bad.append(f"  in: {json.dumps(req)}\n  got: {json.dumps(got)}\n  "
                       + "; ".join(problems))
    assert not bad, (f"{len(bad)} of {len(requests)} vss signatures wrong{seed_note}:\n"
                     + "\n".join(bad[:20]))
    assert len(requests) == len(keys) * len(HASH_NAMES) * len(FORMAT_CHOICES)


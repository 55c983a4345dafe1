"""Malformed input, one line at a time, in one stream per curve.

Semantics (see `vss ecdsa verify-jsonl --help`):
  * a line that cannot be used at all — bad JSON, wrong JSON types, missing fields, unknown
    curve/hash/format, non-hex, a public key that is not a point of the curve — gets
    {"error": "…"};
  * a usable line whose SIGNATURE is malformed, out of range or simply wrong gets
    {"valid": false};
  * ECDSA has no low-s rule: (r, n-s) is as valid as (r, s).
Each expectation about a key or signature is first confirmed with BOTH reference libraries
(python-ecdsa and cryptography), so vss is judged against implementations that are not ours.
Exactly one reply per input line, in order, and a bad line never stops the stream.
"""

from __future__ import annotations

import json
import subprocess

import ecdsa
import ecdsa.errors
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from _support import (
    CURVE_NAMES,
    CURVES,
    ERROR,
    INVALID,
    VALID,
    Case,
    check_cases,
    crypto_rejects_point,
    der_int,
    der_sig,
    der_tlv,
    ecdsa_rejects_point,
    p1363_sig,
    python_sign,
    python_verdict,
    random_key,
    run_jsonl,
    verify_line,
)

# Same-length points of another curve (likely not on this one; checked with Python).
SIBLING = {"p256": "bp256", "bp256": "p256", "p384": "bp384", "bp384": "p384"}


def _non_residue_x(curve, rng) -> int:
    while True:
        x = rng.randrange(curve.p)
        if not curve.is_square(x ** 3 + curve.a * x + curve.b):
            return x


@pytest.mark.parametrize("curve_name", CURVE_NAMES)
def test_malformed_lines(vss_bin, rng, seed_note, curve_name):
    curve = CURVES[curve_name]
    n, p, L, C = curve.n, curve.p, curve.scalar_len, curve.coord_len
    key = random_key(curve, rng)
    pub = key.uncompressed
    x, y = key.xy
    hash_name = "sha256"
    msg = rng.randbytes(40)
    # A signature whose r has its top bit set, so that DER needs the 00 sign byte.
    while True:
        der = python_sign("python-ecdsa", key, hash_name, msg, "der", rng)
        r, s = decode_dss_signature(der)
        if der_int(r)[0] == 0 and len(der_int(r)) == L + 1:
            break
    p1363 = p1363_sig(curve, r, s)

    cases: list[Case] = []

    def line(**overrides) -> str:
        obj = {"curve": curve_name, "hash": hash_name, "public_key": pub.hex(),
               "msg": msg.hex(), "sig": der.hex(), "format": "der"}
        for k, v in overrides.items():
            if v is _DROP:
                obj.pop(k)
            else:
                obj[k] = v
        return json.dumps(obj)

    def control():
        cases.append(Case(line(), VALID, "control: untouched line"))

    # ---- public keys that are not points of the curve: {"error"} --------------------------
    def coord(v: int) -> bytes:
        return v.to_bytes(C, "big")

    bad_points = {
        "point not on curve (y+1)": b"\x04" + coord(x) + coord((y + 1) % p),
        "point not on curve (x+1)": b"\x04" + coord((x + 1) % p) + coord(y),
        "x + p (coordinate not reduced mod p)":
            b"\x04" + coord(x + p) + coord(y) if x + p < 256 ** C else None,
        "y + p (coordinate not reduced mod p)":
            b"\x04" + coord(x) + coord(y + p) if y + p < 256 ** C else None,
        "compressed, x + p": bytes([2 + (y & 1)]) + coord(x + p) if x + p < 256 ** C else None,
        "uncompressed, one byte short": pub[:-1],
        "uncompressed, one byte long": pub + b"\x00",
        "uncompressed without its 04 prefix": pub[1:],
        "compressed, one byte short": key.compressed[:-1],
        "compressed, one byte long": key.compressed + b"\x00",
        "compressed, x has no square root": bytes([0x02]) + coord(_non_residue_x(curve, rng)),
        "compressed, x = p": b"\x03" + coord(p) if p < 256 ** C else None,
        "prefix 05": b"\x05" + pub[1:],
        # X9.62 "hybrid" form: not SEC1; cryptography/OpenSSL reject it too.
        "hybrid form (06/07)": bytes([6 + (y & 1)]) + pub[1:],
        "point at infinity (00)": b"\x00",
        "prefix byte only (04)": b"\x04",
        "empty public key": b"",
    }
    if curve_name in SIBLING:
        bad_points["point of " + SIBLING[curve_name]] = random_key(
            CURVES[SIBLING[curve_name]], rng).uncompressed
    for what, data in bad_points.items():
        if data is None:
            continue
        assert ecdsa_rejects_point(curve, data), f"python-ecdsa accepts {what}: {data.hex()}"
        assert crypto_rejects_point(curve, data), f"cryptography accepts {what}: {data.hex()}"
        cases.append(Case(line(public_key=data.hex()), ERROR, f"public key: {what}"))
        cases.append(Case(line(public_key=data.hex(), sig=""), ERROR,
                          f"public key: {what}, empty signature"))
    control()

    # ---- hex, names, JSON: {"error"} -------------------------------------------------------
    errors = {
        "public_key not hex": line(public_key="zz" + pub.hex()[2:]),
        "public_key odd length": line(public_key=pub.hex() + "0"),
        "public_key with 0x": line(public_key="0x" + pub.hex()),
        "msg not hex": line(msg="0g"),
        "msg odd length": line(msg=msg.hex()[:-1]),
        "msg with spaces": line(msg=" " + msg.hex()),
        "sig not hex": line(sig="xyz" + der.hex()),
        "sig odd length": line(sig=der.hex() + "0"),
        "unknown curve": line(curve="p257"),
        "unknown curve secp256k1": line(curve="secp256k1"),
        "empty curve": line(curve=""),
        "unknown hash sha1": line(hash="sha1"),
        "unknown hash md5": line(hash="md5"),
        "unknown format": line(format="raw"),
        "curve is a number": line(curve=256),
        "hash is a boolean": line(hash=True),
        "format is a number": line(format=1),
        "public_key is a number": line(public_key=123),
        "public_key is null": line(public_key=None),
        "msg is null": line(msg=None),
        "msg is a list": line(msg=[0, 1]),
        "sig is a list": line(sig=[der.hex()]),
        "sig is an object": line(sig={"r": 1, "s": 2}),
        "missing curve": line(curve=_DROP),
        "missing public_key": line(public_key=_DROP),
        "missing msg": line(msg=_DROP),
        "missing sig": line(sig=_DROP),
        "not JSON": "this is not json",
        "truncated JSON": line()[:-5],
        "JSON array": json.dumps([curve_name, pub.hex()]),
        "JSON string": json.dumps("hello"),
        "JSON number": "42",
        "JSON null": "null",
        "empty line": "",
        "whitespace only": "   \t",
    }
    for what, text in errors.items():
        cases.append(Case(text, ERROR, what))
        if len(cases) % 5 == 0:
            control()
    control()

    # ---- signatures: {"valid": …} as both references say ----------------------------------
    def seq(*parts: bytes) -> bytes:
        return der_tlv(0x30, b"".join(parts))

    def integer(content: bytes) -> bytes:
        return der_tlv(0x02, content)

    sigs = [
        # (what, sig bytes, format, expected)
        ("(r, n-s) DER", der_sig(r, n - s), "der", True),
        ("(r, n-s) P1363", p1363_sig(curve, r, n - s), "p1363", True),
        ("P1363 as signed", p1363, "p1363", True),
        ("r = 0 DER", der_sig(0, s), "der", False),
        ("r = 0 P1363", p1363_sig(curve, 0, s), "p1363", False),
        ("s = 0 DER", der_sig(r, 0), "der", False),
        ("s = 0 P1363", p1363_sig(curve, r, 0), "p1363", False),
        ("r = s = 0 P1363", bytes(2 * L), "p1363", False),
        ("r = n DER", der_sig(n, s), "der", False),
        ("s = n DER", der_sig(r, n), "der", False),
        ("r = n P1363", p1363_sig(curve, n, s), "p1363", False),
        ("s = n P1363", p1363_sig(curve, r, n), "p1363", False),
        ("r + n DER (same r mod n)", der_sig(r + n, s), "der", False),
        ("s + n DER (same s mod n)", der_sig(r, s + n), "der", False),
        ("DER + trailing 00", der + b"\x00", "der", False),
        ("DER + trailing 0000", der + b"\x00\x00", "der", False),
        ("DER + trailing second signature", der + der, "der", False),
        ("DER truncated by one byte", der[:-1], "der", False),
        ("DER r with an extra 00 pad", seq(integer(b"\x00" + der_int(r)), integer(der_int(s))),
         "der", False),
        ("DER r without its 00 sign byte (negative)",
         seq(integer(der_int(r)[1:]), integer(der_int(s))), "der", False),
        ("DER sequence length in long form",
         b"\x30\x81" + bytes([len(der) - 2]) + der[2:], "der", False),
        ("DER r length in long form",
         seq(b"\x02\x81" + bytes([len(der_int(r))]) + der_int(r), integer(der_int(s))),
         "der", False),
        ("BER indefinite length", b"\x30\x80" + der[2:] + b"\x00\x00", "der", False),
        ("DER sequence length one short", b"\x30" + bytes([der[1] - 1]) + der[2:], "der", False),
        ("DER SET instead of SEQUENCE", b"\x31" + der[1:], "der", False),
        ("DER empty r", seq(integer(b""), integer(der_int(s))), "der", False),
        ("DER third INTEGER", seq(integer(der_int(r)), integer(der_int(s)), integer(b"\x01")),
         "der", False),
        ("DER only r", seq(integer(der_int(r))), "der", False),
        ("empty DER", b"", "der", False),
        ("P1363 one byte short", p1363[:-1], "p1363", False),
        ("P1363 one byte long", p1363 + b"\x00", "p1363", False),
        ("P1363 with a leading 00", b"\x00" + p1363, "p1363", False),
        ("empty P1363", b"", "p1363", False),
        ("DER signature sent as p1363", der, "p1363", False),
        ("P1363 signature sent as der", p1363, "der", False),
    ]
    for what, sig, fmt, expected in sigs:
        verdict = python_verdict(curve, hash_name, pub, msg, sig, fmt)
        assert verdict is expected, f"the references say {verdict} for {what}; test is wrong"
        cases.append(Case(line(sig=sig.hex(), format=fmt), {"valid": expected}, what))
        if len(cases) % 4 == 0:
            control()

    # Hex is hex in either case; CRLF line ends are line ends.
    cases.append(Case(line(public_key=pub.hex().upper(), sig=der.hex().upper(),
                           msg=msg.hex().upper()), VALID, "upper-case hex"))
    cases.append(Case(line() + "\r", VALID, "CRLF line end"))
    control()

    check_cases(vss_bin, "verify-jsonl", cases, seed_note)


@pytest.mark.parametrize("curve_name", CURVE_NAMES)
def test_malformed_sign_lines(vss_bin, rng, seed_note, curve_name):
    curve = CURVES[curve_name]
    n, L = curve.n, curve.scalar_len
    key = random_key(curve, rng)

    def line(**overrides) -> str:
        obj = {"curve": curve_name, "hash": "sha384", "private_key": key.scalar_hex,
               "msg": "00ff"}
        for k, v in overrides.items():
            if v is _DROP:
                obj.pop(k)
            else:
                obj[k] = v
        return json.dumps(obj)

    # Scalars outside 1..n-1 are not keys, for both references too.
    for d in (0, n, n + 1, 256 ** L - 1):
        with pytest.raises(ecdsa.errors.MalformedPointError):
            ecdsa.SigningKey.from_secret_exponent(d, curve=curve.ecdsa_curve)
        with pytest.raises(ValueError):
            ec.derive_private_key(d, curve.crypto_curve())

    lines = [
        (line(private_key=(0).to_bytes(L, "big").hex()), ERROR, "private key 0"),
        (line(private_key=n.to_bytes(L, "big").hex()), ERROR, "private key n"),
        (line(private_key=(n + 1).to_bytes(L, "big").hex()), ERROR, "private key n+1"),
        (line(private_key="ff" * L), ERROR, "private key 2^k-1 > n"),
        (line(private_key="zz" + key.scalar_hex[2:]), ERROR, "private key not hex"),
        (line(private_key=key.scalar_hex[:-1]), ERROR, "private key odd length"),
        (line(private_key=7), ERROR, "private key is a number"),
        (line(private_key=_DROP), ERROR, "missing private_key"),
        (line(msg=_DROP), ERROR, "missing msg"),
        (line(msg="0g"), ERROR, "msg not hex"),
        (line(curve="p521"), ERROR, "unknown curve"),
        (line(hash="sha3-256"), ERROR, "unknown hash"),
        (line(format="raw"), ERROR, "unknown format"),
        ("{", ERROR, "bad JSON"),
        ("", ERROR, "empty line"),
    ]
    replies = run_jsonl(vss_bin, "sign-jsonl", [line()] + [t for t, _, _ in lines] + [line()])
    bad = []
    for (text, _, what), got in zip(lines, replies[1:-1]):
        if set(got) != {"error"} or not got["error"]:
            bad.append(f"  [{what}] in: {text}\n    expected an error, got {json.dumps(got)}")
    for got in (replies[0], replies[-1]):
        if got.get("public_key") != key.uncompressed.hex():
            bad.append(f"  control line: got {json.dumps(got)}")
    assert not bad, f"sign-jsonl{seed_note}:\n" + "\n".join(bad)


def test_replies_are_in_order_and_last_line_needs_no_newline(vss_bin, rng):
    """Hundreds of alternating good/bad lines come back one-for-one, in order; a final line
    without a newline still gets its reply."""
    curve = CURVES["p256"]
    keys = [random_key(curve, rng) for _ in range(4)]
    lines, expected = [], []
    for i in range(300):
        k = keys[i % 4]
        msg = i.to_bytes(2, "big")
        sig = python_sign("cryptography", k, "sha256", msg, "der", rng)
        kind = i % 3
        if kind == 0:
            lines.append(verify_line("p256", "sha256", k.uncompressed, msg, sig, "der"))
            expected.append(VALID)
        elif kind == 1:
            lines.append(verify_line("p256", "sha256", k.uncompressed, msg + b"x", sig, "der"))
            expected.append(INVALID)
        else:
            lines.append(verify_line("p256", "sha256", k.uncompressed[:-1], msg, sig, "der"))
            expected.append("error")
    proc = subprocess.run([str(vss_bin), "ecdsa", "verify-jsonl"],
                          input="\n".join(lines).encode(),  # no final newline
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(o) for o in proc.stdout.decode().splitlines()]
    assert len(out) == len(lines)
    for i, (got, exp) in enumerate(zip(out, expected)):
        if exp == "error":
            assert set(got) == {"error"}, (i, lines[i], got)
        else:
            assert got == exp, (i, lines[i], got)


class _Drop:
    def __repr__(self):
        return "<drop>"


_DROP = _Drop()

"""Shared helpers for the interop suite: curve tables, signature encodings, and the two
independent reference implementations (python-ecdsa, pure Python; pyca `cryptography`,
Rust + its own OpenSSL build) wrapped behind one small interface."""

from __future__ import annotations

import hashlib
import json
import random
import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import ecdsa
import ecdsa.util
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

# The secrets of the throw-away key stores the tests create.
PIN = "246810"
PUK = "13579111"
# The credential roles' key stores (`vss cred setup`): VSS_ROLE_PIN and VSS_ROLE_PUK.
ROLE_PIN = "role-pin-1"
ROLE_PUK = "role-puk-12345"

# --------------------------------------------------------------------------------------
# Curves and hashes
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curve:
    """One curve as VSS names it, with its python-ecdsa and cryptography twins."""

    name: str
    ecdsa_curve: ecdsa.curves.Curve
    crypto_curve: type

    @property
    def n(self) -> int:
        return self.ecdsa_curve.order

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
    def coord_len(self) -> int:
        """Bytes of one field element in SEC1."""
        return (self.p.bit_length() + 7) // 8

    @property
    def scalar_len(self) -> int:
        """Bytes of r, s and the private scalar (IEEE P1363 half-length)."""
        return (self.n.bit_length() + 7) // 8

    def on_curve(self, x: int, y: int) -> bool:
        return (y * y - (x * x * x + self.a * x + self.b)) % self.p == 0

    def is_square(self, v: int) -> bool:
        v %= self.p
        return v == 0 or pow(v, (self.p - 1) // 2, self.p) == 1


CURVES: dict[str, Curve] = {
    c.name: c
    for c in (
        Curve("p224", ecdsa.NIST224p, ec.SECP224R1),
        Curve("p256", ecdsa.NIST256p, ec.SECP256R1),
        Curve("p384", ecdsa.NIST384p, ec.SECP384R1),
        Curve("bp256", ecdsa.BRAINPOOLP256r1, ec.BrainpoolP256R1),
        Curve("bp384", ecdsa.BRAINPOOLP384r1, ec.BrainpoolP384R1),
    )
}
CURVE_NAMES = list(CURVES)

HASHES: dict[str, tuple] = {
    "sha224": (hashlib.sha224, hashes.SHA224),
    "sha256": (hashlib.sha256, hashes.SHA256),
    "sha384": (hashlib.sha384, hashes.SHA384),
    "sha512": (hashlib.sha512, hashes.SHA512),
}
HASH_NAMES = list(HASHES)
FORMATS = ("der", "p1363")

# --------------------------------------------------------------------------------------
# Keys
# --------------------------------------------------------------------------------------


@dataclass
class KeyPair:
    """A key pair held by both reference libraries (same scalar)."""

    curve: Curve
    d: int

    def __post_init__(self) -> None:
        self.ecdsa_sk = ecdsa.SigningKey.from_secret_exponent(self.d, curve=self.curve.ecdsa_curve)
        self.ecdsa_vk = self.ecdsa_sk.get_verifying_key()
        self.crypto_sk = ec.derive_private_key(self.d, self.curve.crypto_curve())
        self.crypto_pk = self.crypto_sk.public_key()
        a = self.ecdsa_vk.to_string("uncompressed")
        b = self.crypto_pk.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        # The two references must agree with each other before they can judge us.
        assert a == b, f"python-ecdsa and cryptography derive different points for {self}"

    @property
    def scalar_hex(self) -> str:
        return self.d.to_bytes(self.curve.scalar_len, "big").hex()

    @property
    def uncompressed(self) -> bytes:
        return self.ecdsa_vk.to_string("uncompressed")

    @property
    def compressed(self) -> bytes:
        return self.ecdsa_vk.to_string("compressed")

    @property
    def xy(self) -> tuple[int, int]:
        pt = self.ecdsa_vk.pubkey.point
        return int(pt.x()), int(pt.y())

    def __repr__(self) -> str:  # never print test scalars in full; they are random anyway
        return f"KeyPair({self.curve.name}, d=0x{self.d:x})"


def random_key(curve: Curve, rng: random.Random) -> KeyPair:
    return KeyPair(curve, rng.randrange(1, curve.n))


# --------------------------------------------------------------------------------------
# Signature encodings
# --------------------------------------------------------------------------------------


def der_int(v: int) -> bytes:
    """DER INTEGER content of a non-negative integer (minimal, sign byte when needed)."""
    return v.to_bytes(v.bit_length() // 8 + 1, "big")


def der_tlv(tag: int, content: bytes) -> bytes:
    n = len(content)
    if n < 0x80:
        return bytes([tag, n]) + content
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(body)]) + body + content


def der_sig(r: int, s: int) -> bytes:
    return der_tlv(0x30, der_tlv(0x02, der_int(r)) + der_tlv(0x02, der_int(s)))


def p1363_sig(curve: Curve, r: int, s: int) -> bytes:
    return r.to_bytes(curve.scalar_len, "big") + s.to_bytes(curve.scalar_len, "big")


def encode_sig(curve: Curve, r: int, s: int, fmt: str) -> bytes:
    if fmt == "der":
        return der_sig(r, s)
    if fmt == "p1363":
        return p1363_sig(curve, r, s)
    raise ValueError(fmt)


def decode_sig(curve: Curve, sig: bytes, fmt: str) -> tuple[int, int]:
    if fmt == "der":
        return decode_dss_signature(sig)
    if fmt == "p1363":
        half = curve.scalar_len
        assert len(sig) == 2 * half, f"P1363 signature of {len(sig)} bytes on {curve.name}"
        return int.from_bytes(sig[:half], "big"), int.from_bytes(sig[half:], "big")
    raise ValueError(fmt)


# --------------------------------------------------------------------------------------
# The reference implementations
# --------------------------------------------------------------------------------------

LIBS = ("python-ecdsa", "cryptography")

# SEC1 public keys as the CLI documents them: 04‖x‖y or 02/03‖x. (python-ecdsa would also
# take the prefix-less "raw" x‖y form by default; cryptography/OpenSSL would not.)
SEC1_ENCODINGS = ("uncompressed", "compressed")


def python_sign(
    lib: str, key: KeyPair, hash_name: str, msg: bytes, fmt: str, rng: random.Random
) -> bytes:
    """Signs with one of the reference libraries; returns the signature in `fmt`."""
    hashfunc, crypto_hash = HASHES[hash_name]
    if lib == "python-ecdsa":
        sigencode = ecdsa.util.sigencode_der if fmt == "der" else ecdsa.util.sigencode_string
        if rng.random() < 0.5:
            return key.ecdsa_sk.sign_deterministic(msg, hashfunc=hashfunc, sigencode=sigencode)
        return key.ecdsa_sk.sign(
            msg, hashfunc=hashfunc, sigencode=sigencode, k=rng.randrange(1, key.curve.n)
        )
    if lib == "cryptography":
        der = key.crypto_sk.sign(msg, ec.ECDSA(crypto_hash()))
        if fmt == "der":
            return der
        return p1363_sig(key.curve, *decode_dss_signature(der))
    raise ValueError(lib)


def ecdsa_accepts(
    curve: Curve, hash_name: str, public_key: bytes, msg: bytes, sig: bytes, fmt: str
) -> bool:
    """python-ecdsa's verdict. Raises if python-ecdsa rejects the public key itself."""
    hashfunc = HASHES[hash_name][0]
    vk = ecdsa.VerifyingKey.from_string(
        public_key, curve=curve.ecdsa_curve, hashfunc=hashfunc, valid_encodings=SEC1_ENCODINGS
    )
    sigdecode = ecdsa.util.sigdecode_der if fmt == "der" else ecdsa.util.sigdecode_string
    try:
        return bool(vk.verify(sig, msg, hashfunc=hashfunc, sigdecode=sigdecode))
    except ecdsa.BadSignatureError:
        return False


def crypto_accepts(
    curve: Curve, hash_name: str, public_key: bytes, msg: bytes, sig: bytes, fmt: str
) -> bool:
    """cryptography's verdict. Raises if cryptography rejects the public key itself."""
    pk = ec.EllipticCurvePublicKey.from_encoded_point(curve.crypto_curve(), public_key)
    if fmt == "p1363":
        # cryptography has no P1363 entry point; a wrong-length blob is not r||s at all.
        if len(sig) != 2 * curve.scalar_len:
            return False
        sig = encode_dss_signature(*decode_sig(curve, sig, "p1363"))
    try:
        pk.verify(sig, msg, ec.ECDSA(HASHES[hash_name][1]()))
        return True
    except InvalidSignature:
        return False


def python_verdict(
    curve: Curve, hash_name: str, public_key: bytes, msg: bytes, sig: bytes, fmt: str
) -> bool:
    """The verdict both references agree on (asserts that they do agree)."""
    a = ecdsa_accepts(curve, hash_name, public_key, msg, sig, fmt)
    b = crypto_accepts(curve, hash_name, public_key, msg, sig, fmt)
    assert a == b, (
        f"the two reference libraries disagree (python-ecdsa={a}, cryptography={b}) on "
        f"{curve.name}/{hash_name}/{fmt} key={public_key.hex()} msg={msg.hex()} sig={sig.hex()}"
    )
    return a


def ecdsa_rejects_point(curve: Curve, data: bytes) -> bool:
    try:
        ecdsa.VerifyingKey.from_string(data, curve=curve.ecdsa_curve,
                                       valid_encodings=SEC1_ENCODINGS)
    except (ecdsa.errors.MalformedPointError, ValueError, AssertionError):
        return True
    return False


def crypto_rejects_point(curve: Curve, data: bytes) -> bool:
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(curve.crypto_curve(), data)
    except ValueError:
        return True
    return False


# --------------------------------------------------------------------------------------
# Talking to vss
# --------------------------------------------------------------------------------------


def verify_line(
    curve: str, hash_name: str, public_key: bytes, msg: bytes, sig: bytes, fmt: str
) -> str:
    return json.dumps(
        {
            "curve": curve,
            "hash": hash_name,
            "public_key": public_key.hex(),
            "msg": msg.hex(),
            "sig": sig.hex(),
            "format": fmt,
        }
    )


def run_jsonl(vss_bin: Path, subcommand: str, lines: Sequence[str], timeout: float = 120,
              args: Sequence[str] = ()):
    """Feeds `lines` to `vss ecdsa <subcommand> [args]` in one process; returns the parsed
    replies.

    Asserts a clean exit and exactly one reply per input line."""
    for line in lines:
        assert "\n" not in line, f"test bug: input line contains a newline: {line!r}"
    proc = subprocess.run(
        [str(vss_bin), "ecdsa", subcommand, *args],
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, (
        f"vss ecdsa {subcommand} exited {proc.returncode}; stderr: {proc.stderr.decode(errors='replace')}"
    )
    out = proc.stdout.decode().splitlines()
    assert len(out) == len(lines), (
        f"vss ecdsa {subcommand}: {len(lines)} lines in, {len(out)} lines out"
    )
    return [json.loads(o) for o in out]


@dataclass
class Case:
    """One input line and the reply it must get."""

    line: str
    expected: dict
    what: str


def check_cases(vss_bin: Path, subcommand: str, cases: Iterable[Case], seed_note: str = "",
                args: Sequence[str] = ()) -> int:
    """Runs every case through one vss process; fails listing every mismatch."""
    cases = list(cases)
    replies = run_jsonl(vss_bin, subcommand, [c.line for c in cases], args=args)
    bad = []
    for i, (case, got) in enumerate(zip(cases, replies)):
        if not _matches(case.expected, got):
            bad.append(f"  line {i + 1} [{case.what}]\n    in:       {case.line}\n"
                       f"    expected: {json.dumps(case.expected)}\n    got:      {json.dumps(got)}")
    assert not bad, (
        f"{len(bad)} of {len(cases)} lines wrong{seed_note}:\n" + "\n".join(bad[:25])
        + ("\n  …" if len(bad) > 25 else "")
    )
    return len(cases)


ERROR = {"error": ...}  # any error message


def _matches(expected: dict, got: dict) -> bool:
    if expected is ERROR or expected == {"error": ...}:
        return set(got) == {"error"} and isinstance(got["error"], str) and got["error"] != ""
    return got == expected


VALID = {"valid": True}
INVALID = {"valid": False}


@contextmanager
def served_pki(vss_bin: Path, pki_dir: Path, env: dict) -> Iterator[tuple[str, dict]]:
    """`vss pki serve` for `pki_dir` on a free loopback port, until the block ends: its base
    URL and its /health answer (waited for, at most 30 s)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [str(vss_bin), "pki", "serve", "--dir", str(pki_dir), "--listen", f"127.0.0.1:{port}"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, f"vss pki serve exited {server.returncode}"
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                    health = json.load(response)
                break
            except OSError:
                assert time.monotonic() < deadline, "vss pki serve did not answer /health"
                time.sleep(0.1)
        yield url, health
    finally:
        stop(server)


def stop(proc: subprocess.Popen) -> None:
    """Ends a background process a test started, if it still runs: SIGTERM, then SIGKILL
    after 10 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_for(predicate, what: str, timeout: float, proc: subprocess.Popen | None = None,
             log: Path | None = None) -> None:
    """Polls `predicate` until it holds; fails after `timeout` s or when `proc` exits (with
    the tail of `log`)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        tail = log.read_text(errors="replace") if log and log.exists() else ""
        assert proc is None or proc.poll() is None, (
            f"{what}: the process exited {proc.returncode} first\n{tail}")
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s\n{tail}"
        time.sleep(0.05)

"""Real PKCS#11 clients against libvss_pkcs11.so, the module whose one token is a VSS key store.

The clients are the ones a deployment would use: OpenSC's pkcs11-tool, GnuTLS's p11tool,
OpenSSL through the libp11 engine (and pkcs11-provider when it is installed), curl against an
`openssl s_server` whose key is on the token, and OpenVPN through pkcs11-helper. Every signature
they make is checked by an independent verifier (OpenSSL with the public key, a TLS peer, an
OpenVPN peer).

The module is `libvss_pkcs11.so` beside the `vss` binary (target/debug in the real run); no
module is a failure, never a skip. A missing client is a skip, unless
VSS_REQUIRE_PKCS11_CLIENTS=1 (scripts/test sets it): then it is a failure.
pkcs11-provider is optional everywhere (Debian bookworm has it only in backports), so its tests
skip when it is absent, whatever that variable says.

Each test gets its own freshly initialised store (the `key_store` fixture of conftest.py, PIN
and PUK from _support.py), its own temporary directory and loopback ports picked at run time;
every process runs under a timeout. The command lines are recipes first checked against
SoftHSM, so a failure here points at the module rather than at the way a client is driven.

Debugging: OpenSC's pkcs11-spy sits between any of these clients and the module:
PKCS11SPY=<module> PKCS11SPY_OUTPUT=<log>, and the module path
/usr/lib/x86_64-linux-gnu/pkcs11-spy.so. (The spy up to 0.26 writes into the CK_INTERFACE that
C_GetInterface returns; the module keeps its interfaces in writable memory for it.)
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from _support import PIN, stop, wait_for

if TYPE_CHECKING:
    from conftest import Store

MODULE_NAME = "libvss_pkcs11.so"
REQUIRE_CLIENTS = os.environ.get("VSS_REQUIRE_PKCS11_CLIENTS") == "1"
TIMEOUT = 60  # seconds, for every client process that is not a server
WRONG_PIN = "999999"
P256_OID_DER = "06082a8648ce3d030107"  # CKA_EC_PARAMS of P-256: the OID prime256v1

# The token as the module describes it: "VSS <store dir name>" (conftest's store dir is
# "store"), manufacturer "VSS", model "soft store", a serial of 16 hex digits.
TOKEN_LABEL = "VSS store"
TOKEN_MANUFACTURER = "VSS"
TOKEN_MODEL = "soft store"

# Environment variables that would let the caller's setup leak into a client.
AMBIENT = (
    "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES", "PKCS11_MODULE_PATH",
    "PKCS11_PROVIDER_MODULE", "GNUTLS_PIN", "GNUTLS_SO_PIN", "PKCS11SPY", "PKCS11SPY_OUTPUT",
    "SOFTHSM2_CONF", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE",
)

# --------------------------------------------------------------------------------------
# Clients: one table, one lookup
# --------------------------------------------------------------------------------------

# name -> (how to find it: a command on PATH or a glob for a shared object, Debian package)
CLIENTS: dict[str, tuple[str, str]] = {
    "openssl": ("openssl", "openssl"),
    "pkcs11-tool": ("pkcs11-tool", "opensc"),
    "p11tool": ("p11tool", "gnutls-bin"),
    "openvpn": ("openvpn", "openvpn"),
    "curl": ("curl", "curl"),
    "ssh-keygen": ("ssh-keygen", "openssh-client"),
    "pkcs11 engine": ("/usr/lib/*/engines-3/pkcs11.so", "libengine-pkcs11-openssl"),
    "pkcs11 provider": ("/usr/lib/*/ossl-modules/pkcs11.so", "pkcs11-provider"),
}
# Clients whose absence is a skip even under VSS_REQUIRE_PKCS11_CLIENTS=1.
OPTIONAL_CLIENTS = {"pkcs11 provider"}


def client(name: str) -> str:
    """The path of a client program or plug-in; skips the test when it is missing (fails
    instead under VSS_REQUIRE_PKCS11_CLIENTS=1, unless the client is optional)."""
    where, package = CLIENTS[name]
    if where.startswith("/"):
        found = sorted(glob.glob(where))
        path = found[0] if found else None
    else:
        path = shutil.which(where)
    if path:
        return path
    why = f"{name} is not installed (Debian package {package})"
    if REQUIRE_CLIENTS and name not in OPTIONAL_CLIENTS:
        pytest.fail(f"{why}, and VSS_REQUIRE_PKCS11_CLIENTS=1", pytrace=False)
    pytest.skip(why)


def needs(*names: str) -> None:
    """Looks every client up before a test starts work (see `client`)."""
    for name in names:
        client(name)


# --------------------------------------------------------------------------------------
# Running clients
# --------------------------------------------------------------------------------------


def describe(proc: subprocess.CompletedProcess) -> str:
    """A failed command for an assertion message: its line, exit status and output."""
    cmd = " ".join(str(a) for a in proc.args)
    return (f"`{cmd}` exited {proc.returncode}\n--- stdout:\n{proc.stdout}\n"
            f"--- stderr:\n{proc.stderr}")


def run(cmd: Sequence[str | Path], *, env: dict, check: bool = True, timeout: float = TIMEOUT,
        cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs a client to completion (stdin empty, text output captured); asserts exit 0 when
    `check`."""
    args = [str(a) for a in cmd]
    try:
        proc = subprocess.run(args, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"`{' '.join(args)}` ran past {timeout} s; output so far:\n"
                    f"{e.stdout!r}\n{e.stderr!r}", pytrace=False)
    if check:
        assert proc.returncode == 0, describe(proc)
    return proc


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    """A loopback port that is free now (TCP, or UDP with SOCK_DGRAM)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]






# --------------------------------------------------------------------------------------
# Key kinds, the token, and the OpenSSL configurations
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyKind:
    """A kind of key pair on the token, with the names each tool gives it."""

    name: str
    key_type: str  # pkcs11-tool --key-type
    key_id: str  # CKA_ID (hex), as pkcs11-tool --id takes it
    label: str
    vss_algorithm: str  # `vss keys list` / `vss keys generate --algorithm`
    p11tool_type: str  # p11tool's "Type:" line of the private key
    tls12_sigalgs: tuple[tuple[str, str], ...]  # (s_client -sigalgs, "Peer signature type")


RSA = KeyKind("rsa", "rsa:2048", "01", "srv", "rsa2048", "Private key (RSA-2048)",
              (("RSA+SHA256", "RSA"), ("RSA+SHA512", "RSA"), ("RSA-PSS+SHA256", "RSA-PSS")))
EC = KeyKind("ec", "EC:prime256v1", "02", "srvec", "p256", "Private key (EC/ECDSA-SECP256R1)",
             (("ECDSA+SHA256", "ECDSA"), ("ECDSA+SHA384", "ECDSA")))
KINDS = [pytest.param(RSA, id="rsa2048"), pytest.param(EC, id="p256")]


def key_uri(kind: KeyKind) -> str:
    """The RFC 7512 URI of the kind's private key."""
    return f"pkcs11:object={kind.label};type=private"


@dataclass
class Token:
    """The module over one fresh key store: the environment that opens it, a work directory,
    and pkcs11-tool with the store's PIN."""

    module: Path
    store: Store
    env: dict
    work: Path

    def tool(self, *args: str, login: bool = True, pin: str = PIN,
             check: bool = True) -> subprocess.CompletedProcess:
        """`pkcs11-tool --module M [--login --pin PIN] ARGS`."""
        auth = ["--login", "--pin", pin] if login else []
        return run([client("pkcs11-tool"), "--module", self.module, *auth, *args],
                   env=self.env, check=check, cwd=self.work)

    def keypair(self, kind: KeyKind) -> None:
        """Generates the kind's key pair with pkcs11-tool --keypairgen."""
        out = self.tool("--keypairgen", "--key-type", kind.key_type, "--id", kind.key_id,
                        "--label", kind.label).stdout
        assert "Key pair generated" in out, out

    def public_key(self, key_id: str, name: str) -> Path:
        """The public key with this CKA_ID as pkcs11-tool reads it (after login), as a PEM
        file.

        RSA: `--read-object --type pubkey`. EC: the CKA_EC_PARAMS and CKA_EC_POINT that
        `--list-objects` prints, because pkcs11-tool 0.23 builds EC keys in --read-object
        with a use-after-free (OSSL_PARAM_merge of freed parameters; fixed in OpenSC 0.24.0,
        commit 63d4bd3d3) and fails at random with "cannot create EVP_PKEY"."""
        pem = self.work / f"{name}.pub.pem"
        listing = self.tool("--list-objects", "--type", "pubkey", "--id", key_id).stdout
        point = re.search(r"^\s+EC_POINT:\s+([0-9a-f]+)$", listing, re.M)
        if point is None:
            der = self.work / f"{name}.pub.der"
            self.tool("--read-object", "--type", "pubkey", "--id", key_id, "-o", str(der))
            key = serialization.load_der_public_key(der.read_bytes())
        else:
            params = re.search(r"^\s+EC_PARAMS:\s+([0-9a-f]+)$", listing, re.M)
            assert params and params.group(1) == P256_OID_DER, listing
            octets = bytes.fromhex(point.group(1))  # DER OCTET STRING of the SEC1 point
            assert octets[:2] == bytes([0x04, len(octets) - 2]), listing
            key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), octets[2:])
        pem.write_bytes(key.public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo))
        return pem

    def write_cert(self, pem: Path, key_id: str, label: str) -> bytes:
        """Stores a PEM certificate on the token; checks that it reads back the same."""
        der = serialization.Encoding.DER
        cert = x509.load_pem_x509_certificate(pem.read_bytes()).public_bytes(der)
        path = self.work / f"{label}.der"
        path.write_bytes(cert)
        self.tool("--write-object", str(path), "--type", "cert", "--id", key_id,
                  "--label", label)
        back = self.work / f"{label}.back.der"
        self.tool("--read-object", "--type", "cert", "--id", key_id, "-o", str(back),
                  login=False)
        assert back.read_bytes() == cert, "the certificate read back differs from the one written"
        return cert

    def token_info(self) -> dict[str, str]:
        """pkcs11-tool -L's fields of the slot's token ("token label" -> "VSS store", ...)."""
        out = self.tool("-L", login=False).stdout
        return {k.strip(): v.strip() for k, v in re.findall(r"^\s+([a-z][a-z /]+?)\s*: (.*)$",
                                                            out, re.M)}

    def pin_tries_left(self) -> int:
        status = json.loads(self.store.run("hsm", "status", "--format", "json").stdout)
        return status["pin_tries_left"]


@pytest.fixture(scope="session")
def module(vss_bin) -> Path:
    """libvss_pkcs11.so beside the vss binary; missing is a failure."""
    path = vss_bin.parent / MODULE_NAME
    if not path.is_file():
        pytest.fail(f"no PKCS#11 module at {path} (build with `cargo build -p vss-cli` "
                    f"and `cargo build -p vss-pkcs11`)", pytrace=False)
    return path.resolve()


@pytest.fixture
def token(module, key_store, tmp_path) -> Token:
    """A fresh store (PIN from _support) opened by the module through VSS_STORE; the
    clients every test uses are there."""
    needs("pkcs11-tool", "openssl")
    env = {k: v for k, v in key_store.env.items() if k not in AMBIENT}
    env["VSS_STORE"] = str(key_store.dir)
    work = tmp_path / "work"
    work.mkdir()
    return Token(module, key_store, env, work)


@pytest.fixture
def engine_conf(token) -> Path:
    """An openssl.cnf that loads the libp11 engine with MODULE_PATH = the module (the PIN
    goes on the command line: -passin / -pass)."""
    engine = client("pkcs11 engine")
    path = token.work / "engine.cnf"
    path.write_text(
        "openssl_conf = openssl_init\n"
        "[openssl_init]\nengines = engine_section\n"
        "[engine_section]\npkcs11 = pkcs11_section\n"
        f"[pkcs11_section]\nengine_id = pkcs11\ndynamic_path = {engine}\n"
        f"MODULE_PATH = {token.module}\ninit = 0\n"
        "[req]\ndistinguished_name = req_dn\n[req_dn]\n"
    )
    return path


@pytest.fixture
def provider_conf(token) -> Path:
    """An openssl.cnf that loads pkcs11-provider on the module, the PIN from a file."""
    provider = client("pkcs11 provider")
    pin_file = token.work / "pin.txt"
    pin_file.write_text(PIN)
    pin_file.chmod(0o600)
    path = token.work / "provider.cnf"
    path.write_text(
        "openssl_conf = openssl_init\n"
        "[openssl_init]\nproviders = provider_sect\n"
        "[provider_sect]\ndefault = default_sect\npkcs11 = pkcs11_sect\n"
        "[default_sect]\nactivate = 1\n"
        f"[pkcs11_sect]\nmodule = {provider}\npkcs11-module-path = {token.module}\n"
        f"pkcs11-module-token-pin = file:{pin_file}\nactivate = 1\n"
        "[req]\ndistinguished_name = req_dn\n[req_dn]\n"
    )
    return path


def objects(listing: str) -> list[str]:
    """pkcs11-tool --list-objects output cut into one block per object."""
    return re.split(r"\n(?=(?:Private Key|Public Key|Certificate|Data) Object)", listing)


def openssl(token: Token, conf: Path | None, *args: str | Path,
            check: bool = True) -> subprocess.CompletedProcess:
    """`openssl ARGS` in the token's environment, with OPENSSL_CONF=conf when given."""
    env = dict(token.env)
    if conf is not None:
        env["OPENSSL_CONF"] = str(conf)
    return run([client("openssl"), *args], env=env, check=check, cwd=token.work)


def engine_args(kind: KeyKind) -> list[str]:
    """The key options of an openssl command whose key is on the token (libp11 engine)."""
    return ["-engine", "pkcs11", "-keyform", "engine", "-key", key_uri(kind)]


def self_signed_cert(token: Token, conf: Path, key: list[str], name: str) -> Path:
    """`openssl req -new -x509` for CN=localhost, SAN DNS:localhost, with the key options
    given; checks the self-signature (-check_ss_sig: without it openssl does not)."""
    pem = token.work / f"{name}.pem"
    openssl(token, conf, "req", "-new", "-x509", *key, "-sha256", "-days", "30",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-out", pem)
    openssl(token, None, "verify", "-check_ss_sig", "-CAfile", pem, pem)
    return pem


def cert_public_key_pem(pem: Path) -> bytes:
    cert = x509.load_pem_x509_certificate(pem.read_bytes())
    return cert.public_key().public_bytes(serialization.Encoding.PEM,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)


# --------------------------------------------------------------------------------------
# 1. pkcs11-tool --test
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [pytest.param([], id="default"),
                                   pytest.param(["--allow-sw"], id="allow-sw")])
def test_pkcs11_tool_self_test(token, extra):
    """`pkcs11-tool --login --test` with an RSA-2048 and a P-256 key on the token reports no
    errors.

    What pkcs11-tool 0.23 tests: random numbers, then signing ("Signatures", multi-part and
    one-shot, RSA keys only, and only with --allow-sw: without it the section wants mechanisms
    flagged CKF_HW, which a soft token rightly does not set), "Verify" (C_Sign and C_Verify
    with RSA-PKCS on a SHA-1 DigestInfo, SHA1-RSA-PKCS, ...) and "Decryption" (RSA-PKCS and
    OAEP); EC keys are listed and skipped as non-RSA. EC signing is checked by
    test_pkcs11_tool_signatures_verify_with_openssl. The exit status says nothing (0 with
    errors): the verdict is the last line, "No errors" or "N errors".
    """
    token.keypair(RSA)
    token.keypair(EC)
    proc = token.tool("--test", *extra, check=False)
    out = proc.stdout
    assert proc.returncode == 0 and "No errors" in out, describe(proc)
    assert not re.search(r"\bERR\b|(?<!No )error|failed|doesn't match", out + proc.stderr, re.I), (
        describe(proc))
    assert re.search(r"C_GenerateRandom\(\):\n\s+.*\n?\s+seems to be OK", out), out
    verify = out.split("Verify (currently only for RSA)", 1)
    assert len(verify) == 2, f"no Verify section\n{out}"
    assert re.search(rf"testing key \d+ \({RSA.label}\)\n\s+RSA-PKCS: OK", verify[1]), out
    assert re.search(rf"testing key \d+ \({EC.label}\).*non-RSA, skipping", verify[1]), out
    assert re.search(rf"Decryption .*\n\s+testing key \d+ \({RSA.label}\)", out), out
    assert re.search(r"^\s+RSA-PKCS: OK$", out.split("Decryption", 1)[1], re.M), out
    if extra:
        signatures = out.split("Signatures (currently only for RSA)", 1)
        assert len(signatures) == 2, f"no Signatures section\n{out}"
        assert "all 4 signature functions seem to work" in signatures[1], out


# --------------------------------------------------------------------------------------
# 2. pkcs11-tool signatures, verified by OpenSSL; keys made by `vss keys generate`
# --------------------------------------------------------------------------------------

SHA256_DIGEST_INFO_PREFIX = bytes.fromhex("3031300d060960864801650304020105000420")

# (pkcs11-tool mechanism and options, input: "msg" or a digest file, how OpenSSL verifies)
RSA_SIGNATURES = [
    (["-m", "SHA256-RSA-PKCS"], "msg", ["dgst", "-sha256"]),
    (["-m", "SHA384-RSA-PKCS"], "msg", ["dgst", "-sha384"]),
    (["-m", "SHA512-RSA-PKCS"], "msg", ["dgst", "-sha512"]),
    (["-m", "RSA-PKCS"], "msg.sha256-digestinfo", ["pkeyutl"]),
    (["-m", "SHA256-RSA-PKCS-PSS", "--mgf", "MGF1-SHA256"], "msg",
     ["dgst", "-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32"]),
    (["-m", "SHA384-RSA-PKCS-PSS"], "msg",
     ["dgst", "-sha384", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:48"]),
    (["-m", "SHA512-RSA-PKCS-PSS"], "msg",
     ["dgst", "-sha512", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:64"]),
    (["-m", "RSA-PKCS-PSS", "--hash-algorithm", "SHA256", "--mgf", "MGF1-SHA256"],
     "msg.sha256", ["pkeyutl", "digest:sha256", "rsa_padding_mode:pss", "rsa_pss_saltlen:32"]),
]
EC_SIGNATURES = [
    (["-m", "ECDSA-SHA256", "--signature-format", "openssl"], "msg", ["dgst", "-sha256"]),
    (["-m", "ECDSA-SHA384", "--signature-format", "openssl"], "msg", ["dgst", "-sha384"]),
    (["-m", "ECDSA-SHA512", "--signature-format", "openssl"], "msg", ["dgst", "-sha512"]),
    (["-m", "ECDSA", "--signature-format", "openssl"], "msg.sha256", ["pkeyutl"]),
]


def openssl_verifies(token: Token, how: list[str], pub: Path, data: Path, sig: Path) -> bool:
    """OpenSSL's verdict on a signature: `openssl dgst -verify` of the message, or
    `openssl pkeyutl -verify` of a digest (with -pkeyopt options)."""
    if how[0] == "dgst":
        args = ["dgst", *how[1:], "-verify", pub, "-signature", sig, data]
    else:
        opts = [a for o in how[1:] for a in ("-pkeyopt", o)]
        args = ["pkeyutl", "-verify", "-pubin", "-inkey", pub, "-in", data, "-sigfile", sig,
                *opts]
    proc = openssl(token, None, *args, check=False)
    ok = proc.returncode == 0 and re.search(r"Verified OK|Signature Verified Successfully",
                                           proc.stdout)
    return bool(ok)


@pytest.mark.parametrize("kind", KINDS)
def test_pkcs11_tool_signatures_verify_with_openssl(token, kind, rng):
    """Keys made with `pkcs11-tool --keypairgen` sign with every mechanism the clients use;
    OpenSSL accepts each signature with the public key pkcs11-tool reads from the token, and
    rejects it on another message. `vss keys list` shows the key with its algorithm."""
    token.keypair(kind)
    keys = json.loads(token.store.run("keys", "list", "--format", "json").stdout)
    assert {"label": kind.label, "algorithm": kind.vss_algorithm} in [
        {k: key[k] for k in ("label", "algorithm")} for key in keys], keys

    pub = token.public_key(kind.key_id, kind.name)
    text = openssl(token, None, "pkey", "-pubin", "-in", pub, "-noout", "-text").stdout
    expected = "Public-Key: (2048 bit)" if kind is RSA else "ASN1 OID: prime256v1"
    assert expected in text, text

    message = rng.randbytes(1000)
    sha256 = hashlib.sha256(message).digest()
    (token.work / "msg").write_bytes(message)
    (token.work / "msg.sha256").write_bytes(sha256)
    (token.work / "msg.sha256-digestinfo").write_bytes(SHA256_DIGEST_INFO_PREFIX + sha256)
    other = token.work / "other"  # the message with its last bit flipped
    other.write_bytes(message[:-1] + bytes([message[-1] ^ 1]))

    failures = []
    for i, (mech, data, how) in enumerate(RSA_SIGNATURES if kind is RSA else EC_SIGNATURES):
        sig = token.work / f"sig{i}"
        token.tool("--sign", "--id", kind.key_id, *mech, "-i", data, "-o", str(sig))
        if kind is RSA:
            assert len(sig.read_bytes()) == 256, f"{mech}: {len(sig.read_bytes())} bytes"
        if not openssl_verifies(token, how, pub, token.work / data, sig):
            failures.append(f"{' '.join(mech)} on {data}: OpenSSL rejects the signature")
        if data == "msg" and openssl_verifies(token, how, pub, other, sig):
            failures.append(f"{' '.join(mech)}: OpenSSL accepts it for another message")
    assert not failures, "\n".join(failures)

    if kind is EC:  # the raw form: r || s, 32 bytes each (what TLS stacks get from CKM_ECDSA)
        raw = token.work / "raw"
        token.tool("--sign", "--id", kind.key_id, "-m", "ECDSA-SHA256", "-i", "msg",
                   "-o", str(raw))
        assert len(raw.read_bytes()) == 64


@pytest.mark.parametrize("algorithm", ["rsa2048", "p256"])
def test_keys_from_vss_cli_visible_to_pkcs11_tool(token, algorithm):
    """A key made by `vss keys generate` is on the token for pkcs11-tool: both halves listed
    with its label (after login), and the public key is the one `vss keys export-public`
    prints."""
    label = f"cli-{algorithm}"
    token.store.run("keys", "generate", "--algorithm", algorithm, "--label", label)
    out = token.tool("--list-objects").stdout
    mine = [o for o in objects(out) if re.search(rf"^\s+label:\s+{re.escape(label)}$", o, re.M)]
    assert len(mine) == 2, f"want a public and a private key labelled {label}\n{out}"
    key_type = "RSA" if algorithm == "rsa2048" else "EC"
    assert any(o.startswith(f"Private Key Object; {key_type}") for o in mine), out
    assert any(o.startswith(f"Public Key Object; {key_type}") for o in mine), out
    if algorithm == "rsa2048":
        assert any("RSA 2048 bits" in o for o in mine), out
    ids = {m.group(1) for o in mine for m in [re.search(r"^\s+ID:\s+([0-9a-f]+)$", o, re.M)] if m}
    assert len(ids) == 1, f"the two halves should share one CKA_ID\n{out}"

    pem = token.public_key(ids.pop(), label)
    ours = serialization.load_pem_public_key(pem.read_bytes())
    exported = token.store.run("keys", "export-public", "--label", label).stdout.strip()
    if algorithm == "rsa2048":
        theirs = serialization.load_pem_public_key(exported.encode())
        assert isinstance(ours, rsa.RSAPublicKey) and ours.key_size == 2048
        assert ours.public_numbers() == theirs.public_numbers()
    else:
        assert isinstance(ours, ec.EllipticCurvePublicKey)
        point = ours.public_bytes(serialization.Encoding.X962,
                                  serialization.PublicFormat.UncompressedPoint)
        assert point.hex() == exported.lower()


# --------------------------------------------------------------------------------------
# 3. GnuTLS p11tool
# --------------------------------------------------------------------------------------


def p11tool(token: Token, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`p11tool --provider M ARGS`, the PIN in GNUTLS_PIN (used only with --login)."""
    env = dict(token.env, GNUTLS_PIN=PIN)
    return run([client("p11tool"), "--provider", token.module, *args], env=env, check=check,
               cwd=token.work)


def file_key_cert(token: Token, cn: str) -> Path:
    """A self-signed P-256 certificate whose key is a file (for tests that only store it)."""
    pem = token.work / f"{cn}.pem"
    openssl(token, None, "req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:P-256", "-nodes", "-keyout", token.work / f"{cn}.key",
            "-subj", f"/CN={cn}", "-days", "30", "-out", pem)
    return pem


def test_p11tool_lists_token_keys_and_certificates(token):
    """p11tool sees the token as the module describes it, lists keys and a stored
    certificate after login, the certificate and the public keys before, and signs with both keys
    (--test-sign verifies the signature with the token's public key)."""
    needs("p11tool")
    token.keypair(RSA)
    token.keypair(EC)
    token.write_cert(file_key_cert(token, "vss-ca"), "0a", "vss-ca")

    tokens = p11tool(token, "--list-tokens").stdout
    block = next((b for b in tokens.split("Token ") if f"Label: {TOKEN_LABEL}" in b), None)
    assert block, tokens
    assert re.search(rf"Manufacturer: {TOKEN_MANUFACTURER}\n", block), block
    assert re.search(rf"Model: {TOKEN_MODEL}\n", block), block
    assert re.search(r"Serial: [0-9a-f]{16}\n", block), block

    listed = p11tool(token, "--list-all", "--login").stdout
    for kind in (RSA, EC):
        for what in ("private", "public"):
            assert re.search(rf"URL: pkcs11:.*;object={kind.label};type={what}\n", listed), (
                f"{what} key {kind.label} not listed\n{listed}")
        assert f"Type: {kind.p11tool_type}" in listed, listed
    assert re.search(r"URL: pkcs11:.*;object=vss-ca;type=cert\n", listed), listed
    private = [b for b in listed.split("Object ") if "type=private" in b]
    assert len(private) == 2 and all(
        "CKA_SENSITIVE" in b and "CKA_NEVER_EXTRACTABLE" in b for b in private), listed

    certs = p11tool(token, "--list-all-certs").stdout
    assert re.search(r"URL: pkcs11:.*;object=vss-ca;type=cert\n", certs), certs
    anonymous = p11tool(token, "--list-all").stdout
    assert "object=vss-ca;type=cert" in anonymous, anonymous
    for kind in (RSA, EC):
        assert f"object={kind.label};type=public" in anonymous, anonymous
    assert "type=private" not in anonymous, f"private keys listed without login\n{anonymous}"

    for kind in (RSA, EC):
        proc = p11tool(token, "--login", "--test-sign", key_uri(kind))
        out = proc.stdout + proc.stderr  # p11tool reports on stderr
        assert "Verifying against public key in the token... ok" in out, out
        assert "Verifying against private key parameters... ok" in out, out


# --------------------------------------------------------------------------------------
# 4. TLS: openssl s_server with the token's key, curl and openssl s_client
# --------------------------------------------------------------------------------------


@contextmanager
def s_server(token: Token, conf: Path, key: list[str], cert: Path,
             naccept: int) -> Iterator[tuple[int, subprocess.Popen]]:
    """`openssl s_server -www` on a free loopback port, serving `naccept` connections; waits
    for its ACCEPT line (probing the port would use up a connection)."""
    port = free_port()
    log = token.work / f"s_server-{port}.log"
    env = dict(token.env, OPENSSL_CONF=str(conf))
    cmd = [client("openssl"), "s_server", *key, "-cert", str(cert),
           "-accept", f"127.0.0.1:{port}", "-www", "-naccept", str(naccept)]
    with open(log, "w") as out:
        server = subprocess.Popen(cmd, env=env, cwd=token.work, stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: re.search(r"^ACCEPT$", log.read_text(), re.M), "s_server start", 30,
                 server, log)
        yield port, server
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"s_server still runs after {naccept} connections\n{log.read_text()}")
        assert server.returncode == 0, f"s_server exited {server.returncode}\n{log.read_text()}"
    finally:
        stop(server)


def tls_clients(token: Token, kind: KeyKind, port: int, cert: Path) -> None:
    """curl (TLS 1.3) and `openssl s_client -tls1_2` once per signature algorithm of the kind;
    every handshake verifies the server's signature with the certificate."""
    page = token.work / "page.html"
    run([client("curl"), "-sS", "--tlsv1.3", "--max-time", "20", "--cacert", cert,
         "-o", page, f"https://localhost:{port}/"], env=token.env, timeout=30)
    assert re.search(r"New, TLSv1\.3, Cipher is TLS_", page.read_text()), page.read_text()
    for sigalgs, peer_type in kind.tls12_sigalgs:
        proc = run([client("openssl"), "s_client", "-connect", f"127.0.0.1:{port}",
                    "-servername", "localhost", "-tls1_2", "-sigalgs", sigalgs,
                    "-CAfile", cert, "-verify_return_error"], env=token.env, timeout=30)
        out = proc.stdout
        assert re.search(r"Protocol\s*: TLSv1\.2", out), describe(proc)
        assert f"Peer signature type: {peer_type}\n" in out, describe(proc)
        assert "Verify return code: 0 (ok)" in out, describe(proc)


@pytest.mark.parametrize("kind", KINDS)
def test_tls_server_key_through_engine(token, engine_conf, kind):
    """The libp11 engine: a self-signed certificate made with the token's key (its public
    key is the token's), stored on the token; then s_server with that key answers curl over
    TLS 1.3 and s_client over TLS 1.2 with PKCS #1 v1.5, PSS (RSA) or ECDSA signatures."""
    needs("curl")
    token.keypair(kind)
    key = [*engine_args(kind), "-passin", f"pass:{PIN}"]
    cert = self_signed_cert(token, engine_conf, key, f"{kind.name}-engine")
    assert cert_public_key_pem(cert) == token.public_key(kind.key_id, kind.name).read_bytes()
    token.write_cert(cert, kind.key_id, kind.label)
    server_key = [*engine_args(kind), "-pass", f"pass:{PIN}"]
    with s_server(token, engine_conf, server_key, cert, 1 + len(kind.tls12_sigalgs)) as (port, _):
        tls_clients(token, kind, port, cert)


@pytest.mark.parametrize("kind", KINDS)
def test_tls_server_key_through_provider(token, provider_conf, kind):
    """pkcs11-provider (optional: skipped when not installed): the same as the engine test,
    the key named by its URI alone."""
    needs("curl")
    token.keypair(kind)
    cert = self_signed_cert(token, provider_conf, ["-key", key_uri(kind)], f"{kind.name}-prov")
    assert cert_public_key_pem(cert) == token.public_key(kind.key_id, kind.name).read_bytes()
    with s_server(token, provider_conf, ["-key", key_uri(kind)], cert,
                  1 + len(kind.tls12_sigalgs)) as (port, _):
        tls_clients(token, kind, port, cert)


@contextmanager
def http_backend(body: bytes) -> Iterator[int]:
    """A plain TCP backend on loopback that answers every request with one HTTP response."""
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(10)
                head = b""
                try:
                    while b"\r\n\r\n" not in head:
                        part = conn.recv(4096)
                        if not part:
                            break
                        head += part
                    if head:
                        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                                     b"Connection: close\r\n\r\n%s" % (len(body), body))
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        thread.join(timeout=5)
        listener.close()


@pytest.mark.parametrize("kind", KINDS)
def test_vss_tls_serve_uses_the_key_made_through_the_module(token, engine_conf, vss_bin, kind):
    """A key made with pkcs11-tool --keypairgen and certified through the engine is the key
    `vss tls serve --key LABEL` serves with: curl (TLS 1.3) and s_client (TLS 1.2, each of the
    kind's signature algorithms; a P-256 key signs with SHA-256 only, as in TLS 1.3 and as
    rustls's own keys do) reach the backend through it; SIGTERM stops it with its counts."""
    needs("curl")
    token.keypair(kind)
    cert = self_signed_cert(token, engine_conf, [*engine_args(kind), "-passin", f"pass:{PIN}"],
                            f"{kind.name}-tls-serve")
    with http_backend(b"through vss tls serve") as backend:
        cmd = [str(vss_bin), "tls", "serve", "--store", str(token.store.dir),
               "--listen", "127.0.0.1:0", "--backend", f"127.0.0.1:{backend}",
               "--cert", str(cert), "--key", kind.label]
        log = token.work / "tls-serve.log"
        with open(log, "w") as out:
            server = subprocess.Popen(cmd, env=token.env, cwd=token.work,
                                      stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        try:
            wait_for(lambda: "terminating TLS on" in log.read_text(), "vss tls serve start", 30,
                     server, log)
            port = int(re.search(r"on 127\.0\.0\.1:(\d+)", log.read_text()).group(1))
            page = run([client("curl"), "-sS", "--tlsv1.3", "--max-time", "20", "--cacert", cert,
                        "--resolve", f"localhost:{port}:127.0.0.1", f"https://localhost:{port}/"],
                       env=token.env, timeout=30)
            assert page.stdout == "through vss tls serve", describe(page)
            sigalgs = [s for s in kind.tls12_sigalgs if kind is RSA or "SHA256" in s[0]]
            for sigalg, peer_type in sigalgs:
                proc = run([client("openssl"), "s_client", "-connect", f"127.0.0.1:{port}",
                            "-servername", "localhost", "-tls1_2", "-sigalgs", sigalg,
                            "-CAfile", cert, "-verify_return_error"], env=token.env, timeout=30)
                assert f"Peer signature type: {peer_type}\n" in proc.stdout, describe(proc)
                assert "Verify return code: 0 (ok)" in proc.stdout, describe(proc)
            server.terminate()
            assert server.wait(timeout=20) == 0, log.read_text()
            stopped = log.read_text().strip().splitlines()[-1]
            handshakes = 1 + len(sigalgs)
            assert stopped.startswith(f"stopped: {handshakes} handshakes (0 failed"), stopped
        finally:
            stop(server)


# --------------------------------------------------------------------------------------
# 5. OpenVPN (pkcs11-helper)
# --------------------------------------------------------------------------------------


def helper_escape(text: str) -> str:
    """pkcs11-helper's escaping in serialized ids: alphanumerics as they are, anything else
    as \\xNN."""
    return "".join(c if c.isascii() and c.isalnum() else f"\\x{ord(c):02X}" for c in text)


def vpn_ca(token: Token) -> tuple[Path, Path]:
    """A throw-away CA (file key) and a client certificate it issued: (ca.pem, cli.pem);
    the client's key is cli.key."""
    w = token.work
    openssl(token, None, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=vss-test-ca",
            "-days", "30", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    (w / "srv.ext").write_text("basicConstraints=CA:FALSE\n"
                               "keyUsage=critical,digitalSignature,keyEncipherment\n"
                               "extendedKeyUsage=serverAuth\n")
    (w / "cli.ext").write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                               "extendedKeyUsage=clientAuth\n")
    openssl(token, None, "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", "cli.key", "-subj", "/CN=vpn-client", "-out", "cli.csr")
    openssl(token, None, "x509", "-req", "-in", "cli.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "30", "-sha256", "-extfile", "cli.ext", "-out", "cli.pem")
    return w / "ca.pem", w / "cli.pem"


def run_vpn(token: Token, pkcs11_id: str) -> tuple[str, str, list[str]]:
    """An OpenVPN server whose key is on the token (PIN given through the management
    interface) and a client with file keys, over UDP on loopback with --dev null, until both
    log "Initialization Sequence Completed" (at most 40 s). Returns both logs and the
    management lines."""
    openvpn = client("openvpn")
    vpn, mgmt = free_port(socket.SOCK_DGRAM), free_port()
    w = token.work
    common = ["--dev", "null", "--proto", "udp", "--verb", "3", "--ca", "ca.pem",
              "--data-ciphers", "AES-256-GCM:AES-128-GCM", "--ping", "1", "--ping-exit", "20"]
    server_cmd = [openvpn, "--tls-server", "--dh", "none", "--local", "127.0.0.1",
                  "--lport", str(vpn), "--pkcs11-providers", str(token.module),
                  "--pkcs11-id", pkcs11_id, "--management", "127.0.0.1", str(mgmt),
                  "--management-query-passwords", "--management-hold", *common]
    client_cmd = [openvpn, "--tls-client", "--remote", "127.0.0.1", str(vpn), "--nobind",
                  "--cert", "cli.pem", "--key", "cli.key", "--remote-cert-tls", "server",
                  *common]
    server_log, client_log = w / "vpn-server.log", w / "vpn-client.log"
    procs: list[subprocess.Popen] = []
    lines: list[str] = []

    def start(cmd: list[str], log: Path) -> subprocess.Popen:
        with open(log, "w") as out:
            proc = subprocess.Popen(cmd, env=token.env, cwd=w, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT)
        procs.append(proc)
        return proc

    def done(log: Path) -> bool:
        return "Initialization Sequence Completed" in log.read_text(errors="replace")

    try:
        server = start(server_cmd, server_log)
        conn = None
        deadline = time.monotonic() + 20
        while conn is None:
            try:
                conn = socket.create_connection(("127.0.0.1", mgmt), timeout=1)
            except OSError:
                assert server.poll() is None, f"openvpn server exited\n{server_log.read_text()}"
                assert time.monotonic() < deadline, "management interface not reachable"
                time.sleep(0.1)
        with conn:
            conn.settimeout(0.2)
            conn.sendall(b"hold release\n")
            cli = start(client_cmd, client_log)
            buf, answered = "", False
            deadline = time.monotonic() + 40
            while not (done(server_log) and done(client_log)):
                try:
                    buf += conn.recv(4096).decode(errors="replace")
                except socket.timeout:
                    pass
                ask = re.search(r">PASSWORD:Need '([^']*)' password", buf)
                if ask and not answered:
                    conn.sendall(f'password "{ask.group(1)}" {PIN}\n'.encode())
                    answered = True
                assert ">PASSWORD:Verification Failed" not in buf, buf
                assert server.poll() is None and cli.poll() is None, (
                    f"openvpn exited\n--- server:\n{server_log.read_text()}\n"
                    f"--- client:\n{client_log.read_text()}")
                assert time.monotonic() < deadline, (
                    f"no tunnel within 40 s\n--- management:\n{buf}\n--- server:\n"
                    f"{server_log.read_text()}\n--- client:\n{client_log.read_text()}")
                time.sleep(0.1)
            lines = buf.splitlines()
    finally:
        for proc in procs:
            stop(proc)
    return server_log.read_text(), client_log.read_text(), lines


@pytest.mark.parametrize("kind", KINDS)
def test_openvpn_server_key_on_token(token, engine_conf, kind):
    """`openvpn --show-pkcs11-ids` lists the stored certificate with its DN and a serialized
    id made of the token's manufacturer, model, serial and label and the CKA_ID; a server
    using that id brings a tunnel up with a client on loopback."""
    needs("openvpn")
    token.keypair(kind)
    ca, _ = vpn_ca(token)
    cn = f"vpn-server-{kind.name}"
    openssl(token, engine_conf, "req", "-new", *engine_args(kind), "-passin", f"pass:{PIN}",
            "-subj", f"/CN={cn}", "-out", "srv.csr")
    openssl(token, None, "req", "-in", "srv.csr", "-noout", "-verify")
    openssl(token, None, "x509", "-req", "-in", "srv.csr", "-CA", ca, "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "30", "-sha256", "-extfile", "srv.ext",
            "-out", "srv.pem")
    token.write_cert(token.work / "srv.pem", kind.key_id, kind.label)

    info = token.token_info()
    serial = info.get("serial num", "")
    assert re.fullmatch(r"[0-9a-f]{16}", serial), info
    assert (info.get("token label"), info.get("token manufacturer"), info.get("token model")) == (
        TOKEN_LABEL, TOKEN_MANUFACTURER, TOKEN_MODEL), info

    ids = run([client("openvpn"), "--show-pkcs11-ids", token.module], env=token.env).stdout
    expected_id = "/".join(helper_escape(s) for s in
                           (TOKEN_MANUFACTURER, TOKEN_MODEL, serial, TOKEN_LABEL))
    expected_id += "/" + kind.key_id.upper()
    entries = re.findall(r"Certificate\n\s+DN:\s+(.*)\n\s+Serial:\s+(\S+)\n"
                         r"\s+Serialized id:\s+(\S+)\n", ids)
    assert [(dn, sid) for dn, _, sid in entries] == [(f"CN={cn}", expected_id)], ids

    server_log, client_log, mgmt = run_vpn(token, expected_id)
    assert any(f">PASSWORD:Need '{TOKEN_LABEL} token' password" in line for line in mgmt), mgmt
    assert any(line.startswith("SUCCESS: ") and "password entered" in line for line in mgmt), mgmt
    assert f"CN={cn}" in client_log, client_log  # the client saw the token key's certificate
    for log in (server_log, client_log):
        assert "Initialization Sequence Completed" in log


# --------------------------------------------------------------------------------------
# 6. Security: no private key out, only public objects before login, wrong PINs counted
# --------------------------------------------------------------------------------------


def test_private_keys_never_leave_the_token(token):
    """No client gets private key material: pkcs11-tool --read-object --type privkey writes
    nothing (pkcs11-tool 0.23 does not even try; newer ones read the attributes and must be
    refused), p11tool --export of a private key fails, and every private key is
    sensitive and never extractable."""
    needs("p11tool")
    token.keypair(RSA)
    token.keypair(EC)
    for kind in (RSA, EC):
        out_file = token.work / f"{kind.name}.priv"
        proc = token.tool("--read-object", "--type", "privkey", "--id", kind.key_id,
                          "-o", str(out_file), check=False)
        written = out_file.read_bytes() if out_file.exists() else b""
        assert written == b"", f"pkcs11-tool wrote {len(written)} bytes of a private key"
        assert not re.search(r"PRIVATE KEY|[0-9a-f]{64}", proc.stdout, re.I), describe(proc)

        proc = p11tool(token, "--login", "--export", key_uri(kind), check=False)
        assert proc.returncode != 0, describe(proc)
        assert "PRIVATE KEY" not in proc.stdout + proc.stderr, describe(proc)

    listed = token.tool("--list-objects").stdout
    private = [o for o in objects(listed) if o.startswith("Private Key Object")]
    assert len(private) == 2, listed
    for obj in private:
        access = re.search(r"Access:\s+(.*)", obj)
        assert access and {"sensitive", "always sensitive", "never extractable"} <= {
            a.strip() for a in access.group(1).split(",")}, obj
        assert "extractable" not in access.group(1).replace("never extractable", ""), obj


def test_public_objects_before_login_private_keys_after(token):
    """Before login the token shows its public objects, the certificate and the public halves
    of the key pairs (CKA_PRIVATE false, readable), and no private key; after login the
    private keys appear. The public key read without a PIN is the store's."""
    token.keypair(RSA)
    token.keypair(EC)
    token.write_cert(file_key_cert(token, "vss-ca"), "0a", "vss-ca")
    anonymous = token.tool("--list-objects", login=False).stdout
    assert re.search(r"Certificate Object; type = X\.509 cert\n\s+label:\s+vss-ca", anonymous), (
        anonymous)
    public = [o for o in objects(anonymous) if o.startswith("Public Key Object")]
    assert sorted(re.search(r"label:\s+(\S+)", o).group(1) for o in public) == sorted(
        [RSA.label, EC.label]), anonymous
    assert "Private Key Object" not in anonymous, anonymous
    der = token.work / "pub.der"
    token.tool("--read-object", "--type", "pubkey", "--id", RSA.key_id, "-o", str(der),
               login=False)
    read = serialization.load_der_public_key(der.read_bytes())
    logged_in = token.tool("--list-objects").stdout
    for kind in ("RSA", "EC"):
        assert f"Private Key Object; {kind}" in logged_in, logged_in
        assert f"Public Key Object; {kind}" in logged_in, logged_in
    exported = token.store.run("keys", "export-public", "--label", RSA.label).stdout
    theirs = serialization.load_pem_public_key(exported.encode())
    assert read.public_numbers() == theirs.public_numbers()


def openssh_line(token: Token, label: str) -> str:
    """The OpenSSH public-key line ("ecdsa-sha2-nistp256 AAAA…", "ssh-rsa AAAA…") of the
    store's key `label`, from `vss keys export-public`."""
    exported = token.store.run("keys", "export-public", "--label", label).stdout.strip()
    if exported.startswith("-----BEGIN"):
        key = serialization.load_pem_public_key(exported.encode())
    else:  # an EC key: the uncompressed point in hex
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(),
                                                           bytes.fromhex(exported))
    return key.public_bytes(serialization.Encoding.OpenSSH,
                            serialization.PublicFormat.OpenSSH).decode()


def test_ssh_keygen_lists_the_public_keys_without_a_pin(token, vss_bin):
    """`ssh-keygen -D <module>` prints the public keys of the store's key pairs, the ones
    `vss keys generate` made and one made by pkcs11-tool, without a PIN (the module shows
    public keys before login); each line is the key's real public key in OpenSSH form."""
    ssh_keygen = client("ssh-keygen")
    for algorithm in ("p256", "rsa2048"):
        token.store.run("keys", "generate", "--algorithm", algorithm, "--label", f"ssh-{algorithm}")
    token.keypair(EC)
    env = {k: v for k, v in token.env.items() if k not in ("VSS_PIN", "VSS_PUK")}
    proc = run([ssh_keygen, "-D", token.module], env=env, cwd=token.work)
    printed = sorted(" ".join(line.split()[:2]) for line in proc.stdout.splitlines()
                     if line.strip())
    wanted = sorted(openssh_line(token, label) for label in ("ssh-p256", "ssh-rsa2048", EC.label))
    assert printed == wanted, describe(proc)
    assert "ecdsa-sha2-nistp256" in proc.stdout and "ssh-rsa" in proc.stdout, describe(proc)


def test_wrong_pin_costs_one_try_and_shows_in_token_flags(token):
    """A wrong PIN through pkcs11-tool is refused (CKR_PIN_INCORRECT) and costs one try, as
    `vss hsm status` counts them; the token flags say "user PIN count low", then "final user
    PIN try"; the right PIN restores the count; three wrong ones lock the PIN, and then the
    right one is refused too (CKR_PIN_LOCKED)."""

    def flags() -> set[str]:
        return {f.strip() for f in token.token_info()["token flags"].split(",")}

    def wrong() -> subprocess.CompletedProcess:
        proc = token.tool("--list-objects", pin=WRONG_PIN, check=False)
        assert proc.returncode != 0 and "Private Key Object" not in proc.stdout, describe(proc)
        return proc

    token.keypair(EC)
    assert token.pin_tries_left() == 3
    assert not flags() & {"user PIN count low", "final user PIN try", "user PIN locked"}, flags()

    assert "CKR_PIN_INCORRECT" in wrong().stderr
    assert token.pin_tries_left() == 2
    assert "user PIN count low" in flags() and "final user PIN try" not in flags(), flags()

    assert "Private Key Object; EC" in token.tool("--list-objects").stdout
    assert token.pin_tries_left() == 3
    assert "user PIN count low" not in flags(), flags()

    wrong()
    wrong()
    assert token.pin_tries_left() == 1
    assert {"user PIN count low", "final user PIN try"} <= flags(), flags()
    third = wrong()
    assert re.search(r"CKR_PIN_(INCORRECT|LOCKED)", third.stderr), describe(third)
    assert token.pin_tries_left() == 0
    assert "user PIN locked" in flags(), flags()
    locked = token.tool("--list-objects", check=False)
    assert locked.returncode != 0 and "CKR_PIN_LOCKED" in locked.stderr, describe(locked)
    assert token.pin_tries_left() == 0

"""Hostile arguments for every `vss` subcommand (issue 18, hardening).

The subcommand tree is read from `vss -h`, recursively, when the suite is collected: every
leaf subcommand must have an entry in LEAVES (its base arguments, which get a run past its
first checks so that the hostile value is the one judged), and every option's value name
must be classified in KIND_OF_VALUE, so a new subcommand or option without hostile cases
fails the suite. Each option and positional then gets the hostile values of its kind:

  numbers   99999999999999999999, 2^64, -1, -2^63-1, 0, empty, control characters, long
  text      empty, control characters, long
  choices   empty, control characters, long, -1
  files     empty, /dev/zero, missing, unreadable, control characters, long
  dirs      empty, /dev/zero, missing, unreadable, control characters, long
  outputs   empty, a FIFO, a missing directory, a directory, control characters, long

and every leaf gets 1 MiB of arguments. "Long" is 128 KiB less 64 bytes: Linux passes no
single argument of 128 KiB or more (MAX_ARG_STRLEN), so 1 MiB is nine of them. "Control
characters" are an ANSI colour escape, BEL, CR, LF and TAB. An output's stand-in for
/dev/zero is a FIFO in the case's directory: vss replaces output files by renaming a
temporary file over them, and a regression there must not replace the real /dev/zero of
whoever runs the suite as root. "Unreadable" is a file (directory) with mode 000; root reads
those anyway, so as root it is a directory where a file is expected (a file where a
directory is expected), and the case id says so.

Every run, with its own directory, copies of the fixtures it needs, stdin at EOF, its heap
limited to 2 GiB (so that reading /dev/zero to the end fails there, not in the machine's
memory) and a timeout, must:
  * not panic (exit 101) nor die of a signal, nor run out of memory;
  * exit non-zero, unless ACCEPTED says why the value is a valid one;
  * on a non-zero exit, print exactly one line on stderr (or, for `its verify`, exit 1
    with its verdict on stdout);
  * print no raw control character (other than the line ends) on stderr or stdout;
  * leave the FIFO it was given as an output a FIFO.
Only the commands that run until stopped (`pki serve`, `filter`) may still be running at
their (short) timeout, with nothing raw printed so far.

The cases selected for a run are run together, a few processes at a time, the first time
one of them is needed; each test then judges its own case.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import subprocess
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable

import pytest

from _support import PIN, PUK
from conftest import REPO_ROOT, _find_vss

# --------------------------------------------------------------------------------------
# The hostile values
# --------------------------------------------------------------------------------------

CONTROL = "vss\x1b[31mred\x07bell\rcr\nlf\ttab"
# Just under MAX_ARG_STRLEN (128 KiB), the longest single argument, leaving room for
# "--option=" in front of it.
LONG = "9" * (128 * 1024 - 64)
ROOT = os.geteuid() == 0
UNREADABLE = "unreadable-as-root-a-dir" if ROOT else "unreadable"
UNREADABLE_DIR = "unreadable-as-root-a-file" if ROOT else "unreadable"

NUMBER, TEXT, CHOICE, FILE, DIR, NEW_DIR, OUT, DATABASE = (
    "number", "text", "choice", "file", "dir", "new-dir", "out", "database")

# Hostile value ids per kind of option.
VALUES: dict[str, tuple[str, ...]] = {
    NUMBER: ("huge", "2^64", "negative", "negative-huge", "zero", "empty", "control", "long"),
    TEXT: ("empty", "control", "long"),
    CHOICE: ("empty", "control", "long", "negative"),
    FILE: ("empty", "dev-zero", "missing", UNREADABLE, "control", "long"),
    DIR: ("empty", "dev-zero", "missing", UNREADABLE_DIR, "control", "long"),
    # A directory the command creates: a missing one is what it wants.
    NEW_DIR: ("empty", "dev-zero", "a-file", "control", "long"),
    OUT: ("empty", "fifo", "missing", "a-dir", "control", "long"),
    # A postgres:// URL or an SQLite file.
    DATABASE: ("empty", "dev-zero", "missing", UNREADABLE, "control", "long"),
}

# The kind of an option, from its value name in `-h` (options with listed possible values
# are CHOICE whatever their value name).
KIND_OF_VALUE: dict[str, str] = {
    **dict.fromkeys(("N", "COUNT", "RUNS", "OPS", "BYTE", "PSID", "PSIDS", "MS", "SECONDS",
                     "THREADS", "BATCH", "CACHE_CAPACITY", "ENROLMENTS", "TICKETS", "CLIENTS",
                     "CONCURRENCY", "MESSAGES", "SIGNERS", "RATE", "RATES", "MAX_USES", "US", "SLOT"), NUMBER),
    **dict.fromkeys(("FILE", "CERT", "PATH", "FILE|DIR", "SOCKET", "URL|FILE",
                     "FILE[=URL]"), FILE),
    **dict.fromkeys(("refuse|warn", "both|ea|aa"), CHOICE),
    "DIR": DIR,
    "URL|PATH": DATABASE,
    **dict.fromkeys(("LABEL", "NAME", "HEX", "URL", "TIME", "DURATION", "REGION", "PROFILE",
                     "udp:ADDR", "LISTEN", "ADDR", "PROTOCOLS", "KEYS", "SIZE", "ALGORITHM", "CANONICAL_ID", "CURVE", "SCHEME", "KDF", "HASH", "FORMAT",
                     "PSID[:SSP]", "LAT,LON[,ELEVATION]", "CARDS", "VPCD", "HOST:PORT",
                     "NAME=VALUE", "NAME=GROUNDS", "NAME=MIN..MAX", "SCOPE", "ADDRESS",
                     "FILTER", "IFACE"), TEXT),
}

# --------------------------------------------------------------------------------------
# The subcommand tree, from `vss -h`
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Opt:
    """An option (`--label`) or positional (`<FILE>`) of a leaf subcommand, as `-h` shows it."""

    name: str
    value: str | None  # the value name; None for a flag
    choices: bool = False


_ENTRY = re.compile(r"^(?: {2}(?:-\w, )?| {6})(--[\w-]+)(?: <([^>]+)>)?")
_ARGUMENT = re.compile(r"^ {2}[<\[]([^>\]]+)[>\]]")
_COMMAND = re.compile(r"^ {2}([\w-]+)\s")


def _help(vss_bin: Path, path: tuple[str, ...]) -> str:
    proc = subprocess.run([str(vss_bin), *path, "-h"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=30)
    assert proc.returncode == 0, f"vss {' '.join(path)} -h: {proc.stderr}"
    return proc.stdout


def _sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if re.match(r"^\w[\w ]*:$", line):
            current = sections.setdefault(line[:-1], [])
        elif current is not None and line.strip():
            current.append(line)
    return sections


def discover(vss_bin: Path, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], list[Opt]]:
    """Every leaf subcommand under `path` and its options and positionals."""
    sections = _sections(_help(vss_bin, path))
    if "Commands" in sections:
        leaves = {}
        for line in sections["Commands"]:
            m = _COMMAND.match(line)
            if m and m.group(1) != "help":
                leaves.update(discover(vss_bin, (*path, m.group(1))))
        return leaves
    opts: list[Opt] = []
    for line in sections.get("Arguments", []):
        if m := _ARGUMENT.match(line):
            opts.append(Opt(f"<{m.group(1)}>", m.group(1)))
    for line in sections.get("Options", []):
        m = _ENTRY.match(line)
        if m:
            opts.append(Opt(m.group(1), m.group(2)))
        if "[possible values:" in line:
            opts[-1] = Opt(opts[-1].name, opts[-1].value, True)
    opts = [o for o in opts if o.name not in ("--help", "--version")]
    return {path: opts}


# --------------------------------------------------------------------------------------
# Fixtures on disk: made once, copied into each case's directory when it needs them
# --------------------------------------------------------------------------------------


@dataclass
class Templates:
    """A key store with key `sig`, a PKI, and files made with them."""

    store: Path
    pki: Path
    payload: Path
    encrypted: Path
    stats: Path
    sig_public: str
    closed_url: str  # a loopback URL nothing listens on
    env: dict
    sig_cert: Path  # a PEM certificate for key `sig` (for `tls serve`)


class World:
    """One case's directory (also its working directory and HOME); the templates it uses
    are copied in when first asked for, so that no case sees what another did."""

    def __init__(self, dir: Path, templates: Templates):
        self.dir = dir
        self.t = templates
        dir.mkdir(parents=True)

    def path(self, name: str) -> str:
        return str(self.dir / name)

    @cached_property
    def store(self) -> str:
        return str(shutil.copytree(self.t.store, self.dir / "store"))

    @cached_property
    def pki(self) -> str:
        return str(shutil.copytree(self.t.pki, self.dir / "pki"))

    @cached_property
    def entity_config(self) -> str:
        """A vss.toml for the entity: the world's store, the PKI's root as the anchor."""
        path = self.dir / "vss.toml"
        path.write_text(f'[hsm]\nstore = "{self.store}"\n[repository]\n'
                        f'dir = "{self.dir / "repository"}"\n[trust]\n'
                        f'anchors = ["{self.cert("root")}"]\n')
        return str(path)

    @property
    def pki_keys(self) -> str:
        return str(Path(self.pki) / "keys")

    def cert(self, name: str) -> str:
        return str(self.t.pki / f"{name}.cert")

    def hostile(self, value: str, kind: str) -> str:
        """The hostile value `value` for an option of kind `kind`."""
        fixed = {"huge": "99999999999999999999", "2^64": "18446744073709551616",
                 "negative": "-1", "negative-huge": "-9223372036854775809", "zero": "0",
                 "empty": "", "control": CONTROL, "long": LONG, "dev-zero": "/dev/zero"}
        if value in fixed:
            return fixed[value]
        if value == "missing":
            return self.path("missing/none")
        if value in ("unreadable", "unreadable-as-root-a-dir", "unreadable-as-root-a-file"):
            target = self.dir / "unreadable"
            wants_dir = kind == DIR
            if ROOT:
                wants_dir = not wants_dir
            if wants_dir:
                target.mkdir()
            else:
                target.write_bytes(b"246810\n")
            if not ROOT:
                target.chmod(0)
            return str(target)
        if value == "a-file":
            (self.dir / "a-file").write_bytes(b"not a directory\n")
            return self.path("a-file")
        if value == "a-dir":
            (self.dir / "a-dir").mkdir()
            return self.path("a-dir")
        if value == "fifo":
            os.mkfifo(self.dir / "fifo")
            return self.path("fifo")
        raise AssertionError(f"test bug: no hostile value {value!r}")


def _vss(vss_bin: Path, env: dict, cwd: Path, *args: str) -> str:
    proc = subprocess.run([str(vss_bin), *args], env=env, cwd=cwd, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, f"vss {' '.join(args)}: {proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def templates(vss_bin, tmp_path_factory) -> Templates:
    tmp = tmp_path_factory.mktemp("hostile-templates")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VSS_")}
    env.update(VSS_PIN=PIN, VSS_PUK=PUK, VSS_NEW_PIN="97531086", HOME=str(tmp),
               XDG_DATA_HOME=str(tmp / "data"), SOFTHSM2_CONF=str(tmp / "softhsm2.conf"))
    (tmp / "tokens").mkdir()
    (tmp / "softhsm2.conf").write_text(f"directories.tokendir = {tmp / 'tokens'}\n")
    store, pki = tmp / "store", tmp / "pki"
    _vss(vss_bin, env, tmp, "hsm", "init", "--store", str(store))
    _vss(vss_bin, env, tmp, "keys", "generate", "--store", str(store), "--label", "sig")
    sig_public = _vss(vss_bin, env, tmp, "keys", "export-public", "--store", str(store),
                      "--label", "sig").strip()
    _vss(vss_bin, env, tmp, "pki", "init", "--dir", str(pki), "--name", "hostile")
    payload = tmp / "payload.bin"
    payload.write_bytes(b"a payload")
    _vss(vss_bin, env, tmp, "its", "encrypt", "--to", str(pki / "ea.cert"),
         "--payload", str(payload), "--out", str(tmp / "encrypted.oer"))
    stats = tmp / "stats"
    stats.mkdir()
    (stats / "stats.1").write_text("1\tverify\t120\tvalid\t2048\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_url = f"http://127.0.0.1:{s.getsockname()[1]}"
    sig_cert = tmp / "sig.pem"
    sig_cert.write_bytes(_certificate_for(bytes.fromhex(sig_public)))
    return Templates(store, pki, payload, tmp / "encrypted.oer", stats, sig_public,
                     closed_url, env, sig_cert)


def _certificate_for(sec1_p256: bytes) -> bytes:
    """A PEM certificate for a P-256 public key, issued by a throw-away CA (pyca)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sec1_p256)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    name = lambda cn: x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])  # noqa: E731
    cert = (x509.CertificateBuilder().subject_name(name("localhost"))
            .issuer_name(name("hostile CA")).public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), False)
            .sign(ca_key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM)


# --------------------------------------------------------------------------------------
# Each leaf: the arguments that get it past its first checks
# --------------------------------------------------------------------------------------

DROP = None  # in Leaf.needs: leave this option out

ECTL = REPO_ROOT / "tests/vectors/its/ectl/eu_ectl_L2_CE4CF6C19BFED720.oer"

Args = dict[str, str | None]


@dataclass(frozen=True)
class Leaf:
    """How to run one leaf subcommand so that a hostile value is what it trips over."""

    base: Callable[[World], Args]  # option or <POSITIONAL> -> value
    # Changes to the base that an option needs to be read at all (DROP removes one).
    needs: dict[str, Args] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # where the value name misleads
    # Only these hostile values for an option (say why where it is used).
    only: dict[str, tuple[str, ...]] = field(default_factory=dict)
    runs_until_stopped: bool = False  # `pki serve`, `filter`: a timeout is no failure
    # `its verify`: a verdict other than Valid is exit 1 with the verdict on stdout and
    # nothing on stderr.
    verdict_on_stdout: bool = False
    timeout: float = 30


def _store(w: World) -> Args:
    return {"--store": w.store}


PKCS11 = {"--backend": "pkcs11", "--token-label": "hostile"}
ECIES_KEM = {"--scheme": "ecies-kem"}
ECIES_1609 = {"--scheme": "ecies-1609", "--curve": "p256"}
KEM_NEEDS = {"--kdf": ECIES_KEM, "--hash": ECIES_KEM, "--point-format": ECIES_KEM,
             "--p1": ECIES_1609}
BENCH_PKCS11 = {"--module": {"--hsm": "pkcs11"}}
ROOT_CERT = {"--profile": "root", "--subject-key": "root", "--issuer-cert": DROP,
             "--issuer-key": DROP}

LEAVES: dict[tuple[str, ...], Leaf] = {
    ("demo",): Leaf(lambda w: {"--messages": "1", "--format": "json"}),
    ("hsm", "init"): Leaf(
        lambda w: {"--store": w.path("new-store")},
        needs={"--module": PKCS11, "--token-label": {"--backend": "pkcs11"},
               "--so-pin-file": PKCS11},
        kinds={"--store": NEW_DIR}),
    ("hsm", "status"): Leaf(_store),
    ("hsm", "change-pin"): Leaf(_store),
    ("hsm", "unblock"): Leaf(_store),
    ("keys", "generate"): Leaf(lambda w: {"--store": w.store, "--label": "new"}),
    ("keys", "list"): Leaf(_store),
    ("keys", "export-public"): Leaf(lambda w: {"--store": w.store, "--label": "sig"}),
    ("keys", "delete"): Leaf(lambda w: {"--store": w.store, "--label": "sig"}),
    ("kem", "keygen"): Leaf(lambda w: {"--store": w.store, "--scheme": "psec-kem",
                                       "--curve": "p256", "--label": "kem"}),
    ("kem", "encap"): Leaf(lambda w: {"--scheme": "psec-kem", "--curve": "p256",
                                      "--public-key": w.t.sig_public},
                           needs={**KEM_NEEDS, "--aes-key": ECIES_1609}),
    ("kem", "decap"): Leaf(lambda w: {"--store": w.store, "--scheme": "psec-kem",
                                      "--label": "sig", "--ciphertext": "00"},
                           needs=KEM_NEEDS),
    ("its", "decode"): Leaf(lambda w: {"<FILE>": w.cert("root")}),
    # The real EU ECTL: a CTL that reads, and a CRL command that refuses it.
    **{("pki", group, "show"): Leaf(lambda w: {"<FILE>": str(ECTL)}) for group in ("ctl", "crl")},
    ("its", "verify"): Leaf(lambda w: {"<FILE>": w.cert("ea"), "--as": "certificate",
                                       "--trust": w.cert("root")}, verdict_on_stdout=True,
                            needs={"--daemon": {"--as": DROP, "--trust": DROP}}),
    ("its", "cert", "issue"): Leaf(
        lambda w: {"--store": w.pki_keys, "--profile": "at", "--subject-key": "ea-enc",
                   "--issuer-cert": w.cert("aa"), "--issuer-key": "aa", "--psid": "36",
                   "--duration": "1d", "--out": w.path("out.cert")},
        needs={"--name": ROOT_CERT}),
    ("its", "sign"): Leaf(lambda w: {"--store": w.store, "--label": "sig", "--signer": "self",
                                     "--psid": "36", "--payload": str(w.t.payload),
                                     "--out": w.path("signed.oer")},
                          needs={"--daemon": {"--store": DROP, "--label": DROP,
                                              "--signer": DROP}}),
    ("its", "encrypt"): Leaf(lambda w: {"--to": w.cert("ea"), "--payload": str(w.t.payload),
                                        "--out": w.path("encrypted.oer")},
                             needs={"--data": {"--payload": DROP}}),
    ("its", "decrypt"): Leaf(lambda w: {"<FILE>": str(w.t.encrypted), "--store": w.pki_keys,
                                        "--label": "ea-enc", "--cert": w.cert("ea"),
                                        "--out": w.path("plain.bin")}),
    ("pki", "init"): Leaf(lambda w: {"--dir": w.path("new-pki"), "--name": "n"},
                          kinds={"--dir": NEW_DIR}),
    # --metrics ADDR and the global --log-format and --log-level (on every leaf) get their
    # hostile values from their kinds.
    ("pki", "serve"): Leaf(lambda w: {"--dir": w.pki, "--listen": "127.0.0.1:0",
                                      "--metrics": "127.0.0.1:0"},
                           runs_until_stopped=True, timeout=3),
    ("pki", "register-station"): Leaf(lambda w: {"--dir": w.pki, "--canonical-id": "car",
                                                 "--public-key": w.t.sig_public}),
    ("pki", "trust"): Leaf(lambda w: {"--dir": w.pki, "--name": "other",
                                      "--ea-cert": w.cert("ea"), "--ea-url": w.t.closed_url}),
    # The root's lists: a CTL, the AA revoked, a CRL.
    ("pki", "ctl", "issue"): Leaf(lambda w: {"--dir": w.pki, "--url": w.t.closed_url,
                                             "--dc-url": w.t.closed_url}),
    ("pki", "crl", "revoke"): Leaf(lambda w: {"--dir": w.pki, "--cert": w.cert("aa")}),
    ("pki", "crl", "issue"): Leaf(lambda w: {"--dir": w.pki, "--validity": "1d"}),
    ("pki", "dc", "serve"): Leaf(lambda w: {"--dir": w.pki, "--listen": "127.0.0.1:0"},
                                 runs_until_stopped=True, timeout=3),
    ("station", "enroll"): Leaf(lambda w: {"--store": w.store, "--canonical-id": "car",
                                           "--canonical-key": "sig", "--ea": w.t.closed_url,
                                           "--ea-cert": w.cert("ea")}),
    ("station", "pseudonyms"): Leaf(lambda w: {"--store": w.store, "--aa": w.t.closed_url,
                                               "--aa-cert": w.cert("aa"),
                                               "--ea-cert": w.cert("ea")}),
    ("station", "list"): Leaf(_store),
    # The real EU ECTL under a root that is not its TLM: refused after the ECTL is read (no
    # fixture holds a TLM and a DC); a hostile value must fail before or as clearly.
    ("station", "trust-update"): Leaf(lambda w: {"--trust-store": w.path("trust"),
                                                 "--tlm-cert": w.cert("root"),
                                                 "--ectl": str(ECTL)}),
    # No store in the directory: refused with the command that makes one.
    ("station", "trust-show"): Leaf(lambda w: {"--trust-store": w.path("no-trust")}),
    ("stats", "report"): Leaf(lambda w: {"<DIR>": str(w.t.stats)}),
    # No vssd serves there: the command gets as far as connecting.
    ("stats", "status"): Leaf(lambda w: {"--daemon": w.path("no-vssd.sock")}),
    # A good run starts the testbed and serves until stopped (killed at the timeout).
    ("testbed", "up"): Leaf(lambda w: {"--dir": w.path("bed"), "--pseudonyms": "1"},
                            kinds={"--dir": NEW_DIR}, runs_until_stopped=True, timeout=10),
    ("engine", "info"): Leaf(lambda w: {}),
    ("filter",): Leaf(lambda w: {"--listen": "udp:127.0.0.1:0", "--forward": "udp:127.0.0.1:9",
                                 "--anchor": w.cert("root"), "--count": "1"},
                      runs_until_stopped=True, timeout=3),
    ("selftest",): Leaf(
        lambda w: {"--format": "json"},
        # Each run is the whole suite (5 s and more); the other paths reach the module
        # loader the same way.
        only={"--module": ("dev-zero", "control")},
        timeout=90),
    # The bridge on the loopback interface, until stopped; the interfaces' hostile values
    # are refused as names no interface has.
    ("gn", "bridge"): Leaf(lambda w: {"--config": w.entity_config, "--radio": "lo",
                                      "--stack": "lo"},
                           runs_until_stopped=True, timeout=3),
    ("tls", "serve"): Leaf(lambda w: {"--store": w.store, "--listen": "127.0.0.1:0",
                                      "--backend": "127.0.0.1:9", "--cert": str(w.t.sig_cert),
                                      "--key": "sig"},
                           runs_until_stopped=True, timeout=3),
    ("ecdsa", "verify-jsonl"): Leaf(lambda w: {"--engine": "cpu"}),
    ("ecdsa", "sign-jsonl"): Leaf(lambda w: {}),
    ("bench", "sign-verify"): Leaf(lambda w: {"--runs": "1", "--ops": "1"}, needs=BENCH_PKCS11),
    ("bench", "throughput"): Leaf(
        lambda w: {"--op": "verify", "--seconds": "0.05", "--threads": "1"},
        needs={"--module": {"--hsm": "pkcs11", "--op": "sign"}, "--batch": {"--engine": "cpu"}}),
    ("bench", "kem"): Leaf(lambda w: {"--runs": "1", "--ops": "1"},
                           needs={**KEM_NEEDS, **BENCH_PKCS11}),
    ("bench", "its-verify"): Leaf(lambda w: {"--messages": "1", "--signers": "1"}),
    ("bench", "pki"): Leaf(lambda w: {"--enrolments": "1", "--tickets": "1"}),
    ("bench", "filter"): Leaf(lambda w: {"--messages": "1", "--signers": "1"}),
    ("bench", "gn"): Leaf(lambda w: {"--messages": "1", "--signers": "1", "--rates": "100",
                                     "--duration-ms": "10"}),
    # One message per measurement, one client: signs, then starts the vssd beside vss.
    ("bench", "daemon"): Leaf(lambda w: {"--messages": "1", "--signers": "1", "--clients": "1"},
                              timeout=60),
    ("bench", "tls"): Leaf(lambda w: {"--seconds": "0.1", "--clients": "1", "--keys": "p256"},
                           timeout=60),
    # Seed 003's credentials. The card: its state file and a transport.
    ("card", "serve"): Leaf(lambda w: {"--state": w.path("card.state"), "--listen": "127.0.0.1:0"},
                            needs={"--vpcd": {"--listen": DROP}},
                            runs_until_stopped=True, timeout=3),
    # A card address where no card answers: setup and erase get as far as connecting.
    **{("card", leaf): Leaf(lambda w: {"--card": "tcp", "--card-addr": "127.0.0.1:9"},
                            needs={"--reader": {"--card": "pcsc", "--card-addr": DROP}})
       for leaf in ("setup", "erase")},
    ("cred", "setup"): Leaf(lambda w: {"--dir": w.path("cred")}),
    # The roles' directory does not exist: each command gets as far as opening it.
    **{("cred", leaf): Leaf(lambda w: {"--dir": w.path("cred"), "--token": w.path("token.json")})
       for leaf in ("verify", "inspect")},
    ("cred", "revoke"): Leaf(lambda w: {"--dir": w.path("cred"),
                                        "--credential": w.path("cred.json")}),
    ("cred", "policy"): Leaf(lambda w: {"--dir": w.path("cred"), "--out": w.path("policy.json")}),
    ("cred", "issue"): Leaf(lambda w: {"--dir": w.path("cred"), "--card": "tcp",
                                       "--card-addr": "127.0.0.1:9", "--attribute": "a=1",
                                       "--out": w.path("cred.json")},
                            needs={"--reader": {"--card": "pcsc", "--card-addr": DROP}}),
    ("cred", "present"): Leaf(lambda w: {"--card": "tcp", "--card-addr": "127.0.0.1:9",
                                         "--credential": w.path("cred.json"),
                                         "--policy": w.path("policy.json"),
                                         "--out": w.path("token.json")},
                              needs={"--reader": {"--card": "pcsc", "--card-addr": DROP}}),
    ("cred", "serve"): Leaf(lambda w: {"--dir": w.path("cred"), "--role": "verifier",
                                       "--listen": "127.0.0.1:0"},
                            needs={"--card-address": {"--role": "user"}},
                            runs_until_stopped=True, timeout=5),
    # The whole scenario with the software card; --reader and --card-addr with their cards.
    ("cred", "scenario"): Leaf(lambda w: {"--card": "soft", "--format": "json"},
                               needs={"--reader": {"--card": "pcsc"},
                                      "--card-addr": {"--card": "tcp"}},
                               timeout=60),
    ("bench", "cred"): Leaf(lambda w: {"--runs": "1", "--cards": "soft"},
                            needs={"--vpcd": {"--cards": "pcsc"}}, timeout=60),
}


def spec_of(leaf: tuple[str, ...]) -> Leaf:
    """The leaf's entry; a leaf without one (test_every_leaf_has_hostile_cases fails) still
    gets the hostile values, with no base arguments."""
    return LEAVES.get(leaf, Leaf(lambda w: {}))


# (leaf, option, hostile value) -> why a success (exit 0) is right. "*" matches any leaf.
NAME_WITH_CONTROLS = "a file or directory name may hold control characters"
ACCEPTED: dict[tuple[str, str, str], str] = {
    ("*", "--out", "control"): NAME_WITH_CONTROLS,
    ("hsm init", "--store", "control"): NAME_WITH_CONTROLS,
    ("pki init", "--dir", "control"): NAME_WITH_CONTROLS,
    ("bench pki", "--database", "control"): NAME_WITH_CONTROLS + " (an SQLite file)",
    ("pki register-station", "--database", "control"): NAME_WITH_CONTROLS + " (an SQLite file)",
    ("station list", "--repository", "control"): NAME_WITH_CONTROLS,
    ("station list", "--repository", "missing"):
        "a missing repository is created (for every station command) and lists nothing",
    ("bench pki", "--database", "empty"): "empty is the default: SQLite in a temporary directory",
    ("pki register-station", "--database", "empty"): "empty is the default: DIR/pki.sqlite",
    **{(leaf, "--database", "control"): NAME_WITH_CONTROLS + " (an SQLite file)"
       for leaf in ("pki ctl issue", "pki crl revoke", "pki crl issue")},
    **{(leaf, "--database", "empty"): "empty is the default: DIR/pki.sqlite"
       for leaf in ("pki ctl issue", "pki crl revoke", "pki crl issue")},
    **{("hsm status", "--pin-file", v): "status uses no PIN: --pin-file comes with --store "
       "and is not read" for v in VALUES[FILE]},
    **{("hsm unblock", "--pin-file", v): "unblock takes the PUK: --pin-file comes with --store "
       "and is not read" for v in VALUES[FILE]},
    **{("station list", "--pin-file", v): "list opens no key: --pin-file comes with --store "
       "and is not read" for v in VALUES[FILE]},
    ("its sign", "--psid", "zero"): "PSID 0 is a PSID (IEEE 1609.12)",
    ("its cert issue", "--issue-psid", "zero"): "PSID 0 is a PSID (IEEE 1609.12)",
    ("pki register-station", "--psid", "zero"): "PSID 0 is a PSID (IEEE 1609.12)",
    ("its cert issue", "--assurance-level", "zero"): "the assurance level is any byte",
    ("its cert issue", "--name", "empty"): "a 1609.2 Hostname is any UTF8String up to 255 octets",
    ("its cert issue", "--name", "control"): "a 1609.2 Hostname is any UTF8String up to 255 "
                                             "octets (printed escaped)",
    ("kem encap", "--p1", "empty"): "P1 is any octet string, the empty one too",
    ("kem encap", "--p1", "long"): "P1 is any octet string (here 64 KiB of 0x99)",
    ("bench kem", "--p1", "empty"): "P1 is any octet string, the empty one too",
    ("bench kem", "--p1", "long"): "P1 is any octet string (here 64 KiB of 0x99)",
    ("filter", "--count", "zero"): "stop after 0 datagrams: sets up (anchors, engine, sockets) "
                                   "and stops, a check of the configuration",
}

# (leaf, option, hostile value) -> why the case fails today, for a file of someone else's.
XFAIL: dict[tuple[str, str, str], str] = {}

# --------------------------------------------------------------------------------------
# The cases
# --------------------------------------------------------------------------------------

ONE_MIB = "1MiB-of-arguments"


def command_line(leaf: tuple[str, ...], args: Args, extra: list[str] | None = None) -> list[str]:
    """`leaf` with `args`: each option as --name=value (so that a value such as -1 is the
    option's), then `extra`, then the positionals after `--`."""
    options = [f"{k}={v}" for k, v in args.items() if v is not DROP and not k.startswith("<")]
    positionals = [v for k, v in args.items() if v is not DROP and k.startswith("<")]
    return [*leaf, *options, *(extra or []), *(["--", *positionals] if positionals else [])]


@dataclass(frozen=True)
class Case:
    """One run: a leaf, and the hostile value given to one of its options (or, for
    ONE_MIB, 1 MiB of long arguments after its base arguments)."""

    leaf: tuple[str, ...]
    opt: Opt | None
    value: str
    kind: str | None  # of the option

    @property
    def id(self) -> str:
        return f"{'-'.join(self.leaf)}:{self.opt.name if self.opt else 'argv'}:{self.value}"

    def argv(self, w: World) -> list[str]:
        spec = spec_of(self.leaf)
        args = dict(spec.base(w))
        if self.opt is not None:
            args.update(spec.needs.get(self.opt.name, {}))
            args[self.opt.name] = w.hostile(self.value, self.kind)
        extra = [LONG] * (-(-1024 * 1024 // len(LONG))) if self.opt is None else []
        return command_line(self.leaf, args, extra)

    @property
    def opt_name(self) -> str | None:
        return self.opt.name if self.opt else None

    def accepted(self) -> str | None:
        leaf = " ".join(self.leaf)
        for key in ((leaf, self.opt_name, self.value), ("*", self.opt_name, self.value)):
            if key in ACCEPTED:
                return ACCEPTED[key]
        return None


def kind_of(leaf: tuple[str, ...], opt: Opt) -> str | None:
    spec = spec_of(leaf)
    if opt.name in spec.kinds:
        return spec.kinds[opt.name]
    if opt.choices:
        return CHOICE
    if opt.name == "--out":
        return OUT
    return KIND_OF_VALUE.get(opt.value or "")


def cases(tree: dict[tuple[str, ...], list[Opt]]) -> list[Case]:
    out = []
    for leaf, opts in sorted(tree.items()):
        spec = spec_of(leaf)
        for opt in opts:
            if opt.value is None:
                continue  # a flag: nothing to be hostile with
            kind = kind_of(leaf, opt)
            if kind is None:
                continue  # test_every_option_is_classified fails instead
            values = VALUES[kind]
            if opt.name in spec.only:
                values = spec.only[opt.name]
            out.extend(Case(leaf, opt, v, kind) for v in values)
        out.append(Case(leaf, None, ONE_MIB, None))
    return out


_TREE: dict[tuple[str, ...], list[Opt]] | None = None


def tree() -> dict[tuple[str, ...], list[Opt]]:
    """The subcommand tree of the binary under test, read once; empty without a binary."""
    global _TREE
    if _TREE is None:
        path, _ = _find_vss()
        _TREE = discover(path) if path else {}
    return _TREE


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        params = []
        for case in cases(tree()):
            key = (" ".join(case.leaf), case.opt_name or "argv", case.value)
            marks = [pytest.mark.xfail(strict=True, reason=XFAIL[key])] if key in XFAIL else []
            params.append(pytest.param(case, id=case.id, marks=marks))
        metafunc.parametrize("case", params)


# --------------------------------------------------------------------------------------
# Running them
# --------------------------------------------------------------------------------------

HEAP_LIMIT_KIB = 2 * 1024 * 1024


@dataclass
class Outcome:
    argv: list[str]
    returncode: int | None  # None: still running at the timeout (and killed)
    stdout: str
    stderr: str
    seconds: float
    fifo_intact: bool  # the FIFO standing in for /dev/zero as an output is still one


def _run(vss_bin: Path, t: Templates, root: Path, case: Case) -> Outcome:
    w = World(root / re.sub(r"[^\w.-]", "_", case.id), t)
    argv = case.argv(w)
    env = dict(t.env, HOME=str(w.dir), XDG_DATA_HOME=str(w.dir / "data"))
    spec = spec_of(case.leaf)
    command = ["/bin/sh", "-c", f'ulimit -d {HEAP_LIMIT_KIB} && exec "$0" "$@"', str(vss_bin),
               *argv]
    started = time.monotonic()
    try:
        proc = subprocess.run(command, cwd=w.dir, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=spec.timeout)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = None, e.stdout or b"", e.stderr or b""
    seconds = time.monotonic() - started
    fifo = w.dir / "fifo"
    fifo_intact = not os.path.lexists(fifo) or stat.S_ISFIFO(os.lstat(fifo).st_mode)
    return Outcome(argv, code, out.decode(errors="replace"), err.decode(errors="replace"),
                   seconds, fifo_intact)


@pytest.fixture(scope="module")
def outcomes(request, vss_bin, templates, tmp_path_factory) -> dict[str, Outcome]:
    """Runs every selected case at once, a few at a time; their outcomes by case id."""
    selected = [item.callspec.params["case"] for item in request.session.items
                if getattr(item, "callspec", None) and "case" in item.callspec.params
                and item.module is request.module]
    root = tmp_path_factory.mktemp("hostile")
    with ThreadPoolExecutor(max_workers=(os.cpu_count() or 2) + 2) as pool:
        done = pool.map(lambda c: _run(vss_bin, templates, root, c), selected)
        return {c.id: o for c, o in zip(selected, done)}


def _raw_controls(text: str) -> list[str]:
    """Control characters other than line ends, as escapes."""
    return sorted({repr(c) for c in text if c != "\n" and unicodedata.category(c) == "Cc"})


def _short(text: str, n: int = 300) -> str:
    return repr(text if len(text) <= n else text[:n] + "…")


def problems(case: Case, o: Outcome) -> list[str]:
    spec = spec_of(case.leaf)
    found = []
    if o.returncode is None:
        if not spec.runs_until_stopped:
            found.append(f"still running after {spec.timeout} s (hang?)")
    elif o.returncode < 0:
        found.append(f"killed by signal {-o.returncode}: stderr {_short(o.stderr)}")
    elif o.returncode == 101:
        found.append(f"panicked (exit 101): stderr {_short(o.stderr)}")
    elif o.returncode == 0:
        if case.accepted() is None:
            found.append("exit 0 for an invalid value (if it is valid, say why in ACCEPTED)")
    elif not (spec.verdict_on_stdout and o.returncode == 1 and o.stderr == ""
              and '"verdict"' in o.stdout):
        if not (o.stderr.endswith("\n") and o.stderr.count("\n") == 1 and o.stderr.strip()):
            found.append(f"exit {o.returncode} without exactly one line on stderr: "
                         f"{_short(o.stderr)}")
    if re.search(r"out of memory|memory allocation", o.stderr):
        found.append(f"ran out of memory (an unbounded read?): {_short(o.stderr)}")
    if not o.fifo_intact:
        found.append("the FIFO given as the output was replaced")
    for name, text in (("stderr", o.stderr), ("stdout", o.stdout)):
        if raw := _raw_controls(text):
            found.append(f"raw control characters {', '.join(raw)} on {name}: {_short(text)}")
    return found


# --------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------


def test_every_leaf_has_hostile_cases(vss_bin):
    """Each leaf subcommand has base arguments in LEAVES, and LEAVES names no leaf that is
    gone."""
    leaves = set(tree())
    assert leaves, "no subcommand found in `vss -h`"
    missing = sorted(" ".join(l) for l in leaves - set(LEAVES))
    stale = sorted(" ".join(l) for l in set(LEAVES) - leaves)
    assert not missing, f"leaf subcommands without an entry in LEAVES: {missing}"
    assert not stale, f"LEAVES entries for subcommands vss no longer has: {stale}"


def test_every_option_is_classified(vss_bin):
    """Each option's value name has a kind (so it gets hostile values), and each option
    the tables name exists."""
    unknown = sorted({f"vss {' '.join(leaf)} {o.name} <{o.value}>"
                      for leaf, opts in tree().items() for o in opts
                      if o.value is not None and kind_of(leaf, o) is None})
    assert not unknown, f"options whose value name KIND_OF_VALUE does not classify: {unknown}"
    named = {(leaf, o.name) for leaf, opts in tree().items() for o in opts}
    for leaf, spec in LEAVES.items():
        for opt in [*spec.needs, *spec.kinds, *spec.only]:
            assert (leaf, opt) in named, f"LEAVES[{leaf}] names {opt}, which vss does not have"
    ids = {c.id for c in cases(tree())}
    for leaf, opt, value in [*ACCEPTED, *XFAIL]:
        if leaf != "*":
            assert f"{leaf.replace(' ', '-')}:{opt}:{value}" in ids, (leaf, opt, value)


def test_base_arguments_reach_past_the_first_checks(vss_bin, templates, tmp_path):
    """The base arguments of the leaves that need a store, a PKI or files are good ones:
    they succeed, so a hostile value, not a bad fixture, is what the cases judge."""
    for leaf in [("keys", "list"), ("keys", "export-public"), ("kem", "encap"),
                 ("its", "verify"), ("its", "sign"), ("its", "encrypt"), ("its", "decrypt"),
                 ("its", "cert", "issue"), ("pki", "register-station"), ("pki", "trust"),
                 ("pki", "ctl", "issue"), ("pki", "crl", "revoke"), ("pki", "crl", "issue")]:
        w = World(tmp_path / "-".join(leaf), templates)
        argv = command_line(leaf, LEAVES[leaf].base(w))
        proc = subprocess.run([str(vss_bin), *argv], cwd=w.dir, env=templates.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 0, f"vss {' '.join(argv)}: {proc.stderr}"


def test_hostile(case, outcomes):
    o = outcomes[case.id]
    found = problems(case, o)
    shown = " ".join(a if len(a) < 80 else a[:40] + f"…({len(a)} bytes)" for a in o.argv)
    assert not found, (f"vss {shown!r} (exit {o.returncode} after {o.seconds:.1f} s)\n  "
                       + "\n  ".join(found))

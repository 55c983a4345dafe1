"""Every server against clients that hold connections (issue 33): silent, slow-drip,
never-reading, and (HTTP) an oversized declared body.

Each server runs as the real binary with a small connection cap (CAP) and short timeouts
(BOUND, one second). For each attack, 2 × CAP attacking connections are opened from Python and
held; meanwhile a legitimate client tries again every RETRY seconds until it is served. It must
be served within the bound that frees an attacker's slot plus one second, counted from the
moment the attack is in place:

  silent        connects and sends nothing          the header / handshake / first-frame bound
  drip          one byte of a valid start every     the same bound: it runs from the first byte
                DRIP seconds, never the end         and is not reset by each byte
  never-reading pipelines requests and never        the write timeout, from the moment the
                reads the answers                   attacker's own sends stall (the server has
                                                    stopped reading because its writes block)

An HTTP server must answer a `Content-Length` of 1 GiB with a 10-byte body 413 within one
second. The servers: `vss pki serve`, `vss pki dc serve`, `vss cred serve` (the revocation
role), `vss tls serve`, `vss card serve --listen`, and `vssd` on its Unix socket.
"""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pytest

from _support import PIN, PUK, stop, wait_for
from _testbed import start_testbed, stop_testbed

CAP = 4
ATTACKERS = 2 * CAP
BOUND = 1.0  # seconds: every server's header, idle and write timeouts in this suite
BOUND_MS = str(int(BOUND * 1000))
RETRY = 0.1  # seconds between a legitimate client's tries
DRIP = 0.25  # seconds between a dripping attacker's bytes
MARGIN = 1.0  # the acceptance's "plus one second"
START_TIMEOUT = 60
# A receive buffer this small on a never-reading attacker makes the server's writes block
# after a few answers.
SMALL_RCVBUF = 4096


# --------------------------------------------------------------------------------------
# Attackers
# --------------------------------------------------------------------------------------


class Attacker:
    """One attacking connection in its own thread, until `close`."""

    def __init__(self, connect: Callable[[], socket.socket], kind: str, payload: bytes):
        self.kind = kind
        self.payload = payload
        self.stalled = threading.Event()  # never-reading: its sends block
        self.closed_by_server = threading.Event()
        self._stop = threading.Event()
        self.sock = connect()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            if self.kind == "silent":
                self._stop.wait()
            elif self.kind == "drip":
                for byte in self.payload:
                    if self._stop.wait(DRIP):
                        return
                    self.sock.send(bytes([byte]))
                self._stop.wait()
            elif self.kind == "never-reading":
                self.sock.settimeout(0.5)
                while not self._stop.is_set():
                    try:
                        self.sock.sendall(self.payload)
                    except socket.timeout:
                        self.stalled.set()
                        self._stop.wait()
                        return
        except OSError:
            self.closed_by_server.set()
            self.stalled.set()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@contextmanager
def attack(connect: Callable[[], socket.socket], kind: str, payload: bytes,
           count: int = ATTACKERS) -> Iterator[list[Attacker]]:
    """`count` attackers of `kind` held until the block ends."""
    attackers: list[Attacker] = []
    try:
        for _ in range(count):
            try:
                attackers.append(Attacker(connect, kind, payload))
            except OSError:
                # Refused at connect: the server sheds load; the rest still attack.
                pass
        assert attackers, "no attacker could connect"
        yield attackers
    finally:
        for a in attackers:
            a.close()


def tcp(address: tuple[str, int], rcvbuf: int | None = None) -> Callable[[], socket.socket]:
    def connect() -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(5)
        s.connect(address)
        return s
    return connect


def unix(path: Path) -> Callable[[], socket.socket]:
    def connect() -> socket.socket:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect(str(path))
        return s
    return connect


def served_within(legit: Callable[[], bool], within: float, what: str) -> float:
    """Tries `legit` every RETRY seconds until it is served; fails past `within` seconds.
    Returns the seconds it took."""
    started = time.monotonic()
    while True:
        if legit():
            return time.monotonic() - started
        took = time.monotonic() - started
        assert took <= within, f"{what}: no legitimate client served within {within:.1f} s"
        time.sleep(RETRY)


def hold_and_serve(connect, kind: str, payload: bytes, legit: Callable[[], bool],
                   what: str) -> None:
    """The acceptance check: ATTACKERS attackers of `kind` held while `legit` is served
    within BOUND + MARGIN of the attack being in place."""
    with attack(connect, kind, payload) as attackers:
        if kind == "never-reading":
            for a in attackers:
                assert a.stalled.wait(30), f"{what}: an attacker's sends never stalled"
        elif kind == "drip":
            # Every attacker has sent its first byte: each bound is running.
            time.sleep(DRIP * 1.5)
        took = served_within(legit, BOUND + MARGIN, f"{what} under {kind} attackers")
        assert took <= BOUND + MARGIN, took


# --------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------


def http_status(address: tuple[str, int], request: bytes, timeout: float = BOUND + MARGIN,
                ) -> int | None:
    """The status code of the answer to `request` on a new connection, or None when the
    connection is refused, reset or closed without one."""
    try:
        with socket.create_connection(address, timeout=timeout) as s:
            s.sendall(request)
            head = b""
            while b"\r\n" not in head:
                part = s.recv(4096)
                if not part:
                    return None
                head += part
    except OSError:
        return None
    fields = head.split(b"\r\n", 1)[0].split(b" ")
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: vss\r\n\r\n".encode()


def http_legit(address: tuple[str, int], path: str) -> Callable[[], bool]:
    """Served: any answer but 503 (a 404 of a list that does not exist is served too)."""
    request = f"GET {path} HTTP/1.1\r\nHost: vss\r\nConnection: close\r\n\r\n".encode()

    def legit() -> bool:
        status = http_status(address, request)
        return status is not None and status != 503
    return legit


def oversized(path: str, content_type: str) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: vss\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {1 << 30}\r\n\r\n").encode() + b"0123456789"


def check_http_server(address: tuple[str, int], get_path: str, post: tuple[str, str] | None,
                      what: str) -> None:
    """The attacks on an HTTP server whose `get_path` answers GET, and whose `post` route
    (path, content type), where it has one, takes a body."""
    legit = http_legit(address, get_path)
    assert legit(), f"{what}: not serving"
    if post is not None:
        started = time.monotonic()
        status = http_status(address, oversized(*post), timeout=5)
        took = time.monotonic() - started
        assert status == 413 and took <= MARGIN, (
            f"{what}: a declared 1 GiB body got {status} after {took:.2f} s (413 at once)")
    for kind, payload in (("silent", b""), ("drip", get(get_path)),
                          ("never-reading", get(get_path) * 64)):
        connect = tcp(address, SMALL_RCVBUF if kind == "never-reading" else None)
        hold_and_serve(connect, kind, payload, legit, what)


# --------------------------------------------------------------------------------------
# The servers
# --------------------------------------------------------------------------------------


def clean_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VSS_")}
    home.mkdir(parents=True, exist_ok=True)
    env.update(VSS_PIN=PIN, VSS_PUK=PUK, VSS_ROLE_PIN=PIN, VSS_ROLE_PUK=PUK, HOME=str(home),
               XDG_DATA_HOME=str(home / "data"))
    return env


def vss(vss_bin: Path, env: dict, *args) -> str:
    proc = subprocess.run([str(vss_bin), *map(str, args)], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"vss {' '.join(map(str, args[:3]))}: {proc.stderr}"
    return proc.stdout


def launch(cmd: list, log: Path, env: dict, stack: ExitStack) -> subprocess.Popen:
    """Starts `cmd` (its output to `log`), stopped when `stack` closes."""
    with open(log, "w") as out:
        proc = subprocess.Popen([str(a) for a in cmd], env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=out)
    stack.callback(stop, proc)
    return proc


def start(cmd: list, log: Path, env: dict, stack: ExitStack, marker: str) -> str:
    """[`launch`], then the text after `marker` on the line that has it (the address it
    listens on)."""
    proc = launch(cmd, log, env, stack)
    found: list[str] = []

    def started() -> bool:
        for line in log.read_text(errors="replace").splitlines():
            if marker in line:
                found.append(line.rsplit(marker, 1)[1].strip().split()[0])
                return True
        return False
    wait_for(started, f"{cmd[1:3]} start", START_TIMEOUT, proc, log)
    return found[0]


def start_on(port: int, cmd: list, log: Path, env: dict, stack: ExitStack) -> tuple[str, int]:
    """[`launch`] for a server told to listen on `port`; returns once it accepts there."""
    proc = launch(cmd, log, env, stack)

    def accepts() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False
    wait_for(accepts, f"{cmd[1:3]} start", START_TIMEOUT, proc, log)
    return "127.0.0.1", port


def address_of(text: str) -> tuple[str, int]:
    host, _, port = text.removeprefix("http://").rstrip("/").rpartition(":")
    return host, int(port)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


HTTP_LIMITS = ["--max-connections", str(CAP), "--write-timeout-ms", BOUND_MS]


@pytest.fixture(scope="module")
def work(vss_bin, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("slow-clients")
    env = clean_env(tmp / "home")
    return tmp, env


def test_pki_serve(vss_bin, work):
    tmp, env = work
    pki = tmp / "pki"
    vss(vss_bin, env, "pki", "init", "--dir", pki, "--name", "slow")
    port = free_port()
    with ExitStack() as stack:
        address = start_on(port, [vss_bin, "pki", "serve", "--dir", pki, "--listen",
                                  f"127.0.0.1:{port}", "--header-timeout-ms", BOUND_MS,
                                  "--body-timeout-ms", BOUND_MS, "--keep-alive-timeout-ms",
                                  BOUND_MS, *HTTP_LIMITS], tmp / "pki.log", env, stack)
        check_http_server(address, "/health", ("/ea/enrolment", "application/x-its-request"),
                          "vss pki serve")


def test_pki_dc_serve(vss_bin, work):
    tmp, env = work
    pki = tmp / "dc-pki"
    vss(vss_bin, env, "pki", "init", "--dir", pki, "--name", "dc")
    port = free_port()
    with ExitStack() as stack:
        address = start_on(port, [vss_bin, "pki", "dc", "serve", "--dir", pki, "--listen",
                                  f"127.0.0.1:{port}", "--header-timeout-ms", BOUND_MS,
                                  "--body-timeout-ms", BOUND_MS, "--keep-alive-timeout-ms",
                                  BOUND_MS, *HTTP_LIMITS], tmp / "dc.log", env, stack)
        # The distribution centre takes no body: GET only.
        check_http_server(address, "/getctl/00", None, "vss pki dc serve")


def test_cred_serve(vss_bin, work):
    tmp, env = work
    d = tmp / "cred"
    vss(vss_bin, env, "cred", "setup", "--dir", d)
    with ExitStack() as stack:
        addr = start([vss_bin, "cred", "serve", "--dir", d, "--role", "revocation",
                      "--listen", "127.0.0.1:0", "--idle-timeout-ms", BOUND_MS, *HTTP_LIMITS],
                     tmp / "cred.log", env, stack, "listening on ")
        check_http_server(address_of(addr), "/info", ("/handle", "application/json"),
                          "vss cred serve")


def test_card_serve(vss_bin, work):
    """The card serves one client at a time: CAP is 1 there, and 2 attackers hold or queue
    connections while a SELECT is answered."""
    tmp, env = work
    with ExitStack() as stack:
        addr = start([vss_bin, "card", "serve", "--state", tmp / "card.state",
                      "--listen", "127.0.0.1:0", "--idle-timeout-ms", BOUND_MS,
                      "--frame-timeout-ms", BOUND_MS, "--write-timeout-ms", BOUND_MS],
                     tmp / "card.log", env, stack, "listening on ")
        address = address_of(addr)
        aid = bytes.fromhex("F056535343524544")
        select = bytes([0x00, 0xA4, 0x04, 0x00, len(aid)]) + aid
        frame = len(select).to_bytes(2, "big") + select

        def legit() -> bool:
            try:
                with socket.create_connection(address, timeout=BOUND + MARGIN) as s:
                    s.sendall(frame)
                    answer = b""
                    while len(answer) < 4:
                        part = s.recv(64)
                        if not part:
                            return False
                        answer += part
                    return answer[2:4] == b"\x90\x00"
            except OSError:
                return False

        assert legit(), "the card does not answer SELECT"
        for kind, payload in (("silent", b""), ("drip", frame), ("never-reading", frame * 256)):
            connect = tcp(address, SMALL_RCVBUF if kind == "never-reading" else None)
            with attack(connect, kind, payload, count=2) as attackers:
                if kind == "never-reading":
                    for a in attackers:
                        assert a.stalled.wait(30), "the card's attacker never stalled"
                # Each queued or held attacker costs at most its bound.
                within = 2 * BOUND + MARGIN
                served_within(legit, within, f"vss card serve under {kind} attackers")


def _certificate(key_sec1_hex: str, path: Path) -> Path:
    """A self-signed PEM certificate naming `localhost` for a P-256 public key: signed by a
    throw-away key (TLS clients here do not verify it)."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(),
                                                          bytes.fromhex(key_sec1_hex))
    signer = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(public).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]),
                           critical=False)
            .sign(signer, hashes.SHA256()))
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


@contextmanager
def chatty_backend() -> Iterator[int]:
    """A plain TCP backend that answers every line it reads with 64 KiB."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve_one(conn: socket.socket) -> None:
        with conn:
            try:
                while not done.is_set() and conn.recv(4096):
                    conn.sendall(b"x" * 65536)
            except OSError:
                pass

    def serve() -> None:
        listener.settimeout(0.2)
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=serve_one, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        thread.join(timeout=5)
        listener.close()


def test_tls_serve(vss_bin, work):
    tmp, env = work
    store = tmp / "tls-store"
    vss(vss_bin, env, "hsm", "init", "--store", store)
    vss(vss_bin, env, "keys", "generate", "--store", store, "--label", "tls")
    public = vss(vss_bin, env, "keys", "export-public", "--store", store,
                 "--label", "tls").strip()
    cert = _certificate(public, tmp / "tls.pem")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with chatty_backend() as backend, ExitStack() as stack:
        addr = start([vss_bin, "tls", "serve", "--store", store, "--listen", "127.0.0.1:0",
                      "--backend", f"127.0.0.1:{backend}", "--cert", cert, "--key", "tls",
                      "--handshake-timeout-ms", BOUND_MS, "--idle-timeout-ms", BOUND_MS,
                      "--write-timeout-ms", BOUND_MS, "--max-connections", str(CAP)],
                     tmp / "tls.log", env, stack, "terminating TLS on ")
        address = address_of(addr)

        def legit() -> bool:
            try:
                with socket.create_connection(address, timeout=BOUND + MARGIN) as raw:
                    with context.wrap_socket(raw, server_hostname="localhost") as s:
                        s.sendall(b"hello\n")
                        return len(s.recv(1)) == 1
            except OSError:
                return False

        def handshaken() -> socket.socket:
            raw = tcp(address, SMALL_RCVBUF)()
            return context.wrap_socket(raw, server_hostname="localhost")

        assert legit(), "vss tls serve does not pass bytes"
        client_hello = _client_hello(context)
        hold_and_serve(tcp(address), "silent", b"", legit, "vss tls serve")
        hold_and_serve(tcp(address), "drip", client_hello, legit, "vss tls serve")
        hold_and_serve(handshaken, "never-reading", b"more\n" * 64, legit, "vss tls serve")


def _client_hello(context: ssl.SSLContext) -> bytes:
    """The bytes of a real ClientHello, made through memory BIOs."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        tls.do_handshake()
    return outgoing.read()


def with_daemon_keys(text: str, keys: dict[str, str]) -> str:
    """`text` (a vss.toml) with `keys` set in its `[daemon]` table, replaced where present."""
    lines = text.splitlines()
    start = lines.index("[daemon]")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")),
               len(lines))
    kept = [line for line in lines[start + 1:end]
            if line.split("=", 1)[0].strip() not in keys]
    table = [f"{key} = {value}" for key, value in keys.items()]
    return "\n".join(lines[:start + 1] + table + kept + lines[end:]) + "\n"


def test_vssd_unix_socket(vss_bin, tmp_path_factory):
    """vssd with a small cap: silent connections and a dripped HTTP/2 preface are closed at
    the preface timeout, and `vss stats status --daemon` is answered meanwhile."""
    vssd_bin = Path(os.environ.get("VSS_DAEMON_BIN") or vss_bin.parent / "vssd")
    assert vssd_bin.is_file(), f"no vssd at {vssd_bin}"
    bed = start_testbed(vss_bin, tmp_path_factory.mktemp("bed"))
    try:
        config = bed.variant("slow.toml", lambda text: with_daemon_keys(text, {
            "max_connections": str(CAP), "header_timeout": f'"{BOUND_MS}ms"',
            "write_timeout": f'"{BOUND_MS}ms"'}))
        log = bed.dir / "vssd.log"
        with open(log, "w") as out:
            daemon = subprocess.Popen([str(vssd_bin), "--config", str(config)],
                                      stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        try:
            def legit() -> bool:
                proc = subprocess.run([str(vss_bin), "stats", "status", "--daemon",
                                       str(bed.socket)], stdin=subprocess.DEVNULL,
                                      capture_output=True, timeout=30)
                return proc.returncode == 0
            wait_for(legit, "vssd serving", START_TIMEOUT, daemon, log)
            preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
            for kind, payload in (("silent", b""), ("drip", preface)):
                hold_and_serve(unix(bed.socket), kind, payload, legit, "vssd")
            warnings = log.read_text(errors="replace").count("WARN")
            assert warnings < 2 * ATTACKERS, f"vssd logged {warnings} warnings for one burst"
        finally:
            daemon.terminate()
            assert daemon.wait(timeout=60) == 0, log.read_text(errors="replace")
    finally:
        stop_testbed(bed)


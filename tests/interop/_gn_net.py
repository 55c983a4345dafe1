"""The GeoNetworking test network for the interop suite: scripts/gn-net's namespaces, FlexStack
stations (tests/interop/_flexstack.py, in FlexStack's own venv) and radio captures
(tests/interop/_gn_capture.py), each a process inside a namespace that speaks JSON lines.

FlexStack's Python: $VSS_FLEXSTACK_PYTHON, else .venv-flexstack/bin/python at the repository
root (scripts/test makes it from tests/interop/requirements-flexstack.txt).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import pytest

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
GN_NET = REPO_ROOT / "scripts" / "gn-net"
ETHERTYPE_GN = 0x8947


def flexstack_python() -> tuple[Path | None, str]:
    """FlexStack's interpreter, or None and why not."""
    env = os.environ.get("VSS_FLEXSTACK_PYTHON")
    path = Path(env) if env else REPO_ROOT / ".venv-flexstack" / "bin" / "python"
    how = f"VSS_FLEXSTACK_PYTHON={env}" if env else str(path)
    if not (path.is_file() and os.access(path, os.X_OK)):
        return None, f"{how} is not an executable (scripts/test makes .venv-flexstack)"
    return path, how


def netns_unavailable() -> str | None:
    """Why network namespaces cannot be made here, or None when they can."""
    if os.geteuid() != 0:
        return "needs root to make network namespaces"
    if shutil.which("ip") is None:
        return "needs iproute2 (ip)"
    probe = f"vss-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def require_netns() -> None:
    """Skips the calling test where network namespaces cannot be made (with the reason), or
    fails it where VSS_REQUIRE_NETNS=1 (the test command, which runs as root)."""
    why = netns_unavailable()
    if why is None:
        return
    if os.environ.get("VSS_REQUIRE_NETNS") == "1":
        pytest.fail(f"VSS_REQUIRE_NETNS=1 but {why}", pytrace=False)
    pytest.skip(why)


@dataclass
class Network:
    """One network made by scripts/gn-net; `down()` removes it."""

    prefix: str
    direct: bool

    def ns(self, role: str) -> str:
        """The namespace of a role: stack-a, bridge-a, radio, bridge-b, stack-b."""
        return f"{self.prefix}-{role}"

    def down(self) -> None:
        subprocess.run([str(GN_NET), "down", "--prefix", self.prefix], check=True,
                       capture_output=True, text=True)


@contextmanager
def held_network(tag: str, direct: bool) -> Iterator[Network]:
    """The network of this test process (prefix `tag` and the pid), made after
    [`require_netns`] and removed when the block ends (and by gn-net itself if `up` fails
    part-way)."""
    require_netns()
    prefix = f"{tag}{os.getpid() % 100000}"
    args = [str(GN_NET), "up", "--prefix", prefix] + (["--direct"] if direct else [])
    made = subprocess.run(args, capture_output=True, text=True)
    if made.returncode != 0:
        raise RuntimeError(f"gn-net up failed: {made.stdout}{made.stderr}")
    net = Network(prefix, direct)
    try:
        yield net
    finally:
        net.down()


class JsonLinesProcess:
    """A process inside a namespace that writes JSON lines on stdout and reads commands."""

    def __init__(self, name: str, ns: str, argv: list[str]) -> None:
        self.name = name
        self.events: list[dict] = []
        self._new = threading.Condition()
        self._stderr: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, *argv], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                event = {"event": "unparsed", "line": line}
            with self._new:
                self.events.append(event)
                self._new.notify_all()
        with self._new:
            self._new.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.put(line)

    def stderr(self) -> str:
        """What the process wrote on stderr since the last call (all of it once it ended)."""
        if self.proc.poll() is not None:
            self._stderr_reader.join(1)
        lines = []
        while not self._stderr.empty():
            lines.append(self._stderr.get())
        return "".join(lines)

    def wait_for(self, what: str, match: Callable[[dict], bool], timeout: float,
                 count: int = 1) -> list[dict]:
        """The first `count` events that match, waiting up to `timeout` seconds for them."""
        start = time.monotonic()
        deadline = start + timeout
        with self._new:
            while True:
                found = [e for e in self.events if match(e)]
                if len(found) >= count:
                    return found[:count]
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(
                        f"{self.name}: {what}: {len(found)} of {count} after "
                        f"{time.monotonic() - start:.1f} s of {timeout} s "
                        f"(exit {self.proc.poll()}); stderr: {self.stderr()[-2000:]}")
                self._new.wait(min(left, 0.2))

    def command(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def stop(self, timeout: float = 5) -> None:
        """Asks the process to quit (end of stdin), kills it if it does not."""
        if self.proc.poll() is None:
            try:
                self.command("quit")
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Station(JsonLinesProcess):
    """A FlexStack station (tests/interop/_flexstack.py)."""

    def __init__(self, python: Path, ns: str, iface: str, station_id: int, lat: float,
                 lon: float, cam_rate: float) -> None:
        super().__init__(f"station {station_id}", ns, [
            str(python), str(HERE / "_flexstack.py"), "--iface", iface,
            "--station-id", str(station_id), "--lat", str(lat), "--lon", str(lon),
            "--cam-rate", str(cam_rate)])
        self.station_id = station_id

    def received(self, kind: str, station_id: int, timeout: float, count: int = 1,
                 **fields) -> list[dict]:
        """Waits until this station has received `count` messages of `kind` from `station_id`."""
        def match(e: dict) -> bool:
            return (e.get("event") == "received" and e.get("type") == kind
                    and e.get("station_id") == station_id
                    and all(e.get(k) == v for k, v in fields.items()))
        return self.wait_for(f"{kind} from station {station_id}", match, timeout, count)

    def send_denm(self, timeout: float) -> dict:
        """Sends one DENM; returns its `sent` event (with its sequence number)."""
        before = sum(1 for e in self.events if e.get("event") == "sent")
        self.command("denm")
        sent = self.wait_for("DENM sent", lambda e: e.get("event") == "sent", timeout,
                             before + 1)
        return sent[-1]


class Capture(JsonLinesProcess):
    """Every frame on one interface of a namespace (tests/interop/_gn_capture.py)."""

    def __init__(self, ns: str, iface: str) -> None:
        super().__init__(f"capture on {ns}:{iface}", ns,
                         [sys.executable, str(HERE / "_gn_capture.py"), iface])

    def frames(self) -> list[bytes]:
        return [bytes.fromhex(e["hex"]) for e in self.events if e.get("event") == "frame"]


@dataclass(frozen=True)
class GnFrame:
    """The fields of a GeoNetworking frame that the tests look at (EN 302 636-4-1 §9)."""

    src_mac: bytes
    ethertype: int
    version: int
    basic_nh: int
    common_nh: int | None
    header_type: int | None
    header_subtype: int | None
    btp_dst_port: int | None

    @classmethod
    def parse(cls, frame: bytes) -> "GnFrame":
        ethertype = int.from_bytes(frame[12:14], "big")
        gn = frame[14:]
        version, basic_nh = (gn[0] >> 4, gn[0] & 0x0F) if gn else (-1, -1)
        common_nh = header_type = header_subtype = port = None
        if basic_nh == 1 and len(gn) >= 12:
            common = gn[4:12]
            common_nh, header_type, header_subtype = common[0] >> 4, common[1] >> 4, common[1] & 15
            # SHB and TSB: 28 octets (TSB: SN, reserved, SO PV; SHB: SO PV, media-dependent
            # data); GBC and GAC (header types 4 and 3): 44.
            ext = {5: 28, 4: 44, 3: 44}.get(header_type)
            btp = gn[12 + ext:] if ext is not None else b""
            if common_nh in (1, 2) and len(btp) >= 4:
                port = int.from_bytes(btp[0:2], "big")
        return cls(frame[6:12], ethertype, version, basic_nh, common_nh, header_type,
                   header_subtype, port)

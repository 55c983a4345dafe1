"""`vss gn bridge` between two FlexStack stations (an independent ETSI C-ITS stack,
GeoNetworking security disabled), each behind its own bridge on `scripts/gn-net up`:

- the stations exchange CAMs and DENMs through the bridges, and every packet A's bridge
  puts on the radio reaches B's stack as A's stack sent it (but for the source address);
- every frame the bridges put on the radio is a secured packet (Basic Header next header 2)
  that an independent IEEE 1609.2 check (pycrate's codec and pyca, tests/interop/
  _its_reference.py) verifies, its signer's certificate under the AA of its testbed, sent
  from the MAC derived from the signer (docs/GEONETWORKING.md) which is also the signed
  source GN address's MID; A changes pseudonyms during the exchange, and B keeps receiving;
- frames injected on the radio never reach B's stack, and B's events socket gets a line for
  each, counted in B's metrics: a tampered copy, a replay, an unsecured CAM, and CAMs signed
  by an expired ticket, under an unknown CA, under a CA its trust store's CRL revokes and
  under another ITS-AID than the BTP port's (tests/interop/_gn_hostile.py), each with its
  own report.

The stations' entities come from two `vss testbed up` (each with its PKIs); each bridge's
configuration trusts the other testbed's roots and authorities too. Needs root, network
namespaces and FlexStack's venv (as tests/interop/test_gn_net.py).
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import _its_reference as ref
from _gn_hostile import Forge, Hostile, is_cam, pseudonym_mac
from _gn_net import (ETHERTYPE_GN, REPO_ROOT, Capture, GnFrame, Station, flexstack_python,
                     held_network)
from _testbed import start_testbed, stop_testbed

LAT, LON = 41.387304, 2.112485
LAT_B = LAT + 0.0002
START_S = 60
ARRIVE_S = 10
# A's pseudonym changes every this many signatures (CAMs at 5 Hz: every few seconds).
MAX_USES_A = 12
# B's stack and its bridge's stack-side interface (scripts/gn-net).
STACK_B = bytes.fromhex("02474e0b0001")
STACK_SIDE_B = bytes.fromhex("02474e0b0002")
# Where each bridge serves its metrics, on its namespace's loopback.
METRICS = "127.0.0.1:9464"
GN_BRIDGE_CONFIG = REPO_ROOT / "scripts" / "gn-bridge-config"


def bridge_config(path: Path, own: Path, other: Path, max_uses: int | None,
                  trust_store: Path | None = None) -> Path:
    """`own`'s testbed configuration for a bridge, trusting `other`'s too (and `trust_store`
    where given): scripts/gn-bridge-config, which scripts/gn-demo uses as well."""
    args = [sys.executable, str(GN_BRIDGE_CONFIG), str(own), str(other), str(path)]
    if max_uses is not None:
        args += ["--max-uses", str(max_uses)]
    if trust_store is not None:
        args += ["--trust-store", str(trust_store)]
    subprocess.run(args, check=True)
    return path


class Bridge:
    """`vss gn bridge` in a namespace, its events socket read on a thread."""

    def __init__(self, vss_bin: Path, ns: str, config: Path, events: Path) -> None:
        self.ns = ns
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, str(vss_bin), "gn", "bridge", "--config", str(config),
             "--radio", "radio", "--stack", "stack", "--events", str(events),
             "--metrics", METRICS, "--format", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.events: list[dict] = []
        deadline = time.monotonic() + 30
        while not events.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the bridge did not start: {self.proc.stderr.read()}")
            time.sleep(0.05)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(events))
        threading.Thread(target=self._read, daemon=True).start()
        time.sleep(0.5)  # the links open after the events socket

    def _read(self) -> None:
        for line in self.sock.makefile("r"):
            self.events.append(json.loads(line))

    def metrics(self) -> str:
        """The Prometheus page, fetched inside the bridge's namespace."""
        code = f"import urllib.request; print(urllib.request.urlopen('http://{METRICS}/metrics')" \
               ".read().decode())"
        return subprocess.run(["ip", "netns", "exec", self.ns, sys.executable, "-c", code],
                              check=True, capture_output=True, text=True).stdout

    def stop(self) -> dict:
        """SIGTERM: a clean stop exits 0 and prints the counts."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0, f"the bridge exited {self.proc.returncode}: {err}"
        return json.loads(out)


def inject(ns: str, frames: list[bytes]) -> None:
    """Sends `frames` on the radio hub from inside its namespace."""
    code = ("import socket, sys\n"
            "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
            "s.bind(('air', 0))\n"
            "for h in sys.argv[1:]: s.send(bytes.fromhex(h))\n")
    subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", code,
                    *[f.hex() for f in frames]], check=True)


def signed_parts(frame: bytes) -> tuple[str, bytes]:
    """A secured frame's signer (HashedId8, hex) and signed payload."""
    sd = ref.signed_data(ref.decode_data(frame[18:]))
    kind, signer = sd["signer"]
    signer_id = (ref.hashed_id8(ref.encode_cert(signer[0])) if kind == "certificate"
                 else signer.hex().upper())
    return signer_id, sd["tbsData"]["payload"]["data"]["content"][1]


def check_secured(frame: bytes, certs: dict[str, bytes], aas: list[bytes]) -> str:
    """Verifies a secured frame independently; its signer's HashedId8 (hex)."""
    data = frame[18:]
    sd = ref.signed_data(ref.decode_data(data))
    kind, signer = sd["signer"]
    if kind == "certificate":
        cert = ref.encode_cert(signer[0])
        assert any(ref.cert_signature_ok(cert, aa) for aa in aas), "the AT under an AA"
        certs[ref.hashed_id8(cert)] = cert
        signer_id = ref.hashed_id8(cert)
    else:
        signer_id = signer.hex().upper()
    assert signer_id in certs, f"signer {signer_id} named by digest before its certificate"
    assert ref.data_signature_ok(data, certs[signer_id]), "the signature verifies"
    payload = sd["tbsData"]["payload"]["data"]["content"][1]
    mac = pseudonym_mac(bytes.fromhex(signer_id))
    assert frame[6:12] == mac, "the radio-side MAC is the signer's"
    # SHB (and beacon): the SO position vector right after the Common Header; else after
    # the sequence number and a reserved field.
    so_mid = payload[10:16] if payload[1] in (0x50, 0x10) else payload[14:20]
    assert so_mid == mac, "the signed source GN address is the signer's"
    header = sd["tbsData"]["headerInfo"]
    if header["psid"] == 37:  # TS 103 097 §7.1.2: a DENM's certificate and location
        assert kind == "certificate", "a DENM carries its signer's certificate"
        location = header.get("generationLocation")
        assert location is not None, "a DENM carries its generation location"
        # The source position vector's latitude (1/10 µdegree) at offset 20 after the SO MID.
        assert location["latitude"] == int.from_bytes(payload[24:28], "big", signed=True)
    return signer_id


def hostile_frames(on_air: list[bytes], a_signers: set[str]) -> tuple[list[bytes], bytes]:
    """A copy of A's last packet on the radio with a payload bit flipped, that packet again,
    and an unsecured CAM (FlexStack's, tests/vectors/gn); and the tampered signed payload."""
    a_frames = [f for f in on_air if GnFrame.parse(f).basic_nh == 2
                and signed_parts(f)[0] in a_signers]
    assert a_frames, f"no frame on the radio signed by A's pseudonyms {a_signers}"
    original = a_frames[-1]
    payload = signed_parts(original)[1]
    start = original.find(payload)
    tampered = bytearray(original)
    tampered[start + len(payload) // 2] ^= 0x01
    unsecured = bytes.fromhex("ffffffffffff02a1b2c3d4e5" "8947") + bytes.fromhex(
        "1100050120500280002d0100140002a1b2c3d4e5f595c78818ab30d40142dc26856d0a910000000007d1"
        "000002020000109200000009ca033a8d9195c4dffffffc23b7743e00e11fdffffebfe9ed0737feebfff6"
        "00")
    return [bytes(tampered), original, unsecured], bytes(tampered[start:start + len(payload)])


def last_cam(on_air: list[bytes], signers: set[str]) -> bytes:
    """The last CAM on the radio signed by one of `signers`."""
    cams = [f for f in on_air if GnFrame.parse(f).basic_nh == 2
            and signed_parts(f)[0] in signers and is_cam(signed_parts(f)[1])]
    assert cams, f"no CAM on the radio signed by {signers}"
    return cams[-1]


def to_stack_results(page: str) -> dict[str, int]:
    """B's frames to the stack by result, from its metrics page."""
    found = re.findall(r'vss_gn_frames_total\{direction="to_stack",result="(\w+)"\} (\d+)', page)
    return {result: int(n) for result, n in found}


def check_hostile(hostile: list[Hostile], events: list[dict], before: dict[str, int],
                  after: dict[str, int]) -> None:
    """Each hostile packet has one `dropped` event from its signer with its own report, and
    B's metrics count every event of those reports."""
    dropped = [e for e in events if e["event"] == "dropped"]
    for h in hostile:
        mine = [e for e in dropped if e.get("signer") == h.signer]
        mac = ":".join(f"{b:02x}" for b in pseudonym_mac(bytes.fromhex(h.signer)))
        assert [(e["report"], e["its_aid"]) for e in mine] == [(h.report, h.psid)], \
            f"{h.what}: {mine}"
        assert mine[0]["source"].startswith(f"gn:{mac}/"), f"{h.what}: {mine}"
    for report in {h.report for h in hostile}:
        announced = sum(1 for e in dropped if e["report"] == report)
        assert after.get(report, 0) - before.get(report, 0) == announced, \
            f"{report}: {before} then {after}, {announced} announced"


def check_radio(frames: list[bytes], testbeds) -> None:
    """Every frame on the radio is a secured GN packet that verifies independently, from
    the MAC of its signer; A's changes and B make at least three signers."""
    aas = [p.read_bytes() for bed in testbeds for p in bed.dir.glob("pki/*/aa.cert")]
    certs: dict[str, bytes] = {}
    signers = set()
    assert frames, "nothing on the radio"
    for frame in frames:
        parsed = GnFrame.parse(frame)
        assert (parsed.ethertype, parsed.version, parsed.basic_nh) == (ETHERTYPE_GN, 1, 2), \
            f"not a secured GN frame on the radio: {frame.hex()}"
        signers.add(check_secured(frame, certs, aas))
    assert len(signers) >= 3, f"{len(signers)} signers on the radio (A changes, B signs)"
    denms = [f for f in frames if ref.signed_data(ref.decode_data(f[18:]))["tbsData"]
             ["headerInfo"]["psid"] == 37]
    assert len(denms) >= 2, f"{len(denms)} DENMs on the radio (one each way)"


@pytest.fixture
def bridged_net():
    with held_network("vsg", direct=False) as net:
        yield net


@pytest.fixture
def testbeds(vss_bin, tmp_path):
    beds = []
    try:
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
            beds.append(start_testbed(vss_bin, tmp_path / name))
        yield beds
    finally:
        for bed in beds:
            stop_testbed(bed)


@pytest.fixture
def running():
    stops = []
    yield stops.append
    for stop in reversed(stops):
        try:
            stop()
        except Exception:  # noqa: BLE001 - a test failure already says what went wrong
            pass


def test_two_flexstack_stations_talk_through_two_bridges(bridged_net, testbeds, vss_bin,
                                                          tmp_path, running):
    python, how = flexstack_python()
    if python is None:
        pytest.fail(f"no FlexStack: {how}", pytrace=False)
    bed_a, bed_b = testbeds
    # The hostile packets' PKIs and B's trust store, made while the captures and A start.
    forging = ThreadPoolExecutor(1).submit(Forge, vss_bin, tmp_path / "hostile",
                                           bed_a.dir / "pki" / "pki-a", bed_a.pin())
    config_a = bridge_config(tmp_path / "bridge-a.toml", bed_a.config, bed_b.config, MAX_USES_A)
    on_air = Capture(bridged_net.ns("radio"), "air")
    at_stack_b = Capture(bridged_net.ns("bridge-b"), "stack")
    for capture in (on_air, at_stack_b):
        running(capture.stop)
        capture.wait_for("ready", lambda e: e.get("event") == "ready", 10)
    bridge_a = Bridge(vss_bin, bridged_net.ns("bridge-a"), config_a, tmp_path / "a.sock")
    running(bridge_a.stop)
    forge = forging.result()
    config_b = bridge_config(tmp_path / "bridge-b.toml", bed_b.config, bed_a.config, None,
                             forge.trust_store)
    bridge_b = Bridge(vss_bin, bridged_net.ns("bridge-b"), config_b, tmp_path / "b.sock")
    running(bridge_b.stop)
    a = Station(python, bridged_net.ns("stack-a"), "gn0", 1, LAT, LON, cam_rate=5)
    running(a.stop)
    b = Station(python, bridged_net.ns("stack-b"), "gn0", 2, LAT_B, LON, cam_rate=5)
    running(b.stop)
    for station in (a, b):
        station.wait_for("ready", lambda e: e.get("event") == "ready", START_S)

    b.received("cam", 1, ARRIVE_S, count=3)
    a.received("cam", 2, ARRIVE_S, count=3)
    sent = a.send_denm(ARRIVE_S)
    b.received("denm", 1, ARRIVE_S, sequence=sent["sequence"])
    sent = b.send_denm(ARRIVE_S)
    a.received("denm", 2, ARRIVE_S, sequence=sent["sequence"])
    # Past two of A's pseudonym changes, B still receives.
    b.received("cam", 1, 3 * MAX_USES_A / 5 + ARRIVE_S, count=3 * MAX_USES_A)

    a_signers = {e["signer"] for e in bridge_a.events if e["event"] == "id_change"}
    injected, tampered_payload = hostile_frames(on_air.frames(), a_signers)
    cam = last_cam(on_air.frames(), a_signers)
    hostile = forge.packets(cam[14:18], signed_parts(cam)[1])
    before, seen = to_stack_results(bridge_b.metrics()), len(bridge_b.events)
    inject(bridged_net.ns("radio"), injected + [h.frame for h in hostile])
    time.sleep(1)
    page = bridge_b.metrics()
    check_hostile(hostile, bridge_b.events[seen:], before, to_stack_results(page))
    assert 'vss_gn_frames_total{direction="to_stack",result="Unsecured"} 1' in page, page
    assert re.search(r'vss_gn_frames_total\{direction="to_radio",result="passed"\} [1-9]', page)

    a.stop()
    time.sleep(0.5)  # A's last CAMs on their way to B
    b.stop()
    for station in (a, b):
        died = [e for e in station.events if e.get("event") == "thread-died"]
        assert not died, f"{station.name}: {died}"
    counts_a, counts_b = bridge_a.stop(), bridge_b.stop()
    for capture in (on_air, at_stack_b):
        capture.stop()

    reports = [e["report"] for e in bridge_b.events if e["event"] == "dropped"]
    assert "Unsecured" in reports, reports
    assert {"FalseSignature", "InvalidChain"} & set(reports), reports
    assert {"DuplicateMessage", "InvalidTimestamp"} & set(reports), reports
    assert counts_b["to_stack"]["passed"] >= 3 * MAX_USES_A, counts_b
    changes = [e for e in bridge_a.events if e["event"] == "id_change"]
    assert len(changes) >= 2, f"A's pseudonym changes announced: {changes}"

    frames = on_air.frames()
    for frame in injected + [h.frame for h in hostile]:  # a copy is the last occurrence
        del frames[max(i for i, f in enumerate(frames) if f == frame)]
    check_radio(frames, testbeds)

    # B's stack link carries B's own frames (to its bridge) and what the bridge delivers.
    delivered = [f for f in at_stack_b.frames() if f[6:12] != STACK_B]
    assert delivered, "nothing reached B's stack"
    for frame in delivered:
        parsed = GnFrame.parse(frame)
        assert (parsed.basic_nh, frame[6:12]) == (1, STACK_SIDE_B), frame.hex()
    assert not any(tampered_payload in f for f in delivered), "the tampered CAM"
    # Every packet A put on the radio reached B's stack, unsecured as A's stack sent it (but
    # for the source address), across A's pseudonym changes.
    a_signers = {e["signer"] for e in bridge_a.events if e["event"] == "id_change"}
    from_a = [signed_parts(f)[1] for f in frames if signed_parts(f)[0] in a_signers]
    at_b = {f[18:] for f in delivered}
    missing = [p.hex() for p in from_a if p not in at_b]
    assert not missing, f"{len(missing)} of {len(from_a)} of A's packets did not reach B"
    assert not any(injected[2][14 + 40:] in f for f in delivered), "the unsecured CAM"
    for h in hostile:
        assert not any(h.payload in f for f in delivered), f"{h.what}: at B's stack"
        assert not [e for e in b.events if e.get("station_id") == h.station_id], h.what
    assert counts_a["to_radio"]["passed"] > 0 and counts_a["to_stack"]["passed"] > 0

"""The GeoNetworking test network's baseline: two FlexStack stations (an independent ETSI
C-ITS stack, GeoNetworking security disabled) on `scripts/gn-net up --direct`, with no bridge
between them, exchange CAMs (CA basic service, SHB) and DENMs (DEN basic service, GBC) both
ways, and every frame on the radio medium is a GeoNetworking frame (ethertype 0x8947) with an
unsecured Basic Header (version 1, next header 1: common header).

This proves the peer and the network before a bridge stands between them. It needs root and
network namespaces (skipped, with the reason, where there are none; a failure under
VSS_REQUIRE_NETNS=1, as in scripts/test), and FlexStack's venv.
"""

from __future__ import annotations


import pytest

from _gn_net import (
    ETHERTYPE_GN,
    Capture,
    GnFrame,
    Station,
    flexstack_python,
    held_network,
)

# Stations: 22 m apart, inside each other's DENM area (a circle of 100 m round the sender).
LAT, LON = 41.387304, 2.112485
LAT_B = LAT + 0.0002
# Seconds: a station's start (FlexStack compiles its ASN.1 first: seconds on a loaded
# machine), and a message's arrival once both run.
START_S = 60
ARRIVE_S = 10


@pytest.fixture
def direct_net():
    with held_network("vss", direct=True) as net:
        yield net


@pytest.fixture
def fs_python():
    python, how = flexstack_python()
    if python is None:
        pytest.fail(f"no FlexStack: {how}", pytrace=False)
    return python


@pytest.fixture
def running():
    """Stops every process handed to it, in reverse order, also when the test fails."""
    procs = []
    yield procs.append
    for proc in reversed(procs):
        proc.stop()


def test_flexstack_stations_talk_unsecured_gn_on_the_radio(direct_net, fs_python, running):
    capture = Capture(direct_net.ns("radio"), "air")
    running(capture)
    capture.wait_for("ready", lambda e: e.get("event") == "ready", 10)
    a = Station(fs_python, direct_net.ns("stack-a"), "gn0", 1, LAT, LON, cam_rate=5)
    running(a)
    b = Station(fs_python, direct_net.ns("stack-b"), "gn0", 2, LAT_B, LON, cam_rate=5)
    running(b)
    for station in (a, b):
        station.wait_for("ready", lambda e: e.get("event") == "ready", START_S)

    b.received("cam", 1, ARRIVE_S, count=3)
    a.received("cam", 2, ARRIVE_S, count=3)
    sent_a = a.send_denm(ARRIVE_S)
    b.received("denm", 1, ARRIVE_S, sequence=sent_a["sequence"])
    sent_b = b.send_denm(ARRIVE_S)
    a.received("denm", 2, ARRIVE_S, sequence=sent_b["sequence"])

    for station in (a, b):
        station.stop()
        died = [e for e in station.events if e.get("event") == "thread-died"]
        assert not died, f"{station.name}: {died}"
    capture.stop()
    frames = [GnFrame.parse(f) for f in capture.frames()]
    others = [f for f in frames if f.ethertype != ETHERTYPE_GN]
    assert not others, f"frames other than GeoNetworking on the radio: {others[:3]}"
    secured = [f for f in frames if (f.version, f.basic_nh) != (1, 1)]
    assert not secured, f"frames without an unsecured Basic Header: {secured[:3]}"
    macs = {"a": bytes.fromhex("02474e0a0001"), "b": bytes.fromhex("02474e0b0001")}
    for name, mac in macs.items():
        cams = [f for f in frames if f.src_mac == mac and (f.header_type, f.header_subtype,
                                                           f.btp_dst_port) == (5, 0, 2001)]
        denms = [f for f in frames if f.src_mac == mac and (f.header_type, f.header_subtype,
                                                            f.btp_dst_port) == (4, 0, 2002)]
        assert len(cams) >= 3, f"station {name}: {len(cams)} CAMs (SHB, BTP-B 2001) captured"
        assert denms, f"station {name}: no DENM (GBC circle, BTP-B 2002) captured"


@pytest.fixture
def bridged_net():
    with held_network("vsb", direct=False) as net:
        yield net


def test_bridged_network_has_no_path_but_the_bridge(bridged_net, fs_python, running):
    """With no bridge process running, stack A's frames reach its bridge's namespace and
    nothing reaches the radio: the bridge is the only way across."""
    at_bridge = Capture(bridged_net.ns("bridge-a"), "stack")
    on_air = Capture(bridged_net.ns("radio"), "air")
    for capture in (at_bridge, on_air):
        running(capture)
        capture.wait_for("ready", lambda e: e.get("event") == "ready", 10)
    a = Station(fs_python, bridged_net.ns("stack-a"), "gn0", 1, LAT, LON, cam_rate=5)
    running(a)
    a.wait_for("ready", lambda e: e.get("event") == "ready", START_S)
    at_bridge.wait_for("CAMs from stack A", lambda e: e.get("event") == "frame", ARRIVE_S, 3)
    a.stop()
    for capture in (at_bridge, on_air):
        capture.stop()
    frames = [GnFrame.parse(f) for f in at_bridge.frames()]
    assert all(f.ethertype == ETHERTYPE_GN and f.btp_dst_port == 2001 for f in frames), frames
    assert on_air.frames() == [], "frames crossed to the radio with no bridge running"

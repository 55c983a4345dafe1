"""A capture of every Ethernet frame on one interface, run as its own process inside a network
namespace (the suite's Python, no packages needed):

    ip netns exec gn-radio python3 tests/interop/_gn_capture.py air

The socket is AF_PACKET for every ethertype, with the interface in promiscuous mode (a Linux
bridge then hands up every frame it forwards, unicast ones included). stdout carries one JSON
object a line: {"event": "ready"} once the socket is bound, then {"event": "frame", "hex":
"<the whole frame, from the destination MAC>", "time": ...} for each frame. `quit` on stdin,
or its end, stops the capture.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1


def capture(iface: str) -> None:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.bind((iface, 0))
    ifindex = socket.if_nametoindex(iface)
    mreq = struct.pack("iHH8s", ifindex, PACKET_MR_PROMISC, 0, b"")
    sock.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)

    def emit(**event) -> None:
        event.setdefault("time", time.time())
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()

    emit(event="ready", iface=iface)
    while True:
        readable, _, _ = select.select([sock, sys.stdin], [], [])
        if sock in readable:
            emit(event="frame", hex=sock.recv(65535).hex())
        if sys.stdin in readable:
            line = sys.stdin.readline()
            if not line or line.strip() == "quit":
                break
    sock.setblocking(False)
    while True:  # the frames already queued when told to stop
        try:
            emit(event="frame", hex=sock.recv(65535).hex())
        except BlockingIOError:
            return


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: _gn_capture.py IFACE")
    capture(sys.argv[1])

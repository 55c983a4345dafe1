"""Hostile secured GeoNetworking packets for tests/interop/test_gn_bridge.py, each with one
fault, made with the `vss` CLI (certificates, lists, signatures) and wrapped here in GN frames:

- `expired`: signed by an authorization ticket of a trusted AA whose validity is over;
- `unknown CA`: a ticket of a PKI the receiver does not trust (`vss pki init`);
- `revoked CA`: a ticket of a PKI whose root is in the receiver's trust store (a TLM's ECTL,
  the root's CTL and CRL, `vss station trust-update` through `vss pki dc serve`) and whose
  CRL revokes the AA;
- `wrong ITS-AID`: a valid ticket for DENM (PSID 37) signing a CAM (BTP port 2001, ITS-AID 36)
  under PSID 37 (`vss its sign` refuses a PSID the ticket does not permit, so a ticket
  without PSID 36 signing under 36 cannot be made with it).

Each packet is a real CAM of the exchange re-signed (its signed payload: Common Header, SHB
header, BTP-B, CAM) with a fresh generation time, its station ID replaced by a marker of its
own and its source GN address and MAC the signer's pseudonym's, as a bridge would send it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import _its_reference as ref
from _gn_net import ETHERTYPE_GN
from _support import PUK, stop

CAM_PORT = 2001
# In a SHB packet's signed payload: the source GN address's MID (after the Common Header and
# the address's first two octets), the BTP-B destination port and the CAM's station ID
# (after its protocol version and message ID).
MID = slice(10, 16)
BTP_PORT = slice(36, 38)
STATION_ID = slice(42, 46)
# The station IDs of the hostile CAMs: this, plus their index.
MARKER = 0x7E570000
# What the receiver must report for each packet.
REPORTS = {"expired": "Expired", "unknown CA": "SignerNotFound", "revoked CA": "Revoked",
           "wrong ITS-AID": "InsufficientPermissions"}


def listening(port: int) -> bool:
    """Whether something accepts connections on loopback `port`."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def is_cam(payload: bytes) -> bool:
    """Whether a signed payload is a SHB packet (header type 5, subtype 0) to BTP-B port
    2001."""
    return (len(payload) > STATION_ID.stop and payload[1] == 0x50 and payload[0] >> 4 == 2
            and int.from_bytes(payload[BTP_PORT], "big") == CAM_PORT)


def pseudonym_mac(hashed_id8: bytes) -> bytes:
    """The radio-side MAC of a signer (docs/GEONETWORKING.md): its HashedId8's first six
    octets, individual and locally administered."""
    return bytes([(hashed_id8[0] & 0xFC) | 0x02]) + hashed_id8[1:6]


@dataclass(frozen=True)
class Ticket:
    """An authorization ticket: its key in a store, its certificate and HashedId8."""

    store: Path
    label: str
    cert: Path
    hashed_id8: str
    psid: int


@dataclass(frozen=True)
class Hostile:
    """One hostile frame and what the receiving bridge must report for it."""

    what: str
    report: str
    signer: str
    psid: int
    station_id: int
    frame: bytes
    # The signed payload (Common Header, SHB, BTP-B, the CAM with its marker).
    payload: bytes


class Forge:
    """The PKIs, tickets and trust store of the hostile packets, made under `dir` at once;
    `trusted` is a PKI directory (keys/, aa.cert) the receiver trusts, its key store opened
    with `pin`. The receiver's configuration takes `trust_store`."""

    def __init__(self, vss_bin: Path, dir: Path, trusted: Path, pin: str) -> None:
        self.vss_bin = vss_bin
        self.dir = dir
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("VSS_")}
        self.env.update(VSS_PIN=pin, VSS_PUK=PUK, HOME=str(dir))
        dir.mkdir()
        # A copy of the trusted PKI's store, so the running PKI's own store stays as it is.
        own = dir / "trusted"
        own.mkdir()
        shutil.copytree(trusted / "keys", own / "keys")
        shutil.copy(trusted / "aa.cert", own / "aa.cert")
        for name in ("unknown", "revoked"):
            self.vss("pki", "init", "--dir", str(dir / name), "--name", f"hostile-{name}")
        self.trust_store = self._revoke_and_list(dir / "revoked")
        # The tickets last from now: the expired one for a second, so it is over long
        # before the packets are signed, and inside its AA's validity.
        self.tickets = {
            "expired": self.ticket(own, "expired", 36, "1s"),
            "unknown CA": self.ticket(dir / "unknown", "unknown", 36, "1h"),
            "revoked CA": self.ticket(dir / "revoked", "revoked", 36, "1h"),
            "wrong ITS-AID": self.ticket(own, "denm", 37, "1h"),
        }

    def vss(self, *args: str) -> str:
        proc = subprocess.run([str(self.vss_bin), *args], env=self.env, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=30)
        assert proc.returncode == 0, f"vss {' '.join(args)}: {proc.stderr}"
        return proc.stdout

    def _revoke_and_list(self, pki: Path) -> Path:
        """Lists the PKI `pki` (a CTL of its EA and AA), then revokes its AA (a CRL); a TLM's
        ECTL names its root, and a trust store is made from these lists as served by a
        distribution centre on loopback."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        dc = f"http://127.0.0.1:{port}"
        tlm = self.dir / "tlm"
        self.vss("pki", "init", "--dir", str(tlm), "--name", "hostile-tlm", "--role", "tlm")
        self.vss("pki", "ctl", "issue", "--dir", str(pki), "--url", dc, "--dc-url", dc)
        self.vss("pki", "crl", "revoke", "--dir", str(pki), "--cert", str(pki / "aa.cert"))
        self.vss("pki", "crl", "issue", "--dir", str(pki))
        self.vss("pki", "ctl", "issue", "--dir", str(tlm), "--root", str(pki / "root.cert"),
                 "--dc-url", dc)
        server = subprocess.Popen(
            [str(self.vss_bin), "pki", "dc", "serve", "--dir", str(pki), "--listen",
             f"127.0.0.1:{port}"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        store = self.dir / "trust-store"
        try:
            deadline = time.monotonic() + 10
            while not listening(port):
                assert server.poll() is None, f"vss pki dc serve exited {server.returncode}"
                assert time.monotonic() < deadline, "vss pki dc serve did not listen"
                time.sleep(0.05)
            made = json.loads(self.vss(
                "station", "trust-update", "--trust-store", str(store), "--tlm-cert",
                str(tlm / "tlm.cert"), "--ectl", str(tlm / "lists/ectl.oer")))
        finally:
            stop(server)
        aa = ref.hashed_id8((pki / "aa.cert").read_bytes())
        assert [r["revoked"] for r in made["roots"]] == [[aa]], f"{aa} revoked: {made}"
        return store

    def ticket(self, pki: Path, label: str, psid: int, duration: str) -> Ticket:
        """A ticket of the AA of `pki` for `psid`, valid from now for `duration`."""
        store = pki / "keys"
        self.vss("keys", "generate", "--store", str(store), "--label", label)
        cert = self.dir / f"{label}.cert"
        issued = json.loads(self.vss(
            "its", "cert", "issue", "--store", str(store), "--profile", "at", "--subject-key",
            label, "--issuer-cert", str(pki / "aa.cert"), "--issuer-key", "aa", "--psid",
            str(psid), "--duration", duration, "--out", str(cert), "--format", "json"))
        return Ticket(store, label, cert, issued["hashed_id8"], psid)

    def packets(self, basic: bytes, template: bytes) -> list[Hostile]:
        """The hostile frames, signed now: `basic` is a secured CAM's Basic Header, `template`
        its signed payload (a SHB packet to BTP port 2001)."""
        assert is_cam(template), f"not a SHB packet to the CAM port: {template.hex()}"
        made = []
        for i, (what, ticket) in enumerate(self.tickets.items()):
            mac = pseudonym_mac(bytes.fromhex(ticket.hashed_id8))
            payload = bytearray(template)
            payload[MID] = mac
            payload[STATION_ID] = (MARKER + i).to_bytes(4, "big")
            path = self.dir / f"{ticket.label}.payload"
            path.write_bytes(payload)
            signed = self.dir / f"{ticket.label}.oer"
            self.vss("its", "sign", "--store", str(ticket.store), "--label", ticket.label,
                     "--cert", str(ticket.cert), "--psid", str(ticket.psid), "--payload",
                     str(path), "--signer", "certificate", "--out", str(signed))
            frame = b"\xff" * 6 + mac + ETHERTYPE_GN.to_bytes(2, "big") + basic \
                + signed.read_bytes()
            made.append(Hostile(what, REPORTS[what], ticket.hashed_id8, ticket.psid, MARKER + i,
                                frame, bytes(payload)))
        return made

"""`vss filter --sign-listen … --sign-to …`: the filter's outgoing direction, checked by an
independent IEEE 1609.2 implementation (pycrate's codec and pyca, tests/interop/
_its_reference.py).

A `vss testbed up` gives the entity. The filter signs CAM and DENM payloads with the
station's pseudonym; every message must verify independently under a ticket that the
testbed's AA signed, carry the payload unchanged and the ITS-AID asked for, and follow
ETSI TS 103 097 §7.1 (a CAM's signer by digest within the second after its certificate
went out, a DENM's certificate always). Fed back into the same filter's incoming side
(which trusts what the entity trusts), each signed message comes out as its payload."""

from __future__ import annotations

import json
import socket
import subprocess

import pytest

import _its_reference as ref
from _testbed import start_testbed, stop_testbed

PAYLOADS = 6
TIMEOUT_S = 10


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def bed(vss_bin, tmp_path):
    (tmp_path / "bed").mkdir()
    running = start_testbed(vss_bin, tmp_path / "bed")
    yield running
    stop_testbed(running)


def udp_socket(timeout: float = TIMEOUT_S) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(timeout)
    return s


@pytest.mark.parametrize("psid", [36, 37])
def test_the_filter_signs_what_an_independent_verifier_accepts(vss_bin, bed, psid):
    signed_out, forwarded, sender = udp_socket(), udp_socket(), udp_socket()
    sign_port, listen_port = free_udp_port(), free_udp_port()
    proc = subprocess.Popen(
        [str(vss_bin), "filter", "--config", str(bed.config),
         "--sign-listen", f"udp:127.0.0.1:{sign_port}",
         "--sign-to", f"udp:127.0.0.1:{signed_out.getsockname()[1]}",
         "--sign-psid", str(psid),
         "--listen", f"udp:127.0.0.1:{listen_port}",
         "--forward", f"udp:127.0.0.1:{forwarded.getsockname()[1]}",
         "--count", str(PAYLOADS), "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_signer(proc)
        aas = [p.read_bytes() for p in bed.dir.glob("**/aa.cert")]
        assert aas, f"no AA certificate under {bed.dir}"
        certs: dict[str, bytes] = {}
        messages = []
        for i in range(PAYLOADS):
            payload = f"payload {i} for ITS-AID {psid}".encode()
            sender.sendto(payload, ("127.0.0.1", sign_port))
            data, _ = signed_out.recvfrom(65_535)
            sd = ref.signed_data(ref.decode_data(data))
            header = sd["tbsData"]["headerInfo"]
            assert header["psid"] == psid
            assert sd["tbsData"]["payload"]["data"]["content"][1] == payload
            kind, signer = sd["signer"]
            if kind == "certificate":
                cert = ref.encode_cert(signer[0])
                assert any(ref.cert_signature_ok(cert, aa) for aa in aas), \
                    "the ticket is signed by the testbed's AA"
                signer_id = ref.hashed_id8(cert)
                certs[signer_id] = cert
            else:
                assert psid == 36, "TS 103 097 §7.1.2: a DENM carries its certificate"
                signer_id = signer.hex().upper()
            assert signer_id in certs, "named by digest before its certificate went out"
            assert ref.data_signature_ok(data, certs[signer_id]), f"message {i} verifies"
            messages.append((data, payload, kind))
        kinds = {kind for _, _, kind in messages}
        assert kinds == ({"certificate", "digest"} if psid == 36 else {"certificate"}), kinds

        for data, payload, _ in messages:
            sender.sendto(data, ("127.0.0.1", listen_port))
            assert forwarded.recvfrom(65_535)[0] == payload
        out, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    summary = json.loads(out)
    assert (summary["received"], summary["forwarded"]) == (PAYLOADS, PAYLOADS), summary
    assert summary["signed"] == {"received": PAYLOADS, "sent": PAYLOADS, "send_refused": 0,
                                 "sign_failed": 0, "oversized": 0}, summary


def _wait_for_signer(proc: subprocess.Popen) -> None:
    """Reads stderr until the filter says it is signing (both directions are open then)."""
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if line.startswith("signing "):
            return
    pytest.fail(f"the filter did not start (exit {proc.wait()}): {''.join(lines)}")

"""The certificates a served VSS PKI issues, checked by an implementation that is not ours.

`vss pki init` makes a root, an EA and an AA; `vss pki serve` serves them on loopback; a
station in a `vss` key store enrols and takes pseudonyms with `vss station`. Every
certificate on the way (root, EA, AA, the enrolment credential, the tickets) is decoded with
pycrate's IEEE 1609.2 module and checked with pyca `cryptography` (through _its_reference):
its signature under its issuer, its issuer field naming the issuer's HashedId8, the HashedId8
`vss` reports, the permissions asked for, and the verification key being the station's key
in its store.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

import _its_reference as ref
from _support import served_pki

PSIDS = (36, 37)
TICKETS = 5


@pytest.fixture
def served(vss_bin, tmp_path, vss_env, key_store):
    """A PKI served on loopback (killed afterwards) and a station registered at it as
    `car-1` with key `canonical` in `key_store`."""
    pki = tmp_path / "pki"
    subprocess.run([str(vss_bin), "pki", "init", "--dir", str(pki), "--name", "interop"],
                   env=vss_env, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    key_store.run("keys", "generate", "--label", "canonical", "--curve", "p256")
    public = key_store.run("keys", "export-public", "--label", "canonical").stdout.strip()
    subprocess.run([str(vss_bin), "pki", "register-station", "--dir", str(pki),
                    "--canonical-id", "car-1", "--public-key", public]
                   + [arg for p in PSIDS for arg in ("--psid", str(p))],
                   env=vss_env, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    with served_pki(vss_bin, pki, vss_env) as (url, health):
        yield pki, url, health


def _cert(path: Path) -> bytes:
    return path.read_bytes()


def _issuer_digest(cert_bytes: bytes) -> str:
    kind, digest = ref.decode_cert(cert_bytes)["issuer"]
    assert kind == "sha256AndDigest", kind
    return digest.hex().upper()


def _psids(cert_bytes: bytes) -> set[int]:
    permissions = ref.decode_cert(cert_bytes)["toBeSigned"].get("appPermissions", [])
    return {p["psid"] for p in permissions}


def _ssp(cert_bytes: bytes, psid: int):
    """The SSP of `psid` in a certificate's appPermissions, as pycrate decodes it."""
    permissions = ref.decode_cert(cert_bytes)["toBeSigned"].get("appPermissions", [])
    [ssp] = [p.get("ssp") for p in permissions if p["psid"] == psid]
    return ssp


def _etsi(name: str) -> bytes:
    return (Path(__file__).resolve().parents[1] / "vectors/its/etsi-ats" / name).read_bytes()


def _point(pub) -> bytes:
    return pub.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)


def test_served_pki_issues_certificates_that_verify_independently(served, key_store):
    pki, url, health = served
    root, ea, aa = (_cert(pki / f"{name}.cert") for name in ("root", "ea", "aa"))

    # The authorities: the root self-signed, EA and AA under it, as /health names them.
    assert ref.cert_signature_ok(root, None)
    for sub in (ea, aa):
        assert ref.cert_signature_ok(sub, root)
        assert _issuer_digest(sub) == ref.hashed_id8(root)
    assert health["ea"] == ref.hashed_id8(ea)
    assert health["aa"] == ref.hashed_id8(aa)
    # Their PSID 623 SSPs (TS 102 941 §B.4) are the bytes of ETSI's conformance-test EA and AA.
    assert _ssp(ea, 623) == ("bitmapSsp", bytes.fromhex("010E"))
    assert _ssp(ea, 623) == _ssp(_etsi("CERT_TS_A_EA.oer"), 623)
    assert _ssp(aa, 623) == ("bitmapSsp", bytes.fromhex("0132"))
    assert _ssp(aa, 623) == _ssp(_etsi("CERT_TS_A_AA.oer"), 623)

    key_store.run("station", "enroll", "--canonical-id", "car-1", "--canonical-key",
                  "canonical", "--ea", url, "--ea-cert", str(pki / "ea.cert"))
    key_store.run("station", "pseudonyms", "--aa", url, "--aa-cert", str(pki / "aa.cert"),
                  "--ea-cert", str(pki / "ea.cert"), "--count", str(TICKETS),
                  *[arg for p in PSIDS for arg in ("--psid", str(p))])
    listed = json.loads(key_store.run("station", "list", "--format", "json").stdout)
    assert sorted(e["kind"] for e in listed) == ["enrolment"] + ["pseudonym"] * TICKETS

    repository = key_store.dir / "repository"
    for entry in listed:
        folder = "enrolment" if entry["kind"] == "enrolment" else "pseudonyms"
        issuer = ea if entry["kind"] == "enrolment" else aa
        cert = (repository / folder / f"{entry['hashed_id8']}.cert").read_bytes()
        # Our HashedId8 is pycrate's; the signature verifies under the issuer with pyca.
        assert ref.hashed_id8(cert) == entry["hashed_id8"]
        assert ref.cert_signature_ok(cert, issuer), entry
        assert _issuer_digest(cert) == ref.hashed_id8(issuer) == entry["issuer"]
        # The certified key is the station's key in its store.
        exported = key_store.run("keys", "export-public", "--label",
                                 entry["verification_key"]).stdout.strip()
        _, certified = ref.cert_key(ref.decode_cert(cert))
        assert _point(certified).hex() == _compressed_hex(exported)
        assert not ref.cert_signature_ok(cert, root), "verifies under the wrong issuer"
        identity = ref.decode_cert(cert)["toBeSigned"]["id"]
        if entry["kind"] == "pseudonym":
            # A ticket names no one (the AA never learns who asked); it carries the PSIDs.
            assert identity[0] == "none", identity
            assert _psids(cert) == set(PSIDS)
        else:
            assert identity == ("name", "car-1")
            assert _ssp(cert, 623) == ("bitmapSsp", bytes.fromhex("01C0"))
            assert _ssp(cert, 623) == _ssp(_etsi("CERT_TS_A_EC.oer"), 623)


def _compressed_hex(sec1_hex: str) -> str:
    """A SEC 1 point (hex, either form) in compressed form."""
    raw = bytes.fromhex(sec1_hex)
    if raw[0] in (2, 3):
        return raw.hex()
    x, y = raw[1:33], raw[33:]
    return (bytes([2 + (y[-1] & 1)]) + x).hex()

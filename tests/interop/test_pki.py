"""Our EA and AA, served by `vss pki serve`, against a TS 102 941 station that is not ours.

The station (_pki_reference) builds every request in Python: the TS 102 941 structures with
the codec pycrate compiles from the standard's ASN.1 (_ts102941_asn), the 1609.2 signed and
encrypted data, ECDSA, ECIES and AES-CCM with _its_reference. It posts them over HTTP, opens
the answers with the key it chose, and checks the certificates it is given with pyca
`cryptography`. Then it provokes the refusals the standard names and checks their codes.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from pycrate_core.utils import PycrateErr

import _its_reference as ref
import _pki_reference as station
import _ts102941_asn as asn
from _support import PIN, PUK, served_pki

REGISTERED_PSIDS = [36, 37]
STATION = "py-car-1"
ASN1_ROOT = Path(__file__).resolve().parents[1] / "vectors" / "asn1" / "ts102941"


# --------------------------------------------------------------------------------------
# The served PKI and the Python station's credentials
# --------------------------------------------------------------------------------------


@dataclass
class Pki:
    """A PKI served on loopback: its URL, certificates (COER) and the canonical keys of the
    stations registered at it."""

    url: str
    root: bytes
    ea: bytes
    aa: bytes
    canonical: dict[str, ec.EllipticCurvePrivateKey]

    def enrol(self, request: station.Request) -> station.Reply:
        """Posts an enrolment request to the EA."""
        return station.post(f"{self.url}/ea/enrolment", request.message)

    def authorize(self, request: station.Request) -> station.Reply:
        """Posts an authorization request to the AA."""
        return station.post(f"{self.url}/aa/authorization", request.message)


@pytest.fixture(scope="module")
def pki(vss_bin, tmp_path_factory, module_rng) -> Iterator[Pki]:
    """`vss pki init` in a fresh directory, station `py-car-1` registered with a canonical key
    made in Python (PSIDs 36 and 37), and `vss pki serve` on a free loopback port."""
    tmp = tmp_path_factory.mktemp("pki")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VSS_")}
    env.update(VSS_PIN=PIN, VSS_PUK=PUK, HOME=str(tmp))
    pki_dir = tmp / "pki"

    def vss(*args: str) -> None:
        proc = subprocess.run([str(vss_bin), *args], env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)
        assert proc.returncode == 0, f"vss {' '.join(args)}: {proc.stderr}"

    vss("pki", "init", "--dir", str(pki_dir), "--name", "interop-station")
    canonical = {STATION: station.new_key(module_rng)}
    vss("pki", "register-station", "--dir", str(pki_dir), "--canonical-id", STATION,
        "--public-key", station.sec1(canonical[STATION]).hex(),
        *[arg for p in REGISTERED_PSIDS for arg in ("--psid", str(p))])
    with served_pki(vss_bin, pki_dir, env) as (url, health):
        served = Pki(url, *((pki_dir / f"{n}.cert").read_bytes() for n in ("root", "ea", "aa")),
                     canonical)
        assert health["ea"] == ref.hashed_id8(served.ea)
        assert health["aa"] == ref.hashed_id8(served.aa)
        yield served


@dataclass
class Enrolment:
    """The Python station's first enrolment: what it sent, what it got, its new key."""

    request: station.Request
    reply: station.Reply
    key: ec.EllipticCurvePrivateKey


@pytest.fixture(scope="module")
def enrolment(pki, module_rng) -> Enrolment:
    """`py-car-1` enrols for a fresh key, all in Python."""
    key = station.new_key(module_rng)
    request = station.enrolment_request(STATION.encode(), key, pki.canonical[STATION], pki.ea,
                                        module_rng)
    return Enrolment(request, pki.enrol(request), key)


@pytest.fixture(scope="module")
def credential(pki, enrolment) -> bytes:
    """The enrolment credential (COER) the EA issued to the Python station."""
    response = station.certificate_response(enrolment.reply.body, enrolment.request, pki.ea,
                                            "enrolmentResponse")
    assert response["responseCode"] == "ok", response
    return response["certificate"]


def _ticket_request(pki: Pki, credential: bytes, ec_key: ec.EllipticCurvePrivateKey, rng,
                    **options) -> tuple[station.Request, ec.EllipticCurvePrivateKey]:
    """An authorization request for a fresh ticket key by the holder of `credential`, the EC
    signature made with `ec_key` (the credential's key, unless a refusal is wanted)."""
    ticket_key = station.new_key(rng)
    options.setdefault("psids", REGISTERED_PSIDS)
    request = station.authorization_request(ticket_key, credential, ec_key, pki.ea, pki.aa,
                                            rng=rng, **options)
    return request, ticket_key


def _issuer_digest(cert: bytes) -> str:
    """The HashedId8 (upper-case hex) a certificate's issuer field names."""
    kind, digest = ref.decode_cert(cert)["issuer"]
    assert kind == "sha256AndDigest", kind
    return digest.hex().upper()


def _same_key(cert: bytes, key: ec.EllipticCurvePrivateKey) -> bool:
    """Whether a certificate's verification key is the public half of `key`."""
    _, certified = ref.cert_key(ref.decode_cert(cert))
    return station.sec1(certified) == station.sec1(key)


# --------------------------------------------------------------------------------------
# The codec
# --------------------------------------------------------------------------------------

# The TS 102 941 types the enrolment and authorization protocols use.
_PROTOCOL_TYPES = {
    "BaseTypes": ["CertificateFormat", "CertificateSubjectAttributes", "EcSignature",
                  "PublicKeys", "Version"],
    "TypesEnrolment": ["EnrolmentResponseCode", "InnerEcRequestSignedForPop", "InnerEcRequest",
                       "InnerEcResponse"],
    "TypesAuthorization": ["AuthorizationResponseCode", "InnerAtRequest", "SharedAtRequest",
                           "InnerAtResponse"],
    "TypesAuthorizationValidation": ["AuthorizationValidationResponseCode",
                                     "AuthorizationValidationRequest",
                                     "AuthorizationValidationResponse"],
    "MessagesCa": ["EtsiTs102941Data", "EtsiTs102941DataContent"],
}


def _assignment(text: str, name: str) -> str:
    """The definition of `name` in ASN.1 `text`, comments and layout dropped; for a CHOICE
    or SEQUENCE only its root (what precedes the extension marker)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"--[^\n]*", "", text)
    match = re.search(rf"^{re.escape(name)}\s*::=(.*?)(?=^[A-Za-z][\w-]*\s*(\{{[^}}]*\}})?\s*::="
                      rf"|^END)", text, flags=re.M | re.S)
    assert match, f"{name} is not defined"
    body = " ".join(match.group(1).split())
    return body.split("...")[0] if name == "EtsiTs102941DataContent" else body


@pytest.mark.parametrize("module", sorted(_PROTOCOL_TYPES))
def test_the_pinned_v131_types_are_those_of_v221(module):
    """The codec compiles TS 102 941 V1.3.1; the protocol types are the same in V2.2.1 (so on
    the wire as in V2.1.1, which lies between), EtsiTs102941DataContent up to its `...`."""
    old = (ASN1_ROOT / "v1.3.1" / f"TS102941v131-{module}.asn").read_text()
    new = (ASN1_ROOT / "v2.2.1" / f"{module}.asn").read_text()
    for name in _PROTOCOL_TYPES[module]:
        assert _assignment(old, name) == _assignment(new, name), name


def test_the_codec_gives_the_bytes_the_asn1_gives():
    """An InnerEcResponse spelled out octet by octet from the ASN.1 (COER): version 01;
    CHOICE alternative [1] 81; preamble (extension bit 0, certificate absent) 00; requestHash;
    responseCode unknownits (6) 06."""
    value = {"version": 1, "content": ("enrolmentResponse", {
        "requestHash": bytes(range(16)), "responseCode": "unknownits"})}
    want = bytes([0x01, 0x81, 0x00]) + bytes(range(16)) + bytes([0x06])
    assert asn.encode(asn.EtsiTs102941Data, value) == want
    assert asn.decode(asn.EtsiTs102941Data, want) == value
    with pytest.raises(ValueError, match="canonical"):
        asn.decode(asn.EtsiTs102941Data, want + b"\x00")
    with pytest.raises(PycrateErr):
        asn.decode(asn.EtsiTs102941Data, want[:-1])


# --------------------------------------------------------------------------------------
# Enrolment and authorization
# --------------------------------------------------------------------------------------


def test_a_python_station_enrols(pki, enrolment):
    """The enrolment request is all Python; so are opening the answer (request key, EA
    signature, requestHash) and checking the credential."""
    assert enrolment.reply.status == 200, enrolment.reply
    assert enrolment.reply.content_type == station.RESPONSE_TYPE
    response = station.certificate_response(enrolment.reply.body, enrolment.request, pki.ea,
                                            "enrolmentResponse")
    assert response["responseCode"] == "ok", response
    credential = response["certificate"]
    # The credential certifies the Python key, names the station and is the EA's.
    assert _same_key(credential, enrolment.key)
    assert ref.decode_cert(credential)["toBeSigned"]["id"] == ("name", STATION)
    assert ref.cert_signature_ok(credential, pki.ea)
    assert _issuer_digest(credential) == ref.hashed_id8(pki.ea)
    assert not ref.cert_signature_ok(credential, pki.aa), "verifies under the wrong issuer"


@pytest.mark.parametrize("options", [
    pytest.param({}, id="with-pop-encrypted-ec-signature"),
    pytest.param({"pop": False}, id="without-pop"),
    pytest.param({"encrypt_ec_signature": False}, id="plain-ec-signature"),
    pytest.param({"psids": [37]}, id="fewer-psids"),
    pytest.param({"compressed": False, "with_encryption_key": True},
                 id="uncompressed-key-and-encryption-key"),
])
def test_a_python_station_gets_a_ticket(pki, credential, enrolment, rng, options):
    """The enrolled Python station asks the AA for a ticket (the EA validating its EC
    signature behind the AA) and checks the ticket: its key, its PSIDs, its signature."""
    encryption = station.new_key(rng) if options.get("with_encryption_key") else None
    options = {k: v for k, v in options.items() if k != "with_encryption_key"}
    request, ticket_key = _ticket_request(pki, credential, enrolment.key, rng,
                                          encryption=encryption, **options)
    reply = pki.authorize(request)
    assert reply.status == 200, reply
    assert reply.content_type == station.RESPONSE_TYPE
    response = station.certificate_response(reply.body, request, pki.aa,
                                            "authorizationResponse")
    assert response["responseCode"] == "ok", response
    ticket = response["certificate"]
    assert _same_key(ticket, ticket_key)
    tbs = ref.decode_cert(ticket)["toBeSigned"]
    assert sorted(p["psid"] for p in tbs["appPermissions"]) == options.get(
        "psids", REGISTERED_PSIDS)
    assert tbs["id"][0] == "none", tbs["id"]  # a ticket names no one
    # The encryption key asked for (and covered by keyTag) is the ticket's.
    if encryption is None:
        assert "encryptionKey" not in tbs
    else:
        assert tbs["encryptionKey"] == station.encryption_key(encryption)
    assert ref.cert_signature_ok(ticket, pki.aa)
    assert _issuer_digest(ticket) == ref.hashed_id8(pki.aa)


# --------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------


def _code(pki: Pki, reply: station.Reply, request: station.Request, responder: bytes,
          alternative: str) -> str:
    """The response code of an encrypted answer (with a certificate exactly when ok)."""
    assert reply.status == 200, reply
    return station.certificate_response(reply.body, request, responder, alternative)[
        "responseCode"]


def _enrolment_code(pki: Pki, request: station.Request) -> str:
    """Posts an enrolment request; the code of the EA's encrypted answer."""
    return _code(pki, pki.enrol(request), request, pki.ea, "enrolmentResponse")


def _authorization_code(pki: Pki, request: station.Request) -> str:
    """Posts an authorization request; the code of the AA's encrypted answer."""
    return _code(pki, pki.authorize(request), request, pki.aa, "authorizationResponse")


def test_an_unregistered_station_is_unknownits(pki, rng):
    """An itsId the EA does not know, answered encrypted with `unknownits`."""
    key = station.new_key(rng)
    request = station.enrolment_request(b"py-ghost", key, key, pki.ea, rng)
    assert _enrolment_code(pki, request) == "unknownits"


def test_a_wrong_canonical_key_is_invalidsignature(pki, rng):
    """The outer signature by a key that is not the registered canonical key."""
    request = station.enrolment_request(STATION.encode(), station.new_key(rng),
                                        station.new_key(rng), pki.ea, rng)
    assert _enrolment_code(pki, request) == "invalidsignature"


def test_a_proof_of_possession_by_another_key_is_invalidsignature(pki, rng):
    """The inner signature by a key that is not the one to be certified."""
    request = station.enrolment_request(STATION.encode(), station.new_key(rng),
                                        pki.canonical[STATION], pki.ea, rng,
                                        pop_key=station.new_key(rng))
    assert _enrolment_code(pki, request) == "invalidsignature"


def test_a_replayed_enrolment_is_deniedrequest(pki, enrolment, credential):
    """The very bytes of the enrolment that succeeded, sent again."""
    assert _enrolment_code(pki, enrolment.request) == "deniedrequest"


def test_a_replayed_authorization_is_outofsync(pki, credential, enrolment, rng):
    """An authorization request that succeeded, sent again byte for byte."""
    request, _ = _ticket_request(pki, credential, enrolment.key, rng)
    assert _authorization_code(pki, request) == "ok"
    assert _authorization_code(pki, request) == "its-aa-outofsyncrequest"


def test_a_wrong_key_tag_is_keysdontmatch(pki, credential, enrolment, rng):
    """A keyTag that is not the HMAC of the request's keys under its hmacKey."""
    request, _ = _ticket_request(pki, credential, enrolment.key, rng, wrong_key_tag=True)
    assert _authorization_code(pki, request) == "its-aa-keysdontmatch"


def test_psids_the_station_may_not_have_are_deniedpermissions(pki, credential, enrolment, rng):
    """A PSID the station was not registered for: the EA refuses to validate, the AA
    relays it."""
    request, _ = _ticket_request(pki, credential, enrolment.key, rng, psids=[36, 38])
    assert _authorization_code(pki, request) == "deniedpermissions"


def test_an_ec_signature_by_another_key_is_invalidsignature(pki, credential, rng):
    """An EC signature that names the credential but is made with another key."""
    request, _ = _ticket_request(pki, credential, station.new_key(rng), rng)
    assert _authorization_code(pki, request) == "invalidsignature"


def test_an_unknown_ea_is_unknownea(pki, credential, enrolment, rng):
    """An eaId that names no EA the AA trusts."""
    ticket_key = station.new_key(rng)
    # The AA's certificate in place of the EA's: the eaId names no EA the AA knows.
    request = station.authorization_request(ticket_key, credential, enrolment.key, pki.aa,
                                            pki.aa, REGISTERED_PSIDS, rng)
    assert _authorization_code(pki, request) == "its-aa-unknownea"


_UNOPENED = {
    "garbage": "cantparse",
    "not-encrypted": "badcontenttype",
    "encrypted-to-the-other-authority": "imnottherecipient",
    "tampered-ciphertext": "decryptionfailed",
}


@pytest.mark.parametrize("case", sorted(_UNOPENED))
@pytest.mark.parametrize("endpoint", ["ea/enrolment", "aa/authorization"])
def test_a_request_that_cannot_be_opened_is_400_with_its_code(pki, rng, case, endpoint):
    """With no key to answer with, the authority answers 400 and names the code in the
    X-Its-Response-Code header."""
    own, other = (pki.ea, pki.aa) if endpoint.startswith("ea") else (pki.aa, pki.ea)
    inner = station.signed(station.envelope(("enrolmentResponse", {
        "requestHash": bytes(16), "responseCode": "ok"})), station.new_key(rng))
    if case == "garbage":
        body = b"\xde\xad\xbe\xef" * 10
    elif case == "not-encrypted":
        body = inner
    elif case == "encrypted-to-the-other-authority":
        body = station.seal(inner, other, rng).message
    else:
        message = bytearray(station.seal(inner, own, rng).message)
        message[-1] ^= 0x01  # the last octet of the CCM tag
        body = bytes(message)
    reply = station.post(f"{pki.url}/{endpoint}", body)
    want = _UNOPENED[case] if endpoint.startswith("ea") else f"its-aa-{_UNOPENED[case]}"
    assert (reply.status, reply.code_header) == (400, want), reply
    assert reply.content_type != station.RESPONSE_TYPE


@pytest.mark.parametrize("endpoint", ["ea/enrolment", "aa/authorization"])
def test_another_content_type_is_415(pki, enrolment, endpoint):
    """A request not labelled application/x-its-request."""
    reply = station.post(f"{pki.url}/{endpoint}", enrolment.request.message,
                         content_type="application/octet-stream")
    assert reply.status == 415, reply

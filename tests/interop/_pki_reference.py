"""The station side of ETSI TS 102 941 (enrolment and authorization), written apart from VSS.

TS 102 941 messages are coded with the codec pycrate compiles from the standard's ASN.1
(_ts102941_asn); the IEEE 1609.2 signed and encrypted data around them, signatures, ECIES
and AES-CCM come from _its_reference (pycrate's 1609.2 module, pyca `cryptography`). The rules
are the standard's:

* every request and response is `EtsiTs102941Data` (version 1) carried as the unsecured
  payload of 1609.2 signed data under PSID 623 (SecuredCertificateRequestService), with a
  generation time (TS 103 097 requires it);
* enrolment (6.2.3.2): `InnerEcRequest` signed with the key to be certified (self-signed, the
  proof of possession), wrapped as `enrolmentRequest`, signed again with the canonical key
  (self-signed), encrypted to the EA's certificate (certRecipInfo, ECIES, AES-128-CCM);
* authorization (6.2.3.3): `SharedAtRequest` with `keyTag` = the leftmost 16 octets of
  HMAC-SHA256(hmacKey, COER(verificationKey) ‖ COER(encryptionKey) when present), signed by
  the enrolment credential over its SHA-256 only (extDataHash, signer by digest) and, as
  `encryptedEcSignature`, encrypted to the EA; the `InnerAtRequest` signed with the ticket's
  key (proof of possession) or sent as unsecured data, encrypted to the AA;
* `requestHash` is the leftmost 16 octets of SHA-256 over the whole request message;
* the answer is encrypted with the request's AES key, named by a `pskRecipInfo` holding the
  HashedId8 of the COER `SymmetricEncryptionKey` (1609.2 PreSharedKeyRecipientInfo: SHA-256,
  last 8 octets), and signed by the authority's certificate, named by digest.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESCCM
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

import _its_reference as ref
import _ts102941_asn as asn

PSID = 623  # SecuredCertificateRequestService
P256 = ref.CURVES["p256"]
REQUEST_TYPE = "application/x-its-request"
RESPONSE_TYPE = "application/x-its-response"
CODE_HEADER = "X-Its-Response-Code"


def new_key(rng: random.Random) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key drawn from `rng`."""
    return ec.derive_private_key(rng.randrange(1, P256.n), ec.SECP256R1())


def sec1(key: ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) -> bytes:
    """The uncompressed SEC 1 encoding of a (private key's) public key."""
    pub = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey) else key
    return pub.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def verification_key(key: ec.EllipticCurvePrivateKey, *, compressed: bool = True) -> tuple:
    """The `PublicVerificationKey` value of a P-256 key, point compressed or not."""
    if compressed:
        return ("ecdsaNistP256", ref.point_choice(key.public_key()))
    raw = sec1(key)
    return ("ecdsaNistP256", ("uncompressedP256", {"x": raw[1:33], "y": raw[33:]}))


def encryption_key(key: ec.EllipticCurvePrivateKey) -> dict:
    """The `PublicEncryptionKey` value (ECIES on P-256, AES-128-CCM) of a key."""
    return {"supportedSymmAlg": "aes128Ccm",
            "publicKey": ("eciesNistP256", ref.point_choice(key.public_key()))}


def request_hash(message: bytes) -> bytes:
    """`requestHash`: the leftmost 16 octets of SHA-256 over the whole request message."""
    return hashlib.sha256(message).digest()[:16]


def key_tag(hmac_key: bytes, public_keys: dict) -> bytes:
    """`keyTag` of a `PublicKeys` value under `hmacKey`."""
    data = asn.encode(asn.PublicVerificationKey, public_keys["verificationKey"])
    if "encryptionKey" in public_keys:
        data += asn.encode(asn.PublicEncryptionKey, public_keys["encryptionKey"])
    return hmac.new(hmac_key, data, hashlib.sha256).digest()[:16]


def psk_id(key: bytes) -> bytes:
    """How a `pskRecipInfo` names an AES-128 key: HashedId8 of COER `SymmetricEncryptionKey`."""
    return hashlib.sha256(asn.encode(asn.SymmetricEncryptionKey, ("aes128Ccm", key))
                          ).digest()[-8:]


def _now_time64() -> int:
    """Now as a 1609.2 Time64."""
    return ref.time64(datetime.now(timezone.utc))


def signed(payload: bytes, priv: ec.EllipticCurvePrivateKey, *, signer_cert: bytes | None = None,
           external: bool = False) -> bytes:
    """COER `Ieee1609Dot2Data`: `payload` (or, when `external`, only its SHA-256 as
    `extDataHash`) signed under PSID 623 now; self-signed, or by `signer_cert` named by digest."""
    if external:
        body = {"extDataHash": ("sha256HashedData", hashlib.sha256(payload).digest())}
    else:
        body = {"data": {"protocolVersion": 3, "content": ("unsecuredData", payload)}}
    tbs = {"payload": body, "headerInfo": {"psid": PSID, "generationTime": _now_time64()}}
    return ref.sign_data(tbs, priv, P256, signer_cert, "self" if signer_cert is None else "digest")


def unsecured(payload: bytes) -> bytes:
    """COER `Ieee1609Dot2Data` carrying `payload` as unsecured data."""
    return ref.encode_data(ref.unsecured(payload)["data"])


def envelope(content: tuple) -> bytes:
    """COER `EtsiTs102941Data` (version 1) around `content`."""
    return asn.encode(asn.EtsiTs102941Data, {"version": 1, "content": content})


def data_value(data: bytes):
    """A COER `Ieee1609Dot2Data` as a value of the TS 102 941 codec's own 1609.2 types."""
    return asn.decode(asn.Ieee1609Dot2Data, data)


@dataclass
class Request:
    """A request message ready to post, with what reading its answer needs."""

    message: bytes
    key: bytes  # the AES-128 key the request was encrypted with (and the answer will be)

    @property
    def hash(self) -> bytes:
        """The request's `requestHash`."""
        return request_hash(self.message)


def seal(inner: bytes, recipient_cert: bytes, rng: random.Random) -> Request:
    """`inner` (COER `Ieee1609Dot2Data`) encrypted to the holder of `recipient_cert`."""
    key = rng.randbytes(16)
    message = ref.encrypted_data(inner, [ref.cert_recipient(recipient_cert, key)], key,
                                 rng.randbytes(12))
    return Request(message, key)


def inner_ec_request(its_id: bytes, public_keys: dict) -> bytes:
    """COER `InnerEcRequest` (certificate format 1) asking for PSID 623, what an enrolment
    credential is for."""
    return asn.encode(asn.InnerEcRequest, {
        "itsId": its_id, "certificateFormat": 1, "publicKeys": public_keys,
        "requestedSubjectAttributes": {"appPermissions": [{"psid": PSID}]}})


def enrolment_request(its_id: bytes, ec_key: ec.EllipticCurvePrivateKey,
                      canonical: ec.EllipticCurvePrivateKey, ea_cert: bytes,
                      rng: random.Random, *, pop_key: ec.EllipticCurvePrivateKey | None = None
                      ) -> Request:
    """An `EnrolmentRequestMessage` of station `its_id` for `ec_key`, signed by `canonical`
    and encrypted to the EA. `pop_key` signs the proof of possession in place of `ec_key`
    (to provoke a refusal)."""
    inner = inner_ec_request(its_id, {"verificationKey": verification_key(ec_key)})
    pop = signed(inner, pop_key or ec_key)
    outer = signed(envelope(("enrolmentRequest", data_value(pop))), canonical)
    return seal(outer, ea_cert, rng)


def authorization_request(ticket_key: ec.EllipticCurvePrivateKey, ec_cert: bytes,
                          ec_key: ec.EllipticCurvePrivateKey, ea_cert: bytes, aa_cert: bytes,
                          psids: list[int], rng: random.Random, *, pop: bool = True,
                          encrypt_ec_signature: bool = True, compressed: bool = True,
                          encryption: ec.EllipticCurvePrivateKey | None = None,
                          wrong_key_tag: bool = False) -> Request:
    """An `AuthorizationRequestMessage(WithPop)` for a ticket for `ticket_key` with `psids`,
    by the holder of the enrolment credential `ec_cert` (key `ec_key`) issued by the EA
    `ea_cert`, encrypted to the AA `aa_cert`. Options: no proof of possession (`pop`), the
    EC signature in clear (`encrypt_ec_signature`), the ticket key's point uncompressed, an
    encryption key (`encryption`) asked for too, a `keyTag` with one bit flipped."""
    public_keys = {"verificationKey": verification_key(ticket_key, compressed=compressed)}
    if encryption is not None:
        public_keys["encryptionKey"] = encryption_key(encryption)
    hmac_key = rng.randbytes(32)
    tag = key_tag(hmac_key, public_keys)
    if wrong_key_tag:
        tag = bytes([tag[0] ^ 1]) + tag[1:]
    shared = {"eaId": bytes.fromhex(ref.hashed_id8(ea_cert)), "keyTag": tag,
              "certificateFormat": 1,
              "requestedSubjectAttributes": {"appPermissions": [{"psid": p} for p in psids]}}
    ec_signature = signed(asn.encode(asn.SharedAtRequest, shared), ec_key, signer_cert=ec_cert,
                          external=True)
    if encrypt_ec_signature:
        ec_signature_choice = ("encryptedEcSignature",
                               data_value(seal(ec_signature, ea_cert, rng).message))
    else:
        ec_signature_choice = ("ecSignature", data_value(ec_signature))
    request = envelope(("authorizationRequest", {
        "publicKeys": public_keys, "hmacKey": hmac_key, "sharedAtRequest": shared,
        "ecSignature": ec_signature_choice}))
    inner = signed(request, ticket_key) if pop else unsecured(request)
    return seal(inner, aa_cert, rng)


@dataclass
class Reply:
    """What an authority answered over HTTP."""

    status: int
    content_type: str | None
    code_header: str | None
    body: bytes


def post(url: str, body: bytes, content_type: str = REQUEST_TYPE) -> Reply:
    """POSTs `body` to `url`; the reply, whatever its status."""
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Reply(response.status, response.headers.get("Content-Type"),
                         response.headers.get(CODE_HEADER), response.read())
    except urllib.error.HTTPError as error:
        return Reply(error.code, error.headers.get("Content-Type"),
                     error.headers.get(CODE_HEADER), error.read())


def open_response(body: bytes, request: Request, responder_cert: bytes) -> tuple:
    """The `EtsiTs102941DataContent` of a response to `request`, after checking what the
    standard asks of its wrapping: encrypted with the request's key named by `pskRecipInfo`,
    signed under PSID 623 with a generation time by `responder_cert`'s key, naming it by
    digest."""
    kind, encrypted = ref.decode_data(body)["content"]
    assert kind == "encryptedData", kind
    assert encrypted["recipients"] == [("pskRecipInfo", psk_id(request.key))], (
        f"recipients {encrypted['recipients']}, not the request key's pskRecipInfo "
        f"{psk_id(request.key).hex()}")
    alt, ccm = encrypted["ciphertext"]
    assert alt == "aes128ccm", alt
    inner = AESCCM(request.key, tag_length=16).decrypt(ccm["nonce"], ccm["ccmCiphertext"], None)
    data = ref.signed_data(ref.decode_data(inner))
    assert data["signer"] == ("digest", bytes.fromhex(ref.hashed_id8(responder_cert))), (
        data["signer"])
    header = data["tbsData"]["headerInfo"]
    assert header["psid"] == PSID, header
    assert "generationTime" in header, header
    assert ref.data_signature_ok(inner, responder_cert), "the response signature does not verify"
    kind, payload = data["tbsData"]["payload"]["data"]["content"]
    assert kind == "unsecuredData", kind
    response = asn.decode(asn.EtsiTs102941Data, payload)
    assert response["version"] == 1, response
    return response["content"]


def certificate_response(body: bytes, request: Request, responder_cert: bytes,
                         alternative: str) -> dict:
    """The `InnerEcResponse` / `InnerAtResponse` (`alternative`) answering `request`, checked
    to name the request by its hash and to carry a certificate exactly when the code is ok;
    the certificate, if any, as its COER bytes."""
    kind, response = open_response(body, request, responder_cert)
    assert kind == alternative, f"{kind}, not {alternative}"
    assert response["requestHash"] == request.hash, (
        f"requestHash {response['requestHash'].hex()}, not {request.hash.hex()}")
    assert ("certificate" in response) == (response["responseCode"] == "ok"), response
    if "certificate" in response:
        response["certificate"] = asn.encode(asn.EtsiTs103097Certificate,
                                             response["certificate"])
    return response

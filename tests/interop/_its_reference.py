"""An independent IEEE 1609.2 / ETSI TS 103 097 reference for test_its.py.

COER comes from pycrate (`pycrate_asn1dir.ITS_IEEE1609_2`, a compiled copy of the IEEE 1609.2
ASN.1), ECDSA and AES-CCM from pyca `cryptography`, hashes from hashlib, 1609.2 ECIES from
_kem_reference. Nothing here imports or mirrors
vss code; the rules are written from IEEE 1609.2:

* signing input (5.3.1): ECDSA over  H(COER(tbs)) || H(COER(signer certificate))  with
  H("") in place of the certificate when self-signed; H is SHA-256 for the 256-bit curves and
  SHA-384 for the 384-bit ones (the signer's curve). For a certificate the issuer field names
  the same hash (self(alg), sha256AndDigest, sha384AndDigest); for data, `hashId`.
* whole-certificate hash (6.4.3): the hash of a certificate's canonical COER (keys compressed,
  signature r x-only) is SHA-256 if its own verification key is a 256-bit point and SHA-384 if
  a 384-bit one; HashedId8 is its last 8 bytes. (This is also what vanetza's
  `calculate_digest` and veloce's `hashed_id8` do.)
* Time32 / Time64 (6.4.14-16): TAI seconds / microseconds since 2004-01-01T00:00:00Z, so the
  leap seconds inserted since 2004 count.
* years in a Duration are 31556952 s (6.4.15: 365.2425 days).

pycrate 0.8.1 knows the curves of IEEE 1609.2-2016 only: an ecdsaNistP384 key or signature (an
extension added by 1609.2a-2017) decodes as the unknown extension `_ext_203` holding the COER of
the alternative, which `EccP384CurvePoint` / `EcdsaP384Signature` then decode. The helpers below
hide that.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import os
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pycrate_asn1dir import ITS_IEEE1609_2 as _M

import _kem_reference as kem

# pycrate logs every DEFAULT value it leaves out of an encoding at INFO level.
logging.getLogger("pycrate.asn1rt").setLevel(logging.WARNING)

_D = _M.Ieee1609Dot2
_B = _M.Ieee1609Dot2BaseTypes

# The pycrate name of CHOICE alternative [3] when the module does not know it: ecdsaNistP384
# in PublicVerificationKey and ecdsaNistP384Signature in Signature.
P384_EXT = "_ext_203"

# --------------------------------------------------------------------------------------
# Curves
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItsCurve:
    name: str  # as vss names it: p256 bp256 p384 bp384
    crypto_curve: type
    key_alt: str  # PublicVerificationKey alternative (pycrate name)
    sig_alt: str  # Signature alternative (pycrate name)
    hash_name: str  # sha256 / sha384
    size: int  # bytes of a coordinate / of r and s
    n: int  # group order

    @property
    def hash(self):
        return hashlib.sha256 if self.hash_name == "sha256" else hashlib.sha384

    @property
    def crypto_hash(self):
        return hashes.SHA256() if self.hash_name == "sha256" else hashes.SHA384()


CURVES: dict[str, ItsCurve] = {
    c.name: c
    for c in (
        ItsCurve("p256", ec.SECP256R1, "ecdsaNistP256", "ecdsaNistP256Signature", "sha256", 32,
                 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551),
        ItsCurve("bp256", ec.BrainpoolP256R1, "ecdsaBrainpoolP256r1",
                 "ecdsaBrainpoolP256r1Signature", "sha256", 32,
                 0xA9FB57DBA1EEA9BC3E660A909D838D718C397AA3B561A6F7901E0E82974856A7),
        ItsCurve("p384", ec.SECP384R1, P384_EXT, P384_EXT, "sha384", 48,
                 int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF"
                     "581A0DB248B0A77AECEC196ACCC52973", 16)),
        ItsCurve("bp384", ec.BrainpoolP384R1, "ecdsaBrainpoolP384r1",
                 "ecdsaBrainpoolP384r1Signature", "sha384", 48,
                 int("8CB91E82A3386D280F5D6F7E50E641DF152F7109ED5456B31F166E6CAC0425A7"
                     "CF3AB6AF6B7FC3103B883202E9046565", 16)),
    )
}
CURVE_BY_KEY_ALT = {c.key_alt: c for c in CURVES.values()}
CURVE_BY_SIG_ALT = {c.sig_alt: c for c in CURVES.values()}
ENC_ALT = {"p256": "eciesNistP256", "bp256": "eciesBrainpoolP256r1"}
CURVE_BY_ENC_ALT = {v: CURVES[k] for k, v in ENC_ALT.items()}
HASH_ALG_NAMES = {"sha256": hashlib.sha256, "sha384": hashlib.sha384}


# --------------------------------------------------------------------------------------
# COER through pycrate
# --------------------------------------------------------------------------------------


def _decode(asn_type, data: bytes):
    asn_type.from_oer(data)
    return copy.deepcopy(asn_type.get_val())


def _encode(asn_type, value) -> bytes:
    asn_type.set_val(copy.deepcopy(value))
    return asn_type.to_oer()


def decode_cert(data: bytes) -> dict:
    return _decode(_D.Certificate, data)


def encode_cert(value: dict) -> bytes:
    return _encode(_D.Certificate, value)


def decode_data(data: bytes) -> dict:
    return _decode(_D.Ieee1609Dot2Data, data)


def encode_data(value: dict) -> bytes:
    return _encode(_D.Ieee1609Dot2Data, value)


def encode_tbs_cert(value: dict) -> bytes:
    return _encode(_D.ToBeSignedCertificate, value)


def encode_tbs_data(value: dict) -> bytes:
    return _encode(_D.ToBeSignedData, value)


def decode_p384_point(raw: bytes) -> tuple:
    return _decode(_B.EccP384CurvePoint, raw)


def encode_p384_point(value: tuple) -> bytes:
    return _encode(_B.EccP384CurvePoint, value)


def decode_p384_signature(raw: bytes) -> dict:
    return _decode(_B.EcdsaP384Signature, raw)


def encode_p384_signature(value: dict) -> bytes:
    return _encode(_B.EcdsaP384Signature, value)


# --------------------------------------------------------------------------------------
# Keys and signatures in their 1609.2 forms
# --------------------------------------------------------------------------------------


def point_choice(pub: ec.EllipticCurvePublicKey) -> tuple[str, bytes]:
    """EccP256/384CurvePoint in canonical (compressed) form."""
    comp = pub.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)
    return ("compressed-y-0" if comp[0] == 2 else "compressed-y-1", comp[1:])


def public_key_from_point(curve: ItsCurve, point: tuple) -> ec.EllipticCurvePublicKey:
    kind, val = point
    if kind == "compressed-y-0":
        enc = b"\x02" + val
    elif kind == "compressed-y-1":
        enc = b"\x03" + val
    elif kind.startswith("uncompressed"):
        enc = b"\x04" + val["x"] + val["y"]
    else:
        raise ValueError(f"no public key in an EccPoint of kind {kind}")
    assert len(enc) in (1 + curve.size, 1 + 2 * curve.size), (curve.name, kind, len(val))
    return ec.EllipticCurvePublicKey.from_encoded_point(curve.crypto_curve(), enc)


def verification_key(pvk: tuple) -> tuple[ItsCurve, tuple]:
    """(curve, EccPoint choice) of a PublicVerificationKey value."""
    alt, val = pvk
    curve = CURVE_BY_KEY_ALT[alt]
    if alt == P384_EXT:
        val = decode_p384_point(val)
    return curve, val


def make_verification_key(curve: ItsCurve, pub: ec.EllipticCurvePublicKey) -> tuple:
    point = point_choice(pub)
    if curve.key_alt == P384_EXT:
        return (P384_EXT, encode_p384_point(point))
    return (curve.key_alt, point)


def cert_key(cert: dict) -> tuple[ItsCurve, ec.EllipticCurvePublicKey]:
    """The curve and public key of an explicit certificate's verifyKeyIndicator."""
    kind, pvk = cert["toBeSigned"]["verifyKeyIndicator"]
    assert kind == "verificationKey", kind
    curve, point = verification_key(pvk)
    return curve, public_key_from_point(curve, point)


def signature_parts(sig: tuple) -> tuple[ItsCurve, tuple, bytes]:
    """(curve, rSig choice, sSig) of a Signature value."""
    alt, val = sig
    curve = CURVE_BY_SIG_ALT[alt]
    if alt == P384_EXT:
        val = decode_p384_signature(val)
    return curve, val["rSig"], val["sSig"]


def make_signature(curve: ItsCurve, r: int, s: int) -> tuple:
    val = {"rSig": ("x-only", r.to_bytes(curve.size, "big")),
           "sSig": s.to_bytes(curve.size, "big")}
    if curve.sig_alt == P384_EXT:
        return (P384_EXT, encode_p384_signature(val))
    return (curve.sig_alt, val)


def rs_of(sig: tuple) -> tuple[ItsCurve, int, int]:
    curve, r_choice, s = signature_parts(sig)
    kind, r = r_choice
    if kind.startswith("uncompressed"):
        r = r["x"]
    assert kind in ("x-only", "compressed-y-0", "compressed-y-1") or kind.startswith(
        "uncompressed"), kind
    assert len(r) == curve.size and len(s) == curve.size, (curve.name, len(r), len(s))
    return curve, int.from_bytes(r, "big"), int.from_bytes(s, "big")


def ecdsa_verify(pub: ec.EllipticCurvePublicKey, curve: ItsCurve, message: bytes, r: int,
                 s: int) -> bool:
    """ECDSA with the curve's hash over `message` (so e = H(message))."""
    try:
        pub.verify(encode_dss_signature(r, s), message, ec.ECDSA(curve.crypto_hash))
        return True
    except InvalidSignature:
        return False


def ecdsa_sign(priv: ec.EllipticCurvePrivateKey, curve: ItsCurve, message: bytes
               ) -> tuple[int, int]:
    return decode_dss_signature(priv.sign(message, ec.ECDSA(curve.crypto_hash)))


# --------------------------------------------------------------------------------------
# Canonical forms, hashes and names
# --------------------------------------------------------------------------------------


def _canonical_point(curve: ItsCurve, point: tuple) -> tuple:
    if point[0] in ("compressed-y-0", "compressed-y-1"):
        return point
    return point_choice(public_key_from_point(curve, point))


def canonical_cert(cert: dict) -> dict:
    """6.4.3: verification and encryption keys compressed, signature r x-only."""
    cert = copy.deepcopy(cert)
    tbs = cert["toBeSigned"]
    kind, pvk = tbs["verifyKeyIndicator"]
    if kind == "verificationKey":
        curve, point = verification_key(pvk)
        point = _canonical_point(curve, point)
        tbs["verifyKeyIndicator"] = (kind, (P384_EXT, encode_p384_point(point))
                                     if curve.key_alt == P384_EXT else (curve.key_alt, point))
    if "encryptionKey" in tbs:
        alt, point = tbs["encryptionKey"]["publicKey"]
        curve = CURVE_BY_ENC_ALT[alt]
        tbs["encryptionKey"]["publicKey"] = (alt, _canonical_point(curve, point))
    if "signature" in cert:
        curve, r, s = rs_of(cert["signature"])
        cert["signature"] = make_signature(curve, r, s)
    return cert


def canonical_cert_bytes(data: bytes) -> bytes:
    return encode_cert(canonical_cert(decode_cert(data)))


def whole_cert_hash(data: bytes):
    """The whole-certificate hash function of a certificate: by its own verification key."""
    curve, _ = cert_key(decode_cert(data))
    return curve.hash


def hashed_id8(data: bytes) -> str:
    """HashedId8 of a certificate (COER bytes), upper-case hex as vss prints it."""
    return whole_cert_hash(data)(canonical_cert_bytes(data)).digest()[-8:].hex().upper()


def hashed_id8_by(data: bytes, hash_name: str) -> str:
    return HASH_ALG_NAMES[hash_name](canonical_cert_bytes(data)).digest()[-8:].hex().upper()


def signing_input(curve: ItsCurve, tbs_coer: bytes, signer_cert: bytes | None) -> bytes:
    """H(tbs) || H(signer certificate, canonical) -- H("") when self-signed."""
    h = curve.hash
    signer = b"" if signer_cert is None else canonical_cert_bytes(signer_cert)
    return h(tbs_coer).digest() + h(signer).digest()


def issuer_hash_name(cert: dict) -> str:
    kind, val = cert["issuer"]
    if kind == "self":
        return val
    return {"sha256AndDigest": "sha256", "sha384AndDigest": "sha384"}[kind]


def cert_signature_ok(cert_bytes: bytes, issuer_bytes: bytes | None,
                      canonical: bool = True) -> bool:
    """Verifies a certificate's signature with its issuer's key (its own when self-signed),
    over the canonical toBeSigned (or, with canonical=False, over toBeSigned as it is).

    Asserts the bookkeeping 1609.2 asks for: the issuer field's hash is the signer curve's."""
    cert = decode_cert(cert_bytes)
    signer = cert if issuer_bytes is None else decode_cert(issuer_bytes)
    curve, pub = cert_key(signer)
    sig_curve, r, s = rs_of(cert["signature"])
    assert sig_curve is curve, f"signature on {sig_curve.name}, issuer key on {curve.name}"
    assert issuer_hash_name(cert) == curve.hash_name, (
        f"issuer field {cert['issuer']} does not name {curve.hash_name}, the hash of the "
        f"issuer's {curve.name} key")
    tbs = canonical_cert(cert)["toBeSigned"] if canonical else cert["toBeSigned"]
    message = signing_input(curve, encode_tbs_cert(tbs), issuer_bytes)
    return ecdsa_verify(pub, curve, message, r, s)


def signed_data(data: dict) -> dict:
    assert data["protocolVersion"] == 3, data["protocolVersion"]
    kind, sd = data["content"]
    assert kind == "signedData", kind
    return sd


def data_signature_ok(data_bytes: bytes, signer_cert: bytes | None,
                      self_key: ec.EllipticCurvePublicKey | None = None) -> bool:
    """Verifies signed data: by `signer_cert`'s key, or `self_key` when signer is self."""
    sd = signed_data(decode_data(data_bytes))
    if signer_cert is None:
        curve, r, s = rs_of(sd["signature"])
        pub = self_key
    else:
        curve, pub = cert_key(decode_cert(signer_cert))
        sig_curve, r, s = rs_of(sd["signature"])
        assert sig_curve is curve, f"signature on {sig_curve.name}, key on {curve.name}"
    assert sd["hashId"] == curve.hash_name, f"hashId {sd['hashId']} with a {curve.name} key"
    message = signing_input(curve, encode_tbs_data(sd["tbsData"]), signer_cert)
    return ecdsa_verify(pub, curve, message, r, s)


# --------------------------------------------------------------------------------------
# Building and signing (for the Python-made chains)
# --------------------------------------------------------------------------------------


def sign_cert(tbs: dict, subject_curve: ItsCurve, issuer: tuple | None,
              self_key: ec.EllipticCurvePrivateKey | None = None) -> bytes:
    """An explicit certificate over `tbs`. `issuer` is (issuer certificate bytes, its private
    key) or None for a self-signed one (then `self_key` signs)."""
    if issuer is None:
        curve, priv, issuer_bytes = subject_curve, self_key, None
        issuer_field = ("self", curve.hash_name)
    else:
        issuer_bytes, priv = issuer
        curve, _ = cert_key(decode_cert(issuer_bytes))
        kind = {"sha256": "sha256AndDigest", "sha384": "sha384AndDigest"}[curve.hash_name]
        issuer_field = (kind, bytes.fromhex(hashed_id8(issuer_bytes)))
    message = signing_input(curve, encode_tbs_cert(tbs), issuer_bytes)
    r, s = ecdsa_sign(priv, curve, message)
    return encode_cert({"version": 3, "type": "explicit", "issuer": issuer_field,
                        "toBeSigned": tbs, "signature": make_signature(curve, r, s)})


def sign_data(tbs_data: dict, priv: ec.EllipticCurvePrivateKey, curve: ItsCurve,
              signer_cert: bytes | None, signer_form: str) -> bytes:
    """Ieee1609Dot2Data signedData; signer_form is digest, certificate or self."""
    message = signing_input(curve, encode_tbs_data(tbs_data),
                            None if signer_form == "self" else signer_cert)
    r, s = ecdsa_sign(priv, curve, message)
    if signer_form == "digest":
        signer = ("digest", bytes.fromhex(hashed_id8(signer_cert)))
    elif signer_form == "certificate":
        signer = ("certificate", [decode_cert(signer_cert)])
    else:
        signer = ("self", 0)
    return encode_data({"protocolVersion": 3, "content": ("signedData", {
        "hashId": curve.hash_name, "tbsData": tbs_data, "signer": signer,
        "signature": make_signature(curve, r, s)})})


def unsecured(payload: bytes) -> dict:
    return {"data": {"protocolVersion": 3, "content": ("unsecuredData", payload)}}


# --------------------------------------------------------------------------------------
# Encrypted data (5.3.4, 5.3.5, 6.3.30-6.3.46)
# --------------------------------------------------------------------------------------
#
# ECIES (5.3.5.1) is _kem_reference's (python-ecdsa arithmetic, checked there against the
# Annex D vectors); here it is wrapped in the structures. P1 is the recipient certificate's
# whole hash for certRecipInfo. The data: AES-128-CCM (pyca), 12-byte nonce, 16-byte tag, no
# associated data, over the COER of an Ieee1609Dot2Data.


def ecies_encrypt(curve_name: str, recipient: bytes, key: bytes, p1: bytes, *,
                  uncompressed_v: bool = False) -> dict:
    """EciesP256EncryptedKey value for `key` (16 bytes) to the SEC 1 point `recipient`."""
    kc = kem.CURVES[curve_name]
    v = secrets.randbelow(kc.n - 1) + 1
    raw = kem.ecies1609_encrypt(kc, kc.decode(recipient), key, v, p1)
    point, c, t = raw[:33], raw[33:49], raw[49:]
    if uncompressed_v:
        full = kc.encode(kc.decode(point), compressed=False)
        v_choice = ("uncompressedP256", {"x": full[1:33], "y": full[33:]})
    else:
        v_choice = ("compressed-y-0" if point[0] == 2 else "compressed-y-1", point[1:])
    return {"v": v_choice, "c": c, "t": t}


def ecies_decrypt(curve_name: str, private: int, enc_key: dict, p1: bytes) -> bytes:
    """The 16-byte key of an EciesP256EncryptedKey value; raises kem.Rejected."""
    kind, val = enc_key["v"]
    kc = kem.CURVES[curve_name]
    if kind.startswith("uncompressed"):
        point = kc.encode(kc.decode(b"\x04" + val["x"] + val["y"]), compressed=True)
    else:
        point = (b"\x02" if kind == "compressed-y-0" else b"\x03") + val
    return kem.ecies1609_decrypt(kc, private, point + enc_key["c"] + enc_key["t"], p1)


def cert_ecies_p1(cert_bytes: bytes) -> bytes:
    """P1 for certRecipInfo: the certificate's whole-certificate hash (6.4.3, canonical)."""
    return whole_cert_hash(cert_bytes)(canonical_cert_bytes(cert_bytes)).digest()


def encrypted_data(inner_coer: bytes, recipients: list, key: bytes,
                   nonce: bytes | None = None) -> bytes:
    """COER Ieee1609Dot2Data of encryptedData: `recipients` are RecipientInfo values."""
    nonce = nonce if nonce is not None else os.urandom(12)
    ciphertext = AESCCM(key, tag_length=16).encrypt(nonce, inner_coer, None)
    return encode_data({"protocolVersion": 3, "content": ("encryptedData", {
        "recipients": recipients,
        "ciphertext": ("aes128ccm", {"nonce": nonce, "ccmCiphertext": ciphertext})})})


def cert_recipient(cert_bytes: bytes, key: bytes, *, p1: bytes | None = None,
                   uncompressed_v: bool = False) -> tuple:
    """certRecipInfo giving `key` to the holder of the certificate's encryption key."""
    alt, point = decode_cert(cert_bytes)["toBeSigned"]["encryptionKey"]["publicKey"]
    curve = CURVE_BY_ENC_ALT[alt]
    sec1 = public_key_from_point(curve, point).public_bytes(Encoding.X962,
                                                            PublicFormat.CompressedPoint)
    p1 = cert_ecies_p1(cert_bytes) if p1 is None else p1
    return ("certRecipInfo", {
        "recipientId": bytes.fromhex(hashed_id8(cert_bytes)),
        "encKey": (alt, ecies_encrypt(curve.name, sec1, key, p1,
                                      uncompressed_v=uncompressed_v))})


def decrypt_for_cert(data: bytes, cert_bytes: bytes, priv: ec.EllipticCurvePrivateKey) -> bytes:
    """The plaintext (COER Ieee1609Dot2Data) of encrypted data for a certificate."""
    kind, enc = decode_data(data)["content"]
    assert kind == "encryptedData", kind
    want = bytes.fromhex(hashed_id8(cert_bytes))
    infos = [v for alt, v in enc["recipients"] if alt == "certRecipInfo" and
             v["recipientId"] == want]
    assert len(infos) == 1, f"certRecipInfo for {want.hex()}: {enc['recipients']}"
    alt, enc_key = infos[0]["encKey"]
    key = ecies_decrypt(CURVE_BY_ENC_ALT[alt].name, priv.private_numbers().private_value,
                        enc_key, cert_ecies_p1(cert_bytes))
    alt, ccm = enc["ciphertext"]
    assert alt == "aes128ccm", alt
    return AESCCM(key, tag_length=16).decrypt(ccm["nonce"], ccm["ccmCiphertext"], None)


# --------------------------------------------------------------------------------------
# Time
# --------------------------------------------------------------------------------------

EPOCH = datetime(2004, 1, 1, tzinfo=timezone.utc)
# UTC instants just after each leap second inserted since the epoch.
_LEAPS = [datetime(*d, tzinfo=timezone.utc)
          for d in ((2006, 1, 1), (2009, 1, 1), (2012, 7, 1), (2015, 7, 1), (2017, 1, 1))]
YEAR_SECONDS = 31556952


def _leaps(at: datetime) -> int:
    return sum(1 for leap in _LEAPS if leap <= at)


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def rfc3339(at: datetime) -> str:
    at = at.astimezone(timezone.utc)
    frac = f".{at.microsecond:06d}" if at.microsecond else ""
    return at.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"


def time32(at: datetime) -> int:
    delta = at - EPOCH
    assert delta.microseconds == 0, f"{at} is not a whole second"
    return delta.days * 86400 + delta.seconds + _leaps(at)


def time64(at: datetime) -> int:
    delta = at - EPOCH
    return (delta.days * 86400 + delta.seconds + _leaps(at)) * 10**6 + delta.microseconds


def utc_of_time64(t: int) -> datetime:
    for k in range(len(_LEAPS) + 1):
        at = EPOCH + timedelta(microseconds=t - k * 10**6)
        if _leaps(at) == k:
            return at
    raise ValueError(t)


def utc_of_time32(t: int) -> datetime:
    return utc_of_time64(t * 10**6)


def rfc3339_of_time64(t: int) -> set[str]:
    """The RFC 3339 spellings of a TAI instant: one, or for an inserted leap second both
    23:59:60 and its folding onto the next day's 00:00:00."""
    try:
        return {rfc3339(utc_of_time64(t))}
    except ValueError:
        pass
    for leap in _LEAPS:
        k = _leaps(leap)
        if time64(leap) - 10**6 <= t < time64(leap):  # inside the inserted second
            frac = t - (time64(leap) - 10**6)
            day = (leap - timedelta(days=1)).strftime("%Y-%m-%d")
            sixty = f"{day}T23:59:60" + (f".{frac:06d}" if frac else "") + "Z"
            return {sixty, rfc3339(leap + timedelta(microseconds=frac))}
    raise ValueError(f"Time64 {t} has no UTC spelling (k={k})")


_DURATION_SECONDS = {"microseconds": Decimal("0.000001"), "milliseconds": Decimal("0.001"),
                     "seconds": 1, "minutes": 60, "hours": 3600, "sixtyHours": 216000,
                     "years": YEAR_SECONDS}


def duration_seconds(duration: tuple) -> Decimal:
    kind, n = duration
    return Decimal(n) * _DURATION_SECONDS[kind]


def degrees_to_units(text: str) -> int:
    """A latitude or longitude in decimal degrees (as given) in 1609.2 units of 1e-7 degree,
    rounded to the nearest unit."""
    return int((Decimal(text) * 10**7).to_integral_value(rounding="ROUND_HALF_EVEN"))

"""The trust lists `vss pki` issues, read by a codec and a verifier that are not ours.

One module-scoped run of the CLI makes a PKI (`vss pki init`) and issues, in order: a full CTL
(EA and AA served at one URL), the AA's revocation and a CRL, a delta CTL (EA now served at a
second URL), the next full CTL, and a TLM's ECTL of the PKI's root. Then:

1. Each list decodes strictly with pycrate's compile of the TS 102 941 / TS 103 097 ASN.1
   (_ts102941_asn): the Ieee1609Dot2Data around it and the EtsiTs102941Data inside, each the
   canonical COER of what it decodes to. 1609.2 signed data (protocol version 3) with the
   TS 103 097 header rules, PSID 624 for a CTL or ECTL and 622 for a CRL, version 1, the
   content alternative of its kind, and the subtype rules of the ASN.1 pycrate does not
   enforce (a full CTL deletes nothing; a root's CTL adds no root or TLM, a TLM's no EA or AA).
   Times are the TAI of the test's wall clock (or, for a full CTL issued within the second
   of the one before, one second after that one's) and nextUpdate is --validity after them.
2. The full CTL lists the EA and AA certificates byte for byte as A/ea.cert and A/aa.cert,
   their access points, and a DC entry at --dc-url naming the root by the HashedId8 hashlib
   computes.
3. After the AA's revocation and a delta with a new --url: isFullCtl false, the full CTL's
   ctlSequence, a delete of the AA's HashedId8, the EA added anew at the new URL, nothing
   else; the CRL lists that HashedId8 with thisUpdate < nextUpdate.
4. The next full CTL has the sequence after and no AA.
5. The ECTL lists the root and the TLM byte for byte and the root's DC.
6. Every signature verifies with the reference (_its_reference: pyca `cryptography` over the
   1609.2 signing input computed in Python) under root.cert (CTL, delta CTL, CRL) or tlm.cert
   (ECTL), and the certificates in the lists under their issuer; a changed signed byte, a
   changed signature byte or another signer fails.

vss's JSON summaries are checked against what pycrate decodes, never the other way round.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

import _its_reference as ref
import _ts102941_asn as asn
from _support import PIN, PUK

PSID_CRL, PSID_CTL = 622, 624
CONTENT = {"ctl": "certificateTrustListRca", "delta": "certificateTrustListRca",
           "next": "certificateTrustListRca", "crl": "certificateRevocationList",
           "ectl": "certificateTrustListTlm"}
PSID = {"ctl": PSID_CTL, "delta": PSID_CTL, "next": PSID_CTL, "crl": PSID_CRL,
        "ectl": PSID_CTL}
SIGNER = {"ctl": "root", "delta": "root", "next": "root", "crl": "root", "ectl": "tlm"}
# The list of the same kind issued before (the root's full CTLs follow each other in time).
PREVIOUS = {"next": "ctl"}
LISTS = list(CONTENT)

# --------------------------------------------------------------------------------------
# Running vss once for the module
# --------------------------------------------------------------------------------------


def hashed_id8(cert: bytes) -> bytes:
    """HashedId8 of a certificate whose COER is canonical and whose key is a 256-bit point:
    the last 8 octets of SHA-256 over its bytes (IEEE 1609.2 6.4.3)."""
    return hashlib.sha256(cert).digest()[-8:]


@dataclass
class Issued:
    """One list: its bytes, vss's JSON summary, and the wall clock around its issue (Time32
    seconds, TAI)."""

    data: bytes
    summary: dict
    before: int
    after: int


@dataclass
class Run:
    """Everything the module's one run of vss made, and what it was asked for."""

    root: bytes
    ea: bytes
    aa: bytes
    tlm: bytes
    url: str  # --url of the first full CTL
    new_url: str  # --url of the delta and the next full CTL
    dc_url: str  # --dc-url of the root's lists
    ectl_dc_url: str  # --dc-url of the ECTL
    validity_s: int
    lists: dict[str, Issued]


def _now_time32() -> int:
    return ref.time32(datetime.now(timezone.utc).replace(microsecond=0))


def _url(rng: random.Random, scheme: str = "http") -> str:
    return f"{scheme}://127.0.0.{rng.randrange(1, 255)}:{rng.randrange(1024, 65536)}"


@pytest.fixture(scope="module")
def run(vss_bin, tmp_path_factory, module_rng) -> Run:
    """`vss pki init`, then full CTL, revocation of the AA, CRL, delta CTL at a new URL, the
    next full CTL, and a TLM's ECTL of the root."""
    tmp = tmp_path_factory.mktemp("trust-lists")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VSS_")}
    env.update(VSS_PIN=PIN, VSS_PUK=PUK, HOME=str(tmp))
    pki, tlm = tmp / "pki", tmp / "tlm"

    def vss(*args: str) -> str:
        proc = subprocess.run([str(vss_bin), *args], env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)
        assert proc.returncode == 0, f"vss {' '.join(args)}: {proc.stderr}"
        return proc.stdout

    def issue(path: Path, *args: str) -> Issued:
        before = _now_time32()
        summary = json.loads(vss(*args, "--format", "json"))
        after = _now_time32()
        return Issued(path.read_bytes(), summary, before, after)

    url, new_url = _url(module_rng), _url(module_rng)
    while new_url == url:
        new_url = _url(module_rng)
    dc_url, ectl_dc_url = _url(module_rng, "https"), _url(module_rng, "https")
    hours = module_rng.randrange(1, 24 * 30)
    validity = ("--validity", f"{hours}h")

    vss("pki", "init", "--dir", str(pki), "--name", "interop-lists")
    aa_cert = pki / "aa.cert"
    lists: dict[str, Issued] = {}
    ctl_args = ("pki", "ctl", "issue", "--dir", str(pki), "--dc-url", dc_url, *validity)
    lists["ctl"] = issue(pki / "lists/ctl.oer", *ctl_args, "--url", url)
    vss("pki", "crl", "revoke", "--dir", str(pki), "--cert", str(aa_cert))
    lists["crl"] = issue(pki / "lists/crl.oer", "pki", "crl", "issue", "--dir", str(pki),
                         *validity)
    lists["delta"] = issue(pki / "lists/deltactl.oer", *ctl_args, "--url", new_url,
                           "--delta")
    lists["next"] = issue(pki / "lists/ctl.oer", *ctl_args, "--url", new_url)
    vss("pki", "init", "--dir", str(tlm), "--name", "interop-tlm", "--role", "tlm")
    lists["ectl"] = issue(tlm / "lists/ectl.oer", "pki", "ctl", "issue", "--dir",
                          str(tlm), "--root", str(pki / "root.cert"), "--dc-url", ectl_dc_url,
                          *validity)
    return Run(root=(pki / "root.cert").read_bytes(), ea=(pki / "ea.cert").read_bytes(),
               aa=aa_cert.read_bytes(), tlm=(tlm / "tlm.cert").read_bytes(), url=url,
               new_url=new_url, dc_url=dc_url, ectl_dc_url=ectl_dc_url,
               validity_s=hours * 3600, lists=lists)


# --------------------------------------------------------------------------------------
# Reading a list with pycrate
# --------------------------------------------------------------------------------------


@dataclass
class Opened:
    """A signed list taken apart: the 1609.2 SignedData and the TS 102 941 content."""

    signed: dict
    kind: str  # the EtsiTs102941DataContent alternative
    content: dict

    @property
    def header(self) -> dict:
        return self.signed["tbsData"]["headerInfo"]

    @property
    def generation_s(self) -> int:
        """generationTime (Time64) in whole Time32 seconds."""
        return self.header["generationTime"] // 10**6


def open_list(data: bytes) -> Opened:
    """`data` decoded strictly as Ieee1609Dot2Data (signed, version 3) carrying a COER
    EtsiTs102941Data (version 1) as unsecuredData."""
    outer = asn.decode(asn.Ieee1609Dot2Data, data)
    assert outer["protocolVersion"] == 3, outer["protocolVersion"]
    kind, signed = outer["content"]
    assert kind == "signedData", kind
    payload = signed["tbsData"]["payload"]
    assert set(payload) == {"data"}, f"payload {set(payload)}: not data alone"
    assert payload["data"]["protocolVersion"] == 3, payload["data"]
    kind, inner_bytes = payload["data"]["content"]
    assert kind == "unsecuredData", kind
    inner = asn.decode(asn.EtsiTs102941Data, inner_bytes)
    assert inner["version"] == 1, inner
    kind, content = inner["content"]
    return Opened(signed, kind, content)


def commands(content: dict) -> list[tuple[str, str, object]]:
    """The CtlCommands of a CtlFormat as (add|delete, alternative, value)."""
    return [(command, *choice) for command, choice in content["ctlCommands"]]


def cert_bytes(value: dict) -> bytes:
    """An EtsiTs103097Certificate value as COER, by pycrate."""
    return asn.encode(asn.EtsiTs103097Certificate, value)


def adds(content: dict, alternative: str) -> list:
    return [v for c, alt, v in commands(content) if c == "add" and alt == alternative]


def deletes(content: dict) -> list[tuple[str, object]]:
    return [(alt, v) for c, alt, v in commands(content) if c == "delete"]


# --------------------------------------------------------------------------------------
# 1. Every list decodes, strictly, as what it is
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LISTS)
def test_list_decodes_strictly_as_its_kind(run, name):
    issued = run.lists[name]
    opened = open_list(issued.data)
    header = opened.header
    # TS 103 097 (EtsiTs103097Data): generationTime present, no p2pcd request or missing CRL.
    assert header["psid"] == PSID[name], header
    assert "generationTime" in header, header
    assert not {"p2pcdLearningRequest", "missingCrlIdentifier"} & set(header), header
    assert opened.signed["hashId"] == "sha256", opened.signed["hashId"]
    assert opened.kind == CONTENT[name], opened.kind
    assert opened.content["version"] == 1, opened.content
    # Issued now: the generation time is the TAI of the wall clock around the command, or
    # (a list of the same kind issued within the same second) one second after that one's.
    latest = issued.after
    if name in PREVIOUS:
        previous = open_list(run.lists[PREVIOUS[name]].data).generation_s
        assert opened.generation_s > previous, (opened.generation_s, previous)
        latest = max(latest, previous + 1)
    assert issued.before <= opened.generation_s <= latest, (
        f"generationTime {opened.generation_s} not in [{issued.before}, {latest}]")
    # Who signs: the root by digest; the TLM by digest or with its certificate.
    signer = SIGNER[name]
    signer_cert = run.root if signer == "root" else run.tlm
    kind, value = opened.signed["signer"]
    if kind == "certificate":
        assert signer == "tlm" and [cert_bytes(c) for c in value] == [signer_cert], value
    else:
        assert (kind, value) == ("digest", hashed_id8(signer_cert)), opened.signed["signer"]
    if name == "crl":
        this_update = opened.content["thisUpdate"]
        assert issued.before <= this_update <= issued.after, this_update
        assert opened.content["nextUpdate"] == this_update + run.validity_s, opened.content
        return
    # CtlFormat: nextUpdate --validity on, and the subtype rules of the ASN.1.
    assert abs(opened.content["nextUpdate"] - opened.generation_s - run.validity_s) <= 1, (
        opened.content["nextUpdate"], opened.generation_s, run.validity_s)
    assert opened.content["isFullCtl"] is (name != "delta"), opened.content["isFullCtl"]
    entries = Counter((c, alt) for c, alt, _ in commands(opened.content))
    if opened.content["isFullCtl"]:  # FullCtl: delete ABSENT
        assert not deletes(opened.content), deletes(opened.content)
    forbidden = {"rca", "tlm"} if name != "ectl" else {"ea", "aa"}
    assert not {alt for c, alt in entries if c == "add"} & forbidden, entries


@pytest.mark.parametrize("name", LISTS)
def test_vss_summary_is_what_pycrate_decodes(run, name):
    """The JSON vss prints about a list is what the list holds."""
    summary = run.lists[name].summary
    opened = open_list(run.lists[name].data)
    signer = run.root if SIGNER[name] == "root" else run.tlm
    assert summary["signer"] == hashed_id8(signer).hex().upper(), summary
    if name == "crl":
        assert summary["revoked"] == [e.hex().upper() for e in opened.content["entries"]]
        return
    content = opened.content
    assert (summary["full"], summary["sequence"]) == (content["isFullCtl"],
                                                      content["ctlSequence"]), summary
    assert summary["deletions"] == [{"cert": v.hex().upper()}
                                    for alt, v in deletes(content) if alt == "cert"], summary
    assert sorted(e["hashed_id8"] for e in summary["eas"]) == sorted(
        hashed_id8(cert_bytes(e["eaCertificate"])).hex().upper() for e in adds(content, "ea"))
    assert sorted(e["hashed_id8"] for e in summary["aas"]) == sorted(
        hashed_id8(cert_bytes(e["aaCertificate"])).hex().upper() for e in adds(content, "aa"))
    assert sorted(d["url"] for d in summary["dcs"]) == sorted(d["url"] for d in adds(content, "dc"))


# --------------------------------------------------------------------------------------
# 2. The full CTL
# --------------------------------------------------------------------------------------


def test_full_ctl_lists_the_ea_aa_and_dc(run):
    content = open_list(run.lists["ctl"].data).content
    assert content["isFullCtl"] is True
    [ea], [aa], [dc] = adds(content, "ea"), adds(content, "aa"), adds(content, "dc")
    assert len(commands(content)) == 3, commands(content)
    assert cert_bytes(ea["eaCertificate"]) == run.ea
    assert cert_bytes(aa["aaCertificate"]) == run.aa
    # The EA is reached at --url by stations and by the AA; the AA at --url.
    assert (ea["itsAccessPoint"], ea["aaAccessPoint"], aa["accessPoint"]) == (
        run.url, run.url, run.url), (ea, aa)
    assert dc == {"url": run.dc_url, "cert": [hashed_id8(run.root)]}, dc
    # The hashlib shortcut is the 1609.2 HashedId8 (the certificates are canonical), and
    # the listed authorities are the root's.
    for cert in (run.root, run.ea, run.aa):
        assert hashed_id8(cert).hex().upper() == ref.hashed_id8(cert)
    for cert in (run.ea, run.aa):
        assert ref.decode_cert(cert)["issuer"] == ("sha256AndDigest", hashed_id8(run.root))


# --------------------------------------------------------------------------------------
# 3. Revocation: the delta CTL and the CRL
# --------------------------------------------------------------------------------------


def test_delta_ctl_deletes_the_revoked_aa_and_adds_the_moved_ea(run):
    full = open_list(run.lists["ctl"].data).content
    delta = open_list(run.lists["delta"].data).content
    assert delta["isFullCtl"] is False
    assert delta["ctlSequence"] == full["ctlSequence"], (delta["ctlSequence"],
                                                         full["ctlSequence"])
    assert deletes(delta) == [("cert", hashed_id8(run.aa))], deletes(delta)
    [ea] = adds(delta, "ea")
    assert cert_bytes(ea["eaCertificate"]) == run.ea
    assert (ea["itsAccessPoint"], ea["aaAccessPoint"]) == (run.new_url, run.new_url), ea
    # Nothing else changed: no AA (revoked) and no DC (the same --dc-url).
    assert Counter((c, alt) for c, alt, _ in commands(delta)) == {
        ("delete", "cert"): 1, ("add", "ea"): 1}, commands(delta)


def test_crl_lists_the_revoked_aa(run):
    crl = open_list(run.lists["crl"].data).content
    assert crl["entries"] == [hashed_id8(run.aa)], crl["entries"]
    assert crl["thisUpdate"] < crl["nextUpdate"], crl
    assert hashed_id8(run.ea) not in crl["entries"]


# --------------------------------------------------------------------------------------
# 4. The next full CTL
# --------------------------------------------------------------------------------------


def test_next_full_ctl_has_the_next_sequence_and_no_aa(run):
    first = open_list(run.lists["ctl"].data).content
    following = open_list(run.lists["next"].data).content
    assert following["isFullCtl"] is True
    assert following["ctlSequence"] == (first["ctlSequence"] + 1) % 256, (
        following["ctlSequence"], first["ctlSequence"])
    assert adds(following, "aa") == [], adds(following, "aa")
    [ea], [dc] = adds(following, "ea"), adds(following, "dc")
    assert cert_bytes(ea["eaCertificate"]) == run.ea
    assert (ea["itsAccessPoint"], ea["aaAccessPoint"]) == (run.new_url, run.new_url), ea
    assert dc == {"url": run.dc_url, "cert": [hashed_id8(run.root)]}, dc
    assert len(commands(following)) == 2, commands(following)


# --------------------------------------------------------------------------------------
# 5. The ECTL
# --------------------------------------------------------------------------------------


def test_ectl_lists_the_root_the_tlm_and_the_dc(run):
    content = open_list(run.lists["ectl"].data).content
    assert content["isFullCtl"] is True
    [rca], [tlm], [dc] = adds(content, "rca"), adds(content, "tlm"), adds(content, "dc")
    assert len(commands(content)) == 3, commands(content)
    assert cert_bytes(rca["selfsignedRootCa"]) == run.root
    assert "linkRootCaCertificate" not in rca, rca
    assert cert_bytes(tlm["selfSignedTLMCertificate"]) == run.tlm
    assert "linkTLMCertificate" not in tlm, tlm
    assert tlm["accessPoint"].startswith(("http://", "https://")), tlm["accessPoint"]
    assert dc == {"url": run.ectl_dc_url, "cert": [hashed_id8(run.root)]}, dc
    assert ref.cert_signature_ok(run.root, None) and ref.cert_signature_ok(run.tlm, None)


# --------------------------------------------------------------------------------------
# 6. Signatures, by the reference
# --------------------------------------------------------------------------------------


def _changed(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 0x01
    return bytes(out)


@pytest.mark.parametrize("name", LISTS)
def test_list_signature_verifies_under_its_signer(run, name):
    data = run.lists[name].data
    signer = run.root if SIGNER[name] == "root" else run.tlm
    other = run.tlm if SIGNER[name] == "root" else run.root
    assert ref.data_signature_ok(data, signer), f"{name}: the signature does not verify"
    assert not ref.data_signature_ok(data, other), f"{name}: verifies under another key"
    # The last octet is the signature's s; a signed octet: one in the TS 102 941 payload (its
    # nextUpdate, whose change leaves the list decodable).
    assert not ref.data_signature_ok(_changed(data, len(data) - 1), signer)
    opened = open_list(data)
    next_update = opened.content["nextUpdate"].to_bytes(4, "big")
    assert data.count(next_update) == 1, f"{name}: nextUpdate is not found once in the bytes"
    changed = _changed(data, data.index(next_update) + 3)
    assert open_list(changed).content["nextUpdate"] == opened.content["nextUpdate"] ^ 1
    assert not ref.data_signature_ok(changed, signer), f"{name}: a changed list verifies"


@pytest.mark.parametrize("name", ["ctl", "delta", "next", "ectl"])
def test_listed_certificates_verify_under_their_issuer(run, name):
    content = open_list(run.lists[name].data).content
    issued = [(cert_bytes(v["eaCertificate"]), run.root) for v in adds(content, "ea")]
    issued += [(cert_bytes(v["aaCertificate"]), run.root) for v in adds(content, "aa")]
    issued += [(cert_bytes(v["selfsignedRootCa"]), None) for v in adds(content, "rca")]
    issued += [(cert_bytes(v["selfSignedTLMCertificate"]), None) for v in adds(content, "tlm")]
    assert issued, f"{name} lists no certificate"
    for cert, issuer in issued:
        assert ref.cert_signature_ok(cert, issuer), ref.hashed_id8(cert)

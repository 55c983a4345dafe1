"""The Python package `vss` (crates/vss-python, PyO3): an entity opened from the
configuration `vss testbed up` writes signs and verifies in-process; its messages verify
under the independent IEEE 1609.2 reference (_its_reference: pycrate + pyca); tampered,
garbage and replayed messages get their verdicts; batches keep their order; errors are
classes; `vss.kem.encap` agrees with the ISO 18033-2 / IEEE 1609.2 reference
(_kem_reference) and `Entity.decap` with `vss.kem.encap`; `vss.its.decode` shows published
captures; threads sign at once.

scripts/test builds the wheel with maturin and installs it into the venv, so a missing
package is a failure, never a skip.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator

import pytest

import _its_reference as its_ref
from _testbed import Bed, start_testbed, stop_testbed
import _kem_reference as kem_ref

try:
    import vss
except ImportError as e:  # pragma: no cover - the message is the point
    pytest.fail(f"the Python package vss is not installed ({e}): scripts/test builds it with "
                "maturin (crates/vss-python/pyproject.toml)", pytrace=False)

REPO_ROOT = Path(__file__).resolve().parents[2]
VECTORS = REPO_ROOT / "tests" / "vectors" / "its"
PROTO = REPO_ROOT / "crates" / "vss-proto" / "proto" / "vss" / "v1" / "vss.proto"
CAM = 36


# --------------------------------------------------------------------------------------
# The testbed: `vss testbed up --dir` (two PKIs on loopback, one provisioned station)
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def testbed(vss_bin, tmp_path_factory) -> Iterator[Bed]:
    bed = start_testbed(vss_bin, tmp_path_factory.mktemp("bed"))
    try:
        yield bed
    finally:
        stop_testbed(bed)


@pytest.fixture
def entity(testbed) -> Iterator[vss.Entity]:
    """The station's entity, its certificate cache primed: the first message it signs
    carries the certificate, and verifying it caches the signer for the digest-signed
    messages after it."""
    with vss.Entity.open(testbed.config) as e:
        first = e.verify(e.sign(b"first", psid=CAM))
        assert first.verdict == vss.Verdict.VALID, first
        yield e


def tampered(data: bytes) -> bytes:
    """The signature's last octet changed (the last field of signed data)."""
    return data[:-1] + bytes([data[-1] ^ 0x01])


# --------------------------------------------------------------------------------------
# The package itself: verdict numbering, exception classes
# --------------------------------------------------------------------------------------


def test_verdict_numbering_is_the_protos_report_code():
    codes = dict(re.findall(r"REPORT_CODE_([A-Z_]+) = (\d+);", PROTO.read_text()))
    del codes["UNSPECIFIED"]
    codes["VALID"] = codes.pop("SUCCESS")
    assert {v.name: v.value for v in vss.Verdict} == {k: int(n) for k, n in codes.items()}


def test_every_error_is_a_vss_error():
    classes = [vss.ConfigError, vss.PinError, vss.HsmError, vss.NoPseudonymError,
               vss.PsidNotPermittedError, vss.IdChangeError, vss.UnknownMessageError,
               vss.FrameError, vss.StatsError, vss.EngineError, vss.ItsError, vss.PkiError,
               vss.CryptoError, vss.ClosedError]
    for cls in classes:
        assert issubclass(cls, vss.Error) and cls is not vss.Error, cls
        assert cls.__module__ == "vss", cls.__module__
    assert issubclass(vss.Error, Exception)


# --------------------------------------------------------------------------------------
# vss.its.decode (no entity needed)
# --------------------------------------------------------------------------------------


def test_its_decode_shows_a_published_cam():
    data = (VECTORS / "captures" / "vanetza_cam_golf8_signer_digest.oer").read_bytes()
    structure = vss.its.decode(data)
    assert structure["protocolVersion"] == 3
    signed = structure["content"]["signedData"]
    assert signed["hashId"] == "sha256"
    assert signed["signer"] == {"digest": "127CFF384CE0B890"}
    header = signed["tbsData"]["headerInfo"]
    assert header["psid"] == CAM
    assert header["generationTime"] == 501427678847076
    inner = signed["tbsData"]["payload"]["data"]
    payload = bytes.fromhex(inner["content"]["unsecuredData"])
    assert len(payload) > 20 and data.find(payload) > 0, "the payload is the capture's bytes"


@pytest.mark.parametrize("data", [b"", b"\x03", b"\x03\x81", b"\xff" * 40])
def test_its_decode_refuses_garbage_with_its_error(data):
    with pytest.raises(vss.ItsError):
        vss.its.decode(data)


def test_its_decode_refuses_trailing_bytes():
    data = (VECTORS / "captures" / "vanetza_cam_golf8_signer_digest.oer").read_bytes()
    with pytest.raises(vss.ItsError, match="trailing"):
        vss.its.decode(data + b"\x00")


# --------------------------------------------------------------------------------------
# vss.kem.encap against the reference (no entity needed)
# --------------------------------------------------------------------------------------


def _reference_key(curve, rng) -> tuple[int, bytes]:
    d = rng.randrange(1, curve.n)
    return d, curve.encode(curve.mul(d), compressed=False)


@pytest.mark.parametrize("curve_name", ["p256", "bp256", "k283", "b283"])
def test_kem_encap_psec_kem_decapsulates_under_the_reference(curve_name, rng, seed_note):
    curve = kem_ref.CURVES[curve_name]
    d, public = _reference_key(curve, rng)
    for key_len in (32, 64):
        ciphertext, key = vss.kem.encap("psec-kem", curve_name, public, key_len)
        assert len(key) == key_len
        assert kem_ref.psec_decap(curve, d, ciphertext, key_len) == key, seed_note


@pytest.mark.parametrize("curve_name", ["p256", "k283"])
def test_kem_encap_ecies_kem_decapsulates_under_the_reference(curve_name, rng, seed_note):
    curve = kem_ref.CURVES[curve_name]
    d, public = _reference_key(curve, rng)
    ciphertext, key = vss.kem.encap("ecies-kem", curve_name, public)
    assert len(key) == 32
    assert kem_ref.ecies_kem_decap(curve, d, ciphertext) == key, seed_note


@pytest.mark.parametrize("curve_name", ["p256", "bp256"])
def test_kem_encap_ecies_1609_decrypts_under_the_reference(curve_name, rng, seed_note):
    curve = kem_ref.CURVES[curve_name]
    d, public = _reference_key(curve, rng)
    ciphertext, key = vss.kem.encap("ecies-1609", curve_name, public)
    assert len(key) == 16
    assert kem_ref.ecies1609_decrypt(curve, d, ciphertext) == key, seed_note


def test_kem_encap_refuses_bad_arguments(rng):
    curve = kem_ref.CURVES["p256"]
    _, public = _reference_key(curve, rng)
    with pytest.raises(ValueError):
        vss.kem.encap("rsa-kem", "p256", public)
    with pytest.raises(ValueError):
        vss.kem.encap("psec-kem", "p257", public)
    with pytest.raises(vss.CryptoError):
        vss.kem.encap("psec-kem", "p256", public[:-1])
    with pytest.raises(vss.CryptoError):
        vss.kem.encap("ecies-1609", "k283", public)
    with pytest.raises(vss.CryptoError):
        vss.kem.encap("ecies-1609", "p256", public, 32)


# --------------------------------------------------------------------------------------
# Errors of opening
# --------------------------------------------------------------------------------------


def test_a_missing_configuration_is_a_config_error(tmp_path):
    with pytest.raises(vss.ConfigError, match="nothing-here.toml"):
        vss.Entity.open(tmp_path / "nothing-here.toml")


def test_a_bad_configuration_is_a_config_error(tmp_path):
    path = tmp_path / "vss.toml"
    path.write_text("[hsm]\nstore = 'keys'\nno_such_key = 1\n")
    with pytest.raises(vss.ConfigError, match="no_such_key"):
        vss.Entity.open(path)


def test_no_pin_anywhere_is_a_pin_error(testbed, monkeypatch):
    config = testbed.variant("no-pin.toml",
                             lambda t: re.sub(r'(?m)^pin_file = .*\n', "", t))
    monkeypatch.delenv("VSS_PIN", raising=False)
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    with pytest.raises(vss.PinError, match="no PIN"):
        vss.Entity.open(config)
    monkeypatch.setenv("VSS_PIN", testbed.pin())
    vss.Entity.open(config).close()


def test_a_wrong_pin_is_a_pin_error_and_costs_one_try(testbed, monkeypatch):
    config = testbed.variant("env-pin.toml",
                             lambda t: re.sub(r'(?m)^pin_file = .*\n', "", t))
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    monkeypatch.setenv("VSS_PIN", "000000")
    with pytest.raises(vss.PinError, match="wrong PIN"):
        vss.Entity.open(config)
    monkeypatch.setenv("VSS_PIN", testbed.pin())
    vss.Entity.open(config).close()  # a right PIN resets the count


# --------------------------------------------------------------------------------------
# Sign and verify
# --------------------------------------------------------------------------------------


def test_signs_what_the_reference_verifies(testbed):
    with vss.Entity.open(testbed.config) as e:
        data = e.sign(b"CAM from Python", psid=CAM)
        own = e.verify(data)
    structure = its_ref.decode_data(data)
    kind, signer = its_ref.signed_data(structure)["signer"]
    assert kind == "certificate", "a fresh entity's first message carries its certificate"
    certificate = its_ref.encode_cert(signer[0])
    assert its_ref.data_signature_ok(data, certificate)
    assert not its_ref.data_signature_ok(tampered(data), certificate)
    assert own.verdict == vss.Verdict.VALID and own.valid
    assert own.signer == bytes.fromhex(its_ref.hashed_id8(certificate))
    decoded = vss.its.decode(data)["content"]["signedData"]["tbsData"]
    assert decoded["headerInfo"]["psid"] == CAM
    assert decoded["payload"]["data"]["content"]["unsecuredData"] == b"CAM from Python".hex().upper()


def test_verify_gives_payload_psid_and_signer(entity):
    data = entity.sign(b"hello", psid=CAM)
    v = entity.verify(data)
    assert v.verdict is vss.Verdict.VALID
    assert (v.payload, v.psid, v.reason, v.on_demand_id) == (b"hello", CAM, "", None)
    assert v.signer is not None and len(v.signer) == 8
    assert entity.status().current_pseudonym == v.signer


def test_tampered_garbage_and_replayed_messages_get_their_verdicts(entity):
    data = entity.sign(b"to be tampered with", psid=CAM)
    bad = entity.verify(tampered(data))
    assert bad.verdict is vss.Verdict.FALSE_SIGNATURE, bad
    assert bad.payload is None and bad.signer is None and bad.reason and not bad.valid
    assert entity.verify(b"\x03\x81garbage").verdict is vss.Verdict.MALFORMED
    assert entity.verify(data).verdict is vss.Verdict.VALID
    assert entity.verify(data).verdict is vss.Verdict.DUPLICATE_MESSAGE


def test_verify_batch_keeps_the_order(entity):
    messages = [entity.sign(f"batch {i}".encode(), psid=CAM) for i in range(12)]
    batch = list(messages)
    batch[3] = tampered(batch[3])
    batch[7] = b"not 1609.2"
    batch.append(messages[0])  # a copy of a message accepted earlier in the same batch
    results = entity.verify_batch(batch)
    assert len(results) == len(batch)
    expected = [vss.Verdict.VALID] * 12 + [vss.Verdict.DUPLICATE_MESSAGE]
    expected[3] = vss.Verdict.FALSE_SIGNATURE
    expected[7] = vss.Verdict.MALFORMED
    assert [r.verdict for r in results] == expected
    for i, r in enumerate(results[:12]):
        if r.valid:
            assert r.payload == f"batch {i}".encode()
    assert entity.verify_batch([]) == []


def test_status_counts_what_happened(entity):
    before = entity.status()
    entity.verify(entity.sign(b"counted", psid=CAM))
    entity.verify(b"garbage")
    after = entity.status()
    assert after.verified_valid == before.verified_valid + 1
    assert after.verified_invalid == before.verified_invalid + 1
    assert after.pool_level >= 1
    assert after.cache_hits + after.cache_misses >= 1


def test_a_psid_the_pseudonym_lacks_is_refused(entity):
    with pytest.raises(vss.PsidNotPermittedError, match="12345"):
        entity.sign(b"x", psid=12345)
    with pytest.raises(OverflowError):
        entity.sign(b"x", psid=-1)


def test_a_closed_entity_refuses_calls(testbed):
    e = vss.Entity.open(testbed.config)
    data = e.sign(b"before close")
    e.close()
    e.close()
    with pytest.raises(vss.ClosedError):
        e.sign(b"after close")
    with pytest.raises(vss.ClosedError):
        e.verify(data)
    with vss.Entity.open(testbed.config) as e2:
        pass
    with pytest.raises(vss.ClosedError):
        e2.status()


def test_threads_sign_and_verify_at_once(entity):
    threads, per_thread = 8, 10
    signed: list[list[bytes]] = [[] for _ in range(threads)]
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def work(index: int) -> None:
        try:
            start.wait()
            for i in range(per_thread):
                signed[index].append(entity.sign(f"{index}/{i}".encode(), psid=CAM))
        except BaseException as e:  # reported below
            errors.append(e)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors
    messages = [m for ms in signed for m in ms]
    assert len(set(messages)) == threads * per_thread
    results = entity.verify_batch(messages)
    payloads = {r.payload for r in results if r.verdict is vss.Verdict.VALID}
    assert payloads == {f"{t}/{i}".encode() for t in range(threads) for i in range(per_thread)}


# --------------------------------------------------------------------------------------
# Pseudonym changes
# --------------------------------------------------------------------------------------


def test_id_change_needs_a_listener_by_default(entity):
    with pytest.raises(vss.IdChangeError, match="listener"):
        entity.trigger_id_change()


def test_trigger_lock_and_unlock_id_change(testbed):
    config = testbed.variant(
        "no-listener.toml",
        lambda t: t.replace("change_needs_listener = true", "change_needs_listener = false"))
    with vss.Entity.open(config) as e:
        before = e.status()
        e.sign(b"with the first pseudonym")
        first = e.status().current_pseudonym
        new = e.trigger_id_change()
        assert len(new) == 8 and new != first
        assert e.status().current_pseudonym == new
        assert e.status().id_changes == before.id_changes + 1
        e.lock_id_change(30)
        with pytest.raises(vss.IdChangeError, match="blocked"):
            e.trigger_id_change()
        e.unlock_id_change()
        assert e.trigger_id_change() not in (new, first)
        with pytest.raises(ValueError):
            e.lock_id_change(256)


# --------------------------------------------------------------------------------------
# Decapsulation with a key in the entity's store
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme,curve", [("psec-kem", "k283"), ("ecies-kem", "p256"),
                                          ("ecies-1609", "bp256")])
def test_decap_with_the_entitys_key(testbed, vss_bin, scheme, curve):
    label = f"py-kem-{scheme}-{curve}"
    env = {**os.environ, "VSS_PIN": testbed.pin()}
    proc = subprocess.run([str(vss_bin), "kem", "keygen", "--store", str(testbed.store()),
                           "--scheme", scheme, "--curve", curve, "--label", label,
                           "--format", "json"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    public = bytes.fromhex(json.loads(proc.stdout)["public_key"])
    ciphertext, key = vss.kem.encap(scheme, curve, public)
    with vss.Entity.open(testbed.config) as e:
        assert e.decap(scheme, label, ciphertext) == key
        if scheme == "ecies-kem":  # no integrity check: another point gives another key
            try:
                assert e.decap(scheme, label, tampered(ciphertext)) != key
            except vss.CryptoError:
                pass
        else:
            with pytest.raises(vss.CryptoError):
                e.decap(scheme, label, tampered(ciphertext))
        with pytest.raises(vss.HsmError, match="no key labelled"):
            e.decap(scheme, "no-such-key", ciphertext)


# --------------------------------------------------------------------------------------
# The type stubs
# --------------------------------------------------------------------------------------

TYPED_USAGE = '''
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import vss


def use(path: Path, messages: list[bytes], public: bytes) -> list[vss.Verdict]:
    with vss.Entity.open(path) as entity:
        data: bytes = entity.sign(b"payload", psid=36)
        result: vss.Verification = entity.verify(data)
        payload: Optional[bytes] = result.payload
        level: int = entity.status().pool_level
        ciphertext, key = vss.kem.encap("psec-kem", "p256", public, 32)
        again: bytes = entity.decap("psec-kem", "kem", ciphertext)
        structure: dict[str, Any] = vss.its.decode(data)
        try:
            entity.trigger_id_change()
        except vss.IdChangeError as e:
            print(e, payload, level, key == again, structure)
        return [r.verdict for r in entity.verify_batch(messages)]
'''


def _mypy(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           str(path)], capture_output=True, text=True, timeout=300)


def test_type_stubs_pass_mypy_strict_and_catch_misuse(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(TYPED_USAGE)
    proc = _mypy(good)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bad = tmp_path / "bad.py"
    bad.write_text("import vss\n\nx: int = vss.Entity.open('vss.toml').sign(b'x')\n"
                   "vss.kem.encap('psec-kem', 'p256', 'not bytes')\n")
    proc = _mypy(bad)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.count("error:") == 2, proc.stdout

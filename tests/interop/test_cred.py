"""Seed 003's privacy credentials (`vss cred`, `vss card`) from the outside.

- The pure-Python BBS ProofVerify of _bbs_reference.py first replays the draft's fixtures
  (crates/vss-cred/tests/vectors/bbs), so that it can judge our proofs.
- The file flow over a card process on TCP (`vss card serve --listen`): card setup, system
  setup, issuance of the VIP ticket, the gate's policy, presentation, verification once (a
  replayed nonce is refused), inspection, a tampered token, ranges, pseudonyms, a wrong PIN
  and revocation.
- A token checked independently: its presentation header rebuilt from the token as
  presentation.rs builds it, the BBS proof verified by _bbs_reference, the pseudonym's
  equation checked with py_ecc's hash_to_curve.
- The card behind pcscd (vsmartcard's vpcd, slot 0, or slot 1 when another card holds
  slot 0): OpenSC's opensc-tool selects the application, then `vss cred scenario --card
  pcsc`. Skipped without pcscd, opensc-tool or a free vpcd reader, unless VSS_REQUIRE_PCSC=1:
  then a failure. `vss cred scenario` on tcp and soft as well.

Everything runs in pytest's tmp_path, on loopback ports picked at run time (vpcd's
35963/35964 aside), every process under a timeout; each card process this module starts is
stopped at teardown.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import pytest

import _bbs_reference as bbs
from _support import PIN, PUK, ROLE_PIN, ROLE_PUK, stop, wait_for

REQUIRE_PCSC = os.environ.get("VSS_REQUIRE_PCSC") == "1"
TIMEOUT = 120  # seconds, for every command that is not a server
VECTORS = Path(__file__).resolve().parents[2] / "crates/vss-cred/tests/vectors/bbs"

PCSCD_SOCKET = Path("/run/pcscd/pcscd.comm")
# vpcd's slots: its port and the reader pcscd shows for it. One card per slot: the test
# takes slot 0, or slot 1 when another card holds slot 0.
VPCD_SLOTS = [("127.0.0.1:35963", "Virtual PCD 00 00"), ("127.0.0.1:35964", "Virtual PCD 00 01")]
SELECT_VSS = "00 A4 04 00 08 F0 56 53 53 43 52 45 44"  # AID F0 'VSSCRED'
SELECT_UNKNOWN = "00 A4 04 00 08 F0 56 53 53 43 52 45 58"

# Seed 003's VIP ticket and the gate.
TICKET = [
    ("first_name", "John"),
    ("last_name", "Dow"),
    ("birthday", "1985-05-05Z"),
    ("member_number", "23784638726"),
    ("matchday", "2013-08-07Z"),
]
MATCHDAY = "2013-08-07Z"
GATE = "urn:soccer:gate"
GROUNDS = "VIP lottery"

# Mirrors of the constants of crates/vss-cred (presentation.rs, spec.rs, holder.rs).
TRANSCRIPT_LABEL = b"VSS-CRED-PRESENTATION-v1"
SPEC_LABEL = b"VSS-CRED-SPEC-v1:"
NYM_DST = b"VSS_CRED_NYM_BLS12381G1_XMD:SHA-256_SSWU_RO_"
FIRST_ATTRIBUTE_INDEX = 2  # 0: the card's secret, 1: the prover's blinding

# The seed's budget for one presentation's card traffic, and the card's memory.
MAX_PRESENT_APDUS = 28
MAX_PRESENT_BYTES = 1939
MAX_CARD_RSS_KB = 6500

# --------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------


def describe(proc: subprocess.CompletedProcess) -> str:
    cmd = " ".join(str(a) for a in proc.args)
    return (f"`{cmd}` exited {proc.returncode}\n--- stdout:\n{proc.stdout}\n"
            f"--- stderr:\n{proc.stderr}")


def run(cmd: Sequence[str | Path], *, env: dict, check: bool = True,
        timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    args = [str(a) for a in cmd]
    try:
        proc = subprocess.run(args, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"`{' '.join(args)}` ran past {timeout} s; output so far:\n"
                    f"{e.stdout!r}\n{e.stderr!r}", pytrace=False)
    if check:
        assert proc.returncode == 0, describe(proc)
    return proc






def clean_env(home: Path, pin: str = PIN) -> dict:
    """The environment of every command: the card's and the roles' PIN and PUK set, nothing
    else of VSS_*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VSS_")}
    env["VSS_PIN"] = pin
    env["VSS_PUK"] = PUK
    env["VSS_ROLE_PIN"] = ROLE_PIN
    env["VSS_ROLE_PUK"] = ROLE_PUK
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / "data")
    return env


@contextmanager
def card_process(vss_bin: Path, state: Path, mode: list[str], ready: str,
                 env: dict) -> Iterator[tuple[subprocess.Popen, Path, str]]:
    """`vss card serve --state STATE MODE…` until the block ends; yields the process, its
    log and the first log line containing `ready` (waited for, at most 30 s)."""
    log = state.with_suffix(".log")
    with open(log, "w") as out:
        proc = subprocess.Popen([str(vss_bin), "card", "serve", "--state", str(state), *mode],
                                env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    try:
        def line() -> str | None:
            return next((l for l in log.read_text(errors="replace").splitlines()
                         if ready in l), None)
        wait_for(lambda: line() is not None, f"vss card serve: {ready!r}", 30, proc, log)
        yield proc, log, line()
    finally:
        stop(proc)


# --------------------------------------------------------------------------------------
# The world of the file flow: a card on TCP, the roles in D, the ticket issued
# --------------------------------------------------------------------------------------


@dataclass
class World:
    vss_bin: Path
    tmp: Path
    dir: Path
    addr: str
    env: dict
    credential: Path
    spec: dict
    issuer_public_key: bytes
    counter: int = 0

    def vss(self, *args: str | Path, check: bool = True, pin: str | None = None,
            role_pin: str | None = None, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
        env = dict(self.env)
        if pin is not None:
            env["VSS_PIN"] = pin
        if role_pin is not None:
            env["VSS_ROLE_PIN"] = role_pin
        return run([self.vss_bin, *args], env=env, check=check, timeout=timeout)

    def fresh(self, stem: str) -> Path:
        self.counter += 1
        return self.tmp / f"{stem}-{self.counter}.json"

    def policy(self, *options: str) -> Path:
        out = self.fresh("policy")
        self.vss("cred", "policy", "--dir", self.dir, *options, "--out", out)
        return out

    def present(self, policy: Path, credential: Path | None = None, check: bool = True,
                pin: str | None = None) -> tuple[subprocess.CompletedProcess, Path]:
        out = self.fresh("token")
        proc = self.vss("cred", "present", "--card", "tcp", "--card-addr", self.addr,
                        "--credential", credential or self.credential, "--policy", policy,
                        "--revocation", self.dir / "revocation", "--out", out,
                        check=check, pin=pin)
        return proc, out

    def verify(self, token: Path, check: bool = True) -> tuple[subprocess.CompletedProcess,
                                                               dict | None]:
        proc = self.vss("cred", "verify", "--dir", self.dir, "--token", token,
                        "--format", "json", check=check)
        return proc, (json.loads(proc.stdout) if proc.returncode == 0 else None)

    def issue(self, attributes, slot: int) -> Path:
        out = self.fresh("credential")
        args = [a for name, value in attributes for a in ("--attribute", f"{name}={value}")]
        self.vss("cred", "issue", "--dir", self.dir, "--card", "tcp", "--card-addr", self.addr,
                 *args, "--slot", str(slot), "--out", out)
        return out


@pytest.fixture(scope="module")
def world(vss_bin, tmp_path_factory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("cred")
    env = clean_env(tmp / "home")
    with card_process(vss_bin, tmp / "card.state", ["--listen", "127.0.0.1:0"],
                      "listening on", env) as (_, _, line):
        addr = line.rsplit("listening on ", 1)[1].strip()
        run([vss_bin, "card", "setup", "--card", "tcp", "--card-addr", addr], env=env)
        d = tmp / "D"
        run([vss_bin, "cred", "setup", "--dir", d], env=env)
        parameters = json.loads((d / "issuer/parameters.json").read_text())
        w = World(vss_bin, tmp, d, addr, env, tmp / "cred.json", parameters["specification"],
                  bytes.fromhex(parameters["public_key"]))
        w.credential = w.issue(TICKET, slot=0)
        yield w


def flip_proof_byte(token: Path, out: Path, rng) -> int:
    """Writes `token` with one byte of its proof flipped to `out`; returns the byte's offset."""
    doc = json.loads(token.read_text())
    proof = bytearray.fromhex(doc["proof"])
    k = rng.randrange(len(proof))
    proof[k] ^= 1 << rng.randrange(8)
    doc["proof"] = proof.hex()
    out.write_text(json.dumps(doc, indent=2))
    return k


# --------------------------------------------------------------------------------------
# The reference against the draft's fixtures
# --------------------------------------------------------------------------------------


def test_reference_replays_the_drafts_fixtures():
    """_bbs_reference agrees with draft-13's fixtures: generators, MapMessageToScalarAsHash,
    and ProofVerify on every proof fixture, valid and invalid (with the valid ones' domain,
    T1 and T2 from the fixture's trace)."""
    g = json.loads((VECTORS / "generators.json").read_text())
    gens = bbs.generators(1 + len(g["MsgGenerators"]))
    assert bbs.g1_to_bytes(bbs.p1()).hex() == g["P1"]
    assert [bbs.g1_to_bytes(p).hex() for p in gens] == [g["Q1"], *g["MsgGenerators"]]
    m = json.loads((VECTORS / "MapMessageToScalarAsHash.json").read_text())
    assert bytes.fromhex(m["dst"]) == bbs.API_ID + b"MAP_MSG_TO_SCALAR_AS_HASH_"
    for case in m["cases"]:
        assert bbs.map_message_to_scalar(bytes.fromhex(case["message"])) == int(case["scalar"], 16)
    fixtures = sorted((VECTORS / "proof").glob("*.json"))
    assert len(fixtures) >= 10
    verdicts = {True: 0, False: 0}
    for path in fixtures:
        f = json.loads(path.read_text())
        messages = [bbs.map_message_to_scalar(bytes.fromhex(x)) for x in f["messages"]]
        disclosed = [(i, messages[i]) for i in f["disclosedIndexes"]]
        trace: dict = {}
        got = bbs.proof_verify(bytes.fromhex(f["signerPublicKey"]), bytes.fromhex(f["proof"]),
                               bytes.fromhex(f["header"]), bytes.fromhex(f["presentationHeader"]),
                               disclosed, trace)
        assert got == f["result"]["valid"], f"{path.name} ({f['caseName']}): {got}"
        if got:
            t = f["trace"]
            assert trace["domain"] == int(t["domain"], 16), path.name
            assert (trace["T1"].hex(), trace["T2"].hex()) == (t["T1"], t["T2"]), path.name
        verdicts[got] += 1
    assert verdicts[True] >= 3 and verdicts[False] >= 3, verdicts


# --------------------------------------------------------------------------------------
# The file flow over the TCP card
# --------------------------------------------------------------------------------------


def test_gate_presentation_verifies_once_and_the_inspector_opens_the_member_number(world):
    policy = world.policy("--equal", f"matchday={MATCHDAY}", "--inspect",
                          f"member_number={GROUNDS}", "--revocation", "--scope", GATE)
    _, token = world.present(policy)
    _, verdict = world.verify(token)
    assert verdict["valid"] is True
    assert verdict["disclosed"] == [["matchday", MATCHDAY]]
    assert re.fullmatch(r"[0-9a-f]{96}", verdict["pseudonym"] or ""), verdict
    replay, _ = world.verify(token, check=False)
    assert replay.returncode != 0, f"a replayed token verified again:\n{describe(replay)}"
    opened = json.loads(world.vss("cred", "inspect", "--dir", world.dir, "--token", token,
                                  "--format", "json").stdout)
    assert opened == [{"attribute": "member_number", "grounds": GROUNDS,
                       "value": "23784638726"}]


def test_a_token_with_a_flipped_proof_byte_is_refused(world, rng, seed_note):
    policy = world.policy("--equal", f"matchday={MATCHDAY}", "--scope", GATE)
    _, token = world.present(policy)
    tampered = world.fresh("tampered")
    k = flip_proof_byte(token, tampered, rng)
    proc, _ = world.verify(tampered, check=False)
    assert proc.returncode != 0, f"proof byte {k} flipped, still valid{seed_note}"
    assert "nonce" not in proc.stderr and "proof" in proc.stderr, describe(proc)


def test_ranges_over_a_hidden_birthday(world):
    policy = world.policy("--range", "birthday=1900-01-01Z..1995-08-07Z")
    _, token = world.present(policy)
    _, verdict = world.verify(token)
    assert verdict == {"valid": True, "disclosed": [], "pseudonym": None}
    outside = world.policy("--range", "birthday=1990-01-01Z..1995-08-07Z")
    proc, token = world.present(outside, check=False)
    assert proc.returncode != 0, f"a 1985 birthday presented for 1990..1995:\n{describe(proc)}"
    assert not token.exists()


def test_pseudonyms_are_scope_exclusive(world):
    def nym(scope: str) -> str:
        _, token = world.present(world.policy("--equal", f"matchday={MATCHDAY}",
                                              "--scope", scope))
        _, verdict = world.verify(token)
        assert verdict["pseudonym"] == json.loads(token.read_text())["pseudonym"]["nym"]
        return verdict["pseudonym"]

    gate = nym(GATE)
    assert nym(GATE) == gate, "two presentations to the gate show different pseudonyms"
    assert nym("urn:soccer:shop") != gate, "another scope shows the gate's pseudonym"


def test_a_wrong_pin_is_refused_and_counted(world):
    policy = world.policy("--equal", f"matchday={MATCHDAY}")
    proc, token = world.present(policy, check=False, pin="999999")
    assert proc.returncode != 0, describe(proc)
    assert re.search(r"\b\d+ tries left", proc.stderr), describe(proc)
    assert not token.exists()
    # The right PIN still works (and resets the counter).
    _, token = world.present(policy)
    assert world.verify(token)[1]["valid"] is True


def test_the_roles_keys_are_sealed_under_the_role_pin(world):
    """The issuer's, inspector's and authority's keys are in key stores, not in plain files;
    the public parts need no PIN; a wrong role PIN opens nothing and is counted."""
    for role in ("issuer", "inspector", "revocation"):
        assert (world.dir / role / "store" / "hsm.json").is_file(), role
        assert not (world.dir / role / "secret.json").exists(), role
        assert "secret" not in (world.dir / role / "public.json" if role != "issuer"
                                else world.dir / role / "parameters.json").read_text()
    env = {k: v for k, v in world.env.items() if not k.startswith("VSS_ROLE_")}
    policy = world.fresh("policy")
    run([world.vss_bin, "cred", "policy", "--dir", world.dir, "--inspect",
         f"member_number={GROUNDS}", "--revocation", "--out", policy], env=env)
    _, token = world.present(policy)
    assert world.verify(token)[1]["valid"] is True
    no_pin = run([world.vss_bin, "cred", "inspect", "--dir", world.dir, "--token", token],
                 env=env, check=False)
    assert no_pin.returncode != 0 and "VSS_ROLE_PIN" in no_pin.stderr, describe(no_pin)
    wrong = world.vss("cred", "inspect", "--dir", world.dir, "--token", token,
                      role_pin="wrong-role-pin", check=False)
    assert wrong.returncode != 0 and "wrong PIN (2 tries left" in wrong.stderr, describe(wrong)
    opened = json.loads(world.vss("cred", "inspect", "--dir", world.dir, "--token", token,
                                  "--format", "json").stdout)
    assert opened[0]["value"] == "23784638726", opened


def test_a_revoked_credential_no_longer_presents(world):
    """A second ticket (slot 1) presents under a revocation policy, is revoked, and then
    does not; the first ticket is unaffected."""
    ticket = [(n, "99" if n == "member_number" else v) for n, v in TICKET]
    credential = world.issue(ticket, slot=1)
    _, token = world.present(world.policy("--revocation"), credential)
    assert world.verify(token)[1]["valid"] is True
    world.vss("cred", "revoke", "--dir", world.dir, "--credential", credential)
    proc, token = world.present(world.policy("--revocation"), credential, check=False)
    assert proc.returncode != 0, f"a revoked credential presented:\n{describe(proc)}"
    assert not token.exists()
    _, token = world.present(world.policy("--revocation"))
    assert world.verify(token)[1]["valid"] is True, "revoking one ticket revoked another"


# --------------------------------------------------------------------------------------
# Independent verification of a token
# --------------------------------------------------------------------------------------


def compact(value) -> bytes:
    """serde_json's compact form of a value parsed in order (no spaces, UTF-8 as is)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def message(kind: str, value: str) -> int:
    """An attribute's BBS message: a date counts days since 0001-01-01, an integer is
    itself, a string is hashed (MapMessageToScalarAsHash)."""
    if kind == "date":
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}Z", value), value
        return datetime.date.fromisoformat(value[:-1]).toordinal() - 1
    if kind == "integer":
        return int(value)
    assert kind == "string", kind
    return bbs.map_message_to_scalar(value.encode())


def python_verdict(world: World, token: dict) -> bool:
    """The token's BBS proof and pseudonym, checked with _bbs_reference alone, for a policy
    without ranges, inspections or revocation (whose header is the policy and pseudonym)."""
    policy = token["policy"]
    assert not (policy["ranges"] or policy["inspect"] or policy["revocation"]), policy
    ph = TRANSCRIPT_LABEL + bbs.i2osp(len(compact(policy)), 8) + compact(policy)
    if token["pseudonym"] is not None:
        ph += bytes.fromhex(token["pseudonym"]["nym"]) + bytes.fromhex(token["pseudonym"]["t"])
    header = SPEC_LABEL + compact(world.spec)
    names = [a["name"] for a in world.spec["attributes"]]
    kinds = {a["name"]: a["type"] for a in world.spec["attributes"]}
    disclosed = sorted((FIRST_ATTRIBUTE_INDEX + names.index(n), message(kinds[n], v))
                       for n, v in token["disclosed"])
    proof = bytes.fromhex(token["proof"])
    if not bbs.proof_verify(bytes.fromhex(policy["issuer_public_key"]), proof, header, ph,
                            disclosed):
        return False
    if token["pseudonym"] is None:
        return policy["scope"] is None
    # hash_to_curve(scope)·m^_0 == T_nym + c·nym, m^_0 the card secret's response.
    p = bbs.octets_to_proof(proof)
    nym = bbs.g1_from_bytes(bytes.fromhex(token["pseudonym"]["nym"]))
    t = bbs.g1_from_bytes(bytes.fromhex(token["pseudonym"]["t"]))
    base = bbs.hash_to_curve_g1(policy["scope"].encode(), NYM_DST)
    return bbs.g1_eq(bbs.scalar_mul_g1(base, p.m_hat[0]),
                     bbs.add(t, bbs.scalar_mul_g1(nym, p.challenge)))


def test_python_reference_verifies_our_token(world, rng, seed_note):
    policy = world.policy("--equal", f"matchday={MATCHDAY}", "--scope", GATE)
    _, path = world.present(policy)
    text = path.read_text()
    token = json.loads(text)
    # The byte-equality assumption behind compact(): Python's writer reproduces serde_json's
    # on this artefact (the file is serde's pretty form, the header uses its compact form;
    # the proof verifying below is the decisive check).
    assert json.dumps(token, indent=2, ensure_ascii=False) == text.rstrip("\n")
    assert token["disclosed"] == [["matchday", MATCHDAY]]
    count = FIRST_ATTRIBUTE_INDEX + len(world.spec["attributes"]) + int(world.spec["revocable"])
    assert len(bytes.fromhex(token["proof"])) == 3 * 48 + (4 + count - 1) * 32
    assert python_verdict(world, token), "_bbs_reference rejects a token vss made"

    # vss agrees (and the nonce is its own).
    assert world.verify(path)[1]["valid"] is True

    tampered = world.fresh("tampered")
    k = flip_proof_byte(path, tampered, rng)
    assert not python_verdict(world, json.loads(tampered.read_text())), (
        f"_bbs_reference accepts the token with proof byte {k} flipped{seed_note}")
    other = json.loads(text)
    other["disclosed"] = [["matchday", "2013-08-14Z"]]
    other["policy"]["equal"][0]["value"] = "2013-08-14Z"
    assert not python_verdict(world, other), "_bbs_reference accepts another matchday"


# --------------------------------------------------------------------------------------
# The scenario on each kind of card
# --------------------------------------------------------------------------------------


def check_scenario(report: dict, card_rss: bool) -> None:
    present = report["steps"]["present"]
    print(f"scenario: presentation {present['apdus']} APDUs, {present['bytes']} bytes, "
          f"{present['ms']:.1f} ms; card peak RSS {report['card_max_rss_kb']} kB")
    assert report["refused"] and all(v is True for v in report["refused"].values()), report
    assert report["pseudonym"] and all(v is True for v in report["pseudonym"].values()), report
    assert report["inspected"]["member_number"] == "23784638726", report
    assert present["apdus"] <= MAX_PRESENT_APDUS, present
    assert present["bytes"] <= MAX_PRESENT_BYTES, present
    assert report["card_max_rss_kb"] > 0, report
    if card_rss:
        assert report["card_max_rss_kb"] < MAX_CARD_RSS_KB, report


def scenario(vss_bin: Path, tmp: Path, *args: str) -> dict:
    proc = run([vss_bin, "cred", "scenario", *args, "--format", "json"],
               env=clean_env(tmp / "home"))
    return json.loads(proc.stdout)


def test_scenario_on_a_tcp_card(vss_bin, tmp_path):
    check_scenario(scenario(vss_bin, tmp_path, "--card", "tcp"), card_rss=True)


def test_scenario_on_the_soft_card(vss_bin, tmp_path):
    # The soft card lives in the vss process: its "card RSS" is the whole command's peak,
    # not a card's, so it is not held to the card's budget.
    check_scenario(scenario(vss_bin, tmp_path, "--card", "soft"), card_rss=False)


def pcsc_missing(why: str) -> None:
    if REQUIRE_PCSC:
        pytest.fail(f"{why}, and VSS_REQUIRE_PCSC=1", pytrace=False)
    print(f"skipping the PC/SC test: {why}")
    pytest.skip(why)


def readers(env: dict) -> dict[str, bool]:
    """pcscd's readers (`opensc-tool -l`): name -> whether a card is in it."""
    out = run(["opensc-tool", "-l"], env=env, check=False).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\d+\s+(Yes|No)\s+(.*?)\s*$", line)
        if m:
            found[m.group(2)] = m.group(1) == "Yes"
    return found


def test_scenario_on_a_card_behind_pcscd(vss_bin, tmp_path):
    if not PCSCD_SOCKET.exists():
        pcsc_missing(f"pcscd is not running (no {PCSCD_SOCKET})")
    if shutil.which("opensc-tool") is None:
        pcsc_missing("opensc-tool is not installed (Debian package opensc)")
    env = clean_env(tmp_path / "home")
    present = readers(env)
    free = [(port, reader) for port, reader in VPCD_SLOTS if present.get(reader) is False]
    if not free:
        pcsc_missing(f"no free vpcd reader among {[r for _, r in VPCD_SLOTS]}: {present}")
    vpcd, reader = free[0]
    with card_process(vss_bin, tmp_path / "card.state", ["--vpcd", vpcd],
                      "connected to vpcd", env) as (proc, log, _):
        wait_for(lambda: readers(env).get(reader), f"a card in {reader!r}", 30, proc, log)
        select = run(["opensc-tool", "-r", reader, "-s", SELECT_VSS], env=env)
        assert "SW1=0x90, SW2=0x00" in select.stdout, describe(select)
        unknown = run(["opensc-tool", "-r", reader, "-s", SELECT_UNKNOWN], env=env)
        assert "SW1=0x6A, SW2=0x82" in unknown.stdout, describe(unknown)
        # --reader: another card with the application may sit in the other slot.
        report = scenario(vss_bin, tmp_path, "--card", "pcsc", "--reader", reader)
        check_scenario(report, card_rss=True)

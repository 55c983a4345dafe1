"""Seed 003's five credential role services (`vss cred serve`) driven over HTTP by Python's
standard library client (urllib.request), end to end.

The services are the real CLI's: `vss cred setup --dir D`, a card process on TCP (`vss card
serve --listen 127.0.0.1:0`), then the revocation authority, the issuer and the verifier
(both pointed at the revocation service), the inspector and the user service, each on
`--listen 127.0.0.1:0` (the address read from its `vss cred: listening on ADDR` line). The
user service starts without a card: it is handed the TCP card through /initIoTsmartcard.

Through HTTP only: the card's setup; the VIP ticket offered, requested (the card's share),
issued and stored; the gate's policy (matchday by equality, the member number for the
inspector, the gate's pseudonym, non-revocation) presented and verified once (a replay is
409, a flipped proof byte 422, an unknown nonce 404); the member number opened by the
inspector; the credential revoked by its handle (learnt from the IssuanceResponse) and then
refused; malformed JSON 400, a body over 1 MiB 413, an unknown session 404. The card
traffic a presentation reports (x-card-apdus / x-card-bytes) is held to the seed's budget.
Every service stops on SIGTERM with exit status 0.

Everything runs in pytest's tmp_path; every process is stopped at teardown and every HTTP
call has a timeout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from _support import PIN, PUK, ROLE_PIN, ROLE_PUK, stop

TIMEOUT = 120  # seconds, for every command that is not a server
HTTP_TIMEOUT = 60  # seconds, for every HTTP call (debug builds prove slowly)
START_TIMEOUT = 30  # seconds, for a server's "listening on" line
MAX_BODY_LEN = 1 << 20  # the services' request bound (codec::MAX_ARTEFACT_LEN)

TICKET = [
    ["first_name", "John"],
    ["last_name", "Dow"],
    ["birthday", "1985-05-05Z"],
    ["member_number", "23784638726"],
    ["matchday", "2013-08-07Z"],
]
MATCHDAY = "2013-08-07Z"
GATE = "urn:soccer:gate"
GROUNDS = "lottery of matchday 2013-08-07"

# The seed's budget for one presentation's card traffic.
MAX_PRESENT_APDUS = 28
MAX_PRESENT_BYTES = 1939

ROLES = ("revocation", "issuer", "verifier", "inspector", "user")

# --------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------


def clean_env(home: Path) -> dict:
    """No VSS_* from outside but the roles' PIN and PUK (no VSS_PIN: the user service gets
    its card's PIN over HTTP)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VSS_")}
    env["VSS_ROLE_PIN"] = ROLE_PIN
    env["VSS_ROLE_PUK"] = ROLE_PUK
    home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / "data")
    return env




def start(cmd: list, log: Path, env: dict, stack: ExitStack) -> tuple[subprocess.Popen, str]:
    """Starts `cmd` (stdout and stderr to `log`), stopped when `stack` closes; waits for its
    `listening on ADDR` line and returns the process and ADDR."""
    with open(log, "w") as out:
        proc = subprocess.Popen([str(a) for a in cmd], env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=out)
    stack.callback(stop, proc)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        text = log.read_text(errors="replace")
        line = next((l for l in text.splitlines() if "listening on " in l), None)
        if line is not None:
            return proc, line.rsplit("listening on ", 1)[1].strip()
        assert proc.poll() is None, f"{cmd[1:4]}: exited {proc.returncode} first\n{text}"
        assert time.monotonic() < deadline, f"{cmd[1:4]}: no listening line in {START_TIMEOUT} s"
        time.sleep(0.05)


# --------------------------------------------------------------------------------------
# HTTP with urllib
# --------------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: dict
    body: object

    def traffic(self) -> tuple[int, int]:
        """The card traffic the user service reported: (APDUs, bytes)."""
        return int(self.headers["x-card-apdus"]), int(self.headers["x-card-bytes"])


def send(url: str, data: bytes | None = None) -> Answer:
    """GET `url`, or POST `data` as JSON; any status comes back as an Answer."""
    request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST")
    if data is not None:
        request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            status, headers, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:
        status, headers, raw = e.code, e.headers, e.read()
    assert headers.get_content_type() == "application/json", (url, status, headers, raw[:200])
    return Answer(status, {k.lower(): v for k, v in headers.items()}, json.loads(raw))


def post(url: str, value) -> Answer:
    return send(url, json.dumps(value).encode())


def ok(answer: Answer) -> Answer:
    assert answer.status == 200, f"HTTP {answer.status}: {answer.body}"
    return answer


def refused(answer: Answer, status: int, what: str) -> Answer:
    assert answer.status == status, f"{what}: HTTP {answer.status} (not {status}): {answer.body}"
    assert isinstance(answer.body, dict) and set(answer.body) == {"error"}, answer.body
    assert isinstance(answer.body["error"], str) and answer.body["error"], answer.body
    return answer


# --------------------------------------------------------------------------------------
# The services
# --------------------------------------------------------------------------------------


@dataclass
class Services:
    procs: dict
    urls: dict
    logs: dict
    card_addr: str
    presentations: list = field(default_factory=list)  # (APDUs, bytes) of each one

    def url(self, role: str, path: str) -> str:
        return self.urls[role] + path


@pytest.fixture(scope="module")
def services(vss_bin, tmp_path_factory) -> Iterator[Services]:
    tmp = tmp_path_factory.mktemp("cred-services")
    env = clean_env(tmp / "home")
    d = tmp / "D"
    setup = subprocess.run([str(vss_bin), "cred", "setup", "--dir", str(d)], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=TIMEOUT)
    assert setup.returncode == 0, setup.stderr
    with ExitStack() as stack:
        _, card_addr = start([vss_bin, "card", "serve", "--state", tmp / "card.state",
                              "--listen", "127.0.0.1:0"], tmp / "card.log", env, stack)
        procs, urls, logs = {}, {}, {}
        for role in ROLES:
            cmd = [vss_bin, "cred", "serve", "--dir", d, "--role", role,
                   "--listen", "127.0.0.1:0"]
            if role in ("issuer", "verifier", "user"):
                cmd += ["--revocation-url", urls["revocation"]]
            logs[role] = tmp / f"{role}.log"
            procs[role], addr = start(cmd, logs[role], env, stack)
            host, _, port = addr.rpartition(":")
            assert host == "127.0.0.1" and int(port) > 0, addr
            urls[role] = f"http://{addr}"
        yield Services(procs, urls, logs, card_addr)


def gate_template(s: Services, issuer: dict) -> dict:
    """The gate's policy template: no nonce (the verifier adds one), no revocation state
    (the verifier fetches it)."""
    inspector = ok(send(s.url("inspector", "/public"))).body
    return {
        "version": 1,
        "issuer_public_key": issuer["public_key"],
        "specification_id": issuer["specification"]["id"],
        "equal": [{"attribute": "matchday", "value": MATCHDAY}],
        "inspect": [{"attribute": "member_number", "inspector": inspector,
                     "grounds": GROUNDS}],
        "scope": GATE,
    }


def fresh_policy(s: Services, issuer: dict) -> dict:
    policy = ok(post(s.url("verifier", "/policy"), gate_template(s, issuer))).body
    assert len(bytes.fromhex(policy["nonce"])) >= 16, policy["nonce"]
    assert policy["revocation"] is not None, "the verifier fills in the accumulator's state"
    return policy


def choices_for(s: Services, policy: dict) -> tuple[dict, tuple[int, int]]:
    answer = ok(post(s.url("user", "/createPresentationToken"), policy))
    return answer.body, answer.traffic()


def present(s: Services, policy: dict) -> dict:
    """The user's token for `policy` (choice 0); its card traffic is recorded."""
    choices, first = choices_for(s, policy)
    assert choices["choices"] == [{"choice": 0, "slot": 0,
                                   "specification_id": policy["specification_id"],
                                   "attributes": [["matchday", MATCHDAY]]}], choices
    answer = ok(post(s.url("user", "/createPresentationTokenUi"),
                     {"session": choices["session"], "choice": 0}))
    second = answer.traffic()
    assert second[0] > 0, "the card computes its share of the proof"
    s.presentations.append((first[0] + second[0], first[1] + second[1]))
    return answer.body


# --------------------------------------------------------------------------------------
# The flow
# --------------------------------------------------------------------------------------


def test_vip_ticket_end_to_end_over_http(services, rng, seed_note):
    s = services
    issuer = ok(send(s.url("issuer", "/parameters"))).body
    assert issuer["specification"]["id"] == "urn:soccer:vip-ticket", issuer
    assert issuer["specification"]["revocable"] is True, issuer

    # Before its card, the user service cannot present.
    policy = fresh_policy(s, issuer)
    refused(post(s.url("user", "/createPresentationToken"), policy), 409, "no card yet")

    # The card, set up through the user service.
    setup = ok(post(s.url("user", "/initIoTsmartcard"),
                    {"address": f"tcp:{s.card_addr}", "pin": PIN, "puk": PUK}))
    assert set(setup.body) == {"apdus", "bytes"}, setup.body
    assert setup.body["apdus"] > 0 and setup.body["bytes"] > setup.body["apdus"], setup.body
    assert setup.traffic() == (setup.body["apdus"], setup.body["bytes"]), setup.headers

    # Issuance.
    offer = ok(post(s.url("issuer", "/issuance/offer"), {"attributes": TICKET})).body
    assert offer["attributes"] == TICKET, offer
    step = ok(post(s.url("user", "/issuanceProtocolStep"), offer))
    assert step.traffic() == (0, 0), "an offer is only shown to the user"
    choices = step.body
    assert choices["choices"] == [{"choice": 0, "slot": None,
                                   "specification_id": "urn:soccer:vip-ticket",
                                   "attributes": TICKET}], choices
    request = ok(post(s.url("user", "/issuanceProtocolStepUi"),
                      {"session": choices["session"], "choice": 0}))
    assert request.traffic()[0] > 0, "the card's share of the request"
    issue = s.url("issuer", "/issuance/issue")
    response = ok(post(issue, request.body)).body
    refused(post(issue, request.body), 409, "an offer answered twice")
    handle = response["handle"]
    assert handle and response["witness"], "the credential is revocable: handle and witness"
    stored = ok(post(s.url("user", "/issuanceProtocolStep"),
                     {"session": choices["session"], "response": response}))
    assert stored.body == {"slot": 0}, stored.body
    assert stored.traffic()[0] > 0, "the credential written to the card"
    refused(post(s.url("user", "/issuanceProtocolStep"),
                 {"session": choices["session"], "response": response}),
            404, "a finished issuance session")

    # Presentation, verification once, inspection.
    verify = s.url("verifier", "/verify")
    token = present(s, fresh_policy(s, issuer))
    seen = ok(post(verify, token)).body
    assert seen["disclosed"] == [["matchday", MATCHDAY]], seen
    assert len(bytes.fromhex(seen["pseudonym"])) == 48, seen
    assert seen["pseudonym"] == token["pseudonym"]["nym"], (seen, token["pseudonym"])
    refused(post(verify, token), 409, "a replayed token")
    opened = ok(post(s.url("inspector", "/inspect"), {"token": token, "issuer": issuer})).body
    assert opened == [{"attribute": "member_number", "grounds": GROUNDS,
                       "value": "23784638726"}], opened

    # Same card, same gate: same pseudonym. One proof byte flipped: refused.
    again = present(s, fresh_policy(s, issuer))
    assert again["pseudonym"]["nym"] == seen["pseudonym"], "the gate's pseudonym changed"
    unknown = json.loads(json.dumps(again))
    unknown["policy"]["nonce"] = "07" * 32
    refused(post(verify, unknown), 404, "a nonce the verifier never handed out")
    tampered = json.loads(json.dumps(again))
    proof = bytearray.fromhex(tampered["proof"])
    k = rng.randrange(len(proof))
    proof[k] ^= 1 << rng.randrange(8)
    tampered["proof"] = proof.hex()
    refused(post(verify, tampered), 422, f"proof byte {k} flipped{seed_note}")

    # The seed's budget for a presentation's card traffic, as the user service reports it.
    print(f"presentations (APDUs, bytes): {s.presentations}")
    for apdus, nbytes in s.presentations:
        assert apdus <= MAX_PRESENT_APDUS, s.presentations
        assert nbytes <= MAX_PRESENT_BYTES, s.presentations

    # Revoked by its handle: the user cannot bring its witness to the new accumulator.
    before = ok(send(s.url("revocation", "/info"))).body
    info = ok(post(s.url("revocation", "/revoke"), {"handle": handle})).body
    assert info == ok(send(s.url("revocation", "/info"))).body
    assert info != before, "revoking changed nothing"
    removals = ok(send(s.url("revocation", "/removals?since=0"))).body
    assert isinstance(removals, list) and len(removals) == 1, removals
    policy = fresh_policy(s, issuer)
    assert policy["revocation"] == info, "the policy carries the new accumulator"
    choices, _ = choices_for(s, policy)
    refused(post(s.url("user", "/createPresentationTokenUi"),
                 {"session": choices["session"], "choice": 0}), 422, "a revoked credential")
    # A token made before the revocation, relabelled with the new policy, does not verify.
    stale = json.loads(json.dumps(again))
    stale["policy"] = policy
    refused(post(verify, stale), 422, "an old token under the new accumulator")


def test_malformed_oversized_and_unknown_requests(services):
    s = services
    for role, path in [("verifier", "/verify"), ("verifier", "/policy"),
                       ("issuer", "/issuance/offer"), ("issuer", "/issuance/issue"),
                       ("inspector", "/inspect"), ("revocation", "/revoke"),
                       ("user", "/issuanceProtocolStep"),
                       ("user", "/createPresentationToken"),
                       ("user", "/initIoTsmartcard")]:
        url = s.url(role, path)
        refused(send(url, b'{"version": 1,'), 400, f"truncated JSON to {role} {path}")
        refused(send(url, b" " * (MAX_BODY_LEN + 1)), 413, f"1 MiB + 1 to {role} {path}")
    for path in ("/issuanceProtocolStepUi", "/createPresentationTokenUi"):
        refused(post(s.url("user", path), {"session": "00" * 16, "choice": 0}), 404,
                f"an unknown session at {path}")
    refused(send(s.url("revocation", "/removals?since=x")), 400, "since is not an epoch")
    issuer = ok(send(s.url("issuer", "/parameters"))).body
    for bad in ({"equal": [{"attribute": "nope", "value": "1"}]},
                {"equal": [{"attribute": "matchday", "value": "not a date"}]},
                {"reveal": ["first_name"], "equal": [{"attribute": "first_name", "value": "John"}]}):
        template = {**gate_template(s, issuer), **bad}
        refused(post(s.url("verifier", "/policy"), template), 400, f"a policy with {bad}")


def test_each_service_exits_0_on_sigterm(services):
    for role in ROLES:
        proc = services.procs[role]
        assert proc.poll() is None, f"{role} exited {proc.returncode} early"
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{role} still runs 10 s after SIGTERM")
        log = services.logs[role].read_text(errors="replace")
        assert code == 0, f"{role} exited {code} on SIGTERM\n{log}"
        assert "stopped by a signal" in log, f"{role}: no line on SIGTERM\n{log}"


def test_the_user_service_opens_its_card_again_after_the_card_drops_it(vss_bin, tmp_path):
    """A card process closes a client idle past --idle-timeout-ms; the user service's next
    call opens the card again (and verifies its PIN) instead of failing for good."""
    env = clean_env(tmp_path / "home")
    d = tmp_path / "D"
    subprocess.run([str(vss_bin), "cred", "setup", "--dir", str(d)], env=env, check=True,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
    with ExitStack() as stack:
        _, card = start([vss_bin, "card", "serve", "--state", tmp_path / "card.state",
                         "--listen", "127.0.0.1:0", "--idle-timeout-ms", "300"],
                        tmp_path / "card.log", env, stack)
        urls = {}
        for role in ("revocation", "issuer", "user"):
            cmd = [vss_bin, "cred", "serve", "--dir", d, "--role", role, "--listen", "127.0.0.1:0"]
            if role != "revocation":
                cmd += ["--revocation-url", urls["revocation"]]
            _, addr = start(cmd, tmp_path / f"{role}.log", env, stack)
            urls[role] = f"http://{addr}"
        ok(post(urls["user"] + "/initIoTsmartcard", {"address": f"tcp:{card}", "pin": PIN, "puk": PUK}))
        time.sleep(0.8)  # the card drops the idle connection
        offer = ok(post(urls["issuer"] + "/issuance/offer", {"attributes": TICKET})).body
        choices = ok(post(urls["user"] + "/issuanceProtocolStep", offer)).body
        request = ok(post(urls["user"] + "/issuanceProtocolStepUi",
                          {"session": choices["session"], "choice": 0}))
        assert request.traffic()[0] > 0, "the card, opened again, computed its share"
        response = ok(post(urls["issuer"] + "/issuance/issue", request.body)).body
        time.sleep(0.8)
        stored = ok(post(urls["user"] + "/issuanceProtocolStep",
                         {"session": choices["session"], "response": response}))
        assert stored.body == {"slot": 0}, stored.body

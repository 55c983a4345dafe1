"""vssd through a client that is not ours (issue 22): Python grpcio, with stubs generated
from crates/vss-proto/proto/vss/v1/vss.proto by grpc_tools.protoc at test time, against
vssd started with the configuration `vss testbed up --dir` writes. Also `vss … --daemon
SOCKET`.

vssd is $VSS_DAEMON_BIN, else `vssd` beside the vss binary under test (scripts/test builds
both); no vssd is a failure, never a skip, as no vss is.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import grpc
import pytest
from grpc_tools import protoc

from conftest import REPO_ROOT
from _testbed import Bed, start_testbed, stop_testbed

CAM = 36
# How long vssd and the testbed get to start, and a stop to finish (vssd's shutdown_grace
# is 10 s by default).
START_TIMEOUT = 60
STOP_TIMEOUT = 30
# Every call's deadline.
CALL_TIMEOUT = 30
# A deadline a call is meant to reach, and how late it may end on a loaded machine.
DEADLINE = 0.2
DEADLINE_MARGIN = 2
# grpcio names a Unix socket's path as :authority, which vssd (hyper) refuses: the client
# names a host instead (docs/DAEMON.md; test_the_socket_path_as_authority_is_refused).
AUTHORITY = [("grpc.default_authority", "localhost")]


def _vssd_path(vss_bin: Path) -> Path:
    env = os.environ.get("VSS_DAEMON_BIN")
    return Path(env) if env else vss_bin.parent / "vssd"


@pytest.fixture(scope="module")
def vssd_bin(vss_bin) -> Path:
    path = _vssd_path(vss_bin)
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"no vssd at {path} (set VSS_DAEMON_BIN or `cargo build -p vss-daemon`)",
                    pytrace=False)
    return path


@pytest.fixture(scope="module")
def pb(tmp_path_factory):
    """The messages and stub of vss.v1, generated now from the proto file."""
    out = tmp_path_factory.mktemp("stubs")
    proto_dir = REPO_ROOT / "crates" / "vss-proto" / "proto" / "vss" / "v1"
    # Generated as top-level modules vss_pb2 / vss_pb2_grpc: `vss` is the name of our own
    # Python package, which a `vss.v1` package path would shadow.
    code = protoc.main(["grpc_tools.protoc", f"-I{proto_dir}", f"--python_out={out}",
                        f"--grpc_python_out={out}", str(proto_dir / "vss.proto")])
    assert code == 0, "protoc failed"
    sys.path.insert(0, str(out))
    try:
        messages = importlib.import_module("vss_pb2")
        services = importlib.import_module("vss_pb2_grpc")
    finally:
        sys.path.remove(str(out))
    return messages, services


@dataclass
class Daemon:
    process: subprocess.Popen
    socket: Path

    def channel(self, options=AUTHORITY):
        return grpc.insecure_channel(f"unix:{self.socket}", options=options)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=STOP_TIMEOUT)


def start_vssd(vssd_bin: Path, bed: Bed, pb) -> Daemon:
    process = subprocess.Popen([str(vssd_bin), "--config", bed.info["config"]],
                               stdin=subprocess.DEVNULL)
    daemon = Daemon(process, bed.socket)
    messages, services = pb
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            pytest.fail(f"vssd exited with {process.returncode} before it served")
        if bed.socket.exists():
            try:
                with daemon.channel() as channel:
                    services.SecurityEntityStub(channel).Status(messages.StatusRequest(),
                                                                timeout=5)
                return daemon
            except grpc.RpcError:
                pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"vssd did not answer on {bed.socket} within {START_TIMEOUT} s")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def served(vss_bin, vssd_bin, pb, tmp_path_factory) -> Iterator[tuple[Bed, Daemon]]:
    bed = start_testbed(vss_bin, tmp_path_factory.mktemp("bed"))
    try:
        daemon = start_vssd(vssd_bin, bed, pb)
        try:
            yield bed, daemon
        finally:
            assert daemon.stop() == 0, "vssd: SIGTERM is a clean stop, exit 0"
    finally:
        stop_testbed(bed)


@pytest.fixture(scope="module")
def stub(served, pb):
    _, daemon = served
    messages, services = pb
    with daemon.channel() as channel:
        yield services.SecurityEntityStub(channel)


def sign(stub, messages, payload: bytes):
    return stub.Sign(messages.SignRequest(payload=payload, psid=CAM), timeout=CALL_TIMEOUT)


def tampered(data: bytes) -> bytes:
    """The signature's last octet changed (the last field of signed data)."""
    return data[:-1] + bytes([data[-1] ^ 0x01])


def test_grpcio_signs_and_verifies(stub, pb):
    messages, _ = pb
    signed = sign(stub, messages, b"CAM from grpcio")
    assert len(signed.signer) == 8 and signed.data
    answer = stub.Verify(messages.VerifyRequest(data=signed.data, tag=7), timeout=CALL_TIMEOUT)
    assert answer.report == messages.REPORT_CODE_SUCCESS, answer
    assert (answer.payload, answer.psid, answer.signer, answer.tag) == (
        b"CAM from grpcio", CAM, signed.signer, 7)
    assert answer.reason == ""


def test_a_tampered_message_gets_false_signature(stub, pb):
    messages, _ = pb
    signed = sign(stub, messages, b"CAM to be tampered with")
    answer = stub.Verify(messages.VerifyRequest(data=tampered(signed.data)),
                         timeout=CALL_TIMEOUT)
    assert answer.report == messages.REPORT_CODE_FALSE_SIGNATURE, answer
    assert answer.payload == b"" and answer.reason


def test_garbage_is_malformed_and_a_copy_is_a_duplicate(stub, pb):
    messages, _ = pb
    answer = stub.Verify(messages.VerifyRequest(data=b"\x03\x81not 1609.2"),
                         timeout=CALL_TIMEOUT)
    assert answer.report == messages.REPORT_CODE_MALFORMED, answer
    signed = sign(stub, messages, b"CAM sent twice")
    first, second = (stub.Verify(messages.VerifyRequest(data=signed.data), timeout=CALL_TIMEOUT)
                     for _ in range(2))
    assert first.report == messages.REPORT_CODE_SUCCESS, first
    assert second.report == messages.REPORT_CODE_DUPLICATE_MESSAGE, second


def test_verify_stream_answers_in_order(stub, pb):
    messages, _ = pb
    signed = [sign(stub, messages, f"CAM {i}".encode()).data for i in range(20)]
    requests = [messages.VerifyRequest(data=d if i % 3 else tampered(d), tag=100 + i)
                for i, d in enumerate(signed)]
    answers = list(stub.VerifyStream(iter(requests), timeout=CALL_TIMEOUT))
    assert [a.tag for a in answers] == [r.tag for r in requests]
    for i, a in enumerate(answers):
        want = messages.REPORT_CODE_SUCCESS if i % 3 else messages.REPORT_CODE_FALSE_SIGNATURE
        assert a.report == want, (i, a)


def test_a_client_deadline_ends_a_verify_stream_long_before_stream_timeout(stub, pb):
    """grpcio's `timeout=` sends the deadline as `grpc-timeout`: a stream whose requests stay
    open ends with DEADLINE_EXCEEDED then (stream_timeout is 1 h here), after the answers
    that came before it, and the daemon serves on."""
    messages, _ = pb
    release = threading.Event()

    def requests():
        yield messages.VerifyRequest(data=b"not a message", tag=1)
        # Held open: no more requests and no end of the stream.
        release.wait(STOP_TIMEOUT)

    started = time.monotonic()
    tags = []
    try:
        with pytest.raises(grpc.RpcError) as ended:
            for answer in stub.VerifyStream(requests(), timeout=DEADLINE):
                tags.append(answer.tag)
        elapsed = time.monotonic() - started
    finally:
        release.set()
    assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED, ended.value
    assert tags == [1], "the answer before the deadline arrives"
    assert DEADLINE <= elapsed < DEADLINE + DEADLINE_MARGIN, elapsed
    stub.Status(messages.StatusRequest(), timeout=CALL_TIMEOUT)


class Events:
    """SubscribeIdChange's events, collected on a thread."""

    def __init__(self, stub, messages):
        self.call = stub.SubscribeIdChange(messages.SubscribeIdChangeRequest())
        # The response headers come once vssd has registered the subscriber.
        self.call.initial_metadata()
        self.events: list = []
        self.arrived = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for event in self.call:
                with self.arrived:
                    self.events.append(event)
                    self.arrived.notify_all()
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.CANCELLED, e

    def wait_for(self, count: int, timeout: float = CALL_TIMEOUT) -> list:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.events) >= count, timeout)
            return list(self.events)

    def close(self):
        self.call.cancel()
        self.thread.join(timeout=STOP_TIMEOUT)


def test_id_change_events_prepare_then_commit_and_nothing_while_locked(stub, pb):
    messages, _ = pb
    events = Events(stub, messages)
    try:
        before = stub.Status(messages.StatusRequest(), timeout=CALL_TIMEOUT)
        changed = stub.TriggerIdChange(messages.TriggerIdChangeRequest(), timeout=CALL_TIMEOUT)
        got = events.wait_for(2)
        assert [e.phase for e in got] == [messages.ID_CHANGE_PHASE_PREPARE,
                                          messages.ID_CHANGE_PHASE_COMMIT], got
        prepare, commit = got
        assert prepare.new_pseudonym == commit.new_pseudonym == changed.pseudonym
        assert prepare.old_pseudonym == commit.old_pseudonym == before.current_pseudonym
        assert 0 < prepare.sequence <= commit.sequence
        after = stub.Status(messages.StatusRequest(), timeout=CALL_TIMEOUT)
        assert after.current_pseudonym == changed.pseudonym

        stub.LockIdChange(messages.LockIdChangeRequest(seconds=120), timeout=CALL_TIMEOUT)
        with pytest.raises(grpc.RpcError) as refused:
            stub.TriggerIdChange(messages.TriggerIdChangeRequest(), timeout=CALL_TIMEOUT)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION, refused.value
        # Signatures go on under the locked pseudonym, and no event comes.
        for i in range(5):
            assert sign(stub, messages, f"locked {i}".encode()).signer == changed.pseudonym
        assert events.wait_for(3, timeout=1.0) == got, "an event while locked"

        stub.UnlockIdChange(messages.UnlockIdChangeRequest(), timeout=CALL_TIMEOUT)
        again = stub.TriggerIdChange(messages.TriggerIdChangeRequest(), timeout=CALL_TIMEOUT)
        more = events.wait_for(4)[2:]
        assert [e.phase for e in more] == [messages.ID_CHANGE_PHASE_PREPARE,
                                           messages.ID_CHANGE_PHASE_COMMIT], more
        assert more[1].new_pseudonym == again.pseudonym != changed.pseudonym
    finally:
        events.close()


def test_the_socket_path_as_authority_is_refused(served, pb):
    """What docs/DAEMON.md tells grpcio users: without grpc.default_authority the call is
    reset (INTERNAL), with it the same call is answered."""
    _, daemon = served
    messages, services = pb
    with daemon.channel(options=[]) as channel:
        with pytest.raises(grpc.RpcError) as refused:
            services.SecurityEntityStub(channel).Status(messages.StatusRequest(),
                                                        timeout=CALL_TIMEOUT)
    assert refused.value.code() == grpc.StatusCode.INTERNAL, refused.value
    with daemon.channel() as channel:
        status = services.SecurityEntityStub(channel).Status(messages.StatusRequest(),
                                                             timeout=CALL_TIMEOUT)
    assert status.pool_level > 0


def test_out_of_range_requests_are_invalid_argument(stub, pb):
    messages, _ = pb
    with pytest.raises(grpc.RpcError) as lock:
        stub.LockIdChange(messages.LockIdChangeRequest(seconds=256), timeout=CALL_TIMEOUT)
    assert lock.value.code() == grpc.StatusCode.INVALID_ARGUMENT, lock.value


# --------------------------------------------------------------------------------------
# The vss command as a client: --daemon SOCKET
# --------------------------------------------------------------------------------------


def vss(vss_bin: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(vss_bin), *args], cwd=cwd, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=CALL_TIMEOUT * 2)


def test_vss_signs_verifies_and_reports_through_the_daemon(vss_bin, served, pb, tmp_path):
    bed, daemon = served
    socket = str(daemon.socket)
    (tmp_path / "cam.bin").write_bytes(b"CAM through vss --daemon")
    out = vss(vss_bin, "its", "sign", "--daemon", socket, "--psid", "36", "--payload",
              "cam.bin", "--out", "cam.oer", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out
    summary = json.loads(out.stdout)
    assert summary["psid"] == 36 and len(summary["signer"]) == 16, summary
    assert summary["bytes"] == (tmp_path / "cam.oer").stat().st_size

    bad = tmp_path / "bad.oer"
    bad.write_bytes(tampered((tmp_path / "cam.oer").read_bytes()))
    out = vss(vss_bin, "its", "verify", "bad.oer", "--daemon", socket, cwd=tmp_path)
    assert out.returncode == 1, out
    verdict = json.loads(out.stdout)
    assert verdict["verdict"] == "FalseSignature" and verdict["reason"], verdict

    out = vss(vss_bin, "its", "verify", "cam.oer", "--daemon", socket, cwd=tmp_path)
    assert out.returncode == 0, out
    verdict = json.loads(out.stdout)
    assert (verdict["verdict"], verdict["psid"], verdict["signer"]) == (
        "Valid", 36, summary["signer"]), verdict

    out = vss(vss_bin, "stats", "status", "--daemon", socket, "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out
    status = json.loads(out.stdout)
    assert status["signed"] >= 1 and status["verified_valid"] >= 1, status
    assert status["verified_invalid"] >= 1 and status["pool_level"] >= 1, status

    out = vss(vss_bin, "stats", "status", "--daemon", str(tmp_path / "nothing.sock"),
              cwd=tmp_path)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out
    assert "cannot reach vssd" in out.stderr, out


# --------------------------------------------------------------------------------------
# SIGTERM while requests stream in
# --------------------------------------------------------------------------------------


def test_sigterm_during_a_stream_answers_or_refuses_every_request(vss_bin, vssd_bin, pb,
                                                                  tmp_path):
    messages, services = pb
    (tmp_path / "bed").mkdir()
    bed = start_testbed(vss_bin, tmp_path / "bed")
    try:
        daemon = start_vssd(vssd_bin, bed, pb)
        try:
            answers, ended, unary = _stream_until_sigterm(daemon, messages, services)
            code = daemon.process.wait(timeout=STOP_TIMEOUT)
        finally:
            if daemon.process.poll() is None:
                daemon.process.kill()
                daemon.process.wait()
        stats = bed.dir / "stations" / "station-1" / "stats"
        logged = "".join(p.read_text(errors="replace") for p in stats.glob("stats.*"))
    finally:
        stop_testbed(bed)
    assert code == 0, "vssd exits 0 after SIGTERM"
    assert len(answers) >= 500
    # Answers come in request order, each with a report code; requests left without an
    # answer were refused with a status, not left hanging.
    assert [a.tag for a in answers] == list(range(len(answers)))
    assert {a.report for a in answers} <= {messages.REPORT_CODE_SUCCESS,
                                           messages.REPORT_CODE_DUPLICATE_MESSAGE}
    assert ended in (None, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED), ended
    assert unary, "no unary call was made"
    assert all(isinstance(r, int) or r in (grpc.StatusCode.UNAVAILABLE,
                                           grpc.StatusCode.CANCELLED) for r in unary), unary[-3:]
    assert "verify" in logged.lower(), "the statistics were flushed before exit"


def _stream_until_sigterm(daemon: Daemon, messages, services):
    """Streams verifications (and makes unary calls beside them) and sends vssd SIGTERM
    after 500 answers; returns the answers, the stream's final status (None: it ended
    cleanly) and the unary calls' reports or statuses."""
    with daemon.channel() as channel:
        stub = services.SecurityEntityStub(channel)
        signed = [sign(stub, messages, f"CAM {i}".encode()).data for i in range(50)]
        stop_sending = threading.Event()

        def requests():
            for tag in range(200_000):
                if stop_sending.is_set():
                    return
                yield messages.VerifyRequest(data=signed[tag % len(signed)], tag=tag)

        unary: list = []

        def unary_calls():
            while not stop_sending.is_set():
                try:
                    unary.append(stub.Verify(messages.VerifyRequest(data=signed[0]),
                                             timeout=CALL_TIMEOUT).report)
                except grpc.RpcError as e:
                    unary.append(e.code())
                    return

        caller = threading.Thread(target=unary_calls)
        caller.start()
        answers, ended = [], None
        try:
            for answer in stub.VerifyStream(requests(), timeout=STOP_TIMEOUT * 2):
                answers.append(answer)
                if len(answers) == 500:
                    daemon.process.send_signal(signal.SIGTERM)
        except grpc.RpcError as e:
            ended = e.code()
        finally:
            stop_sending.set()
        caller.join(timeout=STOP_TIMEOUT)
        assert not caller.is_alive(), "a unary call hung"
    return answers, ended, unary

"""Exit codes and messages at the edge: failures exit non-zero with one clear line on stderr
and nothing on stdout."""

from __future__ import annotations

import json
import re
import subprocess

from _support import PIN


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode != 0, f"exited 0; stdout {proc.stdout!r}"
    assert proc.stdout == "", f"stdout should be empty on failure, got {proc.stdout!r}"
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), f"expected one line on stderr, got {proc.stderr!r}"
    return lines[0]


def test_export_public_of_a_missing_label(key_store):
    key_store.run("keys", "generate", "--label", "present", "--curve", "p256")
    proc = key_store.run("keys", "export-public", "--label", "absent", check=False)
    msg = _one_line_error(proc)
    assert "absent" in msg, msg
    proc = key_store.run("keys", "export-public", "--label", "absent", "--compressed", check=False)
    _one_line_error(proc)


def test_delete_of_a_missing_label(key_store):
    msg = _one_line_error(key_store.run("keys", "delete", "--label", "absent", check=False))
    assert "absent" in msg, msg


def test_store_that_does_not_exist(vss_bin, vss_env, tmp_path):
    proc = subprocess.run(
        [str(vss_bin), "keys", "list", "--store", str(tmp_path / "nowhere"), "--format", "json"],
        env=vss_env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    _one_line_error(proc)


def _pin_tries_left(store) -> int:
    status = json.loads(store.run("hsm", "status", "--format", "json").stdout)
    return status["pin_tries_left"]


def test_wrong_pin_says_how_many_tries_are_left(key_store):
    key_store.run("keys", "generate", "--label", "k", "--curve", "bp384")
    start = _pin_tries_left(key_store)
    assert start >= 2, f"a store should allow more than one PIN try, has {start}"

    for left in range(start - 1, 0, -1):
        proc = key_store.run("keys", "export-public", "--label", "k", pin=PIN + "9", check=False)
        msg = _one_line_error(proc)
        assert re.search(rf"(?<!\d){left} tr(y|ies) left", msg), (
            f"after a wrong PIN with {left} tries left, stderr says: {msg!r}"
        )
        assert _pin_tries_left(key_store) == left
        # The secret itself is never echoed.
        assert PIN + "9" not in msg

    # A right PIN still works while tries are left.
    proc = key_store.run("keys", "export-public", "--label", "k")
    assert len(bytes.fromhex(proc.stdout.strip())) == 1 + 2 * 48


def test_pin_blocks_after_the_last_wrong_try(key_store):
    start = _pin_tries_left(key_store)
    for _ in range(start):
        _one_line_error(key_store.run("keys", "list", pin="000000", check=False))
    assert _pin_tries_left(key_store) == 0
    msg = _one_line_error(key_store.run("keys", "list", check=False))  # right PIN, too late
    assert "block" in msg.lower(), msg

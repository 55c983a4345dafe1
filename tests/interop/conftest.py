"""Fixtures for the interop suite: the `vss` binary, a seeded RNG, and a fresh key store.

The binary comes from $VSS_BIN, else target/release/vss, else target/debug/vss (relative to
the repository root). No binary is a failure, never a skip: this suite exists to be run.

Randomness: every test draws keys, nonces and messages from a `random.Random` seeded with
$VSS_INTEROP_SEED (a fresh seed each run when unset). The run's header and, after a failure,
its summary print the seed, so a failure can be replayed with VSS_INTEROP_SEED=<seed>.
"""

from __future__ import annotations

import os
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from _support import PIN, PUK

REPO_ROOT = Path(__file__).resolve().parents[2]

SEED = os.environ.get("VSS_INTEROP_SEED") or str(random.SystemRandom().randrange(2**32))


def _find_vss() -> tuple[Path | None, str]:
    env = os.environ.get("VSS_BIN")
    if env:
        path = Path(env)
        if path.is_file() and os.access(path, os.X_OK):
            return path, f"VSS_BIN={env}"
        return None, f"VSS_BIN={env!r} is not an executable file"
    tried = []
    for rel in ("target/release/vss", "target/debug/vss"):
        path = REPO_ROOT / rel
        if path.is_file() and os.access(path, os.X_OK):
            return path, str(path)
        tried.append(str(path))
    return None, "VSS_BIN is unset and none of " + ", ".join(tried) + " exists"


def pytest_report_header(config):
    path, how = _find_vss()
    return [f"vss interop: binary {how if path else 'MISSING (' + how + ')'}; "
            f"seed VSS_INTEROP_SEED={SEED}"]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if terminalreporter.stats.get("failed") or terminalreporter.stats.get("error"):
        terminalreporter.write_line(f"vss interop: replay with VSS_INTEROP_SEED={SEED}")


@pytest.fixture(scope="session")
def vss_bin() -> Path:
    path, how = _find_vss()
    if path is None:
        pytest.fail(f"no vss binary: {how} (build with `cargo build -p vss-cli`)", pytrace=False)
    return path


@pytest.fixture
def rng(request) -> random.Random:
    """A per-test RNG: reproducible from the run's seed and the test's id."""
    return random.Random(f"{SEED}/{request.node.nodeid}")


@pytest.fixture(scope="module")
def module_rng(request) -> random.Random:
    """A per-module RNG for module-scoped fixtures: reproducible from the run's seed and the
    module's path."""
    return random.Random(f"{SEED}/{request.node.nodeid}")


@pytest.fixture
def seed_note() -> str:
    return f" (replay with VSS_INTEROP_SEED={SEED})"


@dataclass
class Store:
    """A freshly initialised soft key store and the environment that opens it."""

    vss_bin: Path
    dir: Path
    env: dict

    def run(self, *args: str, pin: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
        """Runs `vss <args> --store DIR` with the store's PIN (or `pin`); text output."""
        env = dict(self.env)
        if pin is not None:
            env["VSS_PIN"] = pin
        proc = subprocess.run(
            [str(self.vss_bin), *args, "--store", str(self.dir)],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if check:
            assert proc.returncode == 0, (
                f"vss {' '.join(args)} exited {proc.returncode}; stderr: {proc.stderr}"
            )
        return proc


@pytest.fixture
def vss_env(tmp_path) -> dict:
    """The environment for store commands: PIN and PUK set, no ambient store or user data."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VSS_")}
    env["VSS_PIN"] = PIN
    env["VSS_PUK"] = PUK
    home = tmp_path / "home"
    home.mkdir()
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / "data")
    return env


@pytest.fixture
def key_store(vss_bin, tmp_path, vss_env) -> Store:
    """`vss hsm init --store DIR` on a fresh directory (PIN and PUK from the environment)."""
    store = Store(vss_bin, tmp_path / "store", vss_env)
    store.run("hsm", "init")
    assert (store.dir).is_dir()
    return store

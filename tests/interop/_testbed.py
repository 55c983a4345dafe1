"""`vss testbed up --dir` for the interop tests: two PKIs on loopback, one provisioned
station and a ready vss.toml (tests/interop/test_daemon.py, test_python_package.py)."""

from __future__ import annotations

import json
import signal
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

# How long `vss testbed up` gets to stop.
STOP_TIMEOUT = 60


@dataclass
class Bed:
    """A running `vss testbed up` and the JSON it printed."""
    process: subprocess.Popen
    dir: Path
    info: dict

    @property
    def config(self) -> Path:
        return Path(self.info["config"])

    @property
    def socket(self) -> Path:
        return Path(self.info["socket"])

    def variant(self, name: str, edit) -> Path:
        """A copy of the configuration beside it with `edit` applied to its text."""
        text = self.config.read_text()
        changed = edit(text)
        assert changed != text, f"{name}: the edit changed nothing in {self.config}"
        path = self.dir / name
        path.write_text(changed)
        return path

    def _hsm(self) -> dict:
        return tomllib.loads(self.config.read_text())["hsm"]

    def store(self) -> Path:
        return Path(self._hsm()["store"])

    def pin(self) -> str:
        """The store's PIN, from the file the configuration names."""
        return (self.config.parent / self._hsm()["pin_file"]).read_text().strip()

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=STOP_TIMEOUT)


def start_testbed(vss_bin: Path, dir: Path) -> Bed:
    """Starts `vss testbed up` in `dir` and waits for its JSON line."""
    process = subprocess.Popen([str(vss_bin), "testbed", "up", "--format", "json", "--dir",
                                str(dir)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               text=True)
    line = process.stdout.readline()
    if not line:
        process.wait(timeout=STOP_TIMEOUT)
        pytest.fail(f"vss testbed up printed nothing (exit {process.returncode})")
    return Bed(process, dir, json.loads(line))


def stop_testbed(bed: Bed) -> None:
    """Stops it: a clean stop exits 0 and leaves `dir` empty."""
    assert bed.stop() == 0, "vss testbed up: a clean stop exits 0"
    assert list(bed.dir.iterdir()) == [], "the testbed removed what it made"

"""Type stubs of the native module ``vss._vss`` (crates/vss-python/src)."""

from __future__ import annotations

import os
from types import TracebackType
from typing import Optional, Type, Union

from . import Verdict

class Error(Exception):
    """Any failure of VSS."""

class ConfigError(Error):
    """The configuration (or a file it names) is missing, unreadable or wrong."""

class PinError(Error):
    """No PIN for the key store, or a wrong, empty or blocked one."""

class HsmError(Error):
    """The key store failed."""

class NoPseudonymError(Error):
    """No pseudonym to sign with, or none to change to."""

class PsidNotPermittedError(Error):
    """The current pseudonym may not sign for this PSID."""

class IdChangeError(Error):
    """The pseudonym did not change: locked, postponed, or no listener."""

class UnknownMessageError(Error):
    """No skipped message has this on-demand id."""

class FrameError(Error):
    """No frame key is configured, or a frame holds something else."""

class StatsError(Error):
    """The statistics could not be written."""

class EngineError(Error):
    """The configured verification engine is not available."""

class ItsError(Error):
    """ITS data is malformed or failed."""

class PkiError(Error):
    """The PKI client or the certificate repository failed."""

class CryptoError(Error):
    """A cryptographic operation failed."""

class ClosedError(Error):
    """The entity was closed."""

class Verification:
    """The outcome of verifying one message."""

    @property
    def verdict(self) -> Verdict: ...
    @property
    def valid(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def payload(self) -> Optional[bytes]: ...
    @property
    def psid(self) -> Optional[int]: ...
    @property
    def signer(self) -> Optional[bytes]: ...
    @property
    def on_demand_id(self) -> Optional[int]: ...

class Status:
    """The entity's pool level, current pseudonym and counters."""

    @property
    def pool_level(self) -> int: ...
    @property
    def current_pseudonym(self) -> Optional[bytes]: ...
    @property
    def verified_valid(self) -> int: ...
    @property
    def verified_invalid(self) -> int: ...
    @property
    def skipped(self) -> int: ...
    @property
    def id_changes(self) -> int: ...
    @property
    def id_changes_deferred(self) -> int: ...
    @property
    def cache_hits(self) -> int: ...
    @property
    def cache_misses(self) -> int: ...

class Entity:
    """An open security entity; a context manager that closes it on exit."""

    @staticmethod
    def open(path: Union[str, os.PathLike[str]]) -> Entity: ...
    def close(self) -> None: ...
    def __enter__(self) -> Entity: ...
    def __exit__(
        self,
        _kind: Optional[Type[BaseException]],
        _value: Optional[BaseException],
        _traceback: Optional[TracebackType],
    ) -> None: ...
    def sign(self, payload: bytes, psid: int = 36) -> bytes: ...
    def verify(self, data: bytes) -> Verification: ...
    def verify_batch(self, messages: list[bytes]) -> list[Verification]: ...
    def trigger_id_change(self) -> bytes: ...
    def lock_id_change(self, seconds: int) -> None: ...
    def unlock_id_change(self) -> None: ...
    def status(self) -> Status: ...
    def decap(self, scheme: str, key_label: str, ciphertext: bytes) -> bytes: ...

def its_decode_json(data: bytes) -> str: ...
def kem_encap(
    scheme: str, curve: str, public_key: bytes, key_len: Optional[int] = None
) -> tuple[bytes, bytes]: ...

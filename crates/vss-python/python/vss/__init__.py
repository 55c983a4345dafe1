"""VSS, the V2X security entity, from Python.

``vss.Entity.open(path)`` opens the entity of a ``vss.toml`` (the PIN from ``[hsm] pin_file``,
the systemd credential ``vss-pin`` or ``VSS_PIN``); it signs, verifies (one message or a
batch), changes pseudonyms and decapsulates keys. ``vss.kem.encap`` encapsulates to a public
key, ``vss.its.decode`` shows the structure of ITS data. Failures raise subclasses of
``vss.Error``; a verification never raises for a bad message: its ``verdict`` says why.
"""

from __future__ import annotations

import enum

from ._vss import (
    ClosedError,
    ConfigError,
    CryptoError,
    EngineError,
    Entity,
    Error,
    FrameError,
    HsmError,
    IdChangeError,
    ItsError,
    NoPseudonymError,
    PinError,
    PkiError,
    PsidNotPermittedError,
    Status,
    StatsError,
    UnknownMessageError,
    Verification,
)
from . import its, kem


class Verdict(enum.IntEnum):
    """The outcome of a verification, numbered as ``ReportCode`` in
    crates/vss-proto/proto/vss/v1/vss.proto."""

    VALID = 1
    FALSE_SIGNATURE = 2
    SIGNER_NOT_FOUND = 3
    UNTRUSTED_ROOT = 4
    INVALID_CHAIN = 5
    EXPIRED = 6
    NOT_YET_VALID = 7
    INSUFFICIENT_PERMISSIONS = 8
    OUTSIDE_REGION = 9
    MALFORMED = 10
    UNSUPPORTED_ALGORITHM = 11
    INVALID_TIMESTAMP = 12
    DUPLICATE_MESSAGE = 13
    SKIPPED = 14
    REVOKED = 15
    UNLISTED_CA = 16


__all__ = [
    "ClosedError",
    "ConfigError",
    "CryptoError",
    "EngineError",
    "Entity",
    "Error",
    "FrameError",
    "HsmError",
    "IdChangeError",
    "ItsError",
    "NoPseudonymError",
    "PinError",
    "PkiError",
    "PsidNotPermittedError",
    "Status",
    "StatsError",
    "UnknownMessageError",
    "Verdict",
    "Verification",
    "its",
    "kem",
]

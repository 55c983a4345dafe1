"""The structure of ITS data (IEEE 1609.2 / ETSI TS 103 097)."""

from __future__ import annotations

import json
from typing import Any

from ._vss import its_decode_json


def decode(data: bytes) -> dict[str, Any]:
    """The structure of ``Ieee1609Dot2Data`` (COER, at most 1 MiB) as X.697 JER: the
    standard's field names (``protocolVersion``, ``content`` → ``signedData`` → ``tbsData``
    → ``payload``, ``headerInfo`` with ``psid`` and ``generationTime``, ``signer`` with
    ``digest`` or ``certificate``), octet strings in hex. Raises ``vss.ItsError`` when the
    bytes are not a canonical encoding."""
    structure: dict[str, Any] = json.loads(its_decode_json(data))
    return structure

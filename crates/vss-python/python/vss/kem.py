"""Key encapsulation (ISO/IEC 18033-2 PSEC-KEM and ECIES-KEM, IEEE 1609.2 ECIES)."""

from __future__ import annotations

from typing import Optional

from ._vss import kem_encap


def encap(scheme: str, curve: str, public_key: bytes,
          key_len: Optional[int] = None) -> tuple[bytes, bytes]:
    """``(ciphertext, key)``: a fresh key encapsulated to ``public_key`` (SEC1, compressed
    or uncompressed) on ``curve`` (p224 p256 p384 bp256 bp384 k283 b283 p192) with
    ``scheme`` (``psec-kem``, ``ecies-kem``: KDF2-SHA256, EG compressed; ``ecies-1609``:
    p256 or bp256 only). ``key_len`` is 1-1024 octets (default 32) for psec-kem and
    ecies-kem; ecies-1609 always carries 16. The holder of the private key gets the key
    back with ``Entity.decap``. Raises ``ValueError`` for an unknown scheme or curve,
    ``vss.CryptoError`` for a bad key or parameters."""
    return kem_encap(scheme, curve, public_key, key_len)

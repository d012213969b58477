"""Signed values for stores that others can write to (the remote result tier).

A value kept in a shared store is sealed: `MAGIC`, then an HMAC-SHA256 of
its name and content under a secret key, then the content. Opening checks
the name it was asked for, so a value copied under another key, cut short,
or changed by anyone without the key does not open (`Rejected`), and the
reader treats it as a miss. Packs (many entries in one value, read in one
round trip) are sealed the same way; their body is a run of length-prefixed
key and value pairs.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Mapping
from typing import Final

MAGIC: Final = b"SGL1"
MIN_KEY_BYTES: Final = 32
_MAC_BYTES: Final = 32
_LENGTH: Final = struct.Struct(">I")


class Rejected(Exception):
    """A stored value that must not be served: unsigned, forged, cut short or
    kept under another name."""


class Seal:
    """Seals and opens values with one secret key (at least 32 bytes)."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < MIN_KEY_BYTES:
            raise ValueError(f"a signing key needs at least {MIN_KEY_BYTES} bytes")
        self._secret = secret

    def _mac(self, name: str, body: bytes) -> bytes:
        signer = hmac.new(self._secret, digestmod=hashlib.sha256)
        signer.update(name.encode() + b"\0")
        signer.update(body)
        return signer.digest()

    def close(self, name: str, body: bytes) -> bytes:
        """The sealed form of `body` kept under `name`."""
        return MAGIC + self._mac(name, body) + body

    def open(self, name: str, sealed: bytes) -> bytes:
        """The body of a value read under `name`; `Rejected` when it does not verify."""
        head = len(MAGIC) + _MAC_BYTES
        if len(sealed) < head or not sealed.startswith(MAGIC):
            raise Rejected(f"{name}: not a sealed value")
        body = sealed[head:]
        if not hmac.compare_digest(sealed[len(MAGIC) : head], self._mac(name, body)):
            raise Rejected(f"{name}: signature does not match")
        return body


def pack(items: Mapping[str, bytes]) -> bytes:
    """Many entries as one body (`unpack` reads it back)."""
    parts: list[bytes] = []
    for key, value in items.items():
        raw = key.encode()
        parts += [_LENGTH.pack(len(raw)), raw, _LENGTH.pack(len(value)), value]
    return b"".join(parts)


def unpack(body: bytes) -> dict[str, bytes]:
    """The entries of a `pack` body; `Rejected` when it is malformed."""
    return dict(_entries(body))


def _entries(body: bytes) -> Iterator[tuple[str, bytes]]:
    at, end = 0, len(body)
    while at < end:
        key, at = _field(body, at)
        value, at = _field(body, at)
        try:
            yield key.decode(), value
        except UnicodeDecodeError as exc:
            raise Rejected("a pack holds a key that is not text") from exc


def _field(body: bytes, at: int) -> tuple[bytes, int]:
    if at + _LENGTH.size > len(body):
        raise Rejected("a pack is cut short")
    (size,) = _LENGTH.unpack_from(body, at)
    start = at + _LENGTH.size
    if start + size > len(body):
        raise Rejected("a pack is cut short")
    return body[start : start + size], start + size


__all__ = ["MAGIC", "MIN_KEY_BYTES", "Rejected", "Seal", "pack", "unpack"]

"""The messages between the CLI and its daemon, framed on a Unix socket.

Written here because the exchange is tiny and private (one request, one
answer per connection, both ends this package) and the forwarding client
must stay on the standard library: each message is a 4-byte big-endian
length followed by that many bytes of UTF-8 JSON (an object).

Requests: `{"op": "hello"|"status"|"stop"}`, or `{"op": "run", "stamp",
"argv", "cwd", "env", "stdin" (latin-1 text of the bytes), "stdinEncoding",
"stdoutTty"}`. Answers to `run`: `{"stdout", "stderr", "code"}`, or
`{"stale": true}` when the client's code stamp is not the daemon's.
"""

from __future__ import annotations

import json
import struct

TYPE_CHECKING = False  # `typing` and `socket` cost the forwarding client milliseconds
if TYPE_CHECKING:
    import asyncio  # the daemon's side only: the client does not load asyncio
    from _socket import socket
    from typing import Any

HEADER = struct.Struct(">I")
# A check's whole SARIF output fits; a larger length is garbage.
MAX_BYTES = 1 << 30


class WireError(Exception):
    """The other end closed early or sent something that is not a message."""


def encode(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> dict[str, Any]:
    try:
        message = json.loads(body.decode("utf-8", "surrogatepass"))
    except ValueError as exc:
        raise WireError(f"not a message: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("not a message: not a JSON object")
    return message


def _length(header: bytes) -> int:
    (length,) = HEADER.unpack(header)
    if length > MAX_BYTES:
        raise WireError(f"not a message: {length} bytes announced")
    return int(length)


def _recv_exactly(sock: socket, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise WireError("the daemon closed the connection")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def send(sock: socket, message: dict[str, Any]) -> None:
    sock.sendall(encode(message))


def receive(sock: socket) -> dict[str, Any]:
    length = _length(_recv_exactly(sock, HEADER.size))
    return decode(_recv_exactly(sock, length))


async def read(reader: asyncio.StreamReader) -> dict[str, Any]:
    import asyncio

    try:
        length = _length(await reader.readexactly(HEADER.size))
        return decode(await reader.readexactly(length))
    except asyncio.IncompleteReadError:
        raise WireError("the client closed the connection") from None


async def write(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    writer.write(encode(message))
    await writer.drain()

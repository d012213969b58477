"""The language server's wire: LSP base-protocol frames in, pygls's protocol behind.

pygls's own read loop logs a message it cannot read and answers nothing,
and reads a body of any length into memory. This loop reads the frames
itself (headers, then `Content-Length` bytes) and hands each JSON message
to pygls's protocol, except:

- a body longer than `MAX_MESSAGE_BYTES` (lsp.maxMessageBytes) is read
  in pieces and dropped, never held; the request it carried (its `id` is
  looked for in the first piece) is answered with an error naming the
  limit, and the client is told with `window/showMessage` (a notification,
  such as a huge `didChange`, has nobody to answer);
- a body that is not JSON is answered with a parse error (-32700, id
  null), one that pygls cannot read as a message (wrong member types) with
  an invalid-request error (-32600) carrying its id when it has one; the
  loop then reads the next message;
- a frame without `Content-Length` ends the connection (nothing after it
  can be framed).

Transports: stdio (stdout kept as the wire: fd 1 is pointed at stderr so
nothing else can write it), a Unix socket (`--socket`) or a TCP port on the
loopback interface (`--port`), one connection each.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO, Final, Protocol

MAX_MESSAGE_BYTES: Final = 32 * 1024 * 1024  # lsp.maxMessageBytes
_PIECE: Final = 1024 * 1024
_LENGTH = re.compile(rb"^content-length:\s*(\d+)\s*$", re.IGNORECASE)
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')
_METHOD = re.compile(rb'"method"\s*:\s*"([^"]{1,100})"')


class Handles(Protocol):
    """What the loop hands messages to: pygls's `JsonRPCProtocol`."""

    def structure_message(self, data: dict[str, Any]) -> Any: ...

    def handle_message(self, message: Any) -> None: ...


class Writer:
    """Writes frames to a binary stream (stdout's private copy) or a socket."""

    def __init__(self, write: Callable[[bytes], object], close: Callable[[], object]) -> None:
        self._write = write
        self._close = close
        self._dropped: list[Any] = []

    def drop(self, message_id: Any) -> None:
        """Leave out the next answer to request `message_id` (the front answered it)."""
        self._dropped.append(message_id)

    def write(self, data: bytes) -> None:
        if self._dropped:
            _, _, body = data.partition(b"\r\n\r\n")
            try:
                message = json.loads(body)
            except ValueError:
                message = None
            answered = isinstance(message, dict) and "method" not in message
            if answered and message.get("id") in self._dropped:
                self._dropped.remove(message.get("id"))
                return
        self._write(data)

    def close(self) -> None:
        self._close()

    def frame(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode("utf-8")
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def error(message_id: Any, code: int, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": text}}


def show(text: str) -> dict[str, Any]:
    params = {"type": 1, "message": text}
    return {"jsonrpc": "2.0", "method": "window/showMessage", "params": params}


async def _skip(reader: asyncio.StreamReader, length: int) -> bytes:
    """Read and drop `length` bytes; the first piece is returned."""
    first = b""
    left = length
    while left > 0:
        piece = await reader.read(min(_PIECE, left))
        if not piece:
            break
        if not first:
            first = piece
        left -= len(piece)
    return first


def _refuse_large(writer: Writer, head: bytes, length: int) -> None:
    method = _METHOD.search(head)
    named = f" ({method.group(1).decode('utf-8', 'replace')})" if method else ""
    text = (
        f"signalint: a message{named} of {length} bytes exceeds the limit "
        f"lsp.maxMessageBytes ({MAX_MESSAGE_BYTES} bytes); it was dropped"
    )
    found = _ID.search(head[:4096])
    if found is not None:  # a request: answered; a notification is only told
        writer.frame(error(json.loads(found.group(1)), -32600, text))
    writer.frame(show(text))


def _hand(protocol: Handles, writer: Writer, body: bytes) -> None:
    try:
        raw = json.loads(body)
    except ValueError as exc:
        writer.frame(error(None, -32700, f"signalint: a message that is not JSON: {exc}"))
        return
    if not isinstance(raw, dict):
        writer.frame(error(None, -32600, "signalint: a message must be a JSON object"))
        return
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except Exception as exc:
        message_id = raw.get("id")
        if ("method" in raw and message_id is not None) or "method" not in raw:
            writer.frame(error(message_id, -32600, f"signalint: unreadable message: {exc}"))
        else:
            writer.frame(show(f"signalint: unreadable {raw.get('method')!r} notification: {exc}"))
        return
    protocol.handle_message(message)


async def read_frame(reader: asyncio.StreamReader, writer: Writer) -> bytes | None:
    """The next message body; b"" for one refused by its size (answered
    here); None at the end of input or after a frame without a length."""
    length: int | None = None
    while True:
        line = await reader.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        found = _LENGTH.match(line.strip())
        if found is not None:
            length = int(found.group(1))
    if length is None:
        writer.frame(error(None, -32700, "signalint: a frame without Content-Length"))
        return None
    if length > MAX_MESSAGE_BYTES:
        _refuse_large(writer, await _skip(reader, length), length)
        return b""
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        return None


def hand(protocol: Handles, writer: Writer, body: bytes) -> None:
    """Give one message body to pygls's protocol, or answer why it cannot be read."""
    if body:
        _hand(protocol, writer, body)


async def serve(reader: asyncio.StreamReader, writer: Writer, protocol: Handles) -> None:
    """Read frames until the end of input (or a frame without a length)."""
    while True:
        body = await read_frame(reader, writer)
        if body is None:
            return
        hand(protocol, writer, body)


def stdio_writer() -> tuple[Writer, BinaryIO]:
    """A writer on a private copy of stdout, fd 1 then pointed at stderr."""
    wire = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def write(data: bytes) -> None:
        wire.write(data)

    return Writer(write, wire.close), wire


async def stdin_reader() -> asyncio.StreamReader:
    """An asyncio reader of stdin (a pipe, a file or a terminal)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_MESSAGE_BYTES)
    protocol = asyncio.StreamReaderProtocol(reader)
    try:
        await loop.connect_read_pipe(lambda: protocol, sys.stdin.buffer)
    except ValueError:  # a regular file: read it on a thread
        data = await asyncio.to_thread(sys.stdin.buffer.read)
        reader.feed_data(data)
        reader.feed_eof()
    return reader


async def one_connection(
    start: Callable[
        [Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]],
        Awaitable[asyncio.Server],
    ],
    run: Callable[[asyncio.StreamReader, Writer], Awaitable[None]],
) -> None:
    """Accept one connection on the server `start` opens and run it to its end."""
    done = asyncio.Event()

    async def connected(reader: asyncio.StreamReader, stream: asyncio.StreamWriter) -> None:
        writer = Writer(stream.write, stream.close)
        try:
            await run(reader, writer)
        finally:
            stream.close()
            done.set()

    server = await start(connected)
    async with server:
        await done.wait()


__all__ = ["MAX_MESSAGE_BYTES", "Handles", "Writer", "hand", "one_connection", "read_frame",
           "serve", "stdin_reader", "stdio_writer"]  # fmt: skip

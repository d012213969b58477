"""The bound on one message of the stdio transport (D25).

The SDK's stdio transport reads stdin a line at a time with no limit and
parses every line whole, so one 40 MB request would be held, parsed and
acted on. The server reads stdin itself instead (`BoundedLines`, handed to
the SDK's `stdio_server` as its stdin): a line within the limit goes to the
SDK unchanged; a longer one is read to its end in chunks and dropped
without being parsed (memory stays within the limit plus one chunk), and
answered with a JSON-RPC error `-32600` whose message names the limit. The
server then reads the next line as usual.

The error's id is the request's when it can be read without parsing the
message: from its first bytes, where Python clients put it (`{"jsonrpc":
"2.0", "id": 7, "method": ...}`), or from its last ones, where TypeScript
clients do (`..., "id": 7}`). Otherwise the id is null, as JSON-RPC 2.0
prescribes for a request whose id cannot be determined.

The limit is `DEFAULT_MAX_BYTES` (32 MiB, room for the largest single
argument a tool accepts: a 16 MiB report, or a 4 MB file's old and new
text) unless `SIGNALINT_MCP_MAX_REQUEST_BYTES` says otherwise.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

ENV_VARIABLE: Final = "SIGNALINT_MCP_MAX_REQUEST_BYTES"
DEFAULT_MAX_BYTES: Final = 32 * 1024 * 1024
MIN_MAX_BYTES: Final = 64 * 1024
MAX_MAX_BYTES: Final = 1024 * 1024 * 1024
# Bytes read from the pipe at a time.
CHUNK: Final = 1024 * 1024
# Bytes of an oversized line kept to find its id: the first and the last.
HEAD: Final = 64 * 1024
TAIL: Final = 1024
# JSON-RPC 2.0 "Invalid Request".
INVALID_REQUEST: Final = -32600
PARSE_ERROR: Final = -32700

RequestId = int | str


def max_bytes_from(env: Mapping[str, str]) -> tuple[int, str | None]:
    """The limit `env` sets, and a warning when its value is not usable (then the default)."""
    raw = env.get(ENV_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_MAX_BYTES, None
    if raw.isdigit() and MIN_MAX_BYTES <= int(raw) <= MAX_MAX_BYTES:
        return int(raw), None
    return DEFAULT_MAX_BYTES, (
        f"ignoring {ENV_VARIABLE}={raw[:40]!r}: expected a number of bytes from "
        f"{MIN_MAX_BYTES} to {MAX_MAX_BYTES}; using {DEFAULT_MAX_BYTES}"
    )


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line longer than the limit, read to its end and dropped."""

    size: int
    head: bytes
    tail: bytes

    def request_id(self) -> RequestId | None:
        """The message's top-level id when its first or last bytes show it, else None."""
        found = _id_in_head(self.head.decode("utf-8", errors="replace"))
        if found is None:
            found = _id_in_tail(self.tail.decode("utf-8", errors="replace"))
        return found

    def message(self, limit: int) -> str:
        return (
            f"Request too large: this message is {self.size} bytes and signalint-mcp accepts "
            f"at most {limit} bytes per message ({ENV_VARIABLE}). It was discarded unparsed and "
            "nothing changed; send less at once (e.g. split an ingest_diagnostics batch "
            "or report, or a fix's patches)."
        )


_OPEN: Final = re.compile(r"\s*\{")
_KEY: Final = re.compile(r'\s*"((?:[^"\\]|\\.)*)"\s*:\s*')
_COMMA: Final = re.compile(r"\s*,")
_TAIL_ID: Final = re.compile(r',\s*"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")\s*\}\s*$')


def _usable(value: object) -> RequestId | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value


def _id_in_head(text: str) -> RequestId | None:
    """The top-level id if the members before it are whole in `text` (they are small)."""
    opened = _OPEN.match(text)
    if opened is None:
        return None
    decoder = json.JSONDecoder()
    at = opened.end()
    while True:
        key = _KEY.match(text, at)
        if key is None:
            return None
        try:
            value, at = decoder.raw_decode(text, key.end())
        except ValueError:  # the member runs past the head (params), or is not JSON
            return None
        if key.group(1) == "id":
            # Not at the very end: a number cut short by the head would still decode.
            return _usable(value) if at < len(text) else None
        comma = _COMMA.match(text, at)
        if comma is None:
            return None
        at = comma.end()


def _id_in_tail(text: str) -> RequestId | None:
    """The top-level id when it is the message's last member.

    A nested `"id"` member is followed by two closing brackets or more, and
    one inside a string by an unescaped quote, so neither matches.
    """
    found = _TAIL_ID.search(text)
    if found is None:
        return None
    return _usable(json.loads(found.group(1)))


class LineReader:
    """Lines of a byte stream (`read` returns b"" at its end), each at most `limit` bytes.

    `next` is blocking (run it in a worker thread); it returns the next
    line without its newline, an `Oversized` for a longer one, or None at
    the end of the stream.
    """

    def __init__(self, read: Callable[[int], bytes], limit: int) -> None:
        self._read = read
        self.limit = limit
        self._buffer = bytearray()
        self._eof = False

    def _fill(self) -> bool:
        if self._eof:
            return False
        data = self._read(CHUNK)
        if not data:
            self._eof = True
            return False
        self._buffer += data
        return True

    def next(self) -> bytes | Oversized | None:
        scanned = 0
        while True:
            end = self._buffer.find(b"\n", scanned)
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return self._line(line)
            scanned = len(self._buffer)
            if scanned > self.limit + 1:  # + 1: a "\r" before the newline is not counted
                return self._skip()
            if not self._fill():
                if not self._buffer:
                    return None
                line = bytes(self._buffer)
                self._buffer.clear()
                return self._line(line)

    def _line(self, line: bytes) -> bytes | Oversized:
        body = line[:-1] if line.endswith(b"\r") else line
        if len(body) > self.limit:
            return Oversized(len(body), body[:HEAD], body[-TAIL:])
        return body

    def _skip(self) -> Oversized:
        """Read the rest of an oversized line, keeping only its first and last bytes."""
        head = b""
        size = 0
        tail = b""
        while True:
            end = self._buffer.find(b"\n")
            piece = self._buffer if end < 0 else self._buffer[:end]
            if len(head) < HEAD:
                head += bytes(piece[: HEAD - len(head)])
            size += len(piece)
            tail = (tail + bytes(piece[-TAIL:]))[-TAIL:]
            if end >= 0:
                del self._buffer[: end + 1]
                break
            self._buffer.clear()
            if not self._fill():
                break
        if tail.endswith(b"\r"):
            tail, size = tail[:-1], size - 1
        return Oversized(size, head, tail)


Refuse = Callable[[Oversized], Awaitable[None]]


class BoundedLines:
    """Async iterator of the text lines of `reader`, for the SDK's `stdio_server`.

    `prelude` are lines already read (`server.front`), given first.
    Oversized lines are not yielded: `refuse` is awaited with each one.
    Lines are decoded as UTF-8 with replacement, as the SDK does.
    """

    def __init__(
        self, reader: LineReader, refuse: Refuse, prelude: Sequence[bytes | Oversized] = ()
    ) -> None:
        self._reader = reader
        self._refuse = refuse
        self._prelude = list(prelude)

    def __aiter__(self) -> BoundedLines:
        return self

    async def __anext__(self) -> str:
        import anyio.to_thread

        while True:
            if self._prelude:
                item: bytes | Oversized | None = self._prelude.pop(0)
            else:
                item = await anyio.to_thread.run_sync(self._reader.next, abandon_on_cancel=True)
            if item is None:
                raise StopAsyncIteration
            if isinstance(item, Oversized):
                await self._refuse(item)
                continue
            if item.strip():
                return item.decode("utf-8", errors="replace")


def claim_stdin() -> tuple[int, Callable[[], None]]:
    """A private descriptor of stdin, and the call that gives fd 0 back.

    While serving, fd 0 reads /dev/null so nothing else (a handler, a
    child) takes bytes of the wire. The private descriptor is never closed:
    a worker thread may still be blocked reading it when serving ends.
    """
    try:
        private = os.dup(0)
    except OSError:
        return 0, lambda: None
    try:
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return private, lambda: None
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)

    def restore() -> None:
        os.dup2(private, 0)

    return private, restore


def claim_stdout() -> tuple[int, Callable[[], None]]:
    """A private descriptor of stdout (the wire), and the call that gives fd 1 back.

    While serving, fd 1 writes to stderr, so stray output (a handler's
    print, a child that inherits it) never lands between the answers. The
    private descriptor is never closed (a writer thread may hold it).
    """
    import fcntl

    try:
        private = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        return 1, lambda: None
    try:
        os.dup2(2, 1)
    except OSError:
        return private, lambda: None

    def restore() -> None:
        os.dup2(private, 1)

    return private, restore

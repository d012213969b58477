"""The stdio transport's bound on one message (D25), on byte streams in memory.

The real process is driven in tests/server/test_limits.py; these check the
line reader and the id found in a message that is never parsed.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from signalint.server import transport
from signalint.server.transport import LineReader, Oversized, max_bytes_from


def lines(data: bytes, limit: int, chunk: int = 7) -> list[bytes | Oversized]:
    stream = io.BytesIO(data)
    reader = LineReader(lambda size: stream.read(min(size, chunk)), limit)
    out: list[bytes | Oversized] = []
    while (item := reader.next()) is not None:
        out.append(item)
    return out


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_lines_within_the_limit_pass_and_a_longer_one_is_skipped_whole(chunk: int) -> None:
    data = b'{"a":1}\r\n' + b"x" * 50 + b"\n" + b"0123456789\n{}" + b"\n" + b"y" * 11
    got = lines(data, limit=10, chunk=chunk)
    assert got[0] == b'{"a":1}'
    assert got[1] == Oversized(50, b"x" * 50, b"x" * 50)
    assert got[2:4] == [b"0123456789", b"{}"]  # exactly the limit passes
    assert got[4] == Oversized(11, b"y" * 11, b"y" * 11)  # the last line, with no newline
    assert len(got) == 5


def test_an_oversized_line_keeps_only_its_first_and_last_bytes() -> None:
    body = b"{" + b"a" * (3 * transport.HEAD) + b"}"
    (skipped,) = lines(body + b"\n", limit=100, chunk=4096)
    assert isinstance(skipped, Oversized)
    assert skipped.size == len(body)
    assert skipped.head == body[: transport.HEAD] and skipped.tail == body[-transport.TAIL :]


def oversized(message: dict[str, Any] | str, limit: int = 100) -> Oversized:
    text = message if isinstance(message, str) else json.dumps(message)
    (item,) = lines(text.encode() + b"\n", limit=limit, chunk=1 << 16)
    assert isinstance(item, Oversized)
    return item


BIG = {"name": "ingest_diagnostics", "arguments": {"diagnostics": [{"message": "x" * 200_000}]}}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": BIG}, 7),
        ({"jsonrpc": "2.0", "id": "req-7", "method": "tools/call", "params": BIG}, "req-7"),
        ({"method": "tools/call", "params": BIG, "jsonrpc": "2.0", "id": 8}, 8),  # TS order
        ({"method": "tools/call", "params": BIG, "jsonrpc": "2.0", "id": "r8"}, "r8"),
        # Ids nested in the params, a boolean id, no id: none is the request's.
        ({"params": {**BIG, "id": 3}, "jsonrpc": "2.0"}, None),
        ({"params": BIG, "x": {"id": 4}}, None),
        ({"jsonrpc": "2.0", "id": True, "params": BIG}, None),
        ({"jsonrpc": "2.0", "method": "notifications/x", "params": BIG}, None),
        ('{"params": "' + "z" * 300 + '\\",\\"id\\":9}"}', None),
        ("not json at all " * 20, None),
    ],
)
def test_the_id_of_an_oversized_message_is_read_from_its_ends_or_is_null(
    message: dict[str, Any] | str, expected: object
) -> None:
    assert oversized(message).request_id() == expected


def test_the_refusal_names_the_size_the_limit_and_the_setting() -> None:
    text = oversized({"id": 1, "params": BIG}).message(100)
    assert "100 bytes per message" in text and transport.ENV_VARIABLE in text
    assert "nothing changed" in text


def test_the_limit_comes_from_the_environment_or_is_the_default_with_a_warning() -> None:
    assert max_bytes_from({}) == (transport.DEFAULT_MAX_BYTES, None)
    assert max_bytes_from({transport.ENV_VARIABLE: "100000"}) == (100_000, None)
    for bad in ("12", "lots", "-5", str(2**40)):
        limit, warning = max_bytes_from({transport.ENV_VARIABLE: bad})
        assert limit == transport.DEFAULT_MAX_BYTES
        assert warning is not None and transport.ENV_VARIABLE in warning

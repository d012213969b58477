"""Request bounds (D25) on the real `signalint-mcp`: refused, state unchanged, still serving.

An oversized message is written as raw JSON-RPC on the process's stdin
(the SDK client is not needed to send one line); per-field limits go
through the SDK client, which validates every answer against the output
schema the server advertised.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signalint.ingest import MAX_MESSAGE_CHARS
from signalint.server.transport import DEFAULT_MAX_BYTES, ENV_VARIABLE

from .conftest import SERVER, connect, server_env, write_project
from .test_live_tools import diag, live

pytestmark = [pytest.mark.real]

INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "limits-test", "version": "1"},
}


class Wire:
    """Raw JSON-RPC lines to and from a `signalint-mcp` process."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc, self.stdin, self.stdout = proc, proc.stdin, proc.stdout

    def write(self, line: bytes) -> None:
        self.stdin.write(line + b"\n")
        self.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message).encode())

    def receive(self) -> dict[str, Any]:
        reply: dict[str, Any] = json.loads(self.stdout.readline())
        return reply

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": tool, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
        reply = self.receive()
        assert reply["id"] == request_id, reply
        return reply

    def live_messages(self, request_id: int) -> list[str]:
        reply = self.call(request_id, "get_live_diagnostics", {})
        return [i["message"] for i in reply["result"]["structuredContent"]["issues"]]


def start(root: Path, stderr: Path, **env: str) -> Iterator[Wire]:
    proc = subprocess.Popen(
        [str(SERVER)],
        cwd=root,
        env={**server_env(**env), "PATH": os.environ["PATH"], "HOME": os.environ["HOME"]},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr.open("w"),
    )
    wire = Wire(proc)
    try:
        wire.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        assert wire.receive()["result"]["serverInfo"]["name"] == "signalint"
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield wire
    finally:
        wire.stdin.close()
        assert proc.wait(timeout=30) == 0


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_project(tmp_path / "project")


def ingest_line(request_id: object, message_chars: int, *, id_last: bool = False) -> bytes:
    """An ingest_diagnostics call with one diagnostic of `message_chars` characters."""
    arguments = {"diagnostics": [diag("src/a.ts", 0, 0, "m" * message_chars)]}
    params = {"name": "ingest_diagnostics", "arguments": arguments}
    head = {"jsonrpc": "2.0", "id": request_id}
    body = {"method": "tools/call", "params": params}
    message = {**body, **head} if id_last else {**head, **body}
    if request_id is None:
        del message["id"]
    return json.dumps(message).encode()


def test_a_40_mb_request_is_refused_unparsed_by_id_and_the_server_keeps_serving(
    root: Path, tmp_path: Path
) -> None:
    stderr = tmp_path / "server.stderr"
    for wire in start(root, stderr):
        accepted = wire.call(
            1, "ingest_diagnostics", {"diagnostics": [diag("src/a.ts", 0, 0, "kept")]}
        )
        assert not accepted["result"]["isError"], accepted
        for request_id, id_last in [(2, False), ("two", True)]:
            line = ingest_line(request_id, 40_000_000, id_last=id_last)
            wire.write(line)
            reply = wire.receive()
            assert reply["id"] == request_id, reply
            error = reply["error"]
            assert error["code"] == -32600
            assert f"this message is {len(line)} bytes" in error["message"]
            assert (
                f"at most {DEFAULT_MAX_BYTES} bytes per message ({ENV_VARIABLE})"
                in error["message"]
            )
            assert error["data"] == {
                "requestBytes": len(line),
                "maxRequestBytes": DEFAULT_MAX_BYTES,
            }
        # No id before the huge params nor at the end: the error's id is null.
        wire.write(
            b'{"params": {"pad": "'
            + b"p" * 40_000_000
            + b'"}, "id": 3, "jsonrpc": "2.0"  ,"method": "tools/call"}'
        )
        assert wire.receive()["id"] is None
        assert wire.live_messages(4) == ["kept"]  # nothing of the refused requests was used
    log = stderr.read_text()
    assert f"refused a message of {len(ingest_line(2, 40_000_000))} bytes" in log


def test_the_limit_is_configurable_and_a_request_just_under_it_is_served(
    root: Path, tmp_path: Path
) -> None:
    limit = 200_000
    for wire in start(root, tmp_path / "server.stderr", **{ENV_VARIABLE: str(limit)}):
        under = ingest_line(1, 30_000)
        assert len(under) < limit
        wire.write(under)
        assert not wire.receive()["result"]["isError"]
        over = ingest_line(2, limit)
        wire.write(over)
        reply = wire.receive()
        assert reply["id"] == 2 and f"at most {limit} bytes" in reply["error"]["message"]
        assert wire.live_messages(3) == ["m" * 30_000]
    for wire in start(root, tmp_path / "bad.stderr", **{ENV_VARIABLE: "huge"}):
        assert wire.live_messages(1) == []
    assert f"warning: ignoring {ENV_VARIABLE}='huge'" in (tmp_path / "bad.stderr").read_text()


@pytest.mark.anyio
async def test_an_over_limit_field_is_refused_naming_it_and_the_limit(root: Path) -> None:
    async with connect(root) as client:
        await client.call("ingest_diagnostics", {"diagnostics": [diag("src/a.ts", 0, 0, "kept")]})
        long_message = diag("src/b.ts", 0, 0, "x" * (MAX_MESSAGE_CHARS + 1))
        b_uri = (root / "src/b.ts").as_uri()
        for arguments, field, words in [
            ({"diagnostics": [diag("src/b.ts", 0, 0, "fine"), long_message]},
             "diagnostics[1].message", f"longer than {MAX_MESSAGE_CHARS} characters"),
            ({"diagnostics": [{"uri": b_uri, "diagnostics": [long_message]}]},
             "diagnostics[0].diagnostics[0].message", f"longer than {MAX_MESSAGE_CHARS}"),
            ({"diagnostics": [diag("src/b.ts", 0, 0, "m", code="C" * 201)]},
             "diagnostics[0].code", "longer than 200 characters"),
        ]:  # fmt: skip
            refused = await client.call("ingest_diagnostics", arguments)
            assert refused.error and refused.data["code"] == "invalid_arguments", refused.data
            assert refused.data["field"] == field and words in refused.data["message"]
        other = await client.call("clear_live", {"source": "s" * 101})
        assert other.error and other.data["field"] == "source"
        assert "longer than 100 characters" in other.data["message"]
        assert [row[:2] for row in await live(client)] == [("src/a.ts", 1)]


def test_a_line_that_is_not_a_message_is_answered_and_the_server_keeps_serving(
    root: Path, tmp_path: Path
) -> None:
    # JSON-RPC 2.0: -32700 for a line that is not JSON, -32600 for JSON that
    # is not a message, both with a null id; the SDK alone drops them.
    stderr = tmp_path / "server.stderr"
    for wire in start(root, stderr):
        wire.write(b"this is not json")
        wire.write(b'{"hello": "world"}')
        ping = {"name": "ping", "arguments": {}}
        wire.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ping})
        # In order: unanswered lines would make the ping's answer come first.
        parse, invalid, pong = wire.receive(), wire.receive(), wire.receive()
        assert parse["id"] is None and parse["error"]["code"] == -32700
        assert invalid["id"] is None and invalid["error"]["code"] == -32600
        assert pong["id"] == 1 and pong["result"]["structuredContent"]["pong"] is True
    assert "could not parse with -32700" in stderr.read_text()

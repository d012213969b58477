"""Every refused MCP message names what was wrong (`server.malformed`).

The SDK client cannot send most of these shapes, so the real server is
spoken to in raw JSON-RPC over its pipes: each malformed message gets an
error naming the member or field at fault (by its path from `params`) and
what is accepted, with the request's id when it can be read, and the
server keeps serving.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from signalint.server.malformed import envelope, field_errors, params_message

from .conftest import SERVER, server_env

HELLO = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}


def tool_call(params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": "tools/call"}
    if params is not ...:
        message["params"] = params
    return message


# (the message without its id, the error code, words its message must hold,
# the field named in `data`)
PARAMS: list[tuple[dict[str, Any], int, tuple[str, ...], str]] = [
    (tool_call({"name": "check_project", "arguments": [1, 2]}), -32602,
     ("params.arguments must be an object", "got an array"), "params.arguments"),
    (tool_call({"name": "check_project", "arguments": "src"}), -32602,
     ("params.arguments must be an object", "got a string"), "params.arguments"),
    (tool_call({"name": "check_project", "arguments": 3}), -32602,
     ("params.arguments must be an object", "got an integer"), "params.arguments"),
    (tool_call({"name": "check_project", "arguments": True}), -32602,
     ("params.arguments must be an object", "got a boolean"), "params.arguments"),
    (tool_call({"arguments": {}}), -32602, ("params.name is required",), "params.name"),
    (tool_call({"name": 7, "arguments": {}}), -32602,
     ("params.name must be a string", "got an integer"), "params.name"),
    (tool_call({"name": None}), -32602, ("params.name must be a string", "got null"),
     "params.name"),
    (tool_call({"name": "ping", "_meta": []}), -32602,
     ("params._meta must be an object", "got an array"), "params._meta"),
    (tool_call({"name": "ping", "_meta": {"progressToken": 1.5}}), -32602,
     ("params._meta.progressToken must be a string or an integer",
      "got a number with a fraction"), "params._meta.progressToken"),
    (tool_call(...), -32602, ("params is required",), "params"),
    ({"jsonrpc": "2.0", "method": "tools/list", "params": {"cursor": 5}}, -32602,
     ("params.cursor must be a string", "got an integer"), "params.cursor"),
]  # fmt: skip
UNKNOWN_TOOL = (tool_call({"name": "rm_rf", "arguments": {}}), -32602, ("rm_rf", "params.name"))
# Lines the SDK cannot read as a message at all, as raw text.
ENVELOPES: list[tuple[str, int, tuple[str, ...], bool]] = [
    ('{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": [1, 2]}', -32600,
     ("params must be an object", "got an array"), True),
    ('{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": "x"}', -32600,
     ("params must be an object", "got a string"), True),
    ('{"jsonrpc": "2.0", "id": %d, "method": 5}', -32600,
     ("method must be a string", "got an integer"), True),
    ('{"jsonrpc": "2.0", "id": %d}', -32600, ("method must be a string", "missing"), True),
    ('{"jsonrpc": "1.0", "id": %d, "method": "ping"}', -32600,
     ('jsonrpc must be "2.0"', '"1.0"'), True),
    ('{"id": %d, "method": "ping"}', -32600, ('jsonrpc must be "2.0"', "missing"), True),
    ('[{"jsonrpc": "2.0", "id": %d, "method": "ping"}]', -32600,
     ("batch", "one JSON-RPC 2.0 message"), False),
    ('{"jsonrpc": "2.0", "id": %d, "method": "ping"', -32700, ("not JSON",), False),
    ('"hello %d"', -32600, ("must be a JSON object", "got a string"), False),
]  # fmt: skip


class Wire:
    """The real server over its pipes."""

    def __init__(self, root: Path) -> None:
        env = {**server_env(), "PATH": os.environ["PATH"], "HOME": os.environ["HOME"]}
        self.proc = subprocess.Popen(
            [str(SERVER)],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def line(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.line(json.dumps(message))
        return self.next()

    def next(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the server closed stdout"
        return dict(json.loads(line))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    project.mkdir()
    (project / "package.json").write_text('{"name": "p", "private": true}\n')
    (project / "signalint.config.json").write_text('{"engines": {"oxlint": false}}\n')
    return project


@pytest.mark.real
def test_every_malformed_message_is_answered_naming_what_was_wrong(root: Path) -> None:
    wire = Wire(root)
    try:
        # Before initialize: the session's state is named, not "invalid params".
        early = wire.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert early["error"]["code"] == -32602
        assert "before the session was initialized" in early["error"]["message"]
        assert "initialize" in early["error"]["data"]["expected"]
        hello = wire.ask({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": HELLO})
        assert "result" in hello, hello
        wire.line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        for index, (message, code, words, field) in enumerate(PARAMS, start=100):
            reply = wire.ask({**message, "id": index})
            assert reply["id"] == index, reply
            error = reply["error"]
            assert error["code"] == code, (message, error)
            for word in words:
                assert word in error["message"], (message, error)
            assert "Invalid request parameters" not in error["message"]
            assert field in [e["field"] for e in error["data"]["errors"]], error
        message, code, words = UNKNOWN_TOOL
        reply = wire.ask({**message, "id": 150})
        assert reply["error"]["code"] == code
        assert all(word in reply["error"]["message"] for word in words)
        assert reply["error"]["data"]["field"] == "params.name"
        assert "ping" in reply["error"]["data"]["expected"]
        for index, (text, code, words, has_id) in enumerate(ENVELOPES, start=200):
            wire.line(text % index)
            reply = wire.next()
            assert reply["id"] == (index if has_id else None), (text, reply)
            error = reply["error"]
            assert error["code"] == code, (text, error)
            for word in words:
                assert word in error["message"], (text, error)
        # A tool's own arguments: a tool result with isError, the field by its path.
        bad = {"name": "ingest_diagnostics", "arguments": {"source": "x", "diagnostics": [{}]}}
        reply = wire.ask({"jsonrpc": "2.0", "id": 300, "method": "tools/call", "params": bad})
        refused = reply["result"]["structuredContent"]
        assert reply["result"]["isError"] and refused["field"].startswith("diagnostics[0].")
        long = {"name": "list_issues", "arguments": {"checkId": "x" * 201}}
        reply = wire.ask({"jsonrpc": "2.0", "id": 301, "method": "tools/call", "params": long})
        refused = reply["result"]["structuredContent"]
        assert refused["field"] == "checkId" and "longer than 200" in refused["message"]
        # And it serves on.
        ping = {"name": "ping", "arguments": {}}
        reply = wire.ask({"jsonrpc": "2.0", "id": 400, "method": "tools/call", "params": ping})
        assert reply["result"]["content"][0]["text"] == "pong"
    finally:
        wire.close()


@pytest.mark.real
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"capabilities": []}, "params.capabilities"),
        ({"clientInfo": {"name": "t"}}, "params.clientInfo.version"),
        ({"capabilities": {"roots": 5}}, "params.capabilities.roots"),
    ],
)
def test_a_malformed_first_initialize_is_answered_once_naming_the_field(
    root: Path, change: dict[str, Any], field: str
) -> None:
    """The front answers a well-formed `initialize` from its record; a
    malformed one goes to the SDK, so the client gets one answer: the error."""
    wire = Wire(root)
    try:
        bad = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {**HELLO, **change}}
        reply = wire.ask(bad)
        assert reply["id"] == 1 and "result" not in reply, reply
        assert field in [e["field"] for e in reply["error"]["data"]["errors"]], reply
        good = {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": HELLO}
        assert wire.ask(good)["id"] == 2  # no second answer to id 1 came first
    finally:
        wire.close()


# The wording, in-process.


def test_a_union_is_named_once_with_every_type_it_accepts() -> None:
    errors = [
        {"loc": ("params", "_meta", "progressToken", "str"), "type": "string_type", "msg": "x"},
        {"loc": ("params", "_meta", "progressToken", "int"), "type": "int_from_float", "msg": "x"},
    ]
    params = {"name": "ping", "_meta": {"progressToken": 2.5}}
    fields = field_errors(errors, params)
    assert fields == [
        {
            "field": "params._meta.progressToken",
            "got": "a number with a fraction",
            "expected": "a string or an integer",
        }
    ]


def test_a_long_list_of_faults_is_counted() -> None:
    fields = [{"field": f"params.f{i}", "got": "null", "expected": "a string"} for i in range(5)]
    message = params_message("tools/call", fields)
    assert "params.f0" in message and "params.f2" in message and "params.f3" not in message
    assert message.endswith("and 2 more")


def test_an_id_that_is_not_a_string_or_an_integer_is_named_and_not_echoed() -> None:
    code, message, request_id, data = envelope('{"jsonrpc": "2.0", "id": [1], "method": "x"}')
    assert code == -32600 and request_id is None
    assert "id must be a string or an integer, got an array" in message
    assert data["errors"][0]["field"] == "id"

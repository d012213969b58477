"""The server's first answers (`server.front`): the handshake answered from
what the SDK answered at an earlier start, before the SDK is loaded, and
the connection handed over to the SDK in the state the client believes.

These tests turn the shipped answers off (`SIGNALINT_MCP_PACKAGED=0`, see
`test_packaged.py`) so that a first start is the SDK's and records.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from signalint.engines.resolve import managed_dir
from signalint.server import front

from .conftest import SERVER, connect, server_env, write_project

pytestmark = [pytest.mark.real, pytest.mark.anyio]

HELLO = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"},
}


def records(cache: Path) -> list[Path]:
    return sorted((cache / "signalint" / "mcp").glob("*.json"))


async def test_a_second_start_answers_the_handshake_as_the_sdk_did_and_serves_on(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "p")
    cache = tmp_path / "xdg"
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    # The managed engines live under the default cache home, not this one.
    engines = str(managed_dir())
    async with connect(
        root, stderr=first_log, XDG_CACHE_HOME=str(cache), SIGNALINT_ENGINES_DIR=engines,
        SIGNALINT_MCP_PACKAGED="0",
    ) as first:  # fmt: skip
        assert (await first.call("ping")).error is False
    assert "recorded at an earlier start" not in first_log.read_text()
    (record,) = records(cache)
    kept = json.loads(record.read_text())
    assert kept["tools"]["tools"] and list(kept["initialize"]) == [first.init.protocol_version]

    async with connect(
        root, stderr=second_log, XDG_CACHE_HOME=str(cache), SIGNALINT_ENGINES_DIR=engines,
        SIGNALINT_MCP_PACKAGED="0",
    ) as second:  # fmt: skip
        assert second.init == first.init
        assert second.tools == first.tools
        # The SDK took over in the state the client believes: tools answer.
        pinged = await second.call("ping")
        assert pinged.error is False
        checked = await second.call("check_project", {})
        assert checked.data["totalIssues"] == 2
    # Said once the SDK took over (at the first tool call).
    assert "recorded at an earlier start" in second_log.read_text()


def send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write((json.dumps(message) + "\n").encode())
    stdin.flush()


def raw_session(root: Path, cache: Path, **env: str) -> tuple[list[dict[str, Any]], str]:
    """Every message the server wrote for: initialize (id 7), initialized,
    tools/list (id 8), a ping tool call (id 9); then end of input. The
    shipped answers are off unless `env` says otherwise."""
    process = subprocess.Popen(
        [str(SERVER)],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(XDG_CACHE_HOME=str(cache), **{"SIGNALINT_MCP_PACKAGED": "0", **env}),
    )
    assert process.stdin is not None and process.stdout is not None
    send(process.stdin, {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": HELLO})
    send(process.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(process.stdin, {"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    call = {"name": "ping", "arguments": {}}
    send(process.stdin, {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": call})
    messages: list[dict[str, Any]] = []
    while not any(m.get("id") == 9 for m in messages):
        line = process.stdout.readline()
        assert line, "the server ended before answering the tool call"
        messages.append(json.loads(line))
    process.stdin.close()
    messages += [json.loads(line) for line in process.stdout if line.strip()]
    assert process.wait(timeout=30) == 0
    assert process.stderr is not None
    return messages, process.stderr.read().decode()


def test_each_request_is_answered_once_and_the_recorded_answers_are_the_sdk_s(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "p")
    cache = tmp_path / "xdg"
    by_sdk, log = raw_session(root, cache)
    assert "recorded at an earlier start" not in log
    by_front, log = raw_session(root, cache)
    assert "recorded at an earlier start" in log
    for messages in (by_sdk, by_front):
        assert sorted(m["id"] for m in messages if "id" in m) == [7, 8, 9]
        assert all("error" not in m for m in messages)
    results = [{m["id"]: m["result"] for m in ms if m["id"] in (7, 8)} for ms in (by_sdk, by_front)]
    assert results[0] == results[1]


def test_a_record_is_used_only_under_the_conditions_it_was_made_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(tmp_path / "p")
    env = {"HOME": str(tmp_path)}
    key = front.record_key(root, env)
    assert front.record_key(root, env) == key
    assert front.record_key(root, {**env, "SIGNALINT_COMPACT": "1"}) != key
    assert front.record_key(tmp_path, env) != key
    settings = root / "signalint.config.json"
    settings.write_text(settings.read_text() + " ")
    assert front.record_key(root, env) != key
    cache = tmp_path / "cache"
    front.Recorded(key, {"2025-06-18": {"a": 1}}, {"tools": []}).save(cache)
    assert front.Recorded.load(key, cache).tools == {"tools": []}
    assert front.Recorded.load("other", cache).tools is None
    (cache / f"{key}.json").write_text("{not json")
    assert front.Recorded.load(key, cache).initialize == {}


PROBE = """
import json, os, sys
from signalint.server import front

def probe() -> None:
    sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n")
    sys.stderr.flush()
    os._exit(0)

front.load_in_background = probe
from signalint.server.entry import main
main([])
"""
# What answering `initialize` may load besides the standard library.
ALLOWED = {
    "signalint",
    "signalint.errors",
    "signalint.project",
    "signalint.project.markers",
    "signalint.project.roots",
    "signalint.server",
    "signalint.server.entry",
    "signalint.server.front",
    "signalint.server.leaving",
    "signalint.server.packaged",
    "signalint.server.transport",
}


def probe_initialize(root: Path, cache: Path) -> tuple[dict[str, Any], set[str]]:
    """The server's answer to `initialize` in `root` with cache home `cache`,
    and the modules it had loaded when it answered (`PROBE`)."""
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=root,
        input=(json.dumps(hello) + "\n").encode(),
        capture_output=True,
        env=server_env(XDG_CACHE_HOME=str(cache)),
        timeout=60,
        check=False,
    )
    lines = [line for line in done.stderr.decode().splitlines() if line.startswith("MODULES ")]
    assert lines, done.stderr.decode()
    answer = json.loads(done.stdout.decode().splitlines()[0])
    assert answer["id"] == 1
    return answer["result"], set(json.loads(lines[0].removeprefix("MODULES ")))


def assert_light(loaded: set[str]) -> None:
    """Neither the SDK nor the check pipeline (nor click) was loaded."""
    ours = {m for m in loaded if m == "signalint" or m.startswith("signalint.")}
    assert ours <= ALLOWED, sorted(ours - ALLOWED)
    heavy = ("mcp", "mcp_types", "pydantic", "anyio", "asyncio", "jsonschema", "click")
    assert not [m for m in loaded if m.split(".")[0] in heavy]


def test_answering_initialize_loads_neither_the_sdk_nor_the_check_pipeline(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "p")
    cache = tmp_path / "xdg"
    raw_session(root, cache)  # records the SDK's answers
    result, loaded = probe_initialize(root, cache)
    assert result["serverInfo"]["name"] == "signalint"
    assert_light(loaded)

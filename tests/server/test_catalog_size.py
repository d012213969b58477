"""`tools/list` stays affordable: every byte of it is read on every connection.

The budget is the reference implementation's size, 1.8 KB per tool on
average, measured as the minified JSON of the `result` of the real
server's `tools/list` response, in every payload mode with compact keys
on and off.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from signalint.server.catalog import TOOLS

from .conftest import SERVER, server_env, write_project

pytestmark = pytest.mark.real  # the real server process

BYTES_PER_TOOL = 1800


def _exchange(root: Path, env: dict[str, str]) -> dict[str, Any]:
    """The `tools/list` response of a fresh server, over raw stdio JSON-RPC."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "size-test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    process = subprocess.Popen(
        [str(SERVER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=root,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for request in requests:
            process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        # stdin stays open until the answer is read: at EOF the server stops.
        for line in process.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                result: dict[str, Any] = message["result"]
                return result
    finally:
        process.stdin.close()
        process.wait()
    raise AssertionError("the server closed stdout without answering tools/list")


@pytest.mark.parametrize("compact", ["0", "1"], ids=["full", "compact"])
@pytest.mark.parametrize("mode", ["both", "text", "structured"])
def test_tools_list_fits_the_reference_budget_per_tool(
    tmp_path: Path, mode: str, compact: str
) -> None:
    root = write_project(tmp_path / "project")
    env = server_env(SIGNALINT_MCP_PAYLOAD=mode, SIGNALINT_COMPACT=compact)
    result = _exchange(root, env)
    tools = result["tools"]
    size = len(json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode())
    assert len(tools) == len(TOOLS)
    print(f"tools/list {mode} compact={compact}: {size} bytes, {size / len(tools):.0f}/tool")
    assert size <= BYTES_PER_TOOL * len(tools), f"tools/list is {size} bytes"
    assert all(("outputSchema" in tool) is (mode != "text") for tool in tools)

"""A second, independent client: the MCP Inspector CLI (TypeScript SDK) drives the server.

The inspector is installed (pinned) by the test set-up:

    npm install --prefix "$HOME/.cache/signalint/inspector" --no-audit --no-fund \
        @modelcontextprotocol/inspector@2.12.0

`SIGNALINT_TEST_INSPECTOR` may name another install prefix. `npx` runs from
that prefix so it uses the pinned local copy instead of the network. When
it is missing the tests skip locally and fail under CI (CI=true).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..conftest import require_engine
from .conftest import SERVER, write_project

DEFAULT_PREFIX = Path.home() / ".cache" / "signalint" / "inspector"
PACKAGE = "@modelcontextprotocol/inspector"

pytestmark = pytest.mark.real  # npx, the Inspector and the real server


@pytest.fixture
def inspector() -> Path:
    prefix = Path(os.environ.get("SIGNALINT_TEST_INSPECTOR", str(DEFAULT_PREFIX)))
    installed = prefix / "node_modules" / ".bin" / "mcp-inspector"
    if not installed.exists() or shutil.which("npx") is None:
        message = f"MCP Inspector not installed under {prefix}: see this module's docstring"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return prefix


def inspect(prefix: Path, root: Path, *args: str) -> dict[str, Any]:
    # The Inspector starts the server with a bare environment: the session's
    # work directory is passed on (tests/conftest.py).
    work = ["-e", f"SIGNALINT_WORK_DIR={os.environ['SIGNALINT_WORK_DIR']}"]
    done = subprocess.run(
        ["npx", "--yes", PACKAGE, "--cli", str(SERVER),
         "-e", f"SIGNALINT_PROJECT_ROOT={root}", *work, *args],
        cwd=prefix, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    return dict(json.loads(done.stdout))


def test_inspector_lists_every_tool(inspector: Path, tmp_path: Path) -> None:
    root = write_project(tmp_path / "p")
    listing = inspect(inspector, root, "--method", "tools/list")
    names = {tool["name"] for tool in listing["tools"]}
    assert {"ping", "check_project", "check_files", "list_issues"} <= names
    for tool in listing["tools"]:
        assert tool["inputSchema"]["additionalProperties"] is False
        assert "outputSchema" in tool and "annotations" in tool


def test_inspector_calls_ping(inspector: Path, tmp_path: Path) -> None:
    root = write_project(tmp_path / "p")
    result = inspect(inspector, root, "--method", "tools/call", "--tool-name", "ping")
    assert result["content"][0]["text"] == "pong"
    assert result["structuredContent"] == {"pong": True, "projectRoot": str(root.resolve())}


def test_inspector_accepts_a_compact_check(inspector: Path, tmp_path: Path) -> None:
    # A client built on the TypeScript SDK accepts the compact check result.
    require_engine("tsc")
    root = write_project(tmp_path / "p")
    result = inspect(
        inspector, root, "-e", "SIGNALINT_COMPACT=1",
        "--method", "tools/call", "--tool-name", "check_project",
    )  # fmt: skip
    assert result["isError"] is False
    assert result["structuredContent"]["total"] == 2

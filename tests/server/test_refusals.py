"""Hostile and mistaken calls: each gets a clear refusal, and the server keeps serving.

Argument and path problems are tool results with `isError: true` naming the
field; unknown tools and non-object arguments are JSON-RPC -32602 errors.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..conftest import require_engine
from .conftest import SERVER, connect, server_env, write_project

pytestmark = [pytest.mark.real, pytest.mark.anyio]

TOO_MANY = ["src/a.ts"] * 10_001

# (tool, arguments, field named in the refusal, words in the message)
HOSTILE: list[tuple[str, dict[str, Any], str, str]] = [
    ("ping", {"verbose": True}, "verbose", "unknown argument"),
    ("check_project", {"paths": ["."], "fix": True}, "fix", "unknown argument"),
    ("check_project", {"paths": "src"}, "paths", "expected an array"),
    ("check_project", {"paths": [7]}, "paths[0]", "expected a string"),
    ("check_project", {"paths": []}, "paths", "at least 1"),
    ("check_files", {}, "files", "required"),
    ("check_files", {"files": TOO_MANY}, "files", "at most 10000"),
    ("check_files", {"files": ["../../etc/passwd"]}, "files[0]", "escapes the project root"),
    ("check_files", {"files": ["/etc/passwd"]}, "files[0]", "absolute paths"),
    ("check_files", {"files": ["src/a.ts", "src/a\x00.ts"]}, "files[1]", "NUL"),
    ("check_files", {"files": ["-rf"]}, "files[0]", "option"),
    ("check_files", {"files": ["etc-link/passwd"]}, "files[0]", "symlink"),
    ("check_files", {"files": ["passwd-link"]}, "files[0]", "symlink"),
    ("check_files", {"files": ["src/missing.ts"]}, "files[0]", "no such file"),
    ("after_edit_check", {"files": ["/etc"]}, "files[0]", "absolute paths"),
    ("get_issue_detail", {"clusterId": "c"}, "checkId", "required"),
    ("get_issue_detail", {"checkId": "x", "clusterId": "c", "issueId": "i"}, "clusterId",
     "exactly one"),
    ("get_issue_detail", {"checkId": "x"}, "clusterId", "exactly one"),
    ("get_issue_detail", {"checkId": "nope", "issueId": "abc"}, "checkId", "unknown or expired"),
    ("get_diagnostic_snapshot", {"checkId": "nope"}, "checkId", "unknown or expired"),
    ("get_diagnostic_snapshot", {"checkId": 5}, "checkId", "expected a string"),
    ("compare_diagnostics", {"baselineCheckId": "a", "currentCheckId": "b"}, "baselineCheckId",
     "unknown"),
    ("list_issues", {"checkId": "x", "limit": 0}, "limit", "between 1 and 500"),
    ("list_issues", {"checkId": "x", "limit": True}, "limit", "expected an integer"),
    ("list_issues", {"checkId": "x", "severity": "fatal"}, "severity", "expected one of"),
    ("list_issues", {"checkId": "x" * 201}, "checkId", "longer than"),
    ("get_loop_status", {"x" * 5000: 1}, "x" * 79 + "…", "unknown argument"),
]  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    require_engine("tsc")
    root = write_project(tmp_path / "mini")
    (root / "etc-link").symlink_to("/etc")
    (root / "passwd-link").symlink_to("/etc/passwd")
    return root


async def test_hostile_arguments_are_refused_by_field_and_the_server_keeps_serving(
    project: Path,
) -> None:
    async with connect(project) as client:
        for tool, arguments, field, words in HOSTILE:
            result = await client.call(tool, arguments)
            assert result.error, (tool, arguments)
            data = result.data
            assert data["field"] == field, (tool, data)
            assert words in data["message"], (tool, data)
            assert data["code"] in {"invalid_arguments", "path_refused", "stale"}
        check = await client.call("check_project")
        assert not check.error and check.data["totalIssues"] == 2
        check_id = check.data["checkId"]
        for arguments, field in [
            ({"checkId": check_id, "cursor": "garbage!"}, "cursor"),
            ({"checkId": check_id, "engine": "tsc", "cursor": "eyJvIjoxLCJrIjoieCJ9"}, "cursor"),
        ]:
            refused = await client.call("list_issues", arguments)
            assert refused.error and refused.data["field"] == field
        unknown = await client.call("get_issue_detail", {"checkId": check_id, "issueId": "ffff"})
        assert unknown.error and unknown.data["status"] == "stale"
        stale_delta = await client.call(
            "after_edit_check", {"files": ["src/a.ts"], "baselineCheckId": "gone"}
        )
        assert not stale_delta.error
        assert stale_delta.data["delta"]["status"] == "stale"
        assert (await client.call("ping")).text == "pong"


async def test_unknown_tools_are_protocol_errors(project: Path) -> None:
    from mcp.shared.exceptions import MCPError  # the SDK loads only in the real tier

    async with connect(project) as client:
        with pytest.raises(MCPError) as caught:
            await client.session.call_tool("rm_rf", {})
        assert caught.value.code == -32602
        assert "rm_rf" in caught.value.message
        assert (await client.call("ping")).text == "pong"


def rpc(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> dict[str, Any] | None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    if "id" not in message:
        return None
    while True:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == message["id"]:
            return dict(reply)


def test_non_object_arguments_are_protocol_errors(project: Path) -> None:
    # The SDK client cannot send these, so this speaks raw JSON-RPC.
    proc = subprocess.Popen(
        [str(SERVER)],
        cwd=project,
        env={**server_env(), "PATH": os.environ["PATH"], "HOME": os.environ["HOME"]},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        assert rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        for index, arguments in enumerate([[1, 2], "paths", 3, True], start=2):
            params = {"name": "check_project", "arguments": arguments}
            reply = rpc(
                proc, {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": params}
            )
            assert reply is not None and reply["error"]["code"] == -32602, reply
        params = {"name": "ping", "arguments": {}}
        reply = rpc(proc, {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": params})
        assert reply is not None and reply["result"]["content"][0]["text"] == "pong"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)


async def test_uninitialized_project_is_refused_until_allowed(tmp_path: Path) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "fresh")
    (root / "signalint.config.json").unlink()
    async with connect(root) as client:
        refused = await client.call("check_project")
        assert refused.error
        assert refused.data["code"] == "project_not_initialized"
        assert refused.data["projectRoot"] == str(root.resolve())
        assert "signalint init" in refused.data["message"]
    async with connect(root, SIGNALINT_ALLOW_UNINITIALIZED="1") as client:
        allowed = await client.call("check_files", {"files": ["src/a.ts"]})
        assert not allowed.error and allowed.data["engines"]["tsc"]["status"] == "ok"


async def test_markers_are_required_even_when_uninitialized_projects_are_allowed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "notes"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "readme.md").write_text("# notes\n")
    async with connect(root, SIGNALINT_ALLOW_UNINITIALIZED="1") as client:
        refused = await client.call("check_project")
        assert refused.error and refused.data["code"] == "project_markers_missing"
        assert (await client.call("ping")).data["projectRoot"] == str(root.resolve())


async def test_invalid_config_is_reported_per_check_without_absolute_paths(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "badconfig")
    (root / "signalint.config.json").write_text('{"engines": {"oxlint": "yes"}}')
    async with connect(root) as client:
        assert (await client.call("ping")).text == "pong"
        refused = await client.call("check_project")
        assert refused.error and refused.data["code"] == "invalid_config"
        message = refused.data["message"]
        assert "engines.oxlint" in message and "signalint.config.json" in message
        assert str(tmp_path) not in message


@pytest.mark.real
async def test_a_python_only_project_is_checked_not_refused(tmp_path: Path) -> None:
    root = tmp_path / "py"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "py"\n\n[tool.ruff]\n')
    (root / "app.py").write_text("import os\n")
    (root / "signalint.config.json").write_text('{"engines": {"ruff": true}}\n')
    async with connect(root) as client:
        answer = await client.call("check_project")
        assert not answer.error, answer.data
        # JS engines are not enabled by default in a project that is only Python.
        assert list(answer.data["engines"]) == ["ruff"]
        assert answer.data["engines"]["ruff"]["status"] == "ok"
        assert answer.data["status"] == "issues_found"

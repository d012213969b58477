"""Ids resolve in every process (D19): server to server, CLI to server, server to CLI.

The MCP Inspector CLI starts a fresh `signalint-mcp` for every call, so the
README's walk-through (check, then detail, then verify against the
baseline) only works when a check's snapshot outlives its process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import require_engine
from .conftest import connect, write_project
from .test_inspector import inspect, inspector  # noqa: F401  (fixture)

SIGNALINT = Path(sys.executable).parent / "signalint"

pytestmark = [pytest.mark.real, pytest.mark.anyio]


def cli(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SIGNALINT_") or k == "SIGNALINT_WORK_DIR"
    }
    return subprocess.run(
        [str(SIGNALINT), *argv], cwd=root, env=env, capture_output=True, text=True, timeout=180
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    require_engine("tsc")
    return write_project(tmp_path / "p")


async def test_a_check_from_one_server_process_resolves_in_the_next(project: Path) -> None:
    async with connect(project) as first:
        checked = (await first.call("check_project")).data
    issue_id = checked["remainingIssues"][0]["issueId"]
    async with connect(project) as second:
        detail = await second.call(
            "get_issue_detail", {"checkId": checked["checkId"], "issueId": issue_id}
        )
        assert not detail.error, detail.data
        assert detail.data["issues"][0]["shortId"] == issue_id
        summary = await second.call("get_diagnostic_snapshot", {"checkId": checked["checkId"]})
        assert not summary.error and summary.data["totalIssues"] == checked["totalIssues"]
        listing = await second.call("list_issues", {"checkId": checked["checkId"]})
        assert listing.data["total"] == checked["totalIssues"]


async def test_a_cli_check_id_resolves_in_the_server(project: Path) -> None:
    done = cli(project, "check", "--format", "json")
    checked = json.loads(done.stdout)
    async with connect(project) as client:
        summary = await client.call("get_diagnostic_snapshot", {"checkId": checked["checkId"]})
        assert not summary.error, summary.data
        assert summary.data["totalIssues"] == checked["totalIssues"]


async def test_a_server_check_id_resolves_in_signalint_show(project: Path) -> None:
    async with connect(project) as client:
        checked = (await client.call("check_project")).data
    done = cli(project, "show", checked["checkId"], "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["totalIssues"] == checked["totalIssues"]


def test_the_inspector_walk_through_resolves_ids_across_calls(
    inspector: Path,  # noqa: F811
    project: Path,
) -> None:
    call = ("--method", "tools/call", "--tool-name")
    checked = inspect(inspector, project, *call, "check_project")["structuredContent"]
    check_id = checked["checkId"]
    record = checked["remainingIssues"][0]

    detail = inspect(
        inspector, project, *call, "get_issue_detail",
        "--tool-arg", f"checkId={check_id}", "--tool-arg", f"issueId={record['issueId']}",
    )  # fmt: skip
    assert detail["isError"] is False, detail
    assert detail["structuredContent"]["issues"][0]["file"] == record["file"]

    (project / "src" / "b.ts").write_text('export const s = "x".length;\n')
    verified = inspect(
        inspector, project, *call, "after_edit_check",
        "--tool-arg", 'files=["src/b.ts"]', "--tool-arg", f"baselineCheckId={check_id}",
    )  # fmt: skip
    delta = verified["structuredContent"]["delta"]
    assert delta.get("status") != "stale", delta
    assert delta["counts"]["resolved"] == 1

"""Every tool, in every payload mode with compact keys on and off (D16).

Each combination runs the whole agent loop on a copy of the demo project:
ping -> check_project -> get_issue_detail -> list_issues -> snapshot ->
check_files -> after_edit_check -> compare -> loop status. Every result is
validated against the advertised output schema (or, in text mode, checked
to carry no structured content and no advertised schema).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import signalint

from .conftest import Client, Result, connect, text_block

pytestmark = [pytest.mark.real, pytest.mark.anyio]

MODES = ["both", "text", "structured"]


def check_keys(compact: bool) -> dict[str, str]:
    if compact:
        return {"total": "total", "remaining": "remaining", "version": "v"}
    return {"total": "totalIssues", "remaining": "remainingIssues", "version": "schemaVersion"}


def assert_transport(result: Result, mode: str) -> None:
    """The first block is minified JSON of the payload; structured adds a user summary."""
    content = result.raw.content
    if mode == "text":
        assert result.raw.structured_content is None
        assert len(content) == 1
        return
    assert json.loads(result.text) == result.raw.structured_content
    assert result.text == json.dumps(
        result.raw.structured_content, separators=(",", ":"), ensure_ascii=False
    )
    if mode == "structured":
        assert len(content) == 2
        summary = text_block(result.raw, 1)
        assert summary.annotations is not None and summary.annotations.audience == ["user"]
    else:
        assert len(content) == 1


def summary_of(result: Result) -> str:
    return text_block(result.raw, 1).text


@pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])
@pytest.mark.parametrize("mode", MODES)
async def test_every_tool_matches_its_schema_in_every_mode(
    demo_project: Path, mode: str, compact: bool
) -> None:
    keys = check_keys(compact)
    compact_env = "1" if compact else "0"
    async with connect(
        demo_project, SIGNALINT_MCP_PAYLOAD=mode, SIGNALINT_COMPACT=compact_env
    ) as client:
        assert client.init.server_info.version == signalint.__version__
        for tool in client.tools.values():
            assert (tool.output_schema is None) == (mode == "text")

        ping = await client.call("ping")
        assert ping.text == "pong"
        if mode == "text":
            assert ping.raw.structured_content is None
        else:
            assert ping.data == {"pong": True, "projectRoot": str(demo_project.resolve())}

        project = await client.call("check_project")
        assert not project.error
        assert_transport(project, mode)
        check = project.data
        assert check["status"] == "issues_found"
        assert check[keys["version"]] == "1.4"
        assert ("projectRoot" in check) is not compact
        total = check[keys["total"]]
        assert total == 14  # 21 native diagnostics; 7 are another engine's report (D20)
        if mode == "structured":
            assert summary_of(project).startswith(f"{total} issues found")
        check_id = check["checkId"]
        assert check["nextStep"].startswith("Every issue is listed here")

        cluster = check["clusters"][0]
        detail = await client.call(
            "get_issue_detail", {"checkId": check_id, "clusterId": cluster["clusterId"]}
        )
        assert not detail.error
        issues = detail.data if mode == "text" else detail.data["issues"]
        assert isinstance(issues, list) and len(issues) == cluster["issueCount"]
        assert {"message", "summary", "engine", "sourceKind"} <= set(issues[0])
        if mode != "text":
            assert json.loads(detail.text) == {"issues": issues}

        flat = check[keys["remaining"]][0]
        by_issue = await client.call(
            "get_issue_detail", {"checkId": check_id, "issueId": flat["issueId"]}
        )
        found = by_issue.data if mode == "text" else by_issue.data["issues"]
        assert [i["shortId"] for i in found] == [flat["issueId"]]

        await assert_listing(client, check_id, total)

        snapshot = await client.call("get_diagnostic_snapshot", {"checkId": check_id})
        assert snapshot.data["checkId"] == check_id
        assert snapshot.data["source"] == "project"
        assert snapshot.data["totalIssues"] == total
        assert snapshot.data["nextStep"] == check["nextStep"]

        files = await client.call("check_files", {"files": ["src/cart.ts"]})
        assert_transport(files, mode)
        scoped = files.data
        filtered = scoped["filteredOut"] if compact else scoped["filteredOutIssueCount"]
        assert filtered > 0 and "check_project" in scoped["nextStep"]
        # One count, one key: the reference's second alias is not repeated.
        assert "filteredOutCount" not in scoped
        assert ("filteredOutIssueCount" in scoped) is not compact
        if mode == "structured":
            assert f"{filtered} outside the requested files" in summary_of(files)

        after = await client.call(
            "after_edit_check", {"files": ["src/cart.ts"], "baselineCheckId": check_id}
        )
        delta = after.data["delta"]
        assert delta["baselineCheckId"] == check_id
        assert "check_project" in after.data["nextStep"] and delta["nextStep"]
        assert delta["introduced"] == [] and delta["counts"]["unobserved"] > 0

        compared = await client.call(
            "compare_diagnostics",
            {"baselineCheckId": check_id, "currentCheckId": scoped["checkId"]},
        )
        assert compared.data["currentCheckId"] == scoped["checkId"]
        assert compared.data["coverageComplete"] is False

        status = await client.call("get_loop_status")
        assert status.data["looping"] is False
        assert status.data["checksObserved"] >= 3


async def assert_listing(client: Client, check_id: str, total: int) -> None:
    """list_issues pages through every issue exactly once (D6)."""
    seen: list[str] = []
    cursor: str | None = None
    while True:
        arguments: dict[str, Any] = {"checkId": check_id, "limit": 8}
        if cursor:
            arguments["cursor"] = cursor
        page = (await client.call("list_issues", arguments)).data
        assert page["total"] == total
        seen += [issue["issueId"] for issue in page["issues"]]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == total
    errors = (await client.call("list_issues", {"checkId": check_id, "severity": "error"})).data
    assert all(issue["severity"] == "error" for issue in errors["issues"])


# Tools that change state other than snapshots and history: -> (destructive, idempotent).
WRITERS = {
    "preview_diagnostic_fix": (False, False),
    "apply_diagnostic_fix": (True, False),  # the one tool that writes source
    "discard_diagnostic_fix": (False, True),
    "suggest_fix": (False, False),
}


async def test_tool_catalog_is_closed_and_annotated(demo_project: Path) -> None:
    async with connect(demo_project) as client:
        assert set(client.tools) == {
            "ping", "check_project", "check_files", "get_issue_detail",
            "get_diagnostic_snapshot", "compare_diagnostics", "after_edit_check",
            "get_loop_status", "list_issues",
            "ingest_diagnostics", "get_live_diagnostics", "clear_live", *WRITERS,
        }  # fmt: skip
        # The live tools that change the server's live buffer (never a source file).
        live_writers = {"ingest_diagnostics", "clear_live"}
        for tool in client.tools.values():
            assert tool.input_schema["type"] == "object"
            assert tool.input_schema["additionalProperties"] is False
            assert tool.description and len(tool.description) > 40
            notes = tool.annotations
            assert notes is not None
            if tool.name in WRITERS:
                assert notes.read_only_hint is False
                assert (notes.destructive_hint, notes.idempotent_hint) == WRITERS[tool.name]
                continue
            if tool.name in live_writers:
                assert notes.read_only_hint is False and notes.destructive_hint is False
            else:
                # destructiveHint means nothing for a read-only tool, so it is left out
                assert notes.read_only_hint is True and notes.destructive_hint is None
            not_idempotent = {"check_project", "check_files", "after_edit_check"}
            assert notes.idempotent_hint is (
                tool.name not in not_idempotent | {"ingest_diagnostics"}
            )
            assert tool.output_schema is not None
            assert tool.output_schema["type"] == "object"


async def test_progress_names_each_engine_and_only_grows(demo_project: Path) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with connect(demo_project) as client:
        result = await client.call("check_project", progress_callback=on_progress)
    assert not result.error
    values = [u[0] for u in updates]
    assert values == sorted(values) and len(set(values)) == len(values)
    messages = " ".join(u[2] or "" for u in updates)
    for engine in ("oxlint", "tsc", "biome", "eslint"):
        assert f"{engine} started" in messages and f"{engine} finished" in messages
    assert updates[-1][0] == updates[-1][1]

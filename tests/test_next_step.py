"""`nextStep` speaks the language of the front end that prints it."""

from __future__ import annotations

import json

from signalint.cluster import cluster
from signalint.formats import json_format
from signalint.report import check_payload, next_step
from signalint.snapshots import snapshot_summary
from tests.factories import issue, snapshot
from tests.formats.builders import result

TOOLS = ("list_issues", "get_issue_detail", "check_project")


def test_cli_next_step_names_commands_and_no_tool() -> None:
    step = next_step("abcd", 3, 2, "cli")
    assert step is not None
    assert "`signalint show abcd`" in step
    assert "`signalint check --format sarif`" in step
    assert "`signalint check` without paths" in step
    assert not any(tool in step for tool in TOOLS)


def test_mcp_next_step_names_tools_and_no_command() -> None:
    step = next_step("abcd", 3, 2, "mcp")
    assert step is not None
    assert 'list_issues tool with checkId "abcd"' in step and "get_issue_detail" in step
    assert "call check_project without paths" in step
    assert "signalint " not in step


def test_nothing_left_out_means_no_next_step() -> None:
    assert next_step("abcd", 0, 0, "cli") is None and next_step("abcd", 0, 0, "mcp") is None


def test_the_cli_json_format_names_commands() -> None:
    issues = [issue(rule=f"s{i}", file=f"f{i:03d}.ts") for i in range(101)]
    checked = result(issues)
    payload = json.loads(json_format.render(checked, cluster(issues)))
    assert "signalint show" in payload["nextStep"] and "list_issues" not in payload["nextStep"]
    mcp = check_payload(checked, cluster(issues))
    assert "list_issues" in mcp["nextStep"] and "signalint " not in mcp["nextStep"]


def test_a_snapshot_summary_words_next_step_for_its_reader() -> None:
    snap = snapshot([issue(rule=f"s{i}", file=f"f{i:03d}.ts") for i in range(101)])
    assert "list_issues" in snapshot_summary(snap)["nextStep"]
    assert "signalint show" in snapshot_summary(snap, "cli")["nextStep"]

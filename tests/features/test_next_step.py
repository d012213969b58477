"""`nextStep` speaks the language of the front end that prints it."""

from __future__ import annotations

import json

from signalint.features.snapshot_query import snapshot_summary
from signalint.formats import json_format
from signalint.formats.commands import command_words
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import Standing, check_payload, left_out_step, next_step
from signalint.server.words import tool_words
from tests.factories import issue, snapshot
from tests.formats.builders import result

TOOLS = ("list_issues", "get_issue_detail", "check_project")


def test_cli_next_step_names_commands_and_no_tool() -> None:
    step = next_step("abcd", 3, 2, command_words)
    assert step is not None
    assert "`signalint show abcd`" in step
    assert "`signalint check --format sarif`" in step
    assert "`signalint check` without paths" in step
    assert not any(tool in step for tool in TOOLS)


def test_mcp_next_step_names_tools_and_no_command() -> None:
    step = next_step("abcd", 3, 2, tool_words)
    assert step is not None
    assert 'list_issues tool with checkId "abcd"' in step and "get_issue_detail" in step
    assert "call check_project without paths" in step
    assert "signalint " not in step


def test_nothing_left_out_still_gives_a_next_step_by_status() -> None:
    assert left_out_step("abcd", 0, 0, command_words) is None
    assert left_out_step("abcd", 0, 0, tool_words) is None
    for front_end in (command_words, tool_words):
        steps = {
            next_step("abcd", 0, 0, front_end, Standing("clean")),
            next_step("abcd", 0, 0, front_end, Standing("issues_found")),
            next_step("abcd", 0, 0, front_end, Standing("error")),
            next_step("abcd", 0, 0, front_end, Standing("error", nothing_checked=True)),
        }
        assert len(steps) == 4 and all(steps)  # four situations, four distinct answers
    assert "`signalint show abcd`" in next_step("abcd", 0, 0, command_words)
    assert "get_issue_detail" in next_step("abcd", 0, 0, tool_words)
    assert "engine" in next_step("abcd", 0, 0, tool_words, Standing("error"))
    # What was left out comes first, whatever the status.
    assert "list_issues" in next_step("abcd", 1, 0, tool_words, Standing("error"))


def test_counts_of_one_and_two_agree_with_their_verbs() -> None:
    one = next_step("abcd", 1, 1, command_words)
    assert "1 more issue is not listed" in one and "1 diagnostic was filtered out" in one
    two = next_step("abcd", 2, 2, tool_words)
    assert "2 more issues are not listed" in two and "2 diagnostics were filtered out" in two


def test_the_cli_json_format_names_commands() -> None:
    issues = [issue(rule=f"s{i}", file=f"f{i:03d}.ts") for i in range(101)]
    checked = result(issues)
    payload = json.loads(json_format.render(checked, cluster(issues)))
    assert "signalint show" in payload["nextStep"] and "list_issues" not in payload["nextStep"]
    mcp = check_payload(checked, cluster(issues), words=tool_words)
    assert "list_issues" in mcp["nextStep"] and "signalint " not in mcp["nextStep"]


def test_a_snapshot_summary_words_next_step_for_its_reader() -> None:
    snap = snapshot([issue(rule=f"s{i}", file=f"f{i:03d}.ts") for i in range(101)])
    assert "list_issues" in snapshot_summary(snap, tool_words)["nextStep"]
    assert "signalint show" in snapshot_summary(snap, command_words)["nextStep"]

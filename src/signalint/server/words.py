"""How the MCP server words a next step: the tools an agent can call.

Core modules advise with `steps.Step` values; this is the server's phrase
for each (see `signalint.steps`). An agent cannot run a shell command
through MCP, so no phrase here names a `signalint` command.
"""

from __future__ import annotations

from typing import assert_never

from signalint.steps import Step


def tool_words(step: Step) -> str:
    """The phrase naming the tool (and its arguments) that takes `step`."""
    check_id = step.check_id
    match step.action:
        case "see_all":
            return (
                f'To see every issue, call the list_issues tool with checkId "{check_id}"; '
                "get_issue_detail gives the full message of a clusterId or issueId."
            )
        case "expand":
            return "get_issue_detail gives the full message of any id."
        case "detail":
            return f'get_issue_detail, checkId "{check_id}"'
        case "list":
            example = (
                "" if step.filter is None else f', filter e.g. {step.filter[0]} "{step.filter[1]}"'
            )
            return f'with list_issues (checkId "{check_id}"{example})'
        case "check":
            return "check_project"
        case "check_whole":
            return "call check_project without paths"
        case "preview":
            return "call preview_diagnostic_fix first"
        case "apply":
            return "Apply with apply_diagnostic_fix and confirm: true."
        case _:
            assert_never(step.action)


def verify_connection(where: str) -> str:
    """How a person confirms a client reaches this server at the right root."""
    return f"call `ping` and check that structuredContent.projectRoot says {where}."


__all__ = ["tool_words", "verify_connection"]

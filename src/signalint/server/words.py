"""How the MCP server words a next step: the tools an agent can call.

Core modules advise with `steps.Step` values; this is the server's phrase
for each (see `signalint.steps`). An agent cannot run a shell command
through MCP, so no phrase here names a `signalint` command.
"""

from __future__ import annotations

from signalint.steps import Step


def tool_words(step: Step) -> str:
    """The phrase naming the tool (and its arguments) that takes `step`."""
    check_id = step.check_id
    if step.action == "see_all":
        return (
            f'To see every issue, call the list_issues tool with checkId "{check_id}"; '
            "get_issue_detail gives the full message of a clusterId or issueId."
        )
    if step.action == "expand":
        return "get_issue_detail gives the full message of any id."
    if step.action == "detail":
        return f'get_issue_detail, checkId "{check_id}"'
    if step.action == "list":
        example = f", filter e.g. {step.filter[0]} {_quoted(step.filter[1])}" if step.filter else ""
        return f'with list_issues (checkId "{check_id}"{example})'
    if step.action == "check":
        return "check_project"
    if step.action == "check_whole":
        return "call check_project without paths"
    return "Apply with apply_diagnostic_fix and confirm: true."


def verify_connection(where: str) -> str:
    """How a person confirms a client reaches this server at the right root."""
    return f"call `ping` and check that structuredContent.projectRoot says {where}."


def _quoted(value: str) -> str:
    return f'"{value}"'


__all__ = ["tool_words", "verify_connection"]

"""How the CLI words a next step: the `signalint` commands a person or a hook can run.

Core modules advise with `steps.Step` values; this is the CLI's phrase for
each (see `signalint.steps`). A terminal has no MCP tools, so no phrase
here names one.
"""

from __future__ import annotations

from typing import assert_never

from signalint.steps import Step


def command_words(step: Step) -> str:
    """The phrase naming the command that takes `step`."""
    check_id = step.check_id
    match step.action:
        case "see_all":
            return (
                f"`signalint show {check_id}` lists them by cluster; "
                "`signalint check --format sarif` lists every issue."
            )
        case "expand":
            return f"`signalint show {check_id}` expands any id."
        case "detail":
            return f"`signalint show {check_id}`"
        case "list":
            return f"with `signalint show {check_id}`"
        case "check":
            return "`signalint check`"
        case "check_whole":
            return "run `signalint check` without paths"
        case "preview":
            return "see the fix with `signalint fix --dry-run` first"
        case "apply":
            return "Apply with `signalint fix`."
        case _:
            assert_never(step.action)


__all__ = ["command_words"]

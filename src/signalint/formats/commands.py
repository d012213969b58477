"""How the CLI words a next step: the `signalint` commands a person or a hook can run.

Core modules advise with `steps.Step` values; this is the CLI's phrase for
each (see `signalint.steps`). A terminal has no MCP tools, so no phrase
here names one.
"""

from __future__ import annotations

from signalint.steps import Step


def command_words(step: Step) -> str:
    """The phrase naming the command that takes `step`."""
    check_id = step.check_id
    if step.action == "see_all":
        return (
            f"`signalint show {check_id}` lists them by cluster; "
            "`signalint check --format sarif` lists every issue."
        )
    if step.action == "expand":
        return f"`signalint show {check_id}` expands any id."
    if step.action == "detail":
        return f"`signalint show {check_id}`"
    if step.action == "list":
        return f"with `signalint show {check_id}`"
    if step.action == "check":
        return "`signalint check`"
    if step.action == "check_whole":
        return "run `signalint check` without paths"
    return "Apply with `signalint fix`."


__all__ = ["command_words"]

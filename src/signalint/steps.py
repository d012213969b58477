"""Next steps as values: what to do next and on which ids, in no front end's words.

Core modules (the check payload, deltas, previews) advise the reader what
to do next: list what was left out, expand an id, check the whole project,
apply a staged fix. They say it with a `Step`, and the front end that shows
the answer turns each step into its own words (`Words`): the MCP server
names its tools (`server.words`), the CLI names `signalint` commands
(`formats.commands`). So no core module names a tool or a command, and one
advice reads right in either front end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Action = Literal[
    "see_all",  # everything the summary left out of check `check_id`, then any id in full
    "expand",  # the full message of any id of check `check_id`
    "detail",  # the full detail of ids of check `check_id`
    "list",  # list issues of check `check_id`, filtered by `filter`
    "check",  # run a check of the whole project
    "check_whole",  # run the same check without paths, to see the whole project
    "preview",  # stage a fix as a preview first
    "apply",  # write a staged fix
]


@dataclass(frozen=True, slots=True)
class Step:
    """One thing the reader can do next: an action, the check and filter it is about.

    `filter` is one (key, value) pair, e.g. ("file", "src/a.ts"), given as
    an example of narrowing a listing.
    """

    action: Action
    check_id: str = ""
    filter: tuple[str, str] | None = None


Words = Callable[[Step], str]
"""A front end's phrase for a step (a command to run, a tool to call)."""

__all__ = ["Action", "Step", "Words"]

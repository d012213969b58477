"""One base for every problem Signalint reports instead of an answer.

A `SignalintError` is something the person or the model has to act on: a
setting that does not load, a project root that cannot be one, a path that
is refused. Its message names the file, key, variable or argument at fault
and what would be accepted; subclasses keep the structured fields (file and
location, path and reason, ...) so each front end can render them its way.

`exit_code` is what the CLI returns for it (2: usage, the default). The CLI
entry point (`signalint.cli.main`) is the one place that catches the base:
it prints the message on one line and returns the code, so no command shows
a traceback for a problem the user can fix. The MCP server turns the same
exceptions into refusals (`signalint.server.refusals`).

An engine that fails during a check is *not* an exception: its failure is
data on its `EngineOutcome` (`model.Failure`) and the other engines'
results stand. `EngineFailure` is for engine-side code that cannot settle a
failure into an outcome and has to throw it: it carries the same typed
failure, so nobody parses its sentence.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs the CLI's forwarding path milliseconds
if TYPE_CHECKING:
    from typing import ClassVar

    # Annotation only: a root refusal at start-up loads no model.
    from signalint.model import Failure


class SignalintError(Exception):
    """Base of the problems Signalint reports; `exit_code` is the CLI's code for it."""

    exit_code: ClassVar[int] = 2


class EngineFailure(SignalintError):
    """An engine failure thrown out of the check pipeline, typed.

    `engine` names the engine, `failure` says what kind of failure it was
    and what fixes it, `message` is the sentence for people (never parsed).
    A failed engine fails the check, so the CLI exits 1.
    """

    exit_code: ClassVar[int] = 1

    def __init__(self, engine: str, failure: Failure, message: str) -> None:
        self.engine = engine
        self.failure = failure
        self.message = message
        super().__init__(message)


__all__ = ["EngineFailure", "SignalintError"]

"""Refusals and classified failures, worded for a model and safe to send.

Every refusal is a tool result with `isError: true` and one shape:
`{status: "error" | "stale", code, message, field?, engine?, retryable?,
nextStep?, projectRoot?}`. `field` names the argument at fault so the caller
can fix its call; `stale` marks an id that is unknown or expired rather
than malformed.

Engine failures are data inside a normal check (each engine's `failure`
kind in the payload). One that escapes the pipeline as an exception is
classified like the reference, by its typed kind (`errors.EngineFailure`),
never by words in its message: `engine_timeout` (retryable),
`output_limit_exceeded`, otherwise `engine_execution_failed`, each with a
next step; `FAILURE_CODES` is the one map from kinds to codes. Messages go
through `sanitize`: no absolute paths, no environment values, first line
only; the original goes to stderr for the person running the server.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from signalint.errors import EngineFailure
from signalint.model import Failure, FailureKind
from signalint.payloads import Refusal

MESSAGE_CHARS: Final = 300
# An absolute path not preceded by a word char, ':' or '/', so URLs survive.
_ABSOLUTE = re.compile(r"(?<![\w:/.~-])/[^\s'\"`:;,()\[\]{}<>|]+")
_MIN_SECRET_CHARS: Final = 8


class ToolRefusal(Exception):
    """Raised by a handler to answer with an error result instead of data."""

    def __init__(self, data: Refusal, summary: str | None = None) -> None:
        self.data = data
        self.summary = summary or str(data.get("message", "refused"))
        super().__init__(self.summary)


@dataclass(frozen=True, slots=True)
class Advice:
    """What a client can do about a refused check: the next step, whether
    asking again may succeed, and the engine that failed (None: not said)."""

    next_step: str
    retryable: bool | None = None
    engine: str | None = None


def refusal(
    code: str,
    message: str,
    *,
    status: Literal["error", "stale"] = "error",
    field: str | None = None,
    projectRoot: str | None = None,  # camelCase: named as the key it fills
    advice: Advice | None = None,
) -> ToolRefusal:
    """A refusal with `code` and `message`; the other keys are added when not None."""
    data: Refusal = {"status": status, "code": code, "message": message}
    if field is not None:
        data["field"] = field
    if advice is not None:
        if advice.engine is not None:
            data["engine"] = advice.engine
        if advice.retryable is not None:
            data["retryable"] = advice.retryable
        data["nextStep"] = advice.next_step
    if projectRoot is not None:
        data["projectRoot"] = projectRoot
    return ToolRefusal(data)


def field_refusal(field: str, message: str, code: str = "invalid_arguments") -> ToolRefusal:
    """Bad argument: names the field (kept short: it may be a hostile key)."""
    name = field if len(field) <= 80 else field[:79] + "…"
    return refusal(code, f"{name}: {message}", field=name)


def stale(field: str, what: str) -> ToolRefusal:
    return refusal(
        "stale",
        f"{what} (unknown or expired); run check_project again and use its ids.",
        status="stale",
        field=field,
    )


def sanitize(text: str, root: Path, env: Mapping[str, str] | None = None) -> str:
    """`text` fit to send: one line, project paths relative, no other absolute
    path, no environment value, at most `MESSAGE_CHARS` characters."""
    env = os.environ if env is None else env
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    root_s = str(root)
    line = line.replace(root_s + "/", "").replace(root_s, ".")
    # Longest first, so a value containing another is replaced whole.
    for name, value in sorted(env.items(), key=lambda kv: -len(kv[1])):
        if len(value) >= _MIN_SECRET_CHARS and value in line:
            line = line.replace(value, f"${name}")
    line = _ABSOLUTE.sub("<path>", line)
    return line if len(line) <= MESSAGE_CHARS else line[: MESSAGE_CHARS - 1] + "…"


# Failure kind -> (refusal code, retryable): the only place kinds become codes.
FAILURE_CODES: Final[Mapping[FailureKind, tuple[str, bool]]] = {
    "timeout": ("engine_timeout", True),
    "output_limit": ("output_limit_exceeded", False),
    "crashed": ("engine_execution_failed", False),
    "bad_output": ("engine_execution_failed", False),
    "config_error": ("engine_execution_failed", False),
    "missing": ("engine_execution_failed", False),
    "incomplete": ("engine_execution_failed", False),
}
_INSPECT: Final = (
    "Run `signalint check` in a terminal to see the full error and "
    "`signalint engines list` to verify the engines, then check again."
)


def _next_step(engine: str, failure: Failure) -> str:
    """What to do about a failure of `engine`, naming its fix when it has one."""
    if failure.kind == "timeout":
        where = failure.fix or f"timeoutsMs.{engine} in signalint.config.json"
        return f"Retry; if it times out again, raise {where} or look for a hanging engine process."
    if failure.kind == "output_limit":
        return (
            "Narrow the check (check_files, or check_project with paths) or fix "
            "what floods the engine's output, then check again."
        )
    if failure.kind == "missing" and failure.fix is not None:
        return f"Install it with `{failure.fix}` (in a terminal), then check again."
    if failure.fix is not None:
        return f"Fix it with {failure.fix}, then check again."
    return _INSPECT


def failure_refusal(engine: str, failure: Failure, message: str) -> ToolRefusal:
    """The refusal for a typed engine failure; `message` must be sanitized already."""
    code, retryable = FAILURE_CODES[failure.kind]
    return refusal(code, message, advice=Advice(_next_step(engine, failure), retryable, engine))


def classify_failure(exc: BaseException, root: Path) -> ToolRefusal:
    """The classified refusal for an exception thrown by the check pipeline.

    A typed `EngineFailure` is classified by its kind; any other exception
    is `engine_execution_failed` naming no engine, whatever its text says.
    """
    message = sanitize(str(exc) or type(exc).__name__, root)
    if isinstance(exc, EngineFailure):
        return failure_refusal(exc.engine, exc.failure, message)
    return refusal("engine_execution_failed", message, advice=Advice(_INSPECT, retryable=False))

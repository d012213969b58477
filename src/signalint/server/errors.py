"""Refusals and classified failures, worded for a model and safe to send.

Every refusal is a tool result with `isError: true` and one shape:
`{status: "error" | "stale", code, message, field?, engine?, retryable?,
nextStep?, projectRoot?}`. `field` names the argument at fault so the caller
can fix its call; `stale` marks an id that is unknown or expired rather
than malformed.

Engine failures that escape the check pipeline as exceptions (settled engine
errors are data inside a normal check) are classified like the reference:
`engine_timeout` (retryable), `output_limit_exceeded`, otherwise
`engine_execution_failed`, each with a next step. Their messages go through
`sanitize`: no absolute paths, no environment values, first line only; the
original goes to stderr for the person running the server.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from signalint.config import ENGINE_NAMES

MESSAGE_CHARS: Final = 300
# An absolute path not preceded by a word char, ':' or '/', so URLs survive.
_ABSOLUTE = re.compile(r"(?<![\w:/.~-])/[^\s'\"`:;,()\[\]{}<>|]+")
_MIN_SECRET_CHARS: Final = 8


class ToolRefusal(Exception):
    """Raised by a handler to answer with an error result instead of data."""

    def __init__(self, data: dict[str, Any], summary: str | None = None) -> None:
        self.data = data
        self.summary = summary or str(data.get("message", "refused"))
        super().__init__(self.summary)


def refusal(code: str, message: str, *, status: str = "error", **extra: Any) -> ToolRefusal:
    """A refusal with `code` and `message`; `extra` adds field/nextStep/... when not None."""
    data: dict[str, Any] = {"status": status, "code": code, "message": message}
    data.update({k: v for k, v in extra.items() if v is not None})
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


def _engine_named(message: str) -> str | None:
    lowered = message.lower()
    for name in ENGINE_NAMES:
        if re.search(rf"\b{name}\b", lowered):
            return name
    return None


def classify_failure(exc: BaseException, root: Path) -> ToolRefusal:
    """The classified refusal for an exception thrown by the check pipeline."""
    message = sanitize(str(exc) or type(exc).__name__, root)
    engine = _engine_named(message)
    where = f"timeoutsMs.{engine}" if engine else "timeoutsMs"
    if "timed out" in message:
        return refusal(
            "engine_timeout",
            message,
            engine=engine,
            retryable=True,
            nextStep=f"Retry; if it times out again, raise {where} in signalint.config.json "
            "or look for a hanging engine process.",
        )
    if "MiB" in message or "output limit" in message:
        return refusal(
            "output_limit_exceeded",
            message,
            engine=engine,
            retryable=False,
            nextStep="Narrow the check (check_files, or check_project with paths) or fix "
            "what floods the engine's output, then check again.",
        )
    return refusal(
        "engine_execution_failed",
        message,
        engine=engine,
        retryable=False,
        nextStep="Run `signalint check` in a terminal to see the full error and "
        "`signalint engines list` to verify the engines, then check again.",
    )

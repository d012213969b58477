"""Why warm workers failed: the reason a user can read, per engine.

The pool (`warm.pool`) tells `Failures` of every worker that failed to
start or to answer (`WorkerFailed`, a hang it killed) with the reason:
the driver's message and the end of what the worker wrote to its stderr
log since it was asked (Node's or Python's stack frames left out), on one
line of at most `REASON_LIMIT` characters. Each failure is logged through
`logging` (the logger `signalint.warm`, WARNING) as one line naming the
engine, the project root and the reason; the same failure again is not
logged again but counted, and said again with its count at the 10th,
100th, 1000th... time. The project's daemon writes that logger to its
log; an in-process pool's host shows it as its logging is set up (the
language server: on stderr).

Per engine it keeps how many failures there were, how many cold
fallbacks they caused (the pool gave up on the worker and the cold run
answered) and the last reason, for `signalint daemon status`; the checks
read the fallbacks each engine had during a check (`fallbacks_by_engine`)
for the session history and `signalint stats`.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("signalint.warm")

# A reason is one line of at most this many characters.
REASON_LIMIT = 300
# How much of a worker's stderr log is read for a failure's reason.
TAIL_BYTES = 16 * 1024
# Lines of stderr kept in a reason (the last ones that are not stack frames).
TAIL_LINES = 3
# Distinct failures remembered for "said once, then counted".
SEEN_LIMIT = 256
# Stack frames and the like: where an error happened, not what it was.
_NOISE = re.compile(
    r"^(?:at\s|File \"|Traceback \(most recent call last\)|Require stack:|- /|Node\.js v|\^+$)"
)


def _telling(text: str) -> list[str]:
    """`text`'s lines that say something: stack frames left out, spaces squeezed."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return [line for line in lines if line and not _NOISE.match(line)]


def one_line(text: str) -> str:
    """`text`'s lines that say something (stack frames left out), joined by
    " | " and bounded to `REASON_LIMIT` characters."""
    said = " | ".join(_telling(text))
    if len(said) > REASON_LIMIT:
        said = said[: REASON_LIMIT - 1].rstrip() + "…"
    return said


def log_mark(path: Path) -> int:
    """Where `path` (a worker's stderr log) ends now; 0 when it does not exist."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def stderr_since(path: Path, mark: int) -> str:
    """What was appended to `path` after `mark` (its last `TAIL_BYTES` at
    most), its last `TAIL_LINES` lines that are not stack frames."""
    try:
        with path.open("rb") as f:
            end = f.seek(0, 2)
            f.seek(max(mark, end - TAIL_BYTES))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(_telling(text)[-TAIL_LINES:])


def reason(message: str, stderr: str) -> str:
    """One bounded line: the driver's `message`, and the worker's `stderr`
    tail when it adds something the message does not say."""
    said = one_line(message) or "no reason given"
    tail = one_line(stderr)
    if tail and tail not in said:
        said = f"{said} (stderr: {tail})"
    return one_line(said)


@dataclass(slots=True)
class EngineFailures:
    """One engine's failures in one pool."""

    failures: int = 0
    fallbacks: int = 0
    last_reason: str = ""
    # When the last failure happened (`time.time`).
    last_at: float = 0.0

    def as_json(self, now: float) -> dict[str, object]:
        return {
            "failures": self.failures,
            "fallbacks": self.fallbacks,
            "lastReason": self.last_reason,
            "lastFailedS": round(max(0.0, now - self.last_at), 3),
        }


class Failures:
    """A pool's worker failures, per engine (module docstring)."""

    def __init__(self) -> None:
        self.engines: dict[str, EngineFailures] = {}
        # (engine, root, reason) -> how many times it happened.
        self._seen: dict[tuple[str, str, str], int] = {}

    def failed(self, engine: str, root: Path, why: str) -> None:
        """A worker of `engine` for `root` failed, for `why` (one line)."""
        entry = self.engines.setdefault(engine, EngineFailures())
        entry.failures += 1
        entry.last_reason = why
        entry.last_at = time.time()
        key = (engine, str(root), why)
        times = self._seen.get(key, 0) + 1
        if len(self._seen) >= SEEN_LIMIT and key not in self._seen:
            self._seen.clear()
        self._seen[key] = times
        if times == 1:
            log.warning("warm %s worker failed for %s: %s", engine, root, why)
        elif _round(times):
            log.warning(
                "warm %s worker failed for %s again (%d times so far): %s",
                engine,
                root,
                times,
                why,
            )

    def fell_back(self, engine: str) -> None:
        """`engine`'s worker was given up on and the cold run answered."""
        self.engines.setdefault(engine, EngineFailures()).fallbacks += 1

    def fallbacks_by_engine(self) -> dict[str, int]:
        return {name: e.fallbacks for name, e in self.engines.items() if e.fallbacks}

    def as_json(self) -> dict[str, dict[str, object]]:
        """Each engine that failed, for `daemon status`."""
        now = time.time()
        return {name: e.as_json(now) for name, e in sorted(self.engines.items())}


def _round(times: int) -> bool:
    """10, 100, 1000, ...: when a repeated failure is said again."""
    while times >= 10 and times % 10 == 0:
        times //= 10
    return times == 1

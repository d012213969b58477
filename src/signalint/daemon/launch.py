"""Starting a project's daemon: `signalint daemon start`, and a front end
that needs the one warm pool and finds no daemon (`daemon.client.check`).

`launch` starts `python -m signalint.daemon.server ROOT` through the
subprocess door's `process.detach` and returns once the new daemon answers
`hello` (or another start won the race and its daemon answers); it raises
`LaunchError` with the reason (the end of the daemon's log) otherwise.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Any

from signalint.daemon import wire
from signalint.daemon.connection import Refused, ask
from signalint.daemon.place import Place

START_TIMEOUT_S = 30.0
# The daemon's log is rotated when a daemon starts and it is larger than this.
LOG_LIMIT_BYTES = 4 * 1024 * 1024
# The daemon process's exit code when another daemon holds the project's lock.
ALREADY_RUNNING = 3


class LaunchError(Exception):
    """The daemon could not be started (the reason is the message)."""


def hello(where: Place) -> dict[str, Any] | None:
    """The running daemon's answer to hello, or None when none answers
    (raises `Refused` for a socket or daemon the client will not use)."""
    try:
        return ask(where, {"op": "hello"})
    except Refused:
        raise
    except (OSError, wire.WireError):
        return None


def _log_tail(log: Path, since: int) -> str:
    try:
        with log.open("rb") as f:
            f.seek(since)
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[-5:])


def launch(
    root: Path, where: Place, timeout_s: float = START_TIMEOUT_S, *, on_demand: bool = True
) -> dict[str, Any]:
    """Start `root`'s daemon; its hello answer, or the race winner's with
    `"raced": true`. `on_demand`: started by a front end, it ends once no
    client is attached (`daemon.server`); else (`daemon start`) it stays
    until idle `daemon.idleMinutes`."""
    from signalint import process

    where.state.mkdir(parents=True, exist_ok=True)
    # One line per request: a log past its bound is kept as `.1` and begun anew.
    with contextlib.suppress(OSError):
        if where.log.exists() and where.log.stat().st_size > LOG_LIMIT_BYTES:
            where.log.replace(where.log.with_name(where.log.name + ".1"))
    since = where.log.stat().st_size if where.log.exists() else 0
    how = ("--on-demand",) if on_demand else ()
    argv = (sys.executable, "-m", "signalint.daemon.server", *how, str(root))
    try:
        child = process.detach(argv, cwd=root, log=where.log)
    except OSError as exc:
        raise LaunchError(f"cannot start the daemon: {exc}") from None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        answer = hello(where)
        if answer is not None and answer.get("pid") == child.pid:  # ours, not an old one
            return answer
        code = child.poll()
        if code is not None:
            if code == ALREADY_RUNNING:  # another start won the race
                again = hello(where)
                if again is not None:
                    return {**again, "raced": True}
            said = _log_tail(where.log, since)
            raise LaunchError(
                f"the daemon could not start (exit {code})" + (f":\n{said}" if said else "")
            )
        time.sleep(0.05)
    child.kill()
    raise LaunchError(f"the daemon did not answer within {timeout_s:.0f} s; see {where.log}")

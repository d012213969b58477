"""Whether a command can write the project's state directory, asked once.

The state directory (`config.state_dir`: `<root>/.signalint`, or
`SIGNALINT_STATE_DIR`) holds the result cache, the kept checks `show`
expands, kept answers and the daemon's socket. On a read-only checkout,
or a full disk, every one of them would fail on its own and say so; a
command asks here first (`problem`: the directory is created and a file
written and removed in it) and says it once, naming the directory, why,
and `SIGNALINT_STATE_DIR`, the way out.

Neither `check` (its engines keep their state there too) nor `daemon
start` can work without it: both refuse (`require`: `StateDirError`,
exit 2, a usage error, not "issues found").
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from signalint.errors import SignalintError

VARIABLE = "SIGNALINT_STATE_DIR"


class StateDirError(SignalintError):
    """The state directory cannot be written; the message names it and the way out."""


def problem(directory: Path) -> str | None:
    """Why `directory` cannot hold state (a phrase naming it), or None when
    a file can be created and written in it."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe.", dir=directory)
        try:
            os.write(fd, b"signalint")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return f"the state directory {directory} cannot be written ({reason})"
    return None


def way_out(directory: Path) -> str:
    """The advice every message about an unwritable state directory ends with."""
    return f"set {VARIABLE} to a writable directory (now: {directory})"


def require(directory: Path, purpose: str) -> None:
    """Raise `StateDirError` when `directory` cannot be written; `purpose`
    says what needed it ("the daemon keeps its socket and log there")."""
    said = problem(directory)
    if said is not None:
        raise StateDirError(f"{said}; {purpose}: {way_out(directory)}")


__all__ = ["VARIABLE", "StateDirError", "problem", "require", "way_out"]

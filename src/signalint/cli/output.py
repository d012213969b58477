"""Where a report goes (`--output-file`) and whether it is coloured (`--color`).

`--output-file PATH` writes the report to PATH in one step (a temporary
file beside it, renamed over it: a reader never sees half a report, and
a failed run leaves the previous report whole), with the permissions a
new file gets from the umask; stdout then carries nothing. A path that
cannot be written is a usage error naming the option, the path and why.

Colour (only the text format has any) is decided in this order:
`--color`/`--no-color`; then `FORCE_COLOR` (set and not `0` or `false`:
colour; `0`/`false`: none); then `NO_COLOR` (set and non-empty: none);
otherwise colour only when the report goes to a terminal (never to an
`--output-file`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from signalint.errors import SignalintError

OUTPUT_OPTION = "--output-file"


class OutputError(SignalintError):
    """The report could not be written where `--output-file` says."""


def absolute(path: str | None) -> Path | None:
    """`path` made absolute against the working directory where the
    command was given (before any later change of directory)."""
    return None if path is None else Path(os.path.abspath(path))


def wants_colour(
    flag: bool | None, stream: TextIO | None, env: Mapping[str, str] | None = None
) -> bool:
    """Whether the text report is coloured (module docstring); `stream` is
    where it goes (None: a file)."""
    env = os.environ if env is None else env
    if flag is not None:
        return flag
    force = env.get("FORCE_COLOR")
    if force is not None and force != "":
        return force.strip().lower() not in ("0", "false")
    if env.get("NO_COLOR", ""):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def emit(text: str, destination: Path | None) -> None:
    """Write the report to stdout, or atomically to `destination`."""
    if destination is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from signalint.files import write_atomic

    if destination.is_dir():
        raise OutputError(f"{OUTPUT_OPTION} {destination}: is a directory; give a file path")
    mask = os.umask(0o022)
    os.umask(mask)
    try:
        write_atomic(destination, text.encode("utf-8"), mode=0o666 & ~mask)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OutputError(f"{OUTPUT_OPTION} {destination}: cannot be written: {reason}") from None


__all__ = ["OUTPUT_OPTION", "OutputError", "absolute", "emit", "wants_colour"]

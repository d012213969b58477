"""What makes the language server start its engines afresh.

Signalint's settings decide which engines run and how; a lockfile or the
installed tools (`node_modules/.bin`, a virtual environment's `bin`) decide
which engine binaries resolve and what the warm workers loaded. A change to
any of them restarts the backend (settings read again, every warm worker
stopped and started on the next check). An engine's own configuration
(tsconfig.json, eslint.config.js, ruff.toml...) needs no restart: every
check reads it again, and the result cache keys on its content.

The server learns of changes from the client (`workspace/didChangeWatchedFiles`,
registered for `PATTERNS` when the client can watch) and, for clients that
cannot, from `Stamp`: the stat of each of these paths, compared before every
check.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

SETTINGS: Final = (
    "signalint.config.json",
    ".signalint.json",
    "package.json",
    "pyproject.toml",
)
LOCKFILES: Final = (
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lock",
    "bun.lockb",
    "uv.lock",
    "poetry.lock",
    "Pipfile.lock",
)
TOOL_DIRS: Final = ("node_modules/.bin", ".venv/bin", "venv/bin")
# What the client is asked to watch (glob patterns relative to the root).
PATTERNS: Final = (
    *(f"**/{name}" for name in (*SETTINGS, *LOCKFILES)),
    *(f"{d}/**" for d in TOOL_DIRS),
)


def affects_engines(root: Path, path: Path) -> bool:
    """Whether a change of `path` calls for a restart."""
    name = path.name
    if name in SETTINGS or name in LOCKFILES:
        return True
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return False
    return any(rel == d or rel.startswith(d + "/") for d in TOOL_DIRS)


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_ctime_ns, found.st_size)


class Stamp:
    """The stat of the root's settings files, lockfiles and tool directories."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seen = self._take()

    def _take(self) -> tuple[tuple[int, int, int] | None, ...]:
        names = (*SETTINGS, *LOCKFILES, *TOOL_DIRS)
        return tuple(_stat(self.root / name) for name in names)

    def changed(self) -> bool:
        """Whether anything changed since the last call (or the start)."""
        now = self._take()
        if now == self._seen:
            return False
        self._seen = now
        return True


__all__ = ["LOCKFILES", "PATTERNS", "SETTINGS", "TOOL_DIRS", "Stamp", "affects_engines"]

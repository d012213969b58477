"""Shadow copies of a project: somewhere to try a patch or an engine's fixes.

`shadow_copy` copies the project's files into a temporary directory (fresh
files, never hard links, so nothing done in the copy can reach the
project), replaces or adds the given files, and removes the copy on exit.
Directories that are installed, not authored (`node_modules`, virtual
environments, `.git`) are symlinked rather than copied: engines read their
plugins, packages and ignore files from there and never write to them. The
state directory (`.signalint`) is left out, so nothing in the copy touches
the project's cache.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

LINKED: Final = frozenset({"node_modules", ".git", ".venv", "venv", "env", ".tox", ".nox"})
SKIPPED: Final = frozenset(
    {".signalint", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
)


def _copy_tree(source: Path, target: Path) -> None:
    for current, dirs, files in os.walk(source):
        here = Path(current)
        rel = here.relative_to(source)
        out = target / rel
        keep: list[str] = []
        for name in dirs:
            if name in SKIPPED:
                continue
            if name in LINKED or (here / name).is_symlink():
                os.symlink(os.path.realpath(here / name), out / name)
                continue
            (out / name).mkdir()
            keep.append(name)
        dirs[:] = keep
        for name in files:
            path = here / name
            if path.is_symlink():
                os.symlink(os.path.realpath(path), out / name)
            else:
                shutil.copyfile(path, out / name)
                shutil.copymode(path, out / name)


@contextmanager
def shadow_copy(root: Path, replace: Mapping[str, bytes] | None = None) -> Iterator[Path]:
    """A temporary copy of `root` with `replace` (project-relative path -> bytes) written in.

    The copy's path is canonical (realpath), like a project root.
    """
    directory = Path(os.path.realpath(tempfile.mkdtemp(prefix="signalint-shadow-")))
    try:
        shadow = directory / root.name
        shadow.mkdir()
        _copy_tree(root, shadow)
        for file, data in (replace or {}).items():
            path = shadow / file
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink():
                path.unlink()
            path.write_bytes(data)
        yield shadow
    finally:
        shutil.rmtree(directory, ignore_errors=True)


__all__ = ["shadow_copy"]

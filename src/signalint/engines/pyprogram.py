"""What a Python type checker's whole-program run may read in a project.

ty and Pyrefly find their files themselves (their include and exclude
globs, and the project's ignore files, which both respect by default).
The program cache needs a superset of what a run read (`Program.inputs`):
every `.py`/`.pyi` file below the root outside version control,
dependencies, caches, virtual environments and the state directory, and
every ignore file met on the way (`.gitignore`, `.ignore`,
`.git/info/exclude`): a change to one can add or remove checked files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

SUFFIXES = (".py", ".pyi")
IGNORE_FILES = (".gitignore", ".ignore")
# Never walked (the state directory is skipped separately).
_NEVER = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".signalint"})


def inputs(root: Path, skip: Iterable[Path] = ()) -> list[str]:
    """Absolute paths of the Python and ignore files below `root` (module
    docstring), `skip` directories left out."""
    skipped = {os.fspath(p) for p in skip}
    found: list[str] = []
    exclude = root / ".git" / "info" / "exclude"
    if exclude.is_file():
        found.append(os.fspath(exclude))
    for directory, dirs, files in os.walk(root):
        dirs[:] = [
            d
            for d in dirs
            if d not in _NEVER
            and os.path.join(directory, d) not in skipped
            and not os.path.isfile(os.path.join(directory, d, "pyvenv.cfg"))
        ]
        found.extend(
            os.path.join(directory, f) for f in files if f.endswith(SUFFIXES) or f in IGNORE_FILES
        )
    return found


def outside_dirs(root: Path, entries: Iterable[str], base: Path) -> list[str]:
    """Absolute paths of the Python files under those of `entries` (paths
    relative to `base`, a config file's directory) that lie outside `root`:
    search paths a program imports from (inside the root, `inputs` has them)."""
    found: list[str] = []
    canonical = os.path.realpath(root)
    for entry in entries:
        directory = os.path.normpath(os.path.join(base, os.path.expanduser(entry)))
        real = os.path.realpath(directory)
        if real == canonical or real.startswith(canonical + os.sep) or not os.path.isdir(real):
            continue
        for sub, dirs, files in os.walk(directory):
            dirs[:] = [d for d in dirs if d not in _NEVER]
            found.extend(os.path.join(sub, f) for f in files if f.endswith(SUFFIXES))
    return found

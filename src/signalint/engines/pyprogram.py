"""What a Python type checker's whole-program run may read in a project.

ty and Pyrefly find their files themselves (their include and exclude
globs, and the project's ignore files, which both respect by default).
The program cache needs a superset of what a run read (`Program.inputs`):
every `.py`/`.pyi` file below the root outside version control,
dependencies, caches, virtual environments and the state directory, and
every ignore file met on the way (`.gitignore`, `.ignore`,
`.git/info/exclude`): a change to one can add or remove checked files.
`searched_inputs` adds the Python files of the search paths a config names
outside the root (`outside_dirs`). `relevant` is the coarse filter every
Python type checker applies to a project file; `json_report` reads the
JSON report Pyright and Pyrefly print after any lines of their own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from signalint.engines import adapter_paths as paths

SUFFIXES = (".py", ".pyi")
IGNORE_FILES = (".gitignore", ".ignore")
# Never walked (the state directory is skipped separately).
_NEVER = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".signalint"})


def relevant(rel_path: str) -> bool:
    """Whether a project file may be a Python checker's input: a `.py` or
    `.pyi` file outside `node_modules`."""
    return paths.has_suffix(rel_path, SUFFIXES) and not paths.in_node_modules(rel_path)


def json_report(text: str) -> Any:
    """The JSON object printed first in `text` (lines before it, such as a
    checker's own notices, are passed over); None when there is none."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        report, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError:
        return None
    return report


def searched_inputs(
    root: Path, state_dir: Path, entries: Iterable[str], source: str | None
) -> tuple[str, ...]:
    """`inputs` (the state directory left out), and the Python files of the
    search paths `entries` (relative to the directory of the config file
    `source`, project-relative; None: the root) that lie outside the root."""
    found = inputs(root, [state_dir])
    base = root / PurePosixPath(source or ".").parent
    found += outside_dirs(root, entries, base)
    return tuple(dict.fromkeys(found))


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

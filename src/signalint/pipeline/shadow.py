"""Shadow copies of a project: somewhere to try a patch or an engine's fixes.

`shadow_copy` copies the project's files into a temporary directory (fresh
files, never hard links, so nothing done in the copy can reach the
project), replaces or adds the given files, and removes the copy on exit.
Directories that are installed, not authored (`node_modules`, virtual
environments, `.git`) are symlinked rather than copied: engines read their
plugins, packages and ignore files from there and never write to them. The
state directory (`.signalint`) is left out, so nothing in the copy touches
the project's cache. A sparse copy (`only`) copies just the files an
engine will rewrite.

The copy lives in the system's temporary directory (or `/dev/shm`), never
in the project or its state directory, and is gone when the block ends:
nothing of it is left for the project's own tools to read.

Engines resolve packages and find settings by walking up from a file
(Node's and TypeScript's `node_modules` lookup, a config's `extends:
"../../tsconfig.base.json"`, ESLint's plugins, Biome's and Ruff's settings
in a parent, a `.venv` above): a workspace member's dependencies are often
installed in the workspace root's `node_modules` only. So the copy is
placed at the project's own absolute path below the temporary directory
(`_ancestry`), and each of its mirrored ancestors holds links to what the
real one holds: every entry, from the project's parent up to its
workspace top (`project.roots.workspace_top`: the nearest directory
with `.git` or a lock file), and above that only the installed
directories (`RESOLVED`) up to the filesystem root. The links are outside the copy's root, as the
originals are outside the project's: the walk of the copy never lists
them, and what an engine reports through them is outside (D26).
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from signalint.engines.resolve import standing_in
from signalint.project.paths import inside
from signalint.project.roots import workspace_top

LINKED: Final = frozenset({"node_modules", ".git", ".venv", "venv", "env", ".tox", ".nox"})
# What the copy's ancestors above the workspace top link from the project's:
# where Node, TypeScript and Python tools look for packages walking up.
RESOLVED: Final = frozenset({"node_modules", ".venv", "venv"})
_MEMORY: Final = "/dev/shm"
# Never copied: Signalint's state and Python's bytecode; callers add the
# engines' own cache directories (`shadow_copy(skip=...)`).
SKIPPED: Final = frozenset({".signalint", "__pycache__", ".pytest_cache"})
# The name of the threads that remove copies (a leaving server waits for them).
REMOVAL_THREAD: Final = "signalint-shadow-removal"


def _copy_tree(source: Path, target: Path, skipped: Collection[str]) -> None:
    for current, dirs, files in os.walk(source):
        here = Path(current)
        rel = here.relative_to(source)
        out = target / rel
        keep: list[str] = []
        for name in dirs:
            if name in skipped:
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


def _sparse_tree(
    source: Path, target: Path, copied: Collection[str], skipped: Collection[str]
) -> None:
    """Copy the files `copied` (project-relative); symlink everything else at
    the highest level that holds none of them."""
    ancestors = {"."}
    for file in copied:
        parent = posixpath.dirname(file)
        while parent:
            ancestors.add(parent)
            parent = posixpath.dirname(parent)
    wanted = set(copied)
    for rel in sorted(ancestors, key=lambda d: d.count("/") if d != "." else -1):
        here = source / rel
        out = target / rel
        out.mkdir(exist_ok=True)
        for entry in os.scandir(here):
            child = entry.name if rel == "." else f"{rel}/{entry.name}"
            if entry.name in skipped or child in ancestors:
                continue
            if child in wanted and entry.is_file(follow_symlinks=False):
                shutil.copyfile(entry.path, out / entry.name)
                shutil.copymode(entry.path, out / entry.name)
            else:  # the root is canonical, so entry.path is already absolute
                os.symlink(entry.path, out / entry.name)


def _ancestry(directory: Path, root: Path, skipped: Collection[str]) -> Path:
    """Make the place of the copy of `root` (canonical) in `directory`: its
    absolute path below it, each ancestor holding links to the real one's
    entries (module docstring). The copy's root itself is left to make."""
    top = workspace_top(root)
    shadow = directory.joinpath(*(root.parts[1:] or ("root",)))
    shadow.parent.mkdir(parents=True, exist_ok=True)
    child = root.name
    for real in root.parents:
        whole = real == top or top in real.parents
        out = directory.joinpath(*real.parts[1:])
        try:
            with os.scandir(real) as listing:
                entries = list(listing)
        except OSError:  # a directory we may pass through but not list
            entries = []
        for entry in entries:
            if entry.name == child or inside(os.fspath(directory), entry.path):
                continue  # the path's own directory; the copy's own (no cycle)
            if (whole and entry.name not in skipped) or entry.name in RESOLVED:
                os.symlink(entry.path, out / entry.name)
        child = real.name
    return shadow


@contextmanager
def shadow_copy(
    root: Path,
    replace: Mapping[str, bytes] | None = None,
    *,
    only: Collection[str] | None = None,
    skip: Collection[str] = (),
) -> Iterator[Path]:
    """A temporary copy of `root` with `replace` (project-relative path -> bytes) written in.

    With `only` (project-relative files), only those files are copied and
    everything else is a symlink into the project: much cheaper, and fit
    for an engine that rewrites exactly those files (`fixes`), but not for
    a whole-program check, which would read symlinked files through their
    real paths. The copy's path is canonical (realpath), like a project
    root, and its ancestors resolve packages as the project's (`_ancestry`).
    Directories named in `skip` (the engines' caches) are left out, as are
    `SKIPPED`.
    """
    # A sparse copy is small: in memory (/dev/shm) when the machine has it.
    where = _MEMORY if only is not None and os.access(_MEMORY, os.W_OK | os.X_OK) else None
    directory = Path(os.path.realpath(tempfile.mkdtemp(prefix="signalint-shadow-", dir=where)))
    try:
        skipped = SKIPPED | frozenset(skip)
        shadow = _ancestry(directory, Path(os.path.realpath(root)), skipped)
        shadow.mkdir()
        if only is None:
            _copy_tree(root, shadow, skipped)
        else:
            _sparse_tree(root, shadow, only, skipped)
        for file, data in (replace or {}).items():
            path = shadow / file
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink():
                path.unlink()
            path.write_bytes(data)
        with standing_in(shadow, root):
            yield shadow
    finally:
        # Removed on a thread: nobody waits for it (the interpreter does, at exit).
        threading.Thread(
            target=shutil.rmtree,
            args=(directory,),
            kwargs={"ignore_errors": True},
            name=REMOVAL_THREAD,
        ).start()


__all__ = ["shadow_copy"]

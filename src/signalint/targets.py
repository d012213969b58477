"""User paths to check targets: how each front end locates a path it was given.

A `Locate` function turns one user path into a project-relative target or
raises `PathRefused`; `targets_of` applies one to a list and says which
element was refused. Kept apart from the check service so commands that
only locate the project (`show`, `cache`) do not load the check pipeline.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from signalint.config import Config, config_source, describe_source
from signalint.project import PathRefused, safe_relative, target_from_cwd

# A user path -> its project-relative target; raises PathRefused.
Locate = Callable[[str], str]


def from_root(root: Path) -> Locate:
    """Paths relative to the project root, refused as `project.safe_relative` says.

    For paths written by a model (MCP tools) or produced by our own walk
    (watch's re-checks): absolute paths, escapes, symlinks out of the root,
    missing paths and option-like names are refused.
    """
    return lambda path: safe_relative(root, path)


def from_cwd(root: Path, config: Config, cwd: Path | None = None) -> Locate:
    """Command-line paths: relative to `cwd` (default: the working directory), as in git.

    Relative to the root instead when the working directory is outside it
    (only `SIGNALINT_PROJECT_ROOT` allows that). Refused as
    `project.target_from_cwd` says, including ignored paths, whose refusal
    names the file the ignore rules come from.
    """
    here = Path(os.path.realpath(cwd if cwd is not None else os.getcwd()))
    if not here.is_relative_to(root):
        here = root
    found = config_source(root)
    if found is None:
        source = "the default settings (there is no signalint.config.json)"
    else:
        source = describe_source(found)
    return lambda path: target_from_cwd(root, here, path, config.ignore, source)


def targets_of(paths: Sequence[str], locate: Locate) -> tuple[str, ...]:
    """The de-duplicated targets of `paths`, in order; `(".",)` when there are none.

    Raises the first `PathRefused`, with `index` set to the position of the
    refused path in `paths`.
    """
    targets: list[str] = []
    for index, path in enumerate(paths):
        try:
            targets.append(locate(path))
        except PathRefused as exc:
            raise exc.at(index) from exc
    return tuple(dict.fromkeys(targets)) or (".",)


__all__ = ["Locate", "from_cwd", "from_root", "targets_of"]

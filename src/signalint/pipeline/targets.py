"""User paths to check targets: how each front end locates a path it was given.

A `Locate` function turns one user path into a project-relative target or
raises `PathRefused`; `targets_of` applies one to a list and says which
element was refused. Kept apart from the check service so commands that
only locate the project (`show`, `cache`) do not load the check pipeline.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path

from signalint.project.ignores import ignored_reason
from signalint.project.paths import PathRefused, refuse_malformed, safe_relative, target_from_cwd
from signalint.settings.config import Config, config_source, describe_source

# A user path -> its project-relative target; raises PathRefused.
Locate = Callable[[str], str]


def from_root(root: Path, config: Config | None = None) -> Locate:
    """Paths relative to the project root, refused as `project.paths.safe_relative` says.

    For paths written by a model (MCP tools) or produced by our own walk
    (watch's re-checks): absolute paths, escapes, symlinks out of the root,
    missing paths and option-like names are refused. Given `config` (the
    MCP check tools), ignored paths are refused too, in the words the
    command line uses (`ignored_reason`, naming the config file).
    """
    # Where the ignore rules come from, read once before any path is
    # located: each refusal of an ignored path names it.
    source = None if config is None else ignore_source(root)
    if config is None or source is None:
        return lambda path: safe_relative(root, path)

    def locate(path: str) -> str:
        refuse_malformed(path)
        norm = posixpath.normpath(path)
        full = os.path.join(root, norm)
        # Before the symlink check, as on the command line: a link under
        # node_modules to a workspace package is "ignored", not "outside".
        inside = not os.path.isabs(path) and norm != ".." and not norm.startswith("../")
        if inside and os.path.lexists(full):
            reason = ignored_reason(norm, config.ignore, is_dir=os.path.isdir(full), source=source)
            if reason is not None:
                raise PathRefused(path, reason)
        return safe_relative(root, path)

    return locate


def ignore_source(root: Path) -> str:
    """Where the `ignore` patterns of the project at `root` come from, for refusals."""
    found = config_source(root)
    if found is None:
        return "the default settings (there is no signalint.config.json)"
    return describe_source(found)


def from_cwd(root: Path, config: Config, cwd: Path | None = None) -> Locate:
    """Command-line paths: relative to `cwd` (default: the working directory), as in git.

    Relative to the root instead when the working directory is outside it
    (only `SIGNALINT_PROJECT_ROOT` allows that). Refused as
    `project.paths.target_from_cwd` says, including ignored paths, whose refusal
    names the file the ignore rules come from.
    """
    here = Path(os.path.realpath(cwd if cwd is not None else os.getcwd()))
    if not here.is_relative_to(root):
        here = root
    source = ignore_source(root)
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


__all__ = ["Locate", "from_cwd", "from_root", "ignore_source", "targets_of"]

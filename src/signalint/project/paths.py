"""Untrusted paths made project-relative, or refused with the reason.

Every path typed by a user or produced by a model goes through
`safe_relative` (or `target_from_cwd`, the command line's form of it)
before anything reads it: no escapes, no symlinks out of the root, no NUL,
nothing that could be read as an option, nothing missing."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from pathlib import Path

from signalint.errors import SignalintError
from signalint.project.ignores import ignored_reason


class PathRefused(SignalintError, ValueError):
    """A user-supplied path that will not be used; `reason` says why.

    `index` is the position of `path` in the list the caller gave, when it
    gave a list (`at`), so a front end can name the argument at fault.
    """

    def __init__(self, path: str, reason: str, index: int | None = None) -> None:
        self.path = path
        self.reason = reason
        self.index = index
        super().__init__(str(self))

    def at(self, index: int) -> PathRefused:
        """The same refusal, for the path at `index` of the caller's list."""
        return PathRefused(self.path, self.reason, index)

    def __str__(self) -> str:
        return f"path {self.path!r} refused: {self.reason}"


# Linux names the file an open descriptor stands for: one `open` and one
# `readlink` resolve a path, where `os.path.realpath` lstats each component
# (a shadow copy's walk resolves thousands of links per keystroke).
_FD_NAMES = "/proc/self/fd/"
_KERNEL_RESOLVES = hasattr(os, "O_PATH") and os.path.isdir(_FD_NAMES)


def resolved(path: str) -> str:
    """`os.path.realpath(path)`, asked of the kernel where it can say (an
    `O_PATH` descriptor's name); a path it cannot open (missing, a dangling
    link, a component not searchable) as `os.path.realpath` makes it."""
    if _KERNEL_RESOLVES:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return os.path.realpath(path)
        try:
            found = os.readlink(f"{_FD_NAMES}{fd}")
        except OSError:
            found = ""
        finally:
            os.close(fd)
        if found.startswith("/") and not found.endswith(" (deleted)"):
            return found
    return os.path.realpath(path)


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def refuse_malformed(user_path: str) -> None:
    """Refuse what no path check should even look at: empty, NUL, option-like."""
    if not user_path:
        raise PathRefused(user_path, "the path is empty")
    if "\0" in user_path:
        raise PathRefused(user_path, "it contains a NUL character")
    if user_path.startswith("-"):
        raise PathRefused(user_path, "it starts with '-' and could be read as an option")


def safe_relative(root: Path, user_path: str) -> str:
    """The project-relative POSIX form of an untrusted path, or `PathRefused`.

    Refused: empty, NUL bytes, a leading '-' (it could be read as an option),
    absolute paths, '..' escapes after normalization, anything that resolves
    through a symlink to outside the root, and paths that do not exist.
    Returns "." for the root itself.
    """
    refuse_malformed(user_path)
    if os.path.isabs(user_path):
        raise PathRefused(
            user_path, "absolute paths are not accepted; give one relative to the root"
        )
    norm = posixpath.normpath(user_path)
    if norm == ".." or norm.startswith("../"):
        raise PathRefused(user_path, "it escapes the project root")
    root_real = os.path.realpath(root)
    full = os.path.join(root_real, norm)
    if not os.path.lexists(full):
        raise PathRefused(user_path, "no such file or directory")
    if not inside(os.path.realpath(full), root_real):
        raise PathRefused(user_path, "it resolves through a symlink to outside the project root")
    if not os.path.exists(full):  # a dangling symlink
        raise PathRefused(user_path, "no such file or directory")
    return norm


def target_from_cwd(
    root: Path,
    cwd: Path,
    user_path: str,
    ignore: Sequence[str],
    source: str = "signalint.config.json",
) -> str:
    """The project-relative form of a command-line path, or `PathRefused`.

    As in git, `user_path` is relative to `cwd` (the caller's working
    directory; absolute paths are taken as they are) and must lie inside
    `root`. Refused like `safe_relative` (empty, NUL, a leading '-', missing,
    symlink escapes) and, before the symlink check, when it is ignored: inside
    a directory that is never checked (node_modules, .git, .signalint) or
    matched by the config `ignore` patterns of `source` (`ignored_reason`).
    `root` and `cwd` are canonical (realpath). Returns "." for the root.
    """
    refuse_malformed(user_path)
    joined = os.path.normpath(os.path.join(cwd, user_path))
    root_s = os.fspath(root)
    if not inside(joined, root_s):
        # An absolute path may reach the project through a symlinked
        # directory (/tmp -> /private/tmp): resolve the directories, not the
        # last component, whose own link is still checked by safe_relative.
        head, tail = os.path.split(joined)
        joined = os.path.join(os.path.realpath(head), tail)
        if os.path.isdir(joined) and not inside(joined, root_s):
            joined = os.path.realpath(joined)
    if not inside(joined, root_s):
        raise PathRefused(user_path, f"it is outside the project root {root_s}")
    rel = Path(os.path.relpath(joined, root_s)).as_posix()
    if not os.path.lexists(joined):
        raise PathRefused(user_path, "no such file or directory")
    reason = ignored_reason(rel, ignore, is_dir=os.path.isdir(joined), source=source)
    if reason is not None:
        raise PathRefused(user_path, reason)
    return safe_relative(root, rel)

"""The file walk: every file a check may look at, with ignore rules applied (D3: no cap)."""

from __future__ import annotations

import bisect
import os
import posixpath
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from signalint import answers
from signalint.project.ignores import (
    ALWAYS_SKIPPED,
    Rules,
    ancestor_rules,
    compile_rules,
    file_stamp,
    local_rules,
    verdict,
)
from signalint.project.outside import Boundary
from signalint.project.paths import inside, resolved, safe_relative

# A directory modified this recently may change again within one timestamp
# tick without its stat changing: its listing is used but not remembered.
_RACY_NS: Final = 2_000_000_000


class WalkMemo:
    """Directory listings of earlier walks, reused while provably unchanged.

    A directory's entries change only together with its own stat (creating,
    removing or renaming an entry updates it); its verdicts also depend on
    the rules in force (the config patterns and every `.gitignore` above it,
    identified by their stats) and on its own `.gitignore`. An entry is kept
    only when the directory has no symlink (a link's target can change
    without the directory changing) and was not modified within the last
    two seconds. A long-lived process (a server) keeps one per project.
    """

    def __init__(self) -> None:
        self._dirs: dict[tuple[str, ...], tuple[str, str, list[str], list[str]]] = {}

    def get(
        self, key: tuple[str, ...], dir_stamp: str, ignore_stamp: str
    ) -> tuple[list[str], list[str]] | None:
        found = self._dirs.get(key)
        if found is None or found[0] != dir_stamp or found[1] != ignore_stamp:
            return None
        return found[2], found[3]

    def put(
        self,
        key: tuple[str, ...],
        dir_stamp: str,
        ignore_stamp: str,
        files: list[str],
        subdirs: list[str],
    ) -> None:
        if len(self._dirs) > 200_000:
            self._dirs.clear()  # only a memo
        self._dirs[key] = (dir_stamp, ignore_stamp, files, subdirs)


def walk(
    root: Path,
    ignore: Sequence[str],
    targets: Sequence[str] = (".",),
    memo: WalkMemo | None = None,
    boundary: Boundary | None = None,
) -> list[str]:
    """Every file under `targets`, as sorted project-relative POSIX paths.

    Honours .git/info/exclude and each `.gitignore` (relative to its own
    directory, negations included) and, independently, the config `ignore`
    patterns (gitignore syntax, relative to the root): a path is skipped if
    either excludes it. Directories named node_modules, .git or .signalint are
    never entered. Directory symlinks are not followed; file symlinks are kept
    only when their target is a file inside the root; a link out of the
    root (a file or a directory, not ignored) is told to `boundary`
    (`Boundary.note_link`), which names it in the check's coverage. There
    is no cap (D3).

    Choice: a target naming a *file* is returned even if ignore rules exclude
    it (asking for a file explicitly is a request to check it), unless it lies
    in an always-skipped directory. A *directory* target is walked with all
    rules applied to its contents. Targets are untrusted: see `safe_relative`.
    """
    root_s = os.path.realpath(root)
    config = compile_rules("", list(ignore))
    out: set[str] = set()
    walker = _Walk(root_s, [config] if config is not None else [], out, memo, boundary)
    for target in targets:
        rel = safe_relative(Path(root_s), target)
        full = os.path.join(root_s, rel)
        if os.path.isdir(full):
            # A symlinked directory target is walked at its real location.
            rel = posixpath.normpath(os.path.relpath(os.path.realpath(full), root_s))
            if not ALWAYS_SKIPPED.intersection(rel.split("/")):
                rules = ancestor_rules(root_s, rel)
                walker.tree(rel, rules)
        elif os.path.isfile(full) and not ALWAYS_SKIPPED.intersection(rel.split("/")[:-1]):
            out.add(rel)
    return sorted(out)


class ProjectFiles:
    """Every file of the project, for a check that may have walked only part
    of it: a whole-program engine's freshness needs every candidate input,
    not only the scope's files. `known` is the whole project's walk when the
    check already made it; otherwise the project is walked when first asked
    (with the check's memo, so unchanged directories are not listed again).
    """

    def __init__(
        self,
        root: Path,
        ignore: Sequence[str],
        memo: WalkMemo,
        known: list[str] | None,
        boundary: Boundary | None = None,
    ) -> None:
        self._root, self._ignore, self._memo = root, ignore, memo
        self._boundary = boundary
        self._known = known
        self._walked = known

    def all(self) -> list[str]:
        if self._walked is None:
            self._walked = walk(self._root, self._ignore, memo=self._memo, boundary=self._boundary)
        return self._walked

    def under(self, directory: str) -> list[str]:
        """The files under `directory` (project-relative), sorted."""
        if self._known is None:
            return walk(
                self._root, self._ignore, (directory,), memo=self._memo, boundary=self._boundary
            )
        # `known` is sorted: one directory's files are one slice of it.
        start = bisect.bisect_left(self._known, directory + "/")
        end = bisect.bisect_left(self._known, directory + "0")  # "0" follows "/"
        return self._known[start:end]


@dataclass(frozen=True, slots=True)
class _Walk:
    """One walk of the project under `root` (its real path): the config's
    ignore rules (`configs`), the files found (`out`, filled in), the memo
    of earlier listings, and the root's edge, told each link out of it."""

    root: str
    configs: list[Rules]
    out: set[str]
    memo: WalkMemo | None = None
    boundary: Boundary | None = None

    def tree(self, start: str, rules: list[Rules]) -> None:
        """Add the files under `start` (project-relative), with `rules` the
        ignore rules of its ancestors."""
        # Iterative, scandir-based, and ignored directories are pruned before
        # being opened: 20,000-file trees must walk in a fraction of a second.
        root, out, memo, boundary = self.root, self.out, self.memo, self.boundary
        configs = self.configs
        stack: list[tuple[str, list[Rules]]] = [(start, rules)]
        now = time.time_ns()
        while stack:
            rel_dir, inherited = stack.pop()
            prefix = "" if rel_dir == "." else rel_dir + "/"
            key = (rel_dir, *(r.stamp for r in configs), *(r.stamp for r in inherited))
            directory = os.path.join(root, prefix)
            answers.note((directory, os.path.join(directory, ".gitignore")))
            if memo is not None:
                try:
                    dir_st = os.stat(os.path.join(root, prefix))
                    ignore_st = _stat_or_none(os.path.join(root, prefix, ".gitignore"))
                except OSError:
                    continue
                dir_stamp = file_stamp(dir_st)
                ignore_stamp = file_stamp(ignore_st) if ignore_st is not None else "-"
                known = memo.get(key, dir_stamp, ignore_stamp)
                if known is not None:
                    files, subdirs = known
                    out.update(files)
                    if subdirs:
                        local = local_rules(root, prefix, inherited, ignore_st is not None)
                        stack.extend((d, local) for d in subdirs)
                    continue
            try:
                with os.scandir(os.path.join(root, prefix)) as it:
                    entries = list(it)
            except OSError:
                continue  # unreadable or vanished directory: nothing to report from it
            local = local_rules(
                root, prefix, inherited, any(e.name == ".gitignore" for e in entries)
            )
            files = []
            subdirs = []
            linked = False
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    if entry.name in ALWAYS_SKIPPED:
                        continue
                    if not (verdict(configs, rel, True) or verdict(local, rel, True)):
                        subdirs.append(rel)
                    continue
                if entry.is_symlink():
                    linked = True
                    target = resolved(entry.path)
                    if not inside(target, root):
                        # A link out of the root: never checked, named in coverage.
                        is_dir = os.path.isdir(target)
                        if (
                            boundary is not None
                            and os.path.exists(target)
                            and not (verdict(configs, rel, is_dir) or verdict(local, rel, is_dir))
                        ):
                            boundary.note_link(rel, target, is_dir)
                        continue
                    if not os.path.isfile(target):
                        continue  # dangling, or a directory link inside the root
                elif not entry.is_file(follow_symlinks=False):
                    continue  # sockets, fifos, devices
                if not (verdict(configs, rel, False) or verdict(local, rel, False)):
                    files.append(rel)
            out.update(files)
            stack.extend((d, local) for d in subdirs)
            if memo is not None and not linked and dir_st.st_mtime_ns < now - _RACY_NS:
                memo.put(key, dir_stamp, ignore_stamp, files, subdirs)


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None

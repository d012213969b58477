"""The file walk: every file a check may look at, with ignore rules applied (D3: no cap)."""

from __future__ import annotations

import bisect
import dataclasses
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
    identified by their stats) and on its own `.gitignore`. A directory
    modified within the last two seconds is not kept. A directory holding
    symlinks is kept only when each link is direct (`_Links`): where it
    leads then depends on nothing but the directory holding its target,
    whose path must still be canonical and its stat the same. A
    long-lived process (a server, a language server's shadow copy, whose
    every file is such a link) keeps one per project.
    """

    def __init__(self) -> None:
        self._dirs: dict[tuple[str, ...], _Listing] = {}

    def get(self, key: tuple[str, ...], dir_stamp: str, ignore_stamp: str) -> _Listing | None:
        found = self._dirs.get(key)
        if found is None or found.dir_stamp != dir_stamp or found.ignore_stamp != ignore_stamp:
            return None
        for parent, stamp in (found.links.parents or {}).items():
            st = _stat_or_none(parent)
            if st is None or file_stamp(st) != stamp or resolved(parent) != parent:
                return None
        return found

    def put(self, key: tuple[str, ...], listing: _Listing) -> None:
        if len(self._dirs) > 200_000:
            self._dirs.clear()  # only a memo
        self._dirs[key] = listing


@dataclass(slots=True)
class _Links:
    """What one directory's symlinks resolved to (`WalkMemo`): `parents`
    maps the directory holding each link's target to its stamp, or is None
    when some link is not direct (its text is not the canonical absolute
    path it resolves to: a relative link, a chain, a link through a linked
    directory), which the memo cannot vouch for. `notes` are the links out
    of the root that the walk tells its boundary: (path, target, is_dir)."""

    parents: dict[str, str] | None = dataclasses.field(default_factory=dict)
    notes: list[tuple[str, str, bool]] = dataclasses.field(default_factory=list)

    def add(self, link: str, target: str, since_ns: int) -> None:
        """Count `link`, resolved to `target`, among the directory's links."""
        if self.parents is None:
            return
        try:
            direct = os.readlink(link) == target
        except OSError:
            direct = False
        parent = os.path.dirname(target)
        if direct and parent not in self.parents:
            st = _stat_or_none(parent)
            direct = st is not None and st.st_mtime_ns < since_ns
            if st is not None and direct:
                self.parents[parent] = file_stamp(st)
        if not direct:
            self.parents = None


@dataclass(frozen=True, slots=True)
class _Listing:
    """One directory's walk: its stamp and its `.gitignore`'s, the files
    kept and the subdirectories to enter, and what its links resolved to."""

    dir_stamp: str
    ignore_stamp: str
    files: list[str]
    subdirs: list[str]
    links: _Links


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
        root, memo = self.root, self.memo
        stack: list[tuple[str, list[Rules]]] = [(start, rules)]
        since = time.time_ns() - _RACY_NS
        while stack:
            rel_dir, inherited = stack.pop()
            prefix = "" if rel_dir == "." else rel_dir + "/"
            key = (rel_dir, *(r.stamp for r in self.configs), *(r.stamp for r in inherited))
            directory = os.path.join(root, prefix)
            answers.note((directory, os.path.join(directory, ".gitignore")))
            try:
                dir_st = os.stat(directory)
                ignore_st = _stat_or_none(os.path.join(directory, ".gitignore"))
            except OSError:
                continue  # vanished: nothing to report from it
            dir_stamp = file_stamp(dir_st)
            ignore_stamp = file_stamp(ignore_st) if ignore_st is not None else "-"
            listing = None if memo is None else memo.get(key, dir_stamp, ignore_stamp)
            if listing is None or listing.subdirs:
                local = local_rules(root, prefix, inherited, ignore_st is not None)
            if listing is None:
                try:
                    with os.scandir(directory) as it:
                        entries = list(it)
                except OSError:
                    continue  # unreadable or vanished directory: nothing to report from it
                listing = _Listing(
                    dir_stamp, ignore_stamp, *self._scan(prefix, entries, local, since)
                )
                rememberable = listing.links.parents is not None and dir_st.st_mtime_ns < since
                if memo is not None and rememberable:
                    memo.put(key, listing)
            self.out.update(listing.files)
            answers.note(listing.links.parents or ())
            if self.boundary is not None:
                for rel, target, is_dir in listing.links.notes:
                    self.boundary.note_link(rel, target, is_dir)
            stack.extend((d, local) for d in listing.subdirs)

    def _scan(
        self, prefix: str, entries: list[os.DirEntry[str]], local: list[Rules], since_ns: int
    ) -> tuple[list[str], list[str], _Links]:
        """One directory's `entries` (its path `prefix`): the files kept, the
        subdirectories to enter and what its links resolved to (a link out
        of the root, not ignored, is never kept and is noted: named in
        the check's coverage)."""
        root, configs = self.root, self.configs
        files: list[str] = []
        subdirs: list[str] = []
        links = _Links()
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=False):
                if entry.name in ALWAYS_SKIPPED:
                    continue
                if not (verdict(configs, rel, True) or verdict(local, rel, True)):
                    subdirs.append(rel)
                continue
            if entry.is_symlink():
                target = resolved(entry.path)
                links.add(entry.path, target, since_ns)
                if not inside(target, root):
                    is_dir = os.path.isdir(target)
                    if os.path.exists(target) and not (
                        verdict(configs, rel, is_dir) or verdict(local, rel, is_dir)
                    ):
                        links.notes.append((rel, target, is_dir))
                    continue
                if not os.path.isfile(target):
                    continue  # dangling, or a directory link inside the root
            elif not entry.is_file(follow_symlinks=False):
                continue  # sockets, fifos, devices
            if not (verdict(configs, rel, False) or verdict(local, rel, False)):
                files.append(rel)
        return files, subdirs, links


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None

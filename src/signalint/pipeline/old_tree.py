"""The copy of a revision's tree that a baseline check runs in, and what it
borrows from the working tree (the policy: `signalint.service.baseline`).

`at_revision` has a tree's files written in the project's work directory,
outside the project (`signalint.project.work_dir`: `<work>/trees/<tree>`; inside the
project the project's own tools would read the copy and its links), with
`changes.checkout_tree` (git's plumbing and an index file of our own),
gives the copy the working tree's `node_modules` directories (as links to
their entries, a workspace package's link pointing at the package in the
copy; those of the root's parents inside the repository too, which the
project finds walking up) and links the root's virtual environment into
it, and copies in the ignored files engines may read (`borrow_files`),
within bounds, keeping a manifest beside the copy (`<tree>.borrowed`) so
files the working tree dropped are removed and files the revision has are
never replaced. Nothing is written through a link leaving the copy (D18).

A copy is used by one check at a time (`<tree>.lock`, held from its
refresh to the end of the check at the revision: two checks of one
project at one revision take turns, and the second reuses the copy), and
at most `MAX_TREES` are kept per project: the least recently used copy
that no check holds goes first. What a check at the revision writes of
its own (engine state, tsc's wrappers) is kept with the copy
(`OldTree.work`) and goes with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import stat
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from signalint.engines.registry import engine_cache_dirs, engine_cache_files
from signalint.engines.resolve import VENV_NAMES
from signalint.files import write_atomic
from signalint.pipeline.changes import (
    changed_since,
    checkout_tree,
    commit_of,
    ignored_paths,
    toplevel,
)
from signalint.project import settle
from signalint.project.work_dir import tree_lock, try_lock

TREES_DIR = "trees"
MAX_TREES: Final = 3
_SKIPPED = frozenset({".git", ".signalint", "node_modules"})
MAX_BORROWED_FILES: Final = 5000
MAX_BORROWED_BYTES: Final = 100 * 1024 * 1024
# Ignored paths never copied into the old tree: linked instead (dependencies,
# virtual environments), ours, or tool caches no engine needs to read (the
# engines' own: their spec's `cache_dirs` and `cache_files`).
_NOT_BORROWED: Final = frozenset(
    {
        *_SKIPPED,
        *VENV_NAMES,
        *engine_cache_dirs(),
        *engine_cache_files(),
        "__pycache__",
        ".pytest_cache",
        ".tox",
        ".nox",
        ".cache",
        ".turbo",
        ".nx",
        ".parcel-cache",
        "coverage",
        ".nyc_output",
    }
)
_NOT_BORROWED_SUFFIXES: Final = (".tsbuildinfo", ".pyc")


@dataclass(frozen=True, slots=True)
class OldTree:
    """A revision's tree, copied for a baseline check (`at_revision`).

    `commit` and `tree` are the revision's ids; `root` is the project root
    inside the copy; `changed` the project files changed since the
    revision (`changes.changed_since`); `borrowed` counts the ignored files
    copied in, and `borrowed_all` is False when the bounds left some out.
    `work` is where the check at the revision keeps its own state (beside
    the copy, outside it).
    """

    commit: str
    tree: str
    root: Path
    changed: tuple[str, ...]
    borrowed: int
    borrowed_all: bool
    work: Path


@contextlib.asynccontextmanager
async def at_revision(
    root: Path, rev: str, *, option: str, state: Path, work: Path
) -> AsyncIterator[OldTree]:
    """The project at `root` as it was at `rev` (`option` names where the
    revision came from), copied in the project's work directory `work`
    with what it borrows from the working tree (module docstring), for the
    block: no other check changes or removes the copy meanwhile. `state`
    is the project's state directory (never borrowed).

    A new copy is returned only once its files are older than the cache's
    settle window, so its first check can already store its results.
    Raises GitError.
    """
    commit, tree = await commit_of(root, rev, option=option)
    top = Path(os.path.realpath(await toplevel(root)))
    changed = await changed_since(root, commit, state=state)
    listed = await ignored_paths(root)
    trees = work / TREES_DIR
    copy = trees / tree[:20]
    async with tree_lock(lock_of(copy)):
        fresh = await checkout_tree(top, tree, copy)
        if fresh:
            with contextlib.suppress(OSError):
                manifest_of(copy).unlink()  # what an older copy had borrowed
            _evict(trees, keep=copy)
            await asyncio.sleep(settle.SETTLE_NS / 1e9)
        with contextlib.suppress(OSError):
            os.utime(copy.parent / f"{copy.name}.tree")  # used now (`_evict`)
        inside = os.path.relpath(root, top)
        old_root = Path(os.path.realpath(copy / inside if inside != "." else copy))
        link_dependencies(root, old_root, top=top, old_top=Path(os.path.realpath(copy)))
        borrowed, borrowed_all = borrow_files(root, old_root, listed, manifest_of(copy), state)
        yield OldTree(
            commit,
            tree,
            old_root,
            tuple(changed),
            borrowed,
            borrowed_all,
            copy.parent / f"{copy.name}.work",
        )


def lock_of(copy: Path) -> Path:
    """The lock a check holds while it uses the copy at `copy`."""
    return copy.parent / f"{copy.name}.lock"


def _evict(trees: Path, keep: Path) -> None:
    """Remove the copies in `trees` beyond the `MAX_TREES` most recently
    used (`keep` counted), each with what sits beside it, skipping those a
    check holds."""
    used: list[tuple[float, Path]] = []
    with contextlib.suppress(OSError), os.scandir(trees) as entries:
        for entry in entries:
            if entry.name.endswith(".tree") and entry.is_file():
                copy = trees / entry.name[: -len(".tree")]
                if copy != keep:
                    with contextlib.suppress(OSError):
                        used.append((entry.stat().st_mtime, copy))
    used.sort(reverse=True)
    for _, copy in used[MAX_TREES - 1 :]:
        remove_tree(copy)


def remove_tree(copy: Path) -> bool:
    """Remove the copy at `copy` and what sits beside it, unless a check
    holds it; True when it is gone."""
    held = try_lock(lock_of(copy))
    if held is None:
        return False
    try:
        for suffix in (".tree", ".borrowed", ".index"):
            with contextlib.suppress(OSError):
                (copy.parent / f"{copy.name}{suffix}").unlink()
        shutil.rmtree(copy, ignore_errors=True)
        shutil.rmtree(copy.parent / f"{copy.name}.work", ignore_errors=True)
        return not copy.exists()
    finally:
        os.close(held)


def remove_trees(work: Path) -> tuple[int, int]:
    """Remove every copy of the work directory `work` no check holds:
    how many went, and how many were kept because a check holds them."""
    trees = work / TREES_DIR
    gone = kept = 0
    with contextlib.suppress(OSError), os.scandir(trees) as entries:
        names = [e.name[: -len(".tree")] for e in entries if e.name.endswith(".tree")]
    for name in names if trees.is_dir() else []:
        if remove_tree(trees / name):
            gone += 1
        else:
            kept += 1
    return gone, kept


def link_dependencies(
    root: Path, old_root: Path, *, top: Path | None = None, old_top: Path | None = None
) -> None:
    """Give the old tree the working tree's installed dependencies: each
    `node_modules` directory (`_mirror_modules`) of the root, and of its
    parents up to the repository's top level `top` (at the same places
    in the copy, whose top is `old_top`), and the root's virtual
    environment (linked)."""
    for name in VENV_NAMES:
        venv, link = root / name, old_root / name
        if venv.is_dir() and not os.path.lexists(link):
            with contextlib.suppress(OSError):
                link.symlink_to(venv, target_is_directory=True)
    if top is not None and old_top is not None:
        parent = root
        while parent != top and parent.is_relative_to(top):
            parent = parent.parent
            modules = parent / "node_modules"
            target = old_top / parent.relative_to(top)
            if modules.is_dir() and target.is_dir():
                with contextlib.suppress(OSError):
                    _mirror_modules(modules, target / "node_modules", top, old_top)
    for directory, subdirs, _ in os.walk(root):
        if "node_modules" in subdirs:
            rel = os.path.relpath(directory, root)
            target = old_root / rel if rel != "." else old_root
            if target.is_dir():
                with contextlib.suppress(OSError):
                    _mirror_modules(
                        Path(directory) / "node_modules", target / "node_modules", root, old_root
                    )
        subdirs[:] = [d for d in subdirs if d not in _SKIPPED]


def _mirror_modules(source: Path, target: Path, root: Path, old_root: Path) -> None:
    """`target`, a `node_modules` of the old tree, as the working tree's
    `source`: a directory of links to `source`'s entries (a scope directory,
    `@scope`, mirrored the same way), except that a link to a workspace
    package, one whose real path is a directory of the working tree outside
    every `node_modules`, points at that package in the old tree: at the
    revision a package reads its siblings as they were at the revision.
    Refreshed on each use (entries the working tree dropped are removed)."""
    if target.is_symlink():
        target.unlink()  # linked whole by an older Signalint
    target.mkdir(exist_ok=True)
    wanted: dict[str, Path] = {}
    with os.scandir(source) as entries:
        for entry in entries:
            path = Path(entry.path)
            if entry.name.startswith("@") and entry.is_dir(follow_symlinks=False):
                _mirror_modules(path, target / entry.name, root, old_root)
                continue
            wanted[entry.name] = _relocated(path, root, old_root)
    for entry in os.scandir(target):
        if entry.name.startswith("@") and entry.is_dir(follow_symlinks=False):
            if not (source / entry.name).is_dir():
                shutil.rmtree(entry.path, ignore_errors=True)
            continue
        link = Path(entry.path)
        if entry.name not in wanted or not entry.is_symlink():
            _remove(link)
        elif Path(os.readlink(link)) != wanted.pop(entry.name):
            link.unlink()
            wanted[entry.name] = _relocated(source / entry.name, root, old_root)
    for name, points_to in wanted.items():
        (target / name).symlink_to(points_to)


def _relocated(path: Path, root: Path, old_root: Path) -> Path:
    """Where the old tree's link for the dependency at `path` points."""
    if path.is_symlink():
        real = os.path.realpath(path)
        rel = os.path.relpath(real, root)
        if not rel.startswith("..") and "node_modules" not in Path(rel).parts:
            return old_root / rel
    return path


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _borrowable(rel: str) -> bool:
    parts = rel.rstrip("/").split("/")
    return not _NOT_BORROWED.intersection(parts) and not parts[-1].endswith(_NOT_BORROWED_SUFFIXES)


def _expand(root: Path, listed: Sequence[str], state: Path) -> Iterator[str]:
    """The files (and symlinks) of `listed` that may be borrowed, in path order."""
    skip = os.path.realpath(state)
    for entry in listed:
        if not _borrowable(entry):
            continue
        full = os.path.join(root, entry.rstrip("/"))
        if os.path.realpath(full) == skip or os.path.realpath(full).startswith(skip + os.sep):
            continue
        if not entry.endswith("/") or os.path.islink(full):
            yield entry.rstrip("/")
            continue
        for directory, subdirs, files in os.walk(full):
            rel = os.path.relpath(directory, root).replace(os.sep, "/")
            venv = "pyvenv.cfg" in files
            links = [d for d in subdirs if os.path.islink(os.path.join(directory, d))]
            subdirs[:] = sorted(
                d for d in subdirs if d not in links and _borrowable(d) and not venv
            )
            if venv:
                continue
            for name in sorted([*files, *links]):
                if _borrowable(name):
                    yield f"{rel}/{name}"


def borrow_files(
    root: Path, old_root: Path, listed: Sequence[str], manifest: Path, state: Path
) -> tuple[int, bool]:
    """Copy the borrowable ignored files of `listed` into the old tree (module
    docstring); remove those borrowed before that the working tree no longer
    has. Returns how many are borrowed and whether that is all of them."""
    try:
        before = set(filter(None, manifest.read_text(encoding="utf-8").split("\0")))
    except OSError:
        before = set()
    chosen: list[str] = []
    complete, size = True, 0
    for seen, rel in enumerate(_expand(root, listed, state)):
        if len(chosen) >= MAX_BORROWED_FILES or seen >= 10 * MAX_BORROWED_FILES:
            complete = False
            break
        with contextlib.suppress(OSError):
            st = os.lstat(root / rel)
            bytes_ = 0 if stat.S_ISLNK(st.st_mode) else st.st_size
            if size + bytes_ > MAX_BORROWED_BYTES:
                complete = False  # too big for what is left: the smaller ones still fit
                continue
            size += bytes_
            chosen.append(rel)
    inside = os.path.realpath(old_root)
    for rel in before.difference(chosen):
        target = old_root / rel
        if _inside(os.path.realpath(target.parent), inside):
            with contextlib.suppress(OSError):
                target.unlink()
    borrowed: list[str] = []
    for rel in chosen:
        source, target = root / rel, old_root / rel
        if rel not in before and os.path.lexists(target):
            continue  # the revision has this file: it is code there
        # Never through a link out of the state directory (D18).
        if not _inside(os.path.realpath(target.parent), inside):
            continue
        with contextlib.suppress(OSError):
            target.parent.mkdir(parents=True, exist_ok=True)
            if not _same(source, target):
                _copy(source, target)
            borrowed.append(rel)
    write_atomic(manifest, "\0".join(borrowed).encode("utf-8"), mode=0o644)
    return len(borrowed), complete


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _same(source: Path, target: Path) -> bool:
    try:
        a, b = os.lstat(source), os.lstat(target)
    except OSError:
        return False
    if os.path.islink(source) or os.path.islink(target):
        return os.path.islink(target) and os.readlink(source) == os.readlink(target)
    return (a.st_size, a.st_mtime_ns) == (b.st_size, b.st_mtime_ns)


def _copy(source: Path, target: Path) -> None:
    if os.path.lexists(target):
        target.unlink()
    if os.path.islink(source):
        target.symlink_to(os.readlink(source))
    else:
        shutil.copy2(source, target)


def manifest_of(path: Path) -> Path:
    """Where the list of files borrowed into the copy at `path` is kept."""
    return path.parent / f"{path.name}.borrowed"


__all__ = [
    "MAX_BORROWED_BYTES",
    "MAX_BORROWED_FILES",
    "MAX_TREES",
    "TREES_DIR",
    "OldTree",
    "at_revision",
    "borrow_files",
    "link_dependencies",
    "lock_of",
    "manifest_of",
    "remove_tree",
    "remove_trees",
]

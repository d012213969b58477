"""Only what is new: the issues of a check that were not present at a git revision.

`check --new-from-rev REV` (and `--new-from-merge-base BRANCH`, which uses
the merge base of HEAD and BRANCH; the MCP check tools' `newFromRev` and
`newFromMergeBase`) checks the project as usual, then finds what the same
checks report at REV and keeps only the issues with no counterpart there
(`only_new`, the one entry point of every front end). Counterparts are
matched as deltas match (`delta.persisting`): the same issue id, else the
same file, rule, severity and message nearest by line, else the same
message template; so an issue that merely moved is not new.

The old revision is checked in a copy of its tree under the state
directory, `baseline/trees/<tree id>` (written through an index file of our
own: nothing is registered in the repository's `.git`), kept and reused for
the same tree (a revision with the same content reuses it whatever its
commit). It is checked with the current configuration and with exactly the
engine executables and Python interpreter the current check ran (its
`resolve.Toolchain`, D22): resolution in the copy would refuse the linked
`node_modules` and find other versions, or none.

What the copy borrows from the working tree. Git decides what is code:
tracked files, and untracked files that are not ignored, are the change
being measured, so the copy has them as they are at REV. What git ignores
is the environment the code is checked in (dependencies, generated files
such as a build step's JSON or type declarations, local settings), the
same on both sides:
- every `node_modules` directory is linked in, and the root's `.venv` or
  `venv`;
- every other ignored file under the project root is copied in (a copy,
  not a link, so a generated source importing `./x` finds REV's `x`),
  refreshed on each use and removed once the working tree drops it;
  except a file the revision itself has, what sits in the state directory,
  and tool caches (`_NOT_BORROWED`: `__pycache__`, `.mypy_cache`, `.cache`,
  `.turbo`, `*.tsbuildinfo`, coverage output...). At most
  `MAX_BORROWED_FILES` files and `MAX_BORROWED_BYTES` bytes, in path order;
  the answer says when the bound cut the list.
Its engine state lives in its own directory, while its result cache is the
project's: files unchanged since REV are cache hits, and its whole-program
records are kept per tree.

Work is limited to what the change can affect: in a planned workspace,
when every changed file lies in a package, only the packages holding
changed files and their dependents are checked at REV; the other packages'
issues at REV are, file for file and program for program, the ones the
current check found there. Otherwise the whole tree is checked at REV.

An engine that did not run ok at REV could not have seen anything there,
so its issues cannot be matched; rather than calling them all new, such an
engine falls back to the rule golangci-lint's `new-from-rev` uses: its
issues on lines changed since REV (`changes.changed_lines`: committed,
staged, unstaged, and whole untracked files) are new, the others unchanged.
The answer names the engine, why it failed and the rule (`Fallback`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shutil
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from signalint import file_cache, ids
from signalint.changes import (
    changed_lines,
    changed_since,
    commit_of,
    git,
    merge_base,
    toplevel,
)
from signalint.check import CheckRun, run_check
from signalint.cluster import Clustering, cluster
from signalint.config import Config, state_dir
from signalint.context import Context
from signalint.delta import persisting
from signalint.engines.resolve import VENV_NAMES
from signalint.model import CheckResult, Issue, Scope
from signalint.package_summary import owned
from signalint.workspaces import Workspace
from signalint.workspaces import plan as plan_workspace

TREES_DIR = "baseline/trees"
_SKIPPED = frozenset({".git", ".signalint", "node_modules"})
CHANGED_LINES: Final = "changed-lines"
MAX_BORROWED_FILES: Final = 5000
MAX_BORROWED_BYTES: Final = 100 * 1024 * 1024
# Ignored paths never copied into the old tree: linked instead (dependencies,
# virtual environments), ours, or tool caches no engine needs to read.
_NOT_BORROWED: Final = frozenset(
    {
        *_SKIPPED,
        *VENV_NAMES,
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        ".nox",
        ".cache",
        ".turbo",
        ".nx",
        ".parcel-cache",
        ".eslintcache",
        "coverage",
        ".nyc_output",
    }
)
_NOT_BORROWED_SUFFIXES: Final = (".tsbuildinfo", ".pyc")


@dataclass(frozen=True, slots=True)
class Since:
    """What a check is compared with: the revision `rev`, or the merge base of
    HEAD and `merge_branch` (exactly one is set). `names` are what the front
    end calls the two (`--new-from-rev`, `newFromRev`), for messages."""

    rev: str | None = None
    merge_branch: str | None = None
    names: tuple[str, str] = ("--new-from-rev", "--new-from-merge-base")

    @property
    def option(self) -> str:
        return self.names[0] if self.merge_branch is None else self.names[1]


@dataclass(frozen=True, slots=True)
class Fallback:
    """An engine that did not run ok at the revision: `reason` is its message
    there; its issues were split by `rule` (`CHANGED_LINES`)."""

    engine: str
    reason: str
    rule: str = CHANGED_LINES


@dataclass(frozen=True, slots=True)
class Baseline:
    """The issues present at a revision, as far as the current engines see them.

    `rev` is what the user named, `commit` and `tree` its ids; `checked` the
    project-relative targets checked at the revision (("." ,) the whole
    tree); `reused` the packages whose issues were taken from the current
    check; `failed` the engines that did not run ok at the revision, and
    `fallback` those of them whose current issues are split by the lines
    changed since the revision (`changed`: per project file, None for a
    whole new file). `borrowed` counts the ignored files copied into the old
    tree; `borrowed_all` is False when the bounds left some out.
    """

    rev: str
    commit: str
    tree: str
    issues: tuple[Issue, ...]
    checked: tuple[str, ...]
    reused: tuple[str, ...]
    failed: tuple[str, ...]
    fallback: tuple[Fallback, ...] = ()
    changed: Mapping[str, frozenset[int] | None] = dataclasses.field(default_factory=dict)
    borrowed: int = 0
    borrowed_all: bool = True


@dataclass(frozen=True, slots=True)
class Split:
    """A check's issues divided against a baseline (`split`)."""

    new: tuple[Issue, ...]
    unchanged: tuple[Issue, ...]


@dataclass(frozen=True, slots=True, repr=False)
class OnlyNew:
    """A check narrowed to what is new since a revision (`only_new`).

    `result` keeps only the new issues (the check id stays: it names the
    snapshot holding every issue) and `clustering` is theirs; `states` maps
    every issue's id to its SARIF `baselineState` (`new`, `unchanged`);
    `block` is the `baseline` object of the JSON answer (CLI and MCP).
    """

    found: Baseline
    result: CheckResult
    clustering: Clustering
    states: Mapping[str, str]
    block: dict[str, object]

    def __repr__(self) -> str:
        return f"OnlyNew({self.block!r})"


async def resolve_revision(root: Path, since: Since) -> str:
    """The revision to compare with: `since.rev`, or the merge base of HEAD and
    `since.merge_branch`; checked to name a commit. Raises GitError."""
    if since.merge_branch is not None:
        return await merge_base(root, since.merge_branch, option=since.option)
    assert since.rev is not None
    await commit_of(root, since.rev, option=since.option)
    return since.rev


async def only_new(
    root: Path,
    config: Config,
    current: CheckRun,
    targets: Sequence[str],
    since: Since,
    *,
    revision: str | None = None,
    program_targets: Sequence[str] | None = None,
    context: Context | None = None,
) -> OnlyNew:
    """`current` (a check of `targets`) narrowed to the issues new since `since`.

    `revision` is `resolve_revision`'s answer when the caller already has it
    (to refuse a bad revision before the check runs); `program_targets`
    where the current check reported whole-program issues when not in
    `targets` (`run_check`'s `program_scope`). Raises GitError."""
    if revision is None:
        revision = await resolve_revision(root, since)
    found = await baseline(
        root,
        config,
        revision,
        current,
        targets=targets,
        program_targets=program_targets,
        option=since.option,
        context=context,
    )
    parts = split(current.result.issues, found)
    states = {i.issue_id: "new" for i in parts.new}
    states.update({i.issue_id: "unchanged" for i in parts.unchanged})
    block: dict[str, object] = {
        "rev": since.merge_branch if since.merge_branch is not None else revision,
        "commit": found.commit,
        "mergeBase": since.merge_branch is not None,
        "new": len(parts.new),
        "unchanged": len(parts.unchanged),
        "checkedAtRev": list(found.checked),
        "reusedPackages": list(found.reused),
        "enginesNotOkAtRev": list(found.failed),
        "fallback": [
            {"engine": f.engine, "reason": f.reason, "rule": f.rule} for f in found.fallback
        ],
        "borrowedIgnoredFiles": found.borrowed,
        "borrowedAllIgnoredFiles": found.borrowed_all,
    }
    result = filtered(current.result, parts.new)
    return OnlyNew(found, result, cluster(result.issues), states, block)


def filtered(result: CheckResult, issues: Sequence[Issue]) -> CheckResult:
    """`result` keeping only `issues` (its fingerprint recomputed, its id kept)."""
    kept = {i.issue_id: i for i in issues}
    return dataclasses.replace(result, issues=tuple(issues), fingerprint=ids.fingerprint(kept))


async def baseline(
    root: Path,
    config: Config,
    rev: str,
    current: CheckRun,
    *,
    targets: Sequence[str] = (".",),
    program_targets: Sequence[str] | None = None,
    option: str = "--new-from-rev",
    context: Context | None = None,
) -> Baseline:
    """Check what `current` checked (its `targets`, and `program_targets` for
    whole-program engines, see `only_new`), at `rev` (module docstring).

    Raises GitError."""
    commit, tree = await commit_of(root, rev, option=option)
    top = Path(os.path.realpath(await toplevel(root)))
    inside = os.path.relpath(root, top)
    state = state_dir(root)
    worktree = await _worktree(top, state / TREES_DIR / tree[:20], tree)
    old_root = Path(os.path.realpath(worktree / inside if inside != "." else worktree))
    _link_dependencies(root, old_root)
    listed = await _ignored(root)
    manifest = worktree.parent / f"{worktree.name}.borrowed"
    borrowed, borrowed_all = _borrow(root, old_root, listed, manifest, state)
    changed = await changed_since(root, commit)
    workspace = current.workspace
    targets, programs, reused = _what_to_check(current, workspace, changed, tuple(targets))
    # A target added since the revision had no issue there (and would be
    # refused as missing); whole-program issues still need their programs.
    present = tuple(t for t in targets if os.path.lexists(old_root / t))
    if not present and program_targets is not None and programs is None:
        present, program_targets = tuple(program_targets), None
    targets = present
    old_workspace: Workspace | None = None
    if workspace is not None and programs is not None:
        old_workspace = plan_workspace(old_root, "auto").workspace
        if old_workspace is None or {p.name for p in old_workspace.packages} != {
            p.name for p in workspace.packages
        }:
            # The packages themselves changed: check the whole old tree.
            programs, reused = None, ()
    reasons: dict[str, str] = {}
    if not targets:
        issues: tuple[Issue, ...] = ()
    else:
        old_run = await run_check(
            old_root,
            config,
            Scope(targets),
            context=context or Context(),
            workspace=old_workspace if programs is not None else _whole(old_root, workspace),
            programs=programs,
            program_scope=(
                Scope(tuple(program_targets))
                if program_targets is not None and programs is None
                else None
            ),
            state=state / "baseline" / "state" / tree[:20],
            cache_dir=state,
            tools=current.toolchain,  # the binaries the current check ran (D22)
        )
        issues = old_run.result.issues
        reasons = {
            name: o.message or o.status
            for name, o in old_run.result.outcomes.items()
            if o.status != "ok"
        }
    if reused and workspace is not None:
        by_package = owned(workspace.packages, current.result.issues)
        kept = set(reused)
        issues += tuple(i for name in kept for i in by_package.get(name, []))
    fallback = _fallback(current.result, reasons, old_root)
    lines = await changed_lines(root, commit) if fallback else {}
    return Baseline(
        rev,
        commit,
        tree,
        issues,
        targets,
        reused,
        tuple(sorted(reasons)),
        fallback,
        lines,
        borrowed,
        borrowed_all,
    )


def _fallback(
    result: CheckResult, reasons: Mapping[str, str], old_root: Path
) -> tuple[Fallback, ...]:
    """The engines that failed at the revision and have something to split
    now (they ran in the current check, or reported issues there)."""
    with_issues = {i.engine for i in result.issues}
    chosen = []
    for name in sorted(reasons):
        outcome = result.outcomes.get(name)
        if name in with_issues or (outcome is not None and outcome.status != "disabled"):
            # The old tree's paths read as the project's own.
            reason = reasons[name].replace(str(old_root) + os.sep, "")
            chosen.append(Fallback(name, reason))
    return tuple(chosen)


def _whole(old_root: Path, workspace: Workspace | None) -> Workspace | None:
    if workspace is None:
        return None
    return plan_workspace(old_root, "auto").workspace


def _what_to_check(
    current: CheckRun, workspace: Workspace | None, changed: Sequence[str], targets: tuple[str, ...]
) -> tuple[tuple[str, ...], list[str] | None, tuple[str, ...]]:
    """Targets to check at the revision, the packages whose programs run
    there (None: as a plain check would), and the packages reused as they are."""
    if workspace is None or not current.packages:
        return targets, None, ()
    owners = {workspace.owner(f) for f in changed}
    if None in owners:
        return targets, None, ()  # a change outside every package can affect them all
    affected = {p.name for p in workspace.dependents(p.name for p in owners if p is not None)}
    checked = [p for p in current.packages if p.name in affected]
    reused = tuple(p.name for p in current.packages if p.name not in affected)
    # What the affected packages need is checked as their programs' inputs;
    # only their own directories are reported.
    return tuple(p.path for p in checked), [p.name for p in checked], reused


async def _worktree(top: Path, path: Path, tree: str) -> Path:
    """The files of `tree` at `path`, written once and reused while the marker
    beside it names that tree.

    Written with git's `read-tree` and `checkout-index` through an index
    file of our own, so nothing is written outside the state directory
    (`git worktree add` would register the copy in the repository's `.git`).
    A new copy is returned only once its files are older than the cache's
    settle window, so its first check can already store its results.
    """
    marker = path.parent / f"{path.name}.tree"
    with contextlib.suppress(OSError):
        if marker.read_text() == tree and path.is_dir():
            return path
    shutil.rmtree(path, ignore_errors=True)
    for stale in (marker, path.parent / f"{path.name}.borrowed"):
        with contextlib.suppress(OSError):
            stale.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    index = path.parent / f"{path.name}.index"
    env = {"GIT_INDEX_FILE": str(index)}
    what = f"a copy of tree {tree[:12]} under the state directory"
    try:
        await git(top, "read-tree", tree, what=what, env=env)
        await git(top, "checkout-index", "--all", f"--prefix={path}/", what=what, env=env)
    finally:
        with contextlib.suppress(OSError):
            index.unlink()
    marker.write_text(tree)
    await asyncio.sleep(file_cache.SETTLE_NS / 1e9)
    return path


def _link_dependencies(root: Path, old_root: Path) -> None:
    """Link each `node_modules` directory of the working tree, and the root's
    virtual environment, into the worktree."""
    for name in VENV_NAMES:
        venv, link = root / name, old_root / name
        if venv.is_dir() and not os.path.lexists(link):
            with contextlib.suppress(OSError):
                link.symlink_to(venv, target_is_directory=True)
    for directory, subdirs, _ in os.walk(root):
        if "node_modules" in subdirs:
            rel = os.path.relpath(directory, root)
            target = old_root / rel if rel != "." else old_root
            link = target / "node_modules"
            if target.is_dir() and not os.path.lexists(link):
                with contextlib.suppress(OSError):
                    link.symlink_to(Path(directory) / "node_modules", target_is_directory=True)
        subdirs[:] = [d for d in subdirs if d not in _SKIPPED]


async def _ignored(root: Path) -> list[str]:
    """The project's ignored, untracked paths, a wholly ignored directory as
    one entry ending in "/" (so `node_modules` is not listed file by file)."""
    listed = await git(
        root,
        *("ls-files", "--others", "--ignored", "--exclude-standard"),
        *("--directory", "--no-empty-directory", "-z", "--", "."),
        what="the ignored files the old tree borrows",
    )
    return sorted(p for p in listed.split("\0") if p)


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


def _borrow(
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
    manifest.write_text("\0".join(borrowed), encoding="utf-8")
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


def split(issues: Sequence[Issue], found: Baseline) -> Split:
    """`issues` divided into new (no counterpart at the revision) and unchanged.

    The issues of an engine that falls back (`Baseline.fallback`) are new
    when they lie on a line changed since the revision (a whole new file:
    any line), unchanged otherwise.
    """
    failed = set(found.failed)
    fallback = {f.engine for f in found.fallback}
    matched = persisting(found.issues, [i for i in issues if i.engine not in failed])
    new: list[Issue] = []
    unchanged: list[Issue] = []
    for issue in issues:
        if issue.engine in fallback:
            is_new = _on_changed_line(issue, found.changed)
        else:
            is_new = issue.issue_id not in matched
        (new if is_new else unchanged).append(issue)
    return Split(tuple(new), tuple(unchanged))


def _on_changed_line(issue: Issue, changed: Mapping[str, frozenset[int] | None]) -> bool:
    if issue.file not in changed:
        return False
    lines = changed[issue.file]
    return lines is None or issue.line in lines


__all__ = [
    "CHANGED_LINES",
    "Baseline",
    "Fallback",
    "OnlyNew",
    "Since",
    "Split",
    "baseline",
    "filtered",
    "only_new",
    "resolve_revision",
    "split",
]

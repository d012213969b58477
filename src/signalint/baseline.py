"""Only what is new: the issues of a check that were not present at a git revision.

`check --new-from-rev REV` (and `--new-from-merge-base BRANCH`, which uses
the merge base of HEAD and BRANCH) checks the project as usual, then
finds what the same checks report at REV and keeps only the issues with no
counterpart there. Counterparts are matched as deltas match
(`delta.persisting`): the same issue id, else the same file, rule,
severity and message nearest by line, else the same message template; so
an issue that merely moved is not new.

The old revision is checked in a copy of its tree under the state
directory, `baseline/trees/<tree id>` (written through an index file of our
own: nothing is registered in the repository's `.git`), kept and reused for
the same tree (a revision with the same content reuses it whatever its
commit), with every
`node_modules` directory of the working tree linked into it (dependencies
are not in git). It is checked with the current configuration, so the two
sides differ only in the code; its engine state lives in its own
directory, while its result cache is the project's: files unchanged since
REV are cache hits, and its whole-program records are kept per tree.

Work is limited to what the change can affect: in a planned workspace,
when every changed file lies in a package, only the packages holding
changed files and their dependents are checked at REV; the other packages'
issues at REV are, file for file and program for program, the ones the
current check found there. Otherwise the whole tree is checked at REV.

An engine that did not run ok at REV could not have seen anything: its
current issues all count as new, and the answer says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from signalint import file_cache
from signalint.changes import changed_since, commit_of, git, merge_base, toplevel
from signalint.check import CheckRun, run_check
from signalint.config import Config, state_dir
from signalint.context import Context
from signalint.delta import persisting
from signalint.model import Issue, Scope
from signalint.package_summary import owned
from signalint.workspaces import Workspace
from signalint.workspaces import plan as plan_workspace

TREES_DIR = "baseline/trees"
_SKIPPED = frozenset({".git", ".signalint", "node_modules"})


@dataclass(frozen=True, slots=True)
class Baseline:
    """The issues present at a revision, as far as the current engines see them.

    `rev` is what the user named, `commit` and `tree` its ids; `checked` the
    project-relative targets checked at the revision (("." ,) the whole
    tree); `reused` the packages whose issues were taken from the current
    check; `failed` the engines that did not run ok at the revision.
    """

    rev: str
    commit: str
    tree: str
    issues: tuple[Issue, ...]
    checked: tuple[str, ...]
    reused: tuple[str, ...]
    failed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Split:
    """A check's issues divided against a baseline (`split`)."""

    new: tuple[Issue, ...]
    unchanged: tuple[Issue, ...]


async def resolve_revision(root: Path, rev: str | None, merge_branch: str | None) -> str:
    """The revision to compare with: `rev`, or the merge base of HEAD and `merge_branch`."""
    if merge_branch is not None:
        return await merge_base(root, merge_branch)
    assert rev is not None
    return rev


async def baseline(
    root: Path,
    config: Config,
    rev: str,
    current: CheckRun,
    *,
    targets: Sequence[str] = (".",),
    option: str = "--new-from-rev",
    context: Context | None = None,
) -> Baseline:
    """Check what `current` checked (its `targets`), at `rev` (module docstring).

    Raises GitError."""
    commit, tree = await commit_of(root, rev, option=option)
    top = Path(os.path.realpath(await toplevel(root)))
    inside = os.path.relpath(root, top)
    state = state_dir(root)
    worktree = await _worktree(top, state / TREES_DIR / tree[:20], tree)
    old_root = Path(os.path.realpath(worktree / inside if inside != "." else worktree))
    _link_dependencies(root, old_root)
    changed = await changed_since(root, commit)
    workspace = current.workspace
    targets, programs, reused = _what_to_check(current, workspace, changed, tuple(targets))
    old_workspace: Workspace | None = None
    if workspace is not None and programs is not None:
        old_workspace = plan_workspace(old_root, "auto").workspace
        if old_workspace is None or {p.name for p in old_workspace.packages} != {
            p.name for p in workspace.packages
        }:
            # The packages themselves changed: check the whole old tree.
            programs, reused = None, ()
    if not targets:
        issues: tuple[Issue, ...] = ()
        failed: tuple[str, ...] = ()
    else:
        old_run = await run_check(
            old_root,
            config,
            Scope(targets),
            context=context or Context(),
            workspace=old_workspace if programs is not None else _whole(old_root, workspace),
            programs=programs,
            state=state / "baseline" / "state" / tree[:20],
            cache_dir=state,
        )
        issues = old_run.result.issues
        failed = tuple(sorted(n for n, o in old_run.result.outcomes.items() if o.status != "ok"))
    if reused and workspace is not None:
        by_package = owned(workspace.packages, current.result.issues)
        kept = set(reused)
        issues += tuple(i for name in kept for i in by_package.get(name, []))
    return Baseline(rev, commit, tree, issues, targets, reused, failed)


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
    with contextlib.suppress(OSError):
        marker.unlink()
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
    """Link each `node_modules` directory of the working tree into the worktree."""
    for directory, subdirs, _ in os.walk(root):
        if "node_modules" in subdirs:
            rel = os.path.relpath(directory, root)
            target = old_root / rel if rel != "." else old_root
            link = target / "node_modules"
            if target.is_dir() and not os.path.lexists(link):
                with contextlib.suppress(OSError):
                    link.symlink_to(Path(directory) / "node_modules", target_is_directory=True)
        subdirs[:] = [d for d in subdirs if d not in _SKIPPED]


def split(issues: Sequence[Issue], found: Baseline) -> Split:
    """`issues` divided into new (no counterpart at the revision) and unchanged.

    The issues of an engine that did not run ok at the revision are all new.
    """
    failed = set(found.failed)
    matched = persisting(found.issues, [i for i in issues if i.engine not in failed])
    new = tuple(i for i in issues if i.issue_id not in matched)
    unchanged = tuple(i for i in issues if i.issue_id in matched)
    return Split(new, unchanged)


__all__ = ["Baseline", "Split", "baseline", "resolve_revision", "split"]

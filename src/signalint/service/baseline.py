"""Only what is new: the issues of a check that were not present at a git revision.

`check --new-from-rev REV` (and `--new-from-merge-base BRANCH`, which uses
the merge base of HEAD and BRANCH; the MCP check tools' `newFromRev` and
`newFromMergeBase`) checks the project as usual, then finds what the same
checks report at REV and keeps only the issues with no counterpart there
(`only_new`, the one entry point of every front end). Counterparts are
matched as deltas match (`matching.persisting`): the same issue id, else the
same file, rule, severity and message nearest by line, else the same
message template; so an issue that merely moved is not new.

The old revision is checked in a copy of its tree in the project's work
directory, outside the project (`<work>/trees/<tree id>`, `signalint.pipeline.work_dir`:
inside it, the project's own tools would read the copy), written through an
index file of our own (nothing is registered in the repository's `.git`),
kept and reused for the same tree (a revision with the same content reuses
it whatever its commit; the few most recently used are kept). It is
checked with the current configuration and with exactly the engine
executables and Python interpreter the current check ran (its
`resolve.Toolchain`, D22): resolution in the copy would refuse the linked
`node_modules` and find other versions, or none.

What the copy borrows from the working tree. Git decides what is code:
tracked files, and untracked files that are not ignored, are the change
being measured, so the copy has them as they are at REV. What git ignores
is the environment the code is checked in (dependencies, generated files
such as a build step's JSON or type declarations, local settings), the
same on both sides:
- every `node_modules` directory is given to the copy as links to its
  entries, except that a link to a workspace package points at that
  package in the copy (at the revision a package reads its siblings as
  they were then); the root's `.venv` or `venv` is linked in;
- every other ignored file under the project root is copied in (a copy,
  not a link, so a generated source importing `./x` finds REV's `x`),
  refreshed on each use and removed once the working tree drops it;
  except a file the revision itself has, what sits in the state
  directory, and tool caches (`__pycache__`, `.mypy_cache`, `.cache`,
  `.turbo`, `*.tsbuildinfo`, coverage output...). Bounded in files and
  bytes, in path order; the answer says when the bound cut the list.
The copy and the borrowing are `signalint.pipeline.old_tree`.
Its engine state lives inside the copy (`.signalint` in its project root,
as the current check's lives inside the project), while its result cache
is the project's: files unchanged since REV are cache hits, and its whole-program
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

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from signalint import ids
from signalint.cache.context import Context
from signalint.model import CheckResult, EngineOutcome, Issue, Scope
from signalint.pipeline import old_tree
from signalint.pipeline.changes import changed_lines
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.cluster import Clustering, cluster
from signalint.pipeline.matching import persisting
from signalint.pipeline.request import RunRequest, Since, resolve_revision
from signalint.pipeline.workspaces import Package, Workspace, owned
from signalint.pipeline.workspaces import plan as plan_workspace
from signalint.settings.config import state_dir

CHANGED_LINES: Final = "changed-lines"


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


async def only_new(
    request: RunRequest,
    current: CheckRun,
    since: Since,
    revision: str,
    context: Context | None = None,
) -> OnlyNew:
    """`current` (the check `request` ran) narrowed to the issues new since `since`.

    `revision` is what `since` names (`request.resolve_revision`, asked
    before the check runs so a bad revision is refused first). The
    revision is checked at the request's targets, and whole-program
    engines at its `program_scope` when it has one. Raises GitError."""
    found = await baseline(request, current, revision, since.option, context)
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
    clustering = cluster(parts.new)
    # The check's result keeping only the new issues: its fingerprint
    # recomputed, its id kept (it names the snapshot holding every issue).
    kept = {i.issue_id: i for i in parts.new}
    fingerprint = ids.fingerprint(kept)
    result = dataclasses.replace(current.result, issues=parts.new, fingerprint=fingerprint)
    return OnlyNew(found, result, clustering, states, block)


async def baseline(
    request: RunRequest,
    current: CheckRun,
    rev: str,
    option: str = "--new-from-rev",
    context: Context | None = None,
) -> Baseline:
    """Check what `current` checked (the targets of its `request`, and its
    `program_scope` for whole-program engines), at `rev` (module docstring).
    `option` names the revision's option in messages.

    Raises GitError."""
    state = request.state_dir
    async with old_tree.at_revision(
        request.root, rev, option=option, state=state, work=request.work_dir
    ) as old:
        return await _baseline_in(old, request, current, rev, context)


@dataclass(frozen=True, slots=True)
class _AtRevision:
    """What a baseline checks in the revision's tree: the targets there
    (`present`), the tree's own workspace, and (in a workspace) the affected
    packages' programs, or the programs of its scope
    (`RunRequest.program_scope`); and the packages whose issues are taken
    from the current check (`reused`)."""

    present: tuple[str, ...]
    workspace: Workspace | None
    programs: tuple[str, ...] | None
    program_scope: Scope | None
    reused: tuple[Package, ...]


def _what_at_revision(old: old_tree.OldTree, request: RunRequest, current: CheckRun) -> _AtRevision:
    """Only the packages a change can affect are checked at the revision;
    what the others have there is what the current check found."""
    targets = request.scope.targets
    program_targets = None if request.program_scope is None else request.program_scope.targets
    workspace = current.workspace
    affected = None
    if workspace is not None and current.packages:
        affected = workspace.affected(old.changed, current.packages)
    checked, reused = affected if affected is not None else ((), ())
    if affected is not None:
        # What the affected packages need is checked as their programs'
        # inputs; only their own directories are reported.
        targets = tuple(p.path for p in checked)
    # A target added since the revision had no issue there (and would be
    # refused as missing); whole-program issues still need their programs.
    present = tuple(t for t in targets if os.path.lexists(old.root / t))
    if not present and program_targets is not None and affected is None:
        present, program_targets = tuple(program_targets), None
    old_workspace = None
    if workspace is not None:
        old_workspace = plan_workspace(old.root, "auto").workspace
        names = {p.name for p in workspace.packages}
        if old_workspace is None or {p.name for p in old_workspace.packages} != names:
            # The packages themselves changed: check the whole old tree.
            affected, reused = None, ()
    return _AtRevision(
        present,
        old_workspace,
        programs=None if affected is None else tuple(p.name for p in checked),
        program_scope=(
            Scope(tuple(program_targets))
            if program_targets is not None and affected is None
            else None
        ),
        reused=tuple(reused),
    )


async def _baseline_in(
    old: old_tree.OldTree,
    request: RunRequest,
    current: CheckRun,
    rev: str,
    context: Context | None,
) -> Baseline:
    """`baseline` in the copy `old` of the revision's tree."""
    what = _what_at_revision(old, request, current)
    issues: tuple[Issue, ...] = ()
    outcomes: Mapping[str, EngineOutcome] = {}
    if what.present:
        at_rev = RunRequest(
            old.root,
            request.config,
            Scope(what.present),
            workspace=what.workspace,
            programs=what.programs,
            program_scope=what.program_scope,
            # Engine state inside the tree at REV, where the current check's
            # is inside the project (whatever `SIGNALINT_STATE_DIR` says);
            # what holds source files beside the copy, as the current
            # check's is beside the project (tsc's build wrappers resolve
            # packages from the copy's own node_modules links).
            state=state_dir(old.root, env={}),
            work=old.work,
            cache_dir=request.state_dir,
            warm=False,
            tools=current.toolchain,  # the binaries the current check ran (D22)
            # A shard's files and programs keep their shard at the revision
            # (paths and programs hash alike there); a workspace's packages
            # were dealt by their current sizes, so its revision is checked
            # for the shard's packages as chosen above.
            shard=request.shard if current.workspace is None else None,
            # The working tree's links (its virtual environment and
            # dependencies) are the old tree's own; nothing else outside is.
            borrowed_from=request.root,
        )
        old_run = await run_check(at_rev, context or Context())
        issues, outcomes = old_run.result.issues, old_run.result.outcomes
    workspace = current.workspace
    if what.reused and workspace is not None:
        by_package = owned(workspace.packages, current.result.issues)
        issues += tuple(i for p in what.reused for i in by_package.get(p.name, []))
    reasons = {name: o.message or o.status for name, o in outcomes.items() if o.status != "ok"}
    # The engines that failed at the revision and have something to split
    # now (they ran in the current check, or reported issues there); the old
    # tree's paths in their messages read as the project's own.
    with_issues = {i.engine for i in current.result.issues}
    now = current.result.outcomes
    fallback = tuple(
        Fallback(name, reasons[name].replace(str(old.root) + os.sep, ""))
        for name in sorted(reasons)
        if name in with_issues or (name in now and now[name].status != "disabled")
    )
    lines = await changed_lines(request.root, old.commit) if fallback else {}
    return Baseline(
        rev,
        old.commit,
        old.tree,
        issues,
        what.present,
        tuple(p.name for p in what.reused),
        tuple(sorted(reasons)),
        fallback,
        lines,
        old.borrowed,
        old.borrowed_all,
    )


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
    changed = found.changed
    for issue in issues:
        if issue.engine not in fallback:
            is_new = issue.issue_id not in matched
        else:
            lines = changed.get(issue.file, frozenset())
            is_new = issue.file in changed and (lines is None or issue.line in lines)
        (new if is_new else unchanged).append(issue)
    return Split(tuple(new), tuple(unchanged))


__all__ = [
    "CHANGED_LINES",
    "Baseline",
    "Fallback",
    "OnlyNew",
    "Since",
    "Split",
    "baseline",
    "only_new",
    "resolve_revision",
    "split",
]

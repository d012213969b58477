"""The same check at another revision (D22), and a check's issues against it.

`new_since` is what the pipeline's entry (`check_entry.check`) runs after a
check asked for what is new since a revision: `baseline` checks what the
current check checked in a copy of the revision's tree (`old_tree`, in the
project's work directory), with the current check's engine binaries
(its `resolve.Toolchain`), only the packages a change can affect in a
workspace; `split` divides the current issues into new (no counterpart
there, matched as deltas match: `matching.persisting`) and unchanged, an
engine that did not run ok at the revision falling back to the lines
changed since it; the answer keeps the new issues with their
fingerprint and clustering. The user's side of it (the options, the
answer's `baseline` block) is `signalint.service.baseline`.
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
from signalint.pipeline.request import RunRequest
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


@dataclass(frozen=True, slots=True, repr=False)
class NewSince:
    """A check compared with a revision (`new_since`): what the revision
    has (`found`), the check's issues divided against it (`parts`), the
    check's result keeping only the new issues (the check id stays: it
    names the snapshot holding every issue; the fingerprint is theirs) and
    their clustering."""

    found: Baseline
    parts: Split
    result: CheckResult
    clustering: Clustering

    def __repr__(self) -> str:
        return f"NewSince(new={len(self.parts.new)}, unchanged={len(self.parts.unchanged)})"


async def new_since(
    request: RunRequest,
    current: CheckRun,
    revision: str,
    option: str,
    context: Context | None = None,
) -> NewSince:
    """`current` (the check `request` ran) compared with `revision`: the
    revision checked at the request's targets, and whole-program engines
    at its `program_scope` when it has one (`baseline`), then the issues
    divided (`split`). `option` names the revision's option in messages.
    Raises GitError."""
    found = await baseline(request, current, revision, option, context)
    parts = split(current.result.issues, found)
    kept = {i.issue_id: i for i in parts.new}
    result = dataclasses.replace(
        current.result, issues=parts.new, fingerprint=ids.fingerprint(kept)
    )
    return NewSince(found, parts, result, cluster(parts.new))


__all__ = [
    "CHANGED_LINES",
    "Baseline",
    "Fallback",
    "NewSince",
    "Split",
    "baseline",
    "new_since",
    "split",
]

"""A check's answer assembled from its tasks' results (`assemble`).

Coverage settled (D17), each outcome noting the links out of the root it
did not check, issues kept by the ignore rules, the root's edge, the
scope (or the reported programs) and a shard's ownership, the edit's
ripple, then merged (D20) and fingerprinted into a `CheckRun`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from signalint import ids
from signalint.cache.context import Context
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import (
    Toolchain,
)
from signalint.model import CheckResult, EngineOutcome, Issue
from signalint.pipeline.check_plan import PackageRun, PackagesTask, Plan, TaskResult
from signalint.pipeline.engine_merge import merge_reports
from signalint.pipeline.ripple import Ripple, ripple
from signalint.pipeline.workspaces import Package, Workspace
from signalint.project.outside import Boundary, not_checked_note

if TYPE_CHECKING:
    from signalint.pipeline.shards import Shard


@dataclass(frozen=True, slots=True, repr=False)
class CheckRun:
    """A check's result plus what the scope filtered out.

    In a planned workspace `workspace` is the plan, `packages` the
    packages the check covered (check order) and `package_runs` the
    per-package engines' runs; `workspace_warning` says why planning fell
    back to the root (`monorepoMode` auto). `toolchain` is what the engines
    ran (`resolve.Toolchain`).

    A shard's run (`shard` set, `signalint.pipeline.shards`) covers only its part:
    `packages` are the packages it owns, `all_packages` those of the whole
    check, and `parts` the engines that had work in this shard. Its result
    holds only the issues in the files it owns; `elsewhere` are those its
    per-package programs reported in files another shard owns (a
    dependency's sources read by a dependent's program), which that
    shard's own programs normally report too.
    """

    result: CheckResult
    filtered_out: int
    files_walked: int
    workspace: Workspace | None = None
    packages: tuple[Package, ...] = ()
    package_runs: tuple[PackageRun, ...] = ()
    workspace_warning: str | None = None
    toolchain: Toolchain | None = None
    shard: Shard | None = None
    all_packages: tuple[Package, ...] = ()
    parts: frozenset[str] = frozenset()
    elsewhere: tuple[Issue, ...] = ()
    # What whole-program engines found changed outside the scope since
    # their programs' previous runs: what a check of some files' edit did
    # to the files that depend on them (`ripple.Ripple`).
    ripple: Ripple = dataclasses.field(default_factory=Ripple)

    def __repr__(self) -> str:
        return f"CheckRun({self.result!r}, filtered_out={self.filtered_out})"


def _keep(issue: Issue, ignored: Callable[[str], bool], walked: frozenset[str]) -> bool:
    # A walked file passed the ignore rules, or was named as a target (see
    # project.walk.walk): its issues are reported, or the check would call a file
    # it checked clean.
    if issue.file in walked:
        return True
    if "node_modules" in issue.file.split("/"):
        return False
    return not ignored(issue.file)


def _merge(kept: tuple[Issue, ...]) -> tuple[tuple[Issue, ...], str]:
    """The check's issues, sorted, and their fingerprint."""
    merged = {issue.issue_id: issue for issue in merge_reports(kept)}
    return tuple(sorted(merged.values(), key=Issue.sort_key)), ids.fingerprint(merged)


def _settled(whole_program: bool, outcome: EngineOutcome) -> EngineOutcome:
    """`outcome` with `files_checked` counting only what was really covered (D17).

    A disabled engine covered nothing. A failed engine without a declared
    coverage gap covered only what came from the cache (a file engine's
    hits); its producer may have counted the files it was asked to check.
    """
    if outcome.status == "disabled":
        covered = 0
    elif outcome.status == "error" and outcome.coverage_gap is None:
        covered = 0 if whole_program else min(outcome.files_checked, outcome.cache_hits)
    else:
        return outcome
    if covered == outcome.files_checked:
        return outcome
    return dataclasses.replace(outcome, files_checked=covered)


def _noting_outside(outcome: EngineOutcome, boundary: Boundary) -> EngineOutcome:
    """`outcome` with a note naming the links out of the root it did not
    check (D17): files it would read, and linked directories."""
    engine = ENGINES[outcome.engine]
    if not boundary.links or outcome.status == "disabled":
        return outcome
    paths = [p for p in sorted(boundary.links) if p.endswith("/") or engine.relevant(p)]
    note = not_checked_note(paths)
    if note is None:
        return outcome
    message = note if outcome.message is None else f"{outcome.message}; {note}"
    return dataclasses.replace(outcome, message=message)


@dataclass(slots=True)
class _Kept:
    """A check's issues sorted by where they go: reported (`seen`, by id),
    another shard's (`elsewhere`), or filtered out (counted; those of
    whole-program engines that know their previous run kept for the
    ripple: `outside`, and what is new there, `new_outside`)."""

    seen: dict[str, Issue] = dataclasses.field(default_factory=dict)
    elsewhere: dict[str, Issue] = dataclasses.field(default_factory=dict)
    filtered_out: int = 0
    new_outside: list[Issue] = dataclasses.field(default_factory=list)
    outside: list[Issue] = dataclasses.field(default_factory=list)
    ripple: Ripple = dataclasses.field(default_factory=Ripple)


def _sorted_issues(
    planned: Plan, outcomes: Sequence[EngineOutcome], whole_program: set[str], boundary: Boundary
) -> _Kept:
    """Each outcome's issues, kept by the ignore rules and the root's edge,
    within the reported programs (whole-program engines) or the scope; and
    the edit's ripple (`ripple.ripple`): the issues whole-program engines
    reported outside the scope, and those of their previous runs that are
    gone from a file the ignore rules keep, outside the scope (and not
    still reported by another program: a workspace's packages read the
    same dependency files)."""
    request = planned.request
    scope, programs_in = request.scope, request.reported_programs
    kept = _Kept()
    compared = [o for o in outcomes if o.engine in whole_program and o.introduced is not None]
    gone_kept = [
        issue
        for o in compared
        for issue in o.gone
        if not programs_in.contains(issue.file) and _keep(issue, planned.ignored, planned.walked)
    ]
    seen, elsewhere = kept.seen, kept.elsewhere
    # Per file (many issues share a file): kept by the ignore rules, within
    # the reported programs, within the scope.
    verdicts: dict[str, tuple[bool, bool, bool, bool]] = {}
    # A shard keeps a per-package program's issue only in a file it owns:
    # two shards' programs can read (and report) the same dependency file.
    division = planned.division
    divided = (
        set()
        if division is None
        else {t.engine.name for t in planned.tasks if isinstance(t, PackagesTask)}
    )
    # Out of scope, from whole-program engines that know their previous run:
    # what is new there, and everything there (`ripple`).
    for outcome in outcomes:
        introduced = outcome.introduced or frozenset()
        program_wide = outcome.engine in whole_program
        knows_previous = program_wide and outcome.introduced is not None
        for issue in outcome.issues:
            verdict = verdicts.get(issue.file)
            if verdict is None:
                kept_file = _keep(issue, planned.ignored, planned.walked)
                owns = division is None or division.owns_file(issue.file)
                verdict = verdicts[issue.file] = (
                    # The last gate: a cached or shared result is dropped
                    # here too when its file is now outside the root.
                    kept_file and not boundary.outside(issue.file),
                    programs_in.contains(issue.file),
                    scope.contains(issue.file),
                    owns,
                )
            if not verdict[0] or issue.issue_id in seen:
                continue
            if not verdict[1 if program_wide else 2]:
                kept.filtered_out += 1
                if knows_previous:
                    kept.outside.append(issue)
                    if issue.issue_id in introduced:
                        kept.new_outside.append(issue)
                continue
            if outcome.engine in divided and not verdict[3]:
                elsewhere[issue.issue_id] = issue
                continue
            seen[issue.issue_id] = issue
    if compared:
        still = {issue.issue_id for issue in kept.outside}
        gone = [issue for issue in gone_kept if issue.issue_id not in still]
        engines = (o.engine for o in compared)
        kept.ripple = ripple(kept.new_outside, gone, kept.outside, engines)
    return kept


def assemble(planned: Plan, results: Sequence[TaskResult], context: Context) -> CheckRun:
    """The check's answer from its tasks' results: coverage settled, issues
    filtered to the scope, merged (D20) and fingerprinted."""
    request = planned.request
    scope = request.scope
    outcomes = [_settled(ENGINES[r.outcome.engine].spec.whole_program, r.outcome) for r in results]
    whole_program = {o.engine for o in outcomes if ENGINES[o.engine].spec.whole_program}
    boundary = planned.boundary
    # A note on an outcome changes none of its issues.
    noted = [_noting_outside(o, boundary) for o in outcomes]
    kept = _sorted_issues(planned, outcomes, whole_program, boundary)
    seen, elsewhere, filtered_out = kept.seen, kept.elsewhere, kept.filtered_out
    outcomes = noted
    # One problem, one issue (D20): after filtering, so only kept issues pair.
    issues, fingerprint = context.merged(tuple(seen.values()), _merge)
    result = CheckResult(
        check_id=ids.new_check_id(),
        fingerprint=fingerprint,
        project_root=str(request.root),
        # The previous runs' issues served the ripple; a retained check
        # does not keep them.
        outcomes={o.engine: dataclasses.replace(o, gone=()) if o.gone else o for o in outcomes},
        issues=issues,
        created_at=time.time(),
        # A shard is a part of the project: an engine with no file in it lost nothing.
        files_in_scope=len(planned.files if planned.division is None else planned.owned),
        whole_project=scope.whole_project and planned.division is None,
    )
    return CheckRun(
        result=result,
        filtered_out=filtered_out,
        files_walked=len(planned.files),
        workspace=request.workspace,
        packages=planned.packages or (),
        package_runs=tuple(run for r in results for run in r.package_runs),
        workspace_warning=request.workspace_warning,
        toolchain=planned.tools,
        shard=request.shard,
        all_packages=request.packages or (),
        parts=planned.parts,
        elsewhere=tuple(sorted(elsewhere.values(), key=Issue.sort_key)),
        ripple=kept.ripple,
    )

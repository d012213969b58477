"""The check pipeline: plan -> run the plan's tasks -> filter and merge -> CheckRun.

`run_check` takes one `request.RunRequest`. It plans once (walk the
project, choose the packages, one task per enabled engine: the files of a
file-local engine, the program of a whole-program one, or each package's
program), then runs the tasks, each returning its result, then assembles
the answer from them: data flows down, nothing is shared between tasks.

Engines run concurrently, each through the shared runner; one engine's
failure is data in its outcome and never hides the others' issues. The result
keeps every issue (no caps here); clustering and caps belong to reports.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from signalint import ids
from signalint.cache.check_store import CheckStore, Writes
from signalint.cache.context import Context
from signalint.cache.entries import Anchors
from signalint.cache.file_reuse import run_file_engine
from signalint.cache.program_reuse import ProgramRequest, prefetch, run_program_engine
from signalint.engines.base import Engine
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import (
    Toolchain,
    Unremembered,
    engine_versions,
    managed_dir,
    origin_of,
    toolchain,
)
from signalint.engines.runner import Job
from signalint.model import CheckResult, EngineOutcome, Issue, OutcomeStatus, served_all
from signalint.pipeline import coverage_gaps
from signalint.pipeline import work_dir as work
from signalint.pipeline.engine_merge import merge_reports
from signalint.pipeline.request import RunRequest
from signalint.pipeline.ripple import Ripple, ripple
from signalint.pipeline.shards import Division, Shard, divide
from signalint.pipeline.workspaces import Package, Workspace
from signalint.project.ignores import config_matcher
from signalint.project.outside import Boundary, not_checked_note
from signalint.project.walk import ProjectFiles, walk
from signalint.settings.config import Config


@dataclass(frozen=True, slots=True)
class PackageRun:
    """One per-package engine's part of a workspace check.

    `outcome` is the engine's outcome on the package's own program; None
    when the engine had nothing to run there (`note` says why, e.g. the
    package has no TypeScript configuration of its own).
    """

    package: Package
    engine: str
    outcome: EngineOutcome | None
    note: str | None = None


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


@dataclass(frozen=True, slots=True)
class FileTask:
    """A file-local engine over the walked files (`file_cache`); `expected`:
    the project configures it and this is a check of the whole project, so
    it must check some of `files` (`coverage_gaps.nothing_checked`)."""

    engine: Engine
    job: Job
    files: list[str]
    expected: bool = False


@dataclass(frozen=True, slots=True)
class ProgramTask:
    """A whole-program engine over the root's program (`program_cache`)."""

    engine: Engine
    request: ProgramRequest


@dataclass(frozen=True, slots=True)
class PackagesTask:
    """A per-package engine over each package's own program, in dependency
    order; `skipped` are the packages it has nothing to run in."""

    engine: Engine
    packages: tuple[Package, ...]
    requests: tuple[ProgramRequest, ...]
    skipped: tuple[PackageRun, ...]
    needs: Mapping[str, Sequence[str]]


@dataclass(frozen=True, slots=True)
class ElsewhereTask:
    """A whole-program engine whose program another shard runs."""

    engine: Engine
    shard: int
    count: int


Task = FileTask | ProgramTask | PackagesTask | ElsewhereTask


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything a check runs, decided before any engine starts: the walked
    files, the packages checked, one task per enabled engine. A shard's
    plan (`division` set) holds its own part: `owned` are its files,
    `packages` its packages, `parts` the engines with work in it."""

    request: RunRequest
    files: list[str]
    walked: frozenset[str]
    ignored: Callable[[str], bool]  # by the config's `ignore` (`config_matcher`)
    store: CheckStore | None
    tools: Toolchain
    packages: tuple[Package, ...] | None
    tasks: tuple[Task, ...]
    division: Division | None
    owned: tuple[str, ...]
    parts: frozenset[str]
    # The project's edge: the links out of the root the walks met, and
    # whether a reported file is outside it (`project.outside`).
    boundary: Boundary


@dataclass(frozen=True, slots=True)
class TaskResult:
    """One task's answer: the engine's outcome, per package its runs, and
    what to keep of them (written once every task has finished)."""

    outcome: EngineOutcome
    writes: Writes
    package_runs: tuple[PackageRun, ...] = ()


@dataclass(frozen=True, slots=True)
class _Walked:
    """The project as one check walks it: the files found (`files`, and as a
    set), the config's ignore rules, every project file for the programs'
    candidates (`listing`), and the root's edge the walks told."""

    files: list[str]
    walked: frozenset[str]
    ignored: Callable[[str], bool]
    listing: ProjectFiles
    boundary: Boundary


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a check's tasks are made for: the request, its walk, the part of
    it this check runs (a shard's `division`, its `owned` files and
    packages; everything without one), and which files' issues are
    reported (`reported`)."""

    request: RunRequest
    walked: _Walked
    division: Division | None
    owned: list[str]
    owned_packages: tuple[Package, ...] | None
    reported: Callable[[str], bool]


def _walk(request: RunRequest, context: Context) -> _Shape:
    """Walk the scope once, and take the part of it this check runs.

    Nothing from outside the root: the walks tell the boundary the links
    out of it they meet; every job drops what an engine says about them.
    An old tree's and a shadow copy's links into the project they stand
    for are their own (`RunRequest.borrowed_from`, `resolve.origin_of`). A
    shard runs its files, its packages and the programs it owns.
    """
    root, config, scope = request.root, request.config, request.scope
    memo = context.walk_memo(root)
    origin = origin_of(root)
    trusted = tuple(p for p in (request.borrowed_from, origin) if p is not None and p != root)
    walked_set: set[str] = set()
    boundary = Boundary(root, trusted, walked_set)
    files = walk(root, config.ignore, scope.targets, memo, boundary)
    walked_set.update(files)
    listing = ProjectFiles(
        root, config.ignore, memo, files if scope.whole_project else None, boundary
    )
    ignored = config_matcher(tuple(config.ignore))
    walked = _Walked(files, frozenset(files), ignored, listing, boundary)
    workspace, packages = request.workspace, request.packages
    division: Division | None = None
    owned, owned_packages = files, packages
    if request.shard is not None:
        division = divide(
            request.shard,
            workspace.packages if workspace is not None else (),
            files,
            (p.name for p in packages or ()),
        )
        owned = [f for f in files if division.owns_file(f)]
        if packages is not None:
            owned_packages = tuple(p for p in packages if division.owns_package(p))
    programs_in, found = request.reported_programs, walked.walked

    def reported(rel_path: str) -> bool:
        """Whether issues in this project file would be reported: in scope, not
        ignored. A whole-program engine covers only such files (D17)."""
        # The walk already applied the ignore rules to the files it found.
        return programs_in.contains(rel_path) and (rel_path in found or not ignored(rel_path))

    return _Shape(request, walked, division, owned, owned_packages, reported)


async def plan(request: RunRequest, context: Context) -> Plan:
    """Choose the packages, resolve the engines, walk once, and make one
    task per enabled engine."""
    root, config = request.root, request.config
    if request.work is None and work.prepare(request.work_dir, root):
        # The project's own, outside its tree; an older Signalint's copies
        # and wrappers inside the tree go.
        work.remove_legacy(request.state_dir)
    store = None
    if request.use_cache:
        anchors = Anchors({"root": str(root), "engines": str(managed_dir())})
        # Packs: the whole project's, or a shard's own (its files are the same
        # each run); a check of some paths keeps none (its batches are partial).
        packs = None if not request.scope.whole_project else ""
        if packs is not None and request.shard is not None:
            packs = f"shard {request.shard.label}"
        remote = config.remote_cache
        store = context.store(request.cache_home, config.cache_max_rows, remote, anchors, packs)
    extra = tuple(brought(config, request.packages, root))
    stand_ins = _stand_ins(config, request.packages, extra)
    enabled = [
        engine
        for name, engine in ENGINES.items()
        if name in config.enabled_engines or name in stand_ins or name in extra
    ]
    homes = [p.path for p in request.packages or ()]
    tools = request.tools or toolchain(root, enabled, homes)
    book = Unremembered() if store is None else store
    versions = await engine_versions(enabled, tools, config.timeouts_ms, book)
    shape = _walk(request, context)
    walked = shape.walked
    tasks: list[Task] = []
    parts: set[str] = set()
    for engine in enabled:
        name = engine.name
        job = Job(
            root=root,
            options=dict(config.engines[name].options),
            timeout_s=config.timeouts_ms[name] / 1000,
            state_dir=request.state_dir,
            work_dir=request.work_dir,
            target=request.scope.targets[0],
            progress=request.progress,
            # The executable and interpreter every run of this engine uses (D22).
            resolved=tools.engines.get(name),
            python=tools.python,
            version=versions.get(name, "unknown"),
            # `--no-cache` is the cold reference: every engine runs cold.
            warm=context.warm if request.warm and request.use_cache else None,
            boundary=walked.boundary,
        )
        own = {
            home: dataclasses.replace(
                job, resolved=resolved, version=versions.get(f"{name} {home}", "unknown")
            )
            for home, resolved in tools.packages.get(name, {}).items()
        }
        task = _task(engine, job, shape, context, stand_ins.get(name, ()), own)
        if isinstance(task, PackagesTask) and name in stand_ins and not task.requests:
            continue  # every package it would check is checked by its replacement
        tasks.append(task)
        if _has_work(task):
            parts.add(name)
    return Plan(
        request,
        walked.files,
        walked.walked,
        walked.ignored,
        store,
        tools,
        shape.owned_packages,
        tuple(tasks),
        shape.division,
        tuple(shape.owned),
        frozenset(parts),
        walked.boundary,
    )


def _has_work(task: Task) -> bool:
    """Whether a task has work in this check (a shard's `parts`)."""
    if isinstance(task, FileTask):
        return bool(task.files)
    if isinstance(task, PackagesTask):
        return bool(task.packages)
    return isinstance(task, ProgramTask)


def _task(
    engine: Engine,
    job: Job,
    shape: _Shape,
    context: Context,
    replacements: Sequence[Engine],
    own: Mapping[str, Job],
) -> Task:
    """The task of one enabled engine: its files, the root's program, or
    each package's program (none where one of its `replacements` checks
    the package; a package's `own` job, with its own executable, where it
    has one)."""
    request, division = shape.request, shape.division
    scope, root = request.scope, request.root
    if not engine.spec.whole_program:
        expected = scope.whole_project and division is None and engine.detect(root) is not None
        return FileTask(engine, job, shape.owned, expected)
    job = dataclasses.replace(job, issue_memo=context.issue_memo)
    # A workspace check of paths outside every package runs the root's
    # program as without a workspace.
    if not (engine.spec.per_package and request.packages):
        if division is not None and not division.owns_program(engine.name, job.target):
            home = division.program_shard(engine.name, job.target)
            return ElsewhereTask(engine, home, division.shard.count)
        program = ProgramRequest(
            job,
            project_files=shape.walked.listing.all,
            in_scope=shape.reported,
            later=context.in_background,
            files_only=request.files_only,
        )
        return ProgramTask(engine, program)
    return _packages_task(engine, job, shape, context, replacements, own)


def _packages_task(
    engine: Engine,
    job: Job,
    shape: _Shape,
    context: Context,
    replacements: Sequence[Engine],
    own: Mapping[str, Job],
) -> PackagesTask:
    """A per-package engine's task: each owned package's own program, or
    why it has nothing to run there."""
    name, request, listing = engine.name, shape.request, shape.walked.listing
    skipped: list[PackageRun] = []
    requests: list[ProgramRequest] = []
    owned_packages = shape.owned_packages
    assert owned_packages is not None  # a division keeps a workspace's packages
    for package in owned_packages:
        if engine.detect(request.root / package.path) is None:
            note = f"no {name} configuration in {package.path}/"
            skipped.append(PackageRun(package, name, None, note))
            continue
        by = next((r.name for r in replacements if r.detect(request.root / package.path)), None)
        if by is not None:
            note = f"{package.path}/ is checked by {by}, which replaces {name}"
            skipped.append(PackageRun(package, name, None, note))
            continue
        # Its candidates are the package's files only, so a file added to
        # another package leaves this package's record fresh; its inputs
        # (which include the sources of the packages it needs) decide
        # freshness as for any program.
        requests.append(
            ProgramRequest(
                dataclasses.replace(own.get(package.path, job), target=package.path),
                project_files=functools.partial(listing.under, package.path),
                in_scope=functools.partial(_in_package, package.path + "/", shape.reported),
                later=context.in_background,
                files_only=request.files_only,
            )
        )
    needs = request.workspace.needs if request.workspace is not None else {}
    return PackagesTask(engine, owned_packages, tuple(requests), tuple(skipped), needs)


async def execute(task: Task, store: CheckStore | None) -> TaskResult:
    """Run one task of the plan, reusing what `store` holds (None: run
    everything); its outcome names a version its adapter does not read and,
    for an expected file engine, a run that checked nothing (`coverage_gaps`)."""
    try:
        done = await _execute(task, store)
    except OSError as error:
        # The state or work directory failed under the engine (full, read
        # only, a file where a directory belongs): this engine failed, the
        # others finish as they would.
        reason = f"could not prepare its run: {error.strerror or error}"
        if error.filename is not None:
            reason += f" ({error.filename})"
        return TaskResult(EngineOutcome(task.engine.name, "error", message=reason), Writes())
    outcome = done.outcome
    if isinstance(task, FileTask):
        version = task.job.version
        if task.expected:
            given = sum(1 for f in task.files if task.engine.relevant(f))
            outcome = coverage_gaps.nothing_checked(task.engine.spec, given, outcome)
    elif isinstance(task, ProgramTask):
        version = task.request.job.version
    elif isinstance(task, PackagesTask) and task.requests:
        version = task.requests[0].job.version
    else:
        return done
    outcome = coverage_gaps.version_gap(task.engine.spec, version, outcome)
    return done if outcome is done.outcome else dataclasses.replace(done, outcome=outcome)


async def _execute(task: Task, store: CheckStore | None) -> TaskResult:
    engine = task.engine
    if isinstance(task, ElsewhereTask):
        where = f"its program is checked by shard {task.shard} of {task.count}"
        return TaskResult(EngineOutcome(engine.name, "ok", message=where), Writes())
    if isinstance(task, PackagesTask):
        runs = await _in_dependency_order(engine, store, task)
        writes = Writes()
        for _, kept in runs:
            writes.add(kept)
        done = [*task.skipped, *(run for run, _ in runs)]
        order = {p.name: i for i, p in enumerate(task.packages)}
        done.sort(key=lambda r: order[r.package.name])
        return TaskResult(_combined(engine.name, done), writes, tuple(done))
    if isinstance(task, ProgramTask):
        return TaskResult(*await run_program_engine(engine, store, task.request))
    return TaskResult(*await run_file_engine(engine, store, task.job, task.files))


def brought(
    config: Config, packages: Sequence[Package] | None, root: Path
) -> dict[str, list[Package]]:
    """The engines a workspace's packages bring (`EngineSpec.from_packages`)
    that the settings leave off without naming them, each with the
    packages of `packages` that detect it (its `package.json` names vue,
    its `svelte.config.js`)."""
    found: dict[str, list[Package]] = {}
    for name, engine in ENGINES.items():
        setting = config.engines[name]
        if not engine.spec.from_packages or setting.enabled or setting.chosen:
            continue
        detected = [p for p in packages or () if engine.detect(root / p.path) is not None]
        if detected:
            found[name] = detected
    return found


def _stand_ins(
    config: Config, packages: Sequence[Package] | None, brought: Sequence[str] = ()
) -> dict[str, list[Engine]]:
    """Engines an enabled engine (or one the packages `brought`) replaces
    (tsc beside vue-tsc) that still
    check, in a planned workspace, the packages none of their replacements
    detects (a plain TypeScript package beside a Vue one), by name, with
    those replacements; each of them and its replacements check package by
    package (`EngineSpec.per_package`)."""
    if not packages:
        return {}
    found: dict[str, list[Engine]] = {}
    for name, engine in ENGINES.items():
        if not (config.engines[name].enabled and engine.spec.per_package):
            continue
        replacing = (*config.enabled_engines, *brought)
        by = [ENGINES[n] for n in replacing if name in ENGINES[n].spec.replaces]
        if by and all(r.spec.per_package for r in by):
            found[name] = by
    return found


def _in_package(prefix: str, reported: Callable[[str], bool], rel_path: str) -> bool:
    return rel_path.startswith(prefix) and reported(rel_path)


# How many packages' programs are checked at once. tsc's own threads do
# not keep two cores busy on a package-sized program (two at a time took
# 0.73 of the sequential time on two cores), and more would crowd the
# linters that run beside it.
PACKAGE_CONCURRENCY = max(2, min(4, (os.cpu_count() or 2) // 2))


async def _in_dependency_order(
    engine: Engine,
    store: CheckStore | None,
    task: PackagesTask,
) -> list[tuple[PackageRun, Writes]]:
    """Each request's run, a package starting only after the packages it
    needs (among those checked) have finished, a few at a time. Their
    stored records are read first, in one batch (`prefetch`)."""
    requests = task.requests if store is None else prefetch(engine, store, task.requests)
    by_target = {r.target: r for r in requests}
    chosen = [p for p in task.packages if p.path in by_target]
    finished = {p.name: asyncio.Event() for p in chosen}
    needs = task.needs
    slots = asyncio.Semaphore(PACKAGE_CONCURRENCY)

    async def one(package: Package) -> tuple[PackageRun, Writes]:
        try:
            for needed in needs.get(package.name, ()):
                if needed in finished:
                    await finished[needed].wait()
            async with slots:
                request = by_target[package.path]
                outcome, writes = await run_program_engine(engine, store, request)
            return PackageRun(package, engine.name, outcome), writes
        finally:
            finished[package.name].set()

    return list(await asyncio.gather(*(one(p) for p in chosen)))


def _combined(name: str, runs: Sequence[PackageRun]) -> EngineOutcome:
    """One engine outcome from its per-package runs: the worst status, every
    issue, summed coverage and cache counts, messages naming the package;
    scoped when any run answered for the check's files alone."""
    done = [(r.package, r.outcome) for r in runs if r.outcome is not None]
    if not done:
        return EngineOutcome(name, "ok")
    statuses = {o.status for _, o in done}
    status: OutcomeStatus = (
        "error" if "error" in statuses else "disabled" if statuses == {"disabled"} else "ok"
    )
    if status == "ok" and "disabled" in statuses:
        status = "error"  # some packages ran, some could not: not a full check
    bad = [(p, o) for p, o in done if o.status != "ok"]
    message = "; ".join(f"{p.name} ({p.path}): {o.message or o.status}" for p, o in bad) or None
    if status == "disabled":
        message = bad[0][1].message
    gaps = [f"{p.name} ({p.path}): {o.coverage_gap}" for p, o in done if o.coverage_gap]
    failure = next((o.failure for _, o in bad if o.failure is not None), None)
    return EngineOutcome(
        engine=name,
        status=status,
        issues=tuple(issue for _, o in done for issue in o.issues),
        message=message,
        duration_ms=sum(o.duration_ms for _, o in done),
        files_checked=sum(o.files_checked for _, o in done),
        cache_hits=sum(o.cache_hits for _, o in done),
        cache_misses=sum(o.cache_misses for _, o in done),
        coverage_gap="; ".join(gaps) or None,
        failure=failure,
        served=served_all(o.served for _, o in done),
        introduced=_union(o.introduced for _, o in done),
        gone=tuple(issue for _, o in done for issue in o.gone),
        scoped=any(o.scoped for _, o in done),
    )


def _union(sets: Iterable[frozenset[str] | None]) -> frozenset[str] | None:
    """Every package run's introduced ids; None when no run could tell."""
    known = [s for s in sets if s is not None]
    return frozenset().union(*known) if known else None


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


async def run_check(request: RunRequest, context: Context | None = None) -> CheckRun:
    """Check what `request` asks (`request.RunRequest`): plan, run the
    plan's tasks concurrently, filter and merge their issues, then keep
    what they found.

    With `use_cache` (the default) unchanged results are reused from the
    state directory's cache (signalint.cache.file_reuse, signalint.cache.program_reuse);
    without it every enabled engine runs and nothing is stored. `context` is
    the caller's process memory (a server or a watch session keeps one for
    its lifetime); a new one is made when omitted.
    """
    context = context or Context()
    planned = await plan(request, context)
    # Every task ends on its own before anything is raised: cancelling a
    # task while it starts an engine's process waits for that process.
    settled = await asyncio.gather(
        *(execute(task, planned.store) for task in planned.tasks), return_exceptions=True
    )
    for each in settled:
        if isinstance(each, BaseException):
            raise each
    results = [each for each in settled if isinstance(each, TaskResult)]
    run = _assemble(planned, results, context)
    store = planned.store
    if store is not None:
        remote = store.keep(r.writes for r in results)
        if remote is not None:
            result = dataclasses.replace(run.result, remote_cache=remote.as_json())
            run = dataclasses.replace(run, result=result)
    return run


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
    verdicts: dict[str, tuple[bool, bool, bool]] = {}
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
                verdict = verdicts[issue.file] = (
                    # The last gate: a cached or shared result is dropped
                    # here too when its file is now outside the root.
                    _keep(issue, planned.ignored, planned.walked)
                    and not boundary.outside(issue.file),
                    programs_in.contains(issue.file),
                    scope.contains(issue.file),
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
            if (
                outcome.engine in divided
                and division is not None
                and not division.owns_file(issue.file)
            ):
                elsewhere[issue.issue_id] = issue
                continue
            seen[issue.issue_id] = issue
    if compared:
        still = {issue.issue_id for issue in kept.outside}
        gone = [issue for issue in gone_kept if issue.issue_id not in still]
        engines = (o.engine for o in compared)
        kept.ripple = ripple(kept.new_outside, gone, kept.outside, engines)
    return kept


def _assemble(planned: Plan, results: Sequence[TaskResult], context: Context) -> CheckRun:
    """The check's answer from its tasks' results: coverage settled, issues
    filtered to the scope, merged (D20) and fingerprinted."""
    request = planned.request
    scope = request.scope
    outcomes = [_settled(ENGINES[r.outcome.engine].spec.whole_program, r.outcome) for r in results]
    whole_program = {o.engine for o in outcomes if ENGINES[o.engine].spec.whole_program}
    boundary = planned.boundary
    # The issues first: a note on an outcome changes none of them.
    kept = _sorted_issues(planned, outcomes, whole_program, boundary)
    seen, elsewhere, filtered_out = kept.seen, kept.elsewhere, kept.filtered_out
    outcomes = [_noting_outside(o, boundary) for o in outcomes]
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

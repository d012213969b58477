"""A check's plan: what it runs, decided before any engine starts.

`plan` takes one `request.RunRequest` and decides, in the order of the
floors each step reaches: the engines standing in for others in a
workspace, the project's work directory, the check's view of the result
store, the toolchain and each engine's version, then one walk of the
project (and a shard's part of it), and one task per enabled engine: the
files of a file-local engine, the root's program of a whole-program one,
or each package's own program. `check_run.run_check` runs the tasks.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from signalint.cache.check_store import CheckStore, Writes
from signalint.cache.context import Context
from signalint.cache.entries import Anchors
from signalint.cache.program_reuse import ProgramRequest
from signalint.engines.base import Engine
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import (
    Toolchain,
    Unremembered,
    Versions,
    engine_versions,
    managed_dir,
    origin_of,
    toolchain,
)
from signalint.engines.runner import Job
from signalint.model import EngineOutcome
from signalint.pipeline.request import RunRequest
from signalint.pipeline.workspaces import Package
from signalint.project import work_dir as work
from signalint.project.ignores import config_matcher
from signalint.project.outside import Boundary
from signalint.project.walk import ProjectFiles, walk
from signalint.settings.config import Config

if TYPE_CHECKING:
    from signalint.pipeline.shards import Division


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


def _store(request: RunRequest, context: Context) -> CheckStore:
    """The check's view of the result stores (`Context.store`): packs of
    the whole project, or a shard's own (its files are the same each run);
    a check of some paths keeps none (its batches are partial)."""
    anchors = Anchors({"root": str(request.root), "engines": str(managed_dir())})
    packs = None if not request.scope.whole_project else ""
    if packs is not None and request.shard is not None:
        packs = f"shard {request.shard.label}"
    config = request.config
    return context.store(
        request.cache_home, config.cache_max_rows, config.remote_cache, anchors, packs
    )


async def plan(request: RunRequest, context: Context) -> Plan:
    """Decide what the check runs, each step before those on lower floors:
    the engines standing in for others, the result store, the toolchain
    and versions, one walk of the scope, the project's work directory; then
    the part of it this check runs (`_shape`) and one task per enabled
    engine (`_tasks`).

    Nothing from outside the root: the walks tell the boundary the links
    out of it they meet; every job drops what an engine says about them.
    An old tree's and a shadow copy's links into the project they stand
    for are their own (`RunRequest.borrowed_from`, `resolve.origin_of`).
    """
    root, config, scope = request.root, request.config, request.scope
    extra = tuple(brought(config, request.packages, root))
    stand_ins = _stand_ins(config, request.packages, extra)
    store = _store(request, context) if request.use_cache else None
    memo = context.walk_memo(root)
    enabled = [
        engine
        for name, engine in ENGINES.items()
        if name in config.enabled_engines or name in stand_ins or name in extra
    ]
    homes = [p.path for p in request.packages or ()]
    tools = request.tools or toolchain(root, enabled, homes)
    book = Unremembered() if store is None else store
    versions = await engine_versions(enabled, tools, config.timeouts_ms, book)
    origin = origin_of(root)
    trusted = tuple(p for p in (request.borrowed_from, origin) if p is not None and p != root)
    walked_set: set[str] = set()
    boundary = Boundary(root, trusted, walked_set)
    files = walk(root, config.ignore, scope.targets, memo, boundary)
    walked_set.update(files)
    whole = files if scope.whole_project else None
    listing = ProjectFiles(root, config.ignore, memo, whole, boundary)
    if request.work is None:
        # The project's own, outside its tree; when it is made, an older
        # Signalint's copies and wrappers inside the tree go (the walk
        # never enters the state directory they were kept in).
        work.prepare(request.work_dir, root, legacy=request.state_dir)
    ignored = config_matcher(tuple(config.ignore))
    shape = _shape(request, _Walked(files, frozenset(files), ignored, listing, boundary))
    tasks, parts = _tasks(enabled, shape, tools, versions, context, stand_ins)
    return Plan(
        request,
        files,
        shape.walked.walked,
        ignored,
        store,
        tools,
        shape.owned_packages,
        tasks,
        shape.division,
        tuple(shape.owned),
        parts,
        boundary,
    )


def _shape(request: RunRequest, walked: _Walked) -> _Shape:
    """The part of the walk this check runs: a shard its files, its
    packages and the programs it owns; everything without one."""
    files, workspace, packages = walked.files, request.workspace, request.packages
    division: Division | None = None
    owned, owned_packages = files, packages
    if request.shard is not None:
        # Loaded by a shard's check only: the others start sooner.
        from signalint.pipeline.shards import divide

        division = divide(
            request.shard,
            workspace.packages if workspace is not None else (),
            files,
            (p.name for p in packages or ()),
        )
        owned = [f for f in files if division.owns_file(f)]
        if packages is not None:
            owned_packages = tuple(p for p in packages if division.owns_package(p))
    programs_in, found, ignored = request.reported_programs, walked.walked, walked.ignored

    def reported(rel_path: str) -> bool:
        """Whether issues in this project file would be reported: in scope, not
        ignored. A whole-program engine covers only such files (D17)."""
        # The walk already applied the ignore rules to the files it found.
        return programs_in.contains(rel_path) and (rel_path in found or not ignored(rel_path))

    return _Shape(request, walked, division, owned, owned_packages, reported)


def _tasks(
    enabled: Sequence[Engine],
    shape: _Shape,
    tools: Toolchain,
    versions: Versions,
    context: Context,
    stand_ins: Mapping[str, Sequence[Engine]],
) -> tuple[tuple[Task, ...], frozenset[str]]:
    """One task per enabled engine, and the engines with work in this
    check (a shard's `parts`)."""
    request = shape.request
    config = request.config
    tasks: list[Task] = []
    parts: set[str] = set()
    for engine in enabled:
        name = engine.name
        job = Job(
            root=request.root,
            options=dict(config.engines[name].options),
            timeout_s=config.timeouts_ms[name] / 1000,
            state_dir=request.state_dir,
            work_dir=request.work_dir,
            target=request.scope.targets[0],
            progress=request.progress,
            # The executable and interpreter every run of this engine uses (D22).
            resolved=tools.engines.get(name),
            python=tools.python,
            version=versions.found.get(name, "unknown"),
            unanswered_s=versions.unanswered.get(name),
            # `--no-cache` is the cold reference: every engine runs cold.
            warm=context.warm if request.warm and request.use_cache else None,
            boundary=shape.walked.boundary,
        )
        own = {
            home: dataclasses.replace(
                job,
                resolved=resolved,
                version=versions.found.get(f"{name} {home}", "unknown"),
                unanswered_s=versions.unanswered.get(f"{name} {home}"),
            )
            for home, resolved in tools.packages.get(name, {}).items()
        }
        task = _task(engine, job, shape, context, stand_ins.get(name, ()), own)
        if isinstance(task, PackagesTask) and name in stand_ins and not task.requests:
            continue  # every package it would check is checked by its replacement
        tasks.append(task)
        if _has_work(task):
            parts.add(name)
    return tuple(tasks), frozenset(parts)


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

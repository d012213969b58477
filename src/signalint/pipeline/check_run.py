"""The check run: plan -> run the plan's tasks -> assemble -> CheckRun.

`run_check` takes one `request.RunRequest` (what the pipeline's entry,
`check_entry.check`, resolved a front end's request to): it plans once
(`check_plan.plan`), runs the tasks, each returning its result, then
assembles the answer from them (`check_assembly.assemble`) and keeps what
they found: data flows down, nothing is shared between tasks.

Engines run concurrently, each through the shared runner; one engine's
failure is data in its outcome and never hides the others' issues. The result
keeps every issue (no caps here); clustering and caps belong to reports.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Iterable, Sequence

from signalint.cache.check_store import CheckStore, Writes
from signalint.cache.context import Context
from signalint.cache.file_reuse import run_file_engine
from signalint.cache.program_reuse import prefetch, run_program_engine
from signalint.engines.base import Engine
from signalint.model import EngineOutcome, OutcomeStatus, served_all
from signalint.pipeline import coverage_gaps
from signalint.pipeline.check_assembly import CheckRun, assemble
from signalint.pipeline.check_plan import (
    ElsewhereTask,
    FileTask,
    PackageRun,
    PackagesTask,
    ProgramTask,
    Task,
    TaskResult,
    plan,
)
from signalint.pipeline.request import RunRequest
from signalint.pipeline.workspaces import Package


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
    run = assemble(planned, results, context)
    store = planned.store
    if store is not None:
        remote = store.keep(r.writes for r in results)
        if remote is not None:
            result = dataclasses.replace(run.result, remote_cache=remote.as_json())
            run = dataclasses.replace(run, result=result)
    return run


__all__ = ["CheckRun", "PackageRun", "execute", "run_check"]

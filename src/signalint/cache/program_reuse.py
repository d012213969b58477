"""Cached runs of whole-program engines (tsc, mypy, pyright): one generic record (D2).

A whole-program engine checks its configured program in one run. One record
per program key holds what that run read, with content hashes, and its
issues. The key covers the engine, its version and options, the project
root and what the engine says its program depends on besides inputs
(`WholeProgram.program_key`: its config chain, hashed by content, and any
environment text). The record is fresh while every input hashes the same
and no new candidate file appeared (the candidates that were not inputs are
recorded too): any change inside the program re-runs the engine, an edit
outside it does not. An engine that cannot name its key always runs.

Without a cache a run is really cold: the engine gets a fresh state
directory (no build info, no engine cache), removed afterwards. A run that
did not cover its whole program (`Program.gap`) is `error` and not stored.
`files_checked` counts the project files of the scope the engine checked.

A check of some files may let a worker kept warm answer for those files
alone (`ProgramRequest.files_only`): the engine re-checks what it needs
for them, not every file an edit affects. Such an answer is no record of
the program (none is stored, the stale one stays), tells no edit's
dependents, and is not kept as the command's answer (`answers.unkept`):
the program's other inputs were not read here.

Reading goes through the check's `CheckStore`, asked once
(`CheckStore.lookup_program`: the fresh record, the stale one, what
changed); what a run found is returned as `Writes` (a record draft, and
the engine's own values), which the runner keeps once the check's answer
is assembled.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from signalint import answers
from signalint.cache.check_store import CheckStore, Later, ProgramLookup, ProgramOf, Writes, now
from signalint.cache.entries import ProgramRecord, RecordDraft
from signalint.engines.base import Engine, Program, WholeProgram
from signalint.engines.resolve import origin_of
from signalint.engines.runner import EngineRun, Job, run_live, run_program
from signalint.model import EngineOutcome, Failure, Issue
from signalint.project import work_dir as work
from signalint.project.outside import withheld_gap

# A cold directory older than this belongs to a run that was killed before
# it could remove it (no engine deadline comes close).
_ABANDONED_S = 6 * 3600


@dataclass(frozen=True, slots=True)
class ProgramRequest:
    """One whole-program check: how the engine runs (`job`; its target
    selects the program) and which files count.

    `project_files` lists the walked project files (called only when
    needed: a scoped check must still see every candidate input);
    `in_scope` says whether a project file's issues are reported.
    `later` runs clean-up off the answer's path. `files_only`: when the
    scope is not the whole program, a worker kept warm may answer for the
    files in scope alone (module docstring).
    """

    job: Job
    project_files: Callable[[], list[str]]
    in_scope: Callable[[str], bool]
    # The record key when the caller already computed it (`prefetch`).
    record_key: str | None = None
    later: Later = now
    files_only: bool = False

    @property
    def root(self) -> Path:
        return self.job.root

    @property
    def target(self) -> str:
        return self.job.target


def _remove_abandoned_cold_dirs(directory: Path) -> None:
    cutoff = time.time() - _ABANDONED_S
    for entry in directory.glob("cold-*"):
        with contextlib.suppress(OSError):
            if entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)


async def run_program_engine(
    engine: Engine, store: CheckStore | None, request: ProgramRequest
) -> tuple[EngineOutcome, Writes]:
    """Reuse the engine's last result while its program is unchanged (module
    docstring); the outcome and what to keep of the run."""
    cold: list[Path] = []
    if store is None:
        parent = request.job.state_dir / engine.name
        parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned_cold_dirs(parent)
        cold.append(Path(tempfile.mkdtemp(prefix="cold-", dir=parent)))
        # What holds source files keeps outside the project even for one run.
        cold.append(work.make_cold_dir(request.job.root, engine.name))
        job = dataclasses.replace(request.job, state_dir=cold[0], work_dir=cold[1])
        request = dataclasses.replace(request, job=job)
    try:
        return await _run(engine, store, request)
    finally:
        for gone in cold:
            request.later(functools.partial(shutil.rmtree, gone, ignore_errors=True))


def _unread(task: asyncio.Task[EngineRun | None]) -> None:
    """Retrieve an early run's exception when nobody awaits the task (a
    fresh record answered): it is logged by nobody, never raised."""
    if not task.cancelled():
        task.exception()


def _take_back(task: asyncio.Task[EngineRun | None]) -> None:
    """An early run nobody read (a fresh record answered) is no warm answer
    of the check: the pool's counts take it back (`EngineRun.unread`)."""
    if task.cancelled() or task.exception() is not None:
        return
    run = task.result()
    for take_back in () if run is None else run.unread:
        take_back()


def _program_of(engine: Engine, job: Job) -> ProgramOf | None:
    """The engine's name for its program as `job` runs it; None when it
    cannot name one (it then always runs)."""
    resolved = job.executable(engine)
    if resolved.path is None or not isinstance(engine, WholeProgram):
        return None
    key = engine.program_key(job.context(resolved.path))
    return None if key is None else ProgramOf(engine.name, key)


def prefetch(
    engine: Engine, store: CheckStore, requests: Sequence[ProgramRequest]
) -> list[ProgramRequest]:
    """Load the stored records of several programs of one engine in one read.

    For a workspace's packages: a fresh process would otherwise open the
    database once per package. Returns the requests with their record keys
    filled in, in order.
    """
    keyed: list[ProgramRequest] = []
    for request in requests:
        program = _program_of(engine, request.job)
        key = None if program is None else store.program_key(program, request.job)
        keyed.append(dataclasses.replace(request, record_key=key))
    store.load_records([r.record_key for r in keyed if r.record_key])
    return keyed


@dataclass(frozen=True, slots=True)
class _Candidates:
    """A program's walked candidate files (project-relative, sorted), those
    whose issues are reported (absolute), and the files a worker kept warm
    may answer for alone (`ProgramRequest.files_only`), or None."""

    files: list[str]
    reported: set[str]
    only: frozenset[str] | None

    @classmethod
    def of(cls, engine: Engine, request: ProgramRequest) -> _Candidates:
        prefix = f"{request.root}/"
        candidates = sorted(f for f in request.project_files() if engine.relevant(f))
        reported = {prefix + f for f in candidates if request.in_scope(f)}
        only = None
        # A scoped answer reads no program: with links out of the root about,
        # the whole answer must say whether the engine read one.
        # A copy standing in for a project (the language server's shadow copy)
        # walks only the files it holds: the engine's program is the project's.
        stands_in = origin_of(request.root) != request.root
        if (
            request.files_only
            and request.job.warm is not None
            and (len(reported) < len(candidates) or stands_in)
            and not request.job.edge().links
        ):
            only = frozenset(reported)
        return cls(candidates, reported, only)


async def _run(
    engine: Engine, store: CheckStore | None, request: ProgramRequest
) -> tuple[EngineOutcome, Writes]:
    program: str | ProgramOf | None = request.record_key
    if store is not None and program is None:
        program = _program_of(engine, request.job)
    # The walked candidates, and those whose issues are reported: the
    # files a run covers are counted among these (`files_checked`).
    files = _Candidates.of(engine, request)
    early: asyncio.Task[EngineRun | None] | None = None
    started_ns = time.time_ns()  # no later than the run: an early ask starts it
    found = ProgramLookup()
    if program is not None and store is not None:
        if request.job.warm is not None:
            # A worker that runs already is asked while the inputs are
            # hashed (in a thread): after an edit the record is stale,
            # and the answer is then on its way. A fresh record leaves
            # the answer unread (the worker's state is the same).
            early = asyncio.ensure_future(run_live(engine, request.job, files.only))
            early.add_done_callback(_unread)
        threaded = early is not None
        found = await store.lookup_program(program, request.job, files.files, threaded)
        if found.fresh is not None:
            if early is not None:
                early.add_done_callback(_take_back)
            return _reused(engine, found, files), Writes()
    if early is None:
        started_ns = time.time_ns()
    first = None if early is None else await early
    job = request.job
    run, ran = await run_program(engine, job, store, found.changed, first, files.only)
    if run.scoped is not None:
        answers.unkept()
    done, checked_now = _outcome(engine, run, ran, files, job, store is not None)
    if store is None:
        return done, Writes()
    writes = Writes(values=dict(ran.remember))
    if found.key is not None and done.status == "ok" and ran.inputs:
        read = set(ran.inputs)
        prefix = f"{request.root}/"
        writes.records[found.key] = RecordDraft(
            inputs=ran.inputs,
            outside=[f for f in files.files if prefix + f not in read],
            checked=None if ran.checked is None else list(checked_now),
            issues=done.issues,
            started_ns=started_ns,
        )
    if done.status == "ok" and run.scoped is None and found.stale is not None:
        introduced, gone = _changes(found.stale, run.outcome.issues)
        done = dataclasses.replace(done, introduced=introduced, gone=gone)
    return done, writes


def _reused(engine: Engine, found: ProgramLookup, files: _Candidates) -> EngineOutcome:
    """The outcome a fresh record answers; after an edit undone (a stale
    record newer than it), with what the answer changes."""
    record = found.fresh
    assert record is not None
    checked = record.checked if record.checked is not None else record.inputs
    covered = len(files.reported.intersection(checked))
    hit = EngineOutcome(engine.name, "ok", record.issues, files_checked=covered, cache_hits=1)
    if found.stale is None:
        return hit
    # Back to an older content (an edit undone): the newest run, stale now,
    # is what this answer changes.
    introduced, gone = _changes(found.stale, record.issues)
    return dataclasses.replace(hit, introduced=introduced, gone=gone)


def _outcome(
    engine: Engine, run: EngineRun, program: Program, files: _Candidates, job: Job, cached: bool
) -> tuple[EngineOutcome, Collection[str]]:
    """The outcome of a run of the program (not yet compared with a stale
    record; `cached`: with a store, not cold), and the files whose issues
    it covered."""
    outcome = run.outcome
    status, message, gap = outcome.status, outcome.message, program.gap
    if gap is None and program.retry:
        gap = f"{engine.name} could not confirm which inputs its own saved state covers"
    failure = outcome.failure
    issues = outcome.issues
    # The engine read files that resolve outside the root (its own walk, an
    # import): any of its diagnostics could quote them (project.outside).
    hidden = job.edge().hidden_inputs(program.inputs, set(files.files))
    if hidden:
        gap = "; ".join(g for g in (gap, withheld_gap(engine.name, hidden)) if g)
        issues = ()
        # What the engine kept of the run (mypy's cache, tsc's build info)
        # holds what it read: gone with the answer (a cold run's goes anyway).
        if cached:
            shutil.rmtree(job.state_dir / engine.name, ignore_errors=True)
    if gap is not None:
        status, message, failure = "error", gap, Failure("incomplete")
    checked_now: Collection[str] = program.inputs if program.checked is None else program.checked
    if run.scoped is not None:
        checked_now = run.scoped
    if hidden:
        checked_now = ()  # no file's diagnostics are reported
    done = EngineOutcome(
        engine=outcome.engine,
        status=status,
        issues=issues,
        message=message,
        duration_ms=outcome.duration_ms,
        files_checked=len(files.reported.intersection(checked_now)),
        cache_misses=1 if cached else 0,
        coverage_gap=gap,
        failure=failure,
        served=outcome.served,
        scoped=run.scoped is not None,
    )
    return done, checked_now


def _changes(
    stale: ProgramRecord, issues: Sequence[Issue]
) -> tuple[frozenset[str], tuple[Issue, ...]]:
    """The ids of `issues` the stale record's run did not report, and the
    record's issues `issues` no longer has. Decoded only here: a scoped
    answer, the hooks' usual one, needs neither."""
    before = {i.issue_id: i for i in stale.issues}
    now = {i.issue_id for i in issues}
    introduced = frozenset(i for i in now if i not in before)
    return introduced, tuple(i for key, i in before.items() if key not in now)

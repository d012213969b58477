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

Reading goes through the check's `CheckStore`; what a run found is
returned as `Writes` (a record draft, and the engine's own values), which
the runner keeps once the check's answer is assembled.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from signalint import answers, work
from signalint.engines.base import Engine, WholeProgram
from signalint.engines.resolve import Resolved, origin_of
from signalint.engines.runner import EngineRun, Job, run_live, run_program
from signalint.model import EngineOutcome, Failure, Issue, IssueMemo
from signalint.project.outside import withheld_gap
from signalint.storage.check_store import CheckStore, Later, Writes, now
from signalint.storage.entries import KEY_VERSION, PLATFORM, ProgramRecord, RecordDraft, digest

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
    `issue_memo` keeps issues the engine made before (`model.IssueMemo`);
    `later` runs clean-up off the answer's path. `files_only`: when the
    scope is not the whole program, a worker kept warm may answer for the
    files in scope alone (module docstring).
    """

    job: Job
    project_files: Callable[[], list[str]]
    in_scope: Callable[[str], bool]
    # The record key when the caller already computed it (`prefetch`).
    record_key: str | None = None
    issue_memo: IssueMemo | None = None
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


def _record_key(
    engine: Engine, store: CheckStore, request: ProgramRequest, resolved: Resolved
) -> str | None:
    if resolved.path is None or not isinstance(engine, WholeProgram):
        return None
    key = engine.program_key(request.job.context(resolved.path))
    if key is None:
        return None
    configs = store.digests(request.root, list(key.configs))
    job = request.job
    return digest(
        KEY_VERSION,
        PLATFORM,
        "program",
        engine.name,
        # The program's directory, against the check's root (`Anchors`): two
        # checkouts of one project share records, two programs never do.
        store.anchors.portable(str(request.root)),
        job.version,
        json.dumps(job.options, sort_keys=True),
        key.extra,
        *(f"{c}={configs.get(c, '-')}" for c in key.configs),
        # The links out of the root the walk met: an engine whose own walk
        # follows one (Pyright) reads it, so a record made before it appeared
        # must not answer for the program now (its cold run is withheld).
        *(f"link={rel}" for rel in sorted(job.edge().links)),
    )


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
        resolved = request.job.executable(engine)
        key = _record_key(engine, store, request, resolved)
        keyed.append(dataclasses.replace(request, record_key=key))
    store.load_records([r.record_key for r in keyed if r.record_key])
    return keyed


async def _run(
    engine: Engine, store: CheckStore | None, request: ProgramRequest
) -> tuple[EngineOutcome, Writes]:
    resolved = request.job.executable(engine)
    record_key = request.record_key
    if store is not None and record_key is None:
        record_key = _record_key(engine, store, request, resolved)
    writes = Writes()
    prefix = f"{request.root}/"
    # The walked candidates, and those whose issues are reported: the
    # files a run covers are counted among these (`files_checked`).
    candidates = sorted(f for f in request.project_files() if engine.relevant(f))
    reported = {prefix + f for f in candidates if request.in_scope(f)}
    edge = request.job.edge()
    known = set(candidates)  # walked: inside the root
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
        and not edge.links
    ):
        only = frozenset(reported)
    changed: frozenset[str] = frozenset()  # inputs whose content changed since the record
    stale: ProgramRecord | None = None  # the record of the inputs' previous content
    early: asyncio.Task[EngineRun | None] | None = None
    started_ns = time.time_ns()  # no later than the run: an early ask starts it
    if record_key is not None and store is not None:
        digests: dict[str, str] = {}  # the inputs' content now, hashed once for every record
        for record in store.records(record_key):
            outside = [f for f in candidates if prefix + f not in record.inputs]
            wanted = [p for p in record.inputs if p not in digests]
            if early is None and request.job.warm is not None:
                # A worker that runs already is asked while the inputs are
                # hashed (in a thread): after an edit the record is stale,
                # and the answer is then on its way. A fresh record leaves
                # the answer unread (the worker's state is the same).
                early = asyncio.ensure_future(
                    run_live(engine, request.job, request.issue_memo, only)
                )
                early.add_done_callback(_unread)
                digests.update(await asyncio.to_thread(store.absolute_digests, wanted))
            else:
                digests.update(store.absolute_digests(wanted))
            now_digests = {p: digests[p] for p in record.inputs if p in digests}
            if (
                outside != record.outside
                or now_digests != record.inputs
                or edge.hidden_inputs(record.inputs, known)
            ):
                changed |= {f for f, d in record.inputs.items() if now_digests.get(f) != d}
                # The newest record (the first is the one this process
                # remembers): the stored one may be older.
                if stale is None:
                    stale = record
                continue
            store.confirm(record_key, record)
            if early is not None:
                early.add_done_callback(_take_back)
            checked = record.checked if record.checked is not None else record.inputs
            covered = len(reported.intersection(checked))
            hit = EngineOutcome(
                engine.name, "ok", record.issues, files_checked=covered, cache_hits=1
            )
            if stale is not None:
                # Back to an older content (an edit undone): the newest run,
                # stale now, is what this answer changes.
                introduced, gone = _changes(stale, record.issues)
                hit = dataclasses.replace(hit, introduced=introduced, gone=gone)
            return hit, writes
    if early is None:
        started_ns = time.time_ns()
    first = None if early is None else await early
    run, program = await run_program(
        engine, request.job, store, changed, request.issue_memo, first, only
    )
    outcome = run.outcome
    if run.scoped is not None:
        answers.unkept()
    status, message, gap = outcome.status, outcome.message, program.gap
    if gap is None and program.retry:
        gap = f"{engine.name} could not confirm which inputs its own saved state covers"
    failure = outcome.failure
    issues = outcome.issues
    # The engine read files that resolve outside the root (its own walk, an
    # import): any of its diagnostics could quote them (project.outside).
    hidden = edge.hidden_inputs(program.inputs, known)
    if hidden:
        gap = "; ".join(g for g in (gap, withheld_gap(engine.name, hidden)) if g)
        issues = ()
        # What the engine kept of the run (mypy's cache, tsc's build info)
        # holds what it read: gone with the answer (a cold run's goes anyway).
        if store is not None:
            shutil.rmtree(request.job.state_dir / engine.name, ignore_errors=True)
    if gap is not None:
        status, message, failure = "error", gap, Failure("incomplete")
    checked_now: Collection[str] = program.inputs if program.checked is None else program.checked
    if run.scoped is not None:
        checked_now = run.scoped
    if hidden:
        checked_now = ()  # no file's diagnostics are reported
    if store is not None:
        writes.values.update(program.remember)
    if record_key is not None and store is not None and status == "ok" and program.inputs:
        read = set(program.inputs)
        writes.records[record_key] = RecordDraft(
            inputs=program.inputs,
            outside=[f for f in candidates if prefix + f not in read],
            checked=None if program.checked is None else list(checked_now),
            issues=issues,
            started_ns=started_ns,
        )
    done = EngineOutcome(
        engine=outcome.engine,
        status=status,
        issues=issues,
        message=message,
        duration_ms=outcome.duration_ms,
        files_checked=len(reported.intersection(checked_now)),
        cache_misses=1 if store is not None else 0,
        coverage_gap=gap,
        failure=failure,
        served=outcome.served,
        scoped=run.scoped is not None,
    )
    if status == "ok" and run.scoped is None and stale is not None:
        introduced, gone = _changes(stale, outcome.issues)
        done = dataclasses.replace(done, introduced=introduced, gone=gone)
    return done, writes


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

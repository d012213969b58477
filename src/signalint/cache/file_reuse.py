"""Cached runs of file-local engines: reuse what cannot have changed, run the rest.

File-local engines (the linters) are cached per file under a key that
covers everything the result depends on (D1): the file's content and
project-relative path, the engine, its version, its options, and the
content of every config file the engine reads for that file
(`Engine.config_files`). Only misses are run, in batches; each miss's issues
are kept under its own key (returned as `Writes`, which the runner keeps
once the check's answer is assembled). A candidate file the engine did not check (its
configuration does not cover it: a README for ESLint without a Markdown
plugin) is stored as "not checked" under the same key, so it does not re-run
either and never counts as checked.

Results that cannot be attributed safely (an engine error, an issue in a
file that was not an input of the batch) are never stored.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence

from signalint.cache.check_store import CheckStore, Writes
from signalint.cache.entries import KEY_VERSION, PLATFORM, digest
from signalint.engines.base import Engine
from signalint.engines.runner import Job, run_engine
from signalint.model import EngineOutcome, Issue
from signalint.project.settle import touched_since


async def run_file_engine(
    engine: Engine, store: CheckStore | None, job: Job, files: Sequence[str]
) -> tuple[EngineOutcome, Writes]:
    """Run a file-local engine as `job` says on the cache misses among `files`
    (on all of them without a `store`), and what to keep of the run.

    `files_checked` counts the files the engine checked, from the cache or
    in this run; candidates it does not check are remembered but not counted.
    """
    root = job.root
    relevant = [f for f in files if engine.relevant(f)]
    writes = Writes()
    if store is None or not relevant or job.executable(engine).path is None:
        return (await run_engine(engine, job, relevant)).outcome, writes
    options = json.dumps(job.options, sort_keys=True)
    base = digest(KEY_VERSION, PLATFORM, engine.name, job.version, options)
    started_ns = time.time_ns()
    issues: list[Issue] = []
    cached = 0  # files the engine checked, answered from the cache
    marks: dict[str, str] | None = None  # membership keys, taken before the run
    known_checked: set[str] = set()
    if store.empty:
        # A new cache: every lookup would miss. Run the engine at once and
        # derive the keys afterwards, off the event loop (a detached view: a
        # store object's memo is not shared across threads).
        run = await run_engine(engine, job, relevant)
        with_marks = run.linted is not None
        keys, marks = await asyncio.to_thread(
            store.keys_after_run, engine, root, relevant, base, with_marks
        )
        misses = relevant
    else:
        found = store.lookup_files(engine, root, relevant, base)
        keys = found.keys
        misses = [f for f in relevant if keys.get(f) not in found.found]
        for f in relevant:
            key = keys.get(f)
            entry = found.found.get(key) if key is not None else None
            if entry is not None:
                issues.extend(entry)
                cached += 1
        if misses:
            marks, verdicts = found.marks, found.verdicts
            unchecked = {f for f in misses if verdicts.get(marks[f]) is False}
            if unchecked:
                writes.entries.update({keys[f]: None for f in unchecked if f in keys})
                misses = [f for f in misses if f not in unchecked]
            known_checked = {f for f in misses if verdicts.get(marks[f]) is True}
        if not misses:
            outcome = EngineOutcome(
                engine.name, "ok", tuple(issues), files_checked=cached, cache_hits=len(relevant)
            )
            return outcome, writes
        run = await run_engine(engine, job, misses, known_checked=known_checked)
    outcome = run.outcome
    checked = set(misses) if run.linted is None else run.linted
    if outcome.status == "ok":
        per_file = run.by_file(misses)
        touched = touched_since([f"{root}/{f}" for f in misses], started_ns)
        if per_file is not None:
            stable = [f for f in misses if f in keys and f"{root}/{f}" not in touched]
            writes.entries.update({keys[f]: per_file[f] for f in stable})
        if run.linted is not None and marks is not None:
            writes.marks.update({marks[f]: f in checked for f in misses if f in marks})
    issues.extend(outcome.issues)
    done = EngineOutcome(
        engine=engine.name,
        status=outcome.status,
        issues=tuple(issues),
        message=outcome.message,
        duration_ms=outcome.duration_ms,
        files_checked=cached + (outcome.files_checked if outcome.status != "ok" else len(checked)),
        cache_hits=len(relevant) - len(misses),
        cache_misses=len(misses),
        failure=outcome.failure,
        served=outcome.served,
    )
    return done, writes

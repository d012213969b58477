"""Cached runs of file-local engines: reuse what cannot have changed, run the rest.

File-local engines (the linters) are cached per file under a key that
covers everything the result depends on (D1): the file's content and
project-relative path, the engine, its version, its options, and the
content of every config file the engine reads for that file
(`Engine.config_files`). Only misses are run, in batches; each miss's issues
are stored under its own key. A candidate file the engine did not check (its
configuration does not cover it: a README for ESLint without a Markdown
plugin) is stored as "not checked" under the same key, so it does not re-run
either and never counts as checked.

Results that cannot be attributed safely (an engine error, an issue in a
file that was not an input of the batch) are never stored.
"""

from __future__ import annotations

import asyncio
import json
import os
import posixpath
import time
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path

from signalint.engines.base import Engine
from signalint.engines.runner import Job, run_engine
from signalint.model import EngineOutcome, Issue
from signalint.storage.check_store import CheckStore, Writes
from signalint.storage.entries import KEY_VERSION, digest


class _Configs:
    """Config files (with content hashes) per engine and directory, memoized.

    Every adapter looks configs up from the file's directory upward, so the
    answer depends on the directory only.
    """

    def __init__(self, store: CheckStore, root: Path) -> None:
        self.store, self.root = store, root
        self._memo: dict[tuple[str, str], str] = {}

    def fingerprint(self, engine: Engine, rel_path: str) -> str:
        key = (engine.name, posixpath.dirname(rel_path))
        if key not in self._memo:
            files = engine.config_files(self.root, rel_path)
            digests = self.store.digests(self.root, files)
            self._memo[key] = digest(*(f"{f}={digests.get(f, '-')}" for f in files))
        return self._memo[key]


def _file_keys(
    store: CheckStore, engine: Engine, root: Path, files: Sequence[str], base: str
) -> dict[str, str]:
    """The cache key of each readable file among `files` (see module docstring)."""
    contents = store.digests(root, files)
    configs = _Configs(store, root)
    return {
        f: digest(base, f, contents[f], configs.fingerprint(engine, f))
        for f in files
        if f in contents
    }


def _membership_keys(
    store: CheckStore, engine: Engine, root: Path, files: Sequence[str], base: str
) -> dict[str, str]:
    """Content-independent keys recording whether the engine checks a path.

    Whether ESLint or Biome checks a file depends on its path and their
    configuration (globs, ignores, languages), never on its content: an edit
    to a file they do not check (a README) does not start them, and an edited
    file Biome is known to check needs no selection run.
    """
    configs = _Configs(store, root)
    return {f: digest(base, "member", f, configs.fingerprint(engine, f)) for f in files}


# Timestamps on the file systems we know tick in a few milliseconds at most;
# anything touched this close to (or after) a run's start may have changed
# under the engine, so its result is used but not stored.
SETTLE_NS = 100_000_000


def touched_since(paths_abs: Sequence[str], since_ns: int) -> set[str]:
    touched = set()
    for path in paths_abs:
        try:
            st = os.stat(path)
        except OSError:
            touched.add(path)
            continue
        if max(st.st_mtime_ns, st.st_ctime_ns) >= since_ns - SETTLE_NS:
            touched.add(path)
    return touched


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
    base = digest(KEY_VERSION, engine.name, job.version, json.dumps(job.options, sort_keys=True))
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
        detached = store.detached()
        keys = await asyncio.to_thread(_file_keys, detached, engine, root, relevant, base)
        misses = relevant
    else:
        keys = _file_keys(store, engine, root, relevant, base)
        found = store.entries(list(keys.values()))
        misses = [f for f in relevant if keys.get(f) not in found]
        for f in relevant:
            key = keys.get(f)
            entry = found.get(key) if key is not None else None
            if entry is not None:
                issues.extend(entry)
                cached += 1
        if misses:
            marks = _membership_keys(store, engine, root, misses, base)
            verdicts = store.marks(list(marks.values()))
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
        touched = touched_since([f"{root}/{f}" for f in misses], started_ns)
        stable = {f: k for f, k in keys.items() if f"{root}/{f}" not in touched}
        writes.entries.update(_per_file(outcome.issues, misses, stable, checked))
        if run.linted is not None:
            if marks is None:
                marks = _membership_keys(store, engine, root, misses, base)
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
    )
    return done, writes


def _per_file(
    issues: Sequence[Issue],
    misses: Sequence[str],
    keys: dict[str, str],
    checked: AbstractSet[str],
) -> dict[str, tuple[Issue, ...] | None]:
    """Each miss's entry by key: its issues if the engine checked it, else
    "not checked" (None); nothing when an issue is not attributable to one
    checked input."""
    by_file: dict[str, list[Issue]] = {f: [] for f in misses if f in checked}
    for issue in issues:
        if issue.file not in by_file:
            return {}
        by_file[issue.file].append(issue)
    return {keys[f]: (tuple(by_file[f]) if f in by_file else None) for f in misses if f in keys}

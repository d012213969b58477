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
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from signalint.context import Context
from signalint.engines.base import Engine, EngineContext, Program, WholeProgram
from signalint.engines.resolve import Resolved, project_python, resolve
from signalint.engines.runner import EngineRun, Progress, run_engine
from signalint.file_cache import KEY_VERSION, digest, touched_since
from signalint.issue_codec import dump_issues, load_issues
from signalint.model import EngineOutcome, Failure, Issue, IssueMemo
from signalint.storage.results import ResultCache

# A cold directory older than this belongs to a run that was killed before
# it could remove it (no engine deadline comes close).
_ABANDONED_S = 6 * 3600


class _Record:
    """What one run saw: inputs with content hashes, checked files, issues.

    Issues loaded from the database are decoded only when asked for, i.e.
    only once the record has been proven fresh.
    """

    __slots__ = ("_issues", "_raw", "checked", "inputs", "loaded", "outside")

    def __init__(
        self,
        inputs: dict[str, str],
        outside: list[str],
        checked: list[str] | None,
        issues: tuple[Issue, ...] | None = None,
        raw: str | None = None,
    ) -> None:
        self.inputs = inputs  # absolute path -> content hash
        self.outside = outside  # candidate project files that were not inputs
        self.checked = checked  # absolute project files checked; None: the inputs
        self._issues = issues
        self._raw = raw
        self.loaded = False  # read from the database by `prefetch`, not yet confirmed

    @property
    def issues(self) -> tuple[Issue, ...]:
        if self._issues is None:
            self._issues = tuple(load_issues((self._raw or "[]").encode()))
            self._raw = None
        return self._issues

    def dump(self) -> bytes:
        record = {
            "inputs": self.inputs,
            "outside": self.outside,
            "checked": self.checked,
            "issues": dump_issues(self.issues).decode(),
        }
        return json.dumps(record).encode()

    @classmethod
    def load(cls, blob: bytes) -> _Record:
        record = json.loads(blob)
        return cls(record["inputs"], record["outside"], record["checked"], raw=record["issues"])


@dataclass(frozen=True, slots=True)
class ProgramRequest:
    """One whole-program check: where, with what, and which files count.

    `project_files` lists the walked project files (called only when
    needed: a scoped check must still see every candidate input);
    `in_scope` says whether a project file's issues are reported.
    `executable` and `python` are the check's toolchain
    (`resolve.Toolchain`); by default the engine is resolved for `root`.
    """

    root: Path
    project_files: Callable[[], list[str]]
    options: dict[str, object]
    target: str
    timeout_s: float
    state_dir: Path
    in_scope: Callable[[str], bool]
    progress: Progress | None = None
    # The record key when the caller already computed it (`prefetch`).
    record_key: str | None = None
    executable: Resolved | None = None
    python: Path | None = None

    def resolved(self, engine: Engine) -> Resolved:
        return self.executable or resolve(engine, self.root)

    def interpreter(self) -> Path | None:
        return self.python or project_python(self.root)


def _absolute_digests(cache: ResultCache, files: Sequence[str]) -> dict[str, str]:
    relative = [f.lstrip("/") for f in files]
    found = cache.digests(Path("/"), relative)
    return {"/" + f: d for f, d in found.items()}


def _files_checked(
    request: ProgramRequest, engine: Engine, checked: Sequence[str], candidates: list[str] | None
) -> int:
    """Checked files that are walked project candidates inside the check's scope."""
    prefix = f"{request.root}/"
    names = {p[len(prefix) :] for p in checked if p.startswith(prefix)}
    pool = candidates if candidates is not None else _candidates(request, engine)
    return sum(1 for f in pool if f in names and request.in_scope(f))


def _candidates(request: ProgramRequest, engine: Engine) -> list[str]:
    return sorted(f for f in request.project_files() if engine.relevant(f))


def _remove_abandoned_cold_dirs(directory: Path) -> None:
    cutoff = time.time() - _ABANDONED_S
    for entry in directory.glob("cold-*"):
        with contextlib.suppress(OSError):
            if entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)


async def run_program_engine(
    engine: Engine, cache: ResultCache | None, context: Context, request: ProgramRequest
) -> EngineOutcome:
    """Reuse the engine's last result while its program is unchanged (module docstring)."""
    if cache is not None:
        return await _run(engine, cache, context, request)
    cold_parent = request.state_dir / engine.name
    cold_parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_cold_dirs(cold_parent)
    cold = Path(tempfile.mkdtemp(prefix="cold-", dir=cold_parent))
    try:
        return await _run(engine, None, context, dataclasses.replace(request, state_dir=cold))
    finally:
        # Off the answer's path; asyncio.run waits for it before exiting.
        context.in_background(lambda: shutil.rmtree(cold, ignore_errors=True))


async def _record_key(
    engine: Engine,
    cache: ResultCache,
    context: Context,
    request: ProgramRequest,
    resolved: Resolved,
) -> str | None:
    if resolved.path is None or not isinstance(engine, WholeProgram):
        return None
    ctx = EngineContext(
        root=request.root,
        executable=resolved.path,
        timeout_s=request.timeout_s,
        state_dir=request.state_dir,
        options=request.options,
        target=request.target,
        python=request.interpreter(),
    )
    key = engine.program_key(ctx)
    if key is None:
        return None
    configs = cache.digests(request.root, list(key.configs))
    version = await context.engine_version(
        cache, resolved, engine.spec.provision, request.timeout_s
    )
    return digest(
        KEY_VERSION,
        "program",
        engine.name,
        # Records hold absolute inputs: two projects with equal configs (or a
        # shared state dir) must never share one.
        str(request.root),
        version,
        json.dumps(request.options, sort_keys=True),
        key.extra,
        *(f"{c}={configs.get(c, '-')}" for c in key.configs),
    )


async def prefetch(
    engine: Engine, cache: ResultCache, context: Context, requests: Sequence[ProgramRequest]
) -> list[ProgramRequest]:
    """Load the stored records of several programs of one engine in one read.

    For a workspace's packages: a fresh process would otherwise open the
    database once per package. Returns the requests with their record keys
    filled in, in order; records are remembered in `context.programs`.
    """
    resolved = requests[0].resolved(engine) if requests else None
    keyed: list[ProgramRequest] = []
    for request in requests:
        assert resolved is not None
        key = await _record_key(engine, cache, context, request, resolved)
        keyed.append(dataclasses.replace(request, record_key=key))
    missing = [
        r.record_key for r in keyed if r.record_key and context.programs.get(r.record_key) is None
    ]
    if missing:
        for key, blob in cache.get_many(missing).items():
            record = _Record.load(blob)
            record.loaded = True
            context.programs.put(key, record)
    return keyed


def _records(cache: ResultCache, context: Context, key: str) -> Iterator[_Record]:
    """The remembered record, then the stored one (read only if the first is stale)."""
    remembered = context.programs.get(key)
    if isinstance(remembered, _Record):
        loaded, remembered.loaded = remembered.loaded, False
        yield remembered
        if loaded:
            return  # it came from the database in this check: nothing newer there
    blob = cache.get_many([key]).get(key)
    if blob is not None:
        yield _Record.load(blob)


async def _run(
    engine: Engine, cache: ResultCache | None, context: Context, request: ProgramRequest
) -> EngineOutcome:
    resolved = request.resolved(engine)
    record_key = request.record_key
    if cache is not None and record_key is None:
        record_key = await _record_key(engine, cache, context, request, resolved)
    prefix = f"{request.root}/"
    changed: frozenset[str] = frozenset()  # inputs whose content changed since the record
    candidates: list[str] | None = None
    if record_key is not None and cache is not None:
        candidates = _candidates(request, engine)
        for record in _records(cache, context, record_key):
            outside = [f for f in candidates if prefix + f not in record.inputs]
            now = _absolute_digests(cache, list(record.inputs))
            if outside != record.outside or now != dict(record.inputs):
                changed = frozenset(f for f, d in record.inputs.items() if now.get(f) != d)
                continue
            record.loaded = False
            context.programs.put(record_key, record)
            checked = record.checked if record.checked is not None else list(record.inputs)
            return EngineOutcome(
                engine.name,
                "ok",
                record.issues,
                files_checked=_files_checked(request, engine, checked, candidates),
                cache_hits=1,
            )
    started_ns = time.time_ns()
    run, program = await _run_and_read(
        engine, cache, request, resolved, changed, context.issue_memo
    )
    outcome = run.outcome
    if cache is not None and program.remember:
        remember = dict(program.remember)
        context.in_background(lambda: cache.put_many(remember))
    status, message, gap = outcome.status, outcome.message, program.gap
    if gap is None and program.retry:
        gap = f"{engine.name} could not confirm which inputs its own saved state covers"
    failure = outcome.failure
    if gap is not None:
        status, message, failure = "error", gap, Failure("incomplete")
    checked = list(program.checked if program.checked is not None else program.inputs)
    if record_key is not None and cache is not None and status == "ok" and program.inputs:
        listed = list(program.inputs)
        inputs = _absolute_digests(cache, listed)
        if len(inputs) == len(listed) and not touched_since(listed, started_ns):
            candidates = candidates if candidates is not None else _candidates(request, engine)
            fresh = _Record(
                inputs=inputs,
                outside=[f for f in candidates if prefix + f not in inputs],
                checked=None if program.checked is None else checked,
                issues=outcome.issues,
            )
            context.programs.put(record_key, fresh)
            # Serializing thousands of issues is off the answer's path: this
            # process already remembers the record.
            key = record_key
            context.in_background(lambda: cache.put_many({key: fresh.dump()}))
    return EngineOutcome(
        engine=outcome.engine,
        status=status,
        issues=outcome.issues,
        message=message,
        duration_ms=outcome.duration_ms,
        files_checked=_files_checked(request, engine, checked, candidates),
        cache_misses=1 if cache is not None else 0,
        coverage_gap=gap,
        failure=failure,
    )


async def _run_and_read(
    engine: Engine,
    cache: ResultCache | None,
    request: ProgramRequest,
    resolved: Resolved,
    changed: frozenset[str],
    issue_memo: IssueMemo,
) -> tuple[EngineRun, Program]:
    """Run the engine (twice at most, when it asks to retry) and read its program."""
    program = Program(())
    for attempt in range(2):
        run = await run_engine(
            engine,
            root=request.root,
            files=[],
            options=request.options,
            target=request.target,
            progress=request.progress,
            resolved=resolved,
            timeout_s=request.timeout_s,
            state_dir=request.state_dir,
            issue_memo=issue_memo,
            python=request.python,
        )
        if run.outcome.status != "ok" or not run.results or not isinstance(engine, WholeProgram):
            return run, Program(())
        assert resolved.path is not None
        ctx = EngineContext(
            root=request.root,
            executable=resolved.path,
            timeout_s=request.timeout_s,
            state_dir=request.state_dir,
            options=request.options,
            target=request.target,
            python=request.interpreter(),
        )
        program = engine.program(run.results, ctx, cache, changed if attempt == 0 else frozenset())
        if not program.retry:
            return run, program
    return run, program

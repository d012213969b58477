"""Cached engine runs: reuse what cannot have changed, run only the rest.

File-local engines (oxlint, biome, eslint) are cached per file under a key
that covers everything the result depends on (D1): the file's content and
project-relative path, the engine, its version, its options, and the content
of every config file the engine reads for that file. Only misses are run, in
batches; each miss's issues are stored under its own key. A candidate file
the engine did not check (its configuration does not cover it: a README for
ESLint without a Markdown plugin) is stored as "not checked" under the same
key, so it does not re-run either and never counts as checked.

TypeScript is whole-program (D2): one record per selected configuration holds
the compiler's real input list (`--listFiles`) with content hashes, the set
of project files that were not inputs, and the issues. The record is fresh
while every input hashes the same, the config chain hashes the same, and no
new candidate file appeared; any change inside the program re-runs tsc, an
edit outside it does not. In build mode (`references`) the record holds the
union of every project's inputs; a project tsc found up to date contributes
the inputs recorded when it was last built.

Results that cannot be attributed safely (an engine error, an issue in a
file that was not an input of the batch) are never stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import posixpath
import shutil
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from signalint import process
from signalint.cache import ResultCache
from signalint.engines import paths
from signalint.engines.base import Engine, EngineConfigError, Provision
from signalint.engines.resolve import (
    Resolved,
    executable_key,
    package_version,
    parse_version,
    resolve,
    version_command,
)
from signalint.engines.runner import EngineRun, Progress, run_engine
from signalint.engines.tsc import has_references, program_files, select_config
from signalint.engines.tsc_build import (
    BuildPlan,
    plan_build,
    read_report,
    references,
    resolve_extends,
    typescript_major,
)
from signalint.model import EngineOutcome, Issue

KEY_VERSION = "2"
_FIELDS = (
    "issue_id",
    "engine",
    "file",
    "line",
    "col",
    "rule",
    "severity",
    "message",
    "fixable",
    "end_line",
    "end_col",
    "docs_url",
    "help",
)


def dump_issues(issues: Sequence[Issue]) -> bytes:
    rows = [[getattr(i, f) for f in _FIELDS] for i in issues]
    return json.dumps(rows, separators=(",", ":")).encode()


def load_issues(blob: bytes) -> list[Issue]:
    return [Issue.restore(**dict(zip(_FIELDS, row, strict=True))) for row in json.loads(blob)]


# The per-file entry of a candidate the engine does not check (not JSON, so
# it can never be mistaken for an issue list).
NOT_CHECKED = b"-"


def _load_entry(blob: bytes) -> tuple[Issue, ...] | None:
    """A per-file entry: its issues, or None for a file the engine does not check."""
    return None if blob == NOT_CHECKED else tuple(load_issues(blob))


class _DecodedIssues:
    """Issues already decoded in this process, by cache key (bounded LRU).

    Keys are content addresses, so a remembered entry stays valid whatever
    happens to the database; a long-lived server skips both the SQL lookup
    and the decoding for everything it has seen.
    """

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, tuple[Issue, ...] | None] = OrderedDict()

    def remember(self, key: str, issues: tuple[Issue, ...] | None) -> None:
        self._entries[key] = issues
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def lookup(
        self, cache: ResultCache, keys: Sequence[str]
    ) -> dict[str, tuple[Issue, ...] | None]:
        """Entries found, by key: issues, or None for "not checked"."""
        found = {k: self._entries[k] for k in keys if k in self._entries}
        stored = cache.get_many([k for k in keys if k not in found])
        for key, blob in stored.items():
            found[key] = _load_entry(blob)
            self.remember(key, found[key])
        return found


_DECODED = _DecodedIssues()


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


async def engine_version(
    cache: ResultCache, resolved: Resolved, provision: Provision, timeout_s: float
) -> str:
    """The engine's version, remembered across processes per executable state.

    Keyed by `resolve.executable_key`. An npm package's own manifest names
    its version: reading it saves starting the engine just to ask.
    """
    assert resolved.path is not None
    exe_key = executable_key(resolved.path)
    known = exe_key and cache.version_for(exe_key)
    known = known or package_version(os.path.realpath(resolved.path), provision)
    if known is None:
        result = await process.run(version_command(resolved.path, timeout_s))
        found = parse_version(result.stdout) if result.exit_code == 0 else None
        known = found or "unknown"
        if found and exe_key:
            cache.remember_version(exe_key, known)
    return known


class _Configs:
    """Config files (with content hashes) per engine and directory, memoized.

    Every adapter looks configs up from the file's directory upward, so the
    answer depends on the directory only.
    """

    def __init__(self, cache: ResultCache, root: Path) -> None:
        self.cache, self.root = cache, root
        self._memo: dict[tuple[str, str], str] = {}

    def fingerprint(self, engine: Engine, rel_path: str) -> str:
        key = (engine.name, posixpath.dirname(rel_path))
        if key not in self._memo:
            files = engine.config_files(self.root, rel_path)
            digests = self.cache.digests(self.root, files)
            self._memo[key] = _digest(*(f"{f}={digests.get(f, '-')}" for f in files))
        return self._memo[key]


def _file_keys(
    cache: ResultCache, engine: Engine, root: Path, files: Sequence[str], base: str
) -> dict[str, str]:
    """The cache key of each readable file among `files` (see module docstring)."""
    contents = cache.digests(root, files)
    configs = _Configs(cache, root)
    return {
        f: _digest(base, f, contents[f], configs.fingerprint(engine, f))
        for f in files
        if f in contents
    }


def _membership_keys(
    cache: ResultCache, engine: Engine, root: Path, files: Sequence[str], base: str
) -> dict[str, str]:
    """Content-independent keys recording whether the engine checks a path.

    Whether ESLint or Biome checks a file depends on its path and their
    configuration (globs, ignores, languages), never on its content: an edit
    to a file they do not check (a README) does not start them, and an edited
    file Biome is known to check needs no selection run. Entries are
    `CHECKED` or `NOT_CHECKED`.
    """
    configs = _Configs(cache, root)
    return {f: _digest(base, "member", f, configs.fingerprint(engine, f)) for f in files}


CHECKED = b"+"


# Timestamps on the file systems we know tick in a few milliseconds at most;
# anything touched this close to (or after) a run's start may have changed
# under the engine, so its result is used but not stored.
SETTLE_NS = 100_000_000


def _touched_since(paths_abs: Sequence[str], since_ns: int) -> set[str]:
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
    engine: Engine,
    cache: ResultCache,
    *,
    root: Path,
    files: Sequence[str],
    options: dict[str, object],
    progress: Progress | None,
    timeout_s: float,
    state_dir: Path,
) -> EngineOutcome:
    """Run a file-local engine on the cache misses among `files`.

    `files_checked` counts the files the engine checked, from the cache or
    in this run; candidates it does not check are remembered but not counted.
    """
    run_args: dict[str, Any] = {
        "timeout_s": timeout_s,
        "state_dir": state_dir,
        "options": options,
        "progress": progress,
    }
    relevant = [f for f in files if engine.relevant(f)]
    resolved = resolve(engine, root)
    if not relevant or resolved.path is None:
        run = await run_engine(engine, root=root, files=relevant, resolved=resolved, **run_args)
        return run.outcome
    base = _digest(
        KEY_VERSION,
        engine.name,
        await engine_version(cache, resolved, engine.spec.provision, timeout_s),
        json.dumps(options, sort_keys=True),
    )
    started_ns = time.time_ns()
    issues: list[Issue] = []
    cached = 0  # files the engine checked, answered from the cache
    marks: dict[str, str] | None = None  # membership keys, taken before the run
    if not cache.has_results():
        # A new cache: every lookup would miss. Run the engine at once and
        # derive the keys afterwards, off the event loop (a separate cache
        # object: its memo is not shared across threads).
        run = await run_engine(engine, root=root, files=relevant, resolved=resolved, **run_args)
        sibling = ResultCache(cache.path.parent)
        keys = await asyncio.to_thread(_file_keys, sibling, engine, root, relevant, base)
        misses = relevant
    else:
        keys = _file_keys(cache, engine, root, relevant, base)
        found = _DECODED.lookup(cache, list(keys.values()))
        misses = [f for f in relevant if keys.get(f) not in found]
        for f in relevant:
            key = keys.get(f)
            entry = found.get(key) if key is not None else None
            if entry is not None:
                issues.extend(entry)
                cached += 1
        if misses:
            marks = _membership_keys(cache, engine, root, misses, base)
            verdicts = cache.get_many(list(marks.values()))
            unchecked = {f for f in misses if verdicts.get(marks[f]) == NOT_CHECKED}
            if unchecked:
                cache.put_many({keys[f]: NOT_CHECKED for f in unchecked if f in keys})
                misses = [f for f in misses if f not in unchecked]
            run_args["known_checked"] = {f for f in misses if verdicts.get(marks[f]) == CHECKED}
        if not misses:
            return EngineOutcome(
                engine.name,
                "ok",
                tuple(issues),
                files_checked=cached,
                cache_hits=len(relevant),
            )
        run = await run_engine(engine, root=root, files=misses, resolved=resolved, **run_args)
    outcome = run.outcome
    checked = set(misses) if run.linted is None else run.linted
    if outcome.status == "ok":
        touched = _touched_since([f"{root}/{f}" for f in misses], started_ns)
        stable = {f: k for f, k in keys.items() if f"{root}/{f}" not in touched}
        _store_per_file(cache, outcome.issues, misses, stable, checked)
        if run.linted is not None:
            if marks is None:
                marks = _membership_keys(cache, engine, root, misses, base)
            cache.put_many(
                {marks[f]: CHECKED if f in checked else NOT_CHECKED for f in misses if f in marks}
            )
    issues.extend(outcome.issues)
    return EngineOutcome(
        engine=engine.name,
        status=outcome.status,
        issues=tuple(issues),
        message=outcome.message,
        duration_ms=outcome.duration_ms,
        files_checked=cached + (outcome.files_checked if outcome.status != "ok" else len(checked)),
        cache_hits=len(relevant) - len(misses),
        cache_misses=len(misses),
    )


def _store_per_file(
    cache: ResultCache,
    issues: Sequence[Issue],
    misses: Sequence[str],
    keys: dict[str, str],
    checked: AbstractSet[str],
) -> None:
    """Store each miss's entry: its issues if the engine checked it, else "not checked"."""
    by_file: dict[str, list[Issue]] = {f: [] for f in misses if f in checked}
    for issue in issues:
        if issue.file not in by_file:
            return  # not attributable to one checked input: store nothing
        by_file[issue.file].append(issue)
    entries: dict[str, tuple[Issue, ...] | None] = {
        f: (tuple(by_file[f]) if f in by_file else None) for f in misses if f in keys
    }
    cache.put_many(
        {
            keys[f]: NOT_CHECKED if found is None else dump_issues(found)
            for f, found in entries.items()
        }
    )
    for f, found in entries.items():
        _DECODED.remember(keys[f], found)


def _tsc_configs(root: Path, config: str) -> list[str] | None:
    """The selected config, its `extends` chains and referenced configs.

    Paths are relative to `root` (a package base in node_modules, or a
    config outside the root, as `../...`). None when a config cannot be read
    or an `extends` cannot be resolved: then freshness cannot be proven from
    files and tsc always runs.
    """
    order = [config]
    index = 0
    while index < len(order):  # grows as bases and referenced projects are added
        if len(order) > paths.MAX_CONFIG_CHAIN:
            return None
        absolute = os.path.normpath(os.path.join(root, order[index]))
        index += 1
        data = paths.load_jsonc(Path(absolute))
        if not isinstance(data, dict):
            return None  # a config we cannot read could extend anything
        bases = data.get("extends")
        found: list[str] = []
        for base in [bases] if isinstance(bases, str) else bases or []:
            target = (
                resolve_extends(base, os.path.dirname(absolute)) if isinstance(base, str) else None
            )
            if target is None:
                return None
            found.append(target)
        found += [target for target, _ in references(absolute)]
        order += [r for r in (os.path.relpath(f, root) for f in found) if r not in order]
    return order


def _absolute_digests(cache: ResultCache, files: Sequence[str]) -> dict[str, str]:
    relative = [f.lstrip("/") for f in files]
    found = cache.digests(Path("/"), relative)
    return {"/" + f: d for f, d in found.items()}


class _ProgramRecord:
    """What one tsc run saw: its inputs with content hashes, and its issues.

    Issues loaded from the database are decoded only when asked for, i.e.
    only once the record has been proven fresh.
    """

    __slots__ = ("_issues", "_raw", "inputs", "outside")

    def __init__(
        self,
        inputs: dict[str, str],
        outside: list[str],
        issues: tuple[Issue, ...] | None = None,
        raw: str | None = None,
    ) -> None:
        self.inputs = inputs  # absolute path -> content hash
        self.outside = outside  # candidate project files that were not inputs
        self._issues = issues
        self._raw = raw

    @property
    def issues(self) -> tuple[Issue, ...]:
        if self._issues is None:
            self._issues = tuple(load_issues((self._raw or "[]").encode()))
            self._raw = None
        return self._issues

    def dump(self) -> bytes:
        record = {"inputs": self.inputs, "outside": self.outside}
        record["issues"] = dump_issues(self.issues).decode()
        return json.dumps(record).encode()

    @classmethod
    def load(cls, blob: bytes) -> _ProgramRecord:
        record = json.loads(blob)
        return cls(inputs=record["inputs"], outside=record["outside"], raw=record["issues"])


# The last program record per key seen by this process: a server re-checking
# an unchanged program neither queries nor decodes it again. Freshness is
# still proven against the files every time.
_PROGRAMS: dict[str, _ProgramRecord] = {}


_pending: set[asyncio.Future[None]] = set()


async def _in_background(work: Callable[[], None]) -> None:
    """Start `work` in a worker thread without waiting for it."""
    future = asyncio.ensure_future(asyncio.to_thread(work))
    _pending.add(future)
    future.add_done_callback(_pending.discard)


def _remember_program(key: str, record: _ProgramRecord) -> None:
    if key not in _PROGRAMS and len(_PROGRAMS) >= 16:
        _PROGRAMS.clear()  # configs changed many times: start over, it is only a memo
    _PROGRAMS[key] = record


def _program_records(cache: ResultCache, key: str) -> Iterator[_ProgramRecord]:
    remembered = _PROGRAMS.get(key)
    if remembered is not None:
        yield remembered
    blob = cache.get_many([key]).get(key)
    if blob is not None:
        yield _ProgramRecord.load(blob)


def _project_inputs_key(plan: BuildPlan, config: str) -> str:
    return _digest(KEY_VERSION, "tsc-project-inputs", plan.base, config)


@dataclass(frozen=True, slots=True)
class _Program:
    """The inputs of one tsc run, and what it failed to cover."""

    inputs: list[str]  # absolute, each once
    gap: str | None = None
    # Build info of up-to-date projects whose inputs are unknown or changed:
    # removed, then tsc runs again and rebuilds those projects.
    distrusted: tuple[str, ...] = ()
    built: dict[str, bytes] = field(default_factory=dict)  # per-project inputs to store


def _build_program(
    plan: BuildPlan,
    stdout: str,
    cache: ResultCache | None,
    root: Path,
    changed: frozenset[str] = frozenset(),
) -> _Program:
    """The union of a build's inputs over every project of the graph.

    An up-to-date project printed no inputs: they are the ones recorded
    when it was last built. tsc decides "up to date" from modification
    times; a project with an input whose content we saw change (`changed`)
    after its build info was written (by change time, which no tool can set
    back, unlike the modification time npm gives extracted packages) is not
    trusted.
    """
    report = read_report(plan, stdout)
    union = dict.fromkeys(f for listed in report.inputs.values() for f in listed)
    distrusted: list[str] = []
    if report.up_to_date:
        keys = {c: _project_inputs_key(plan, c) for c in report.up_to_date}
        stored = cache.get_many(list(keys.values())) if cache is not None else {}
        for config, key in keys.items():
            project = plan.project(config)
            buildinfo = project.buildinfo if project is not None else ""
            listed = json.loads(stored[key]) if key in stored else None
            if listed is None or _changed_since(changed.intersection(listed), buildinfo):
                distrusted.append(buildinfo)
                continue
            union.update(dict.fromkeys(listed))
    if distrusted:
        return _Program(list(union), distrusted=tuple(distrusted))
    built = {
        _project_inputs_key(plan, c): json.dumps(listed).encode()
        for c, listed in report.inputs.items()
    }
    gap = None
    if report.missed:
        names = ", ".join(os.path.relpath(c, root) for c in report.missed)
        said = next(iter(report.reasons.values()), "")
        gap = (
            f"tsc did not type-check {len(report.missed)} project(s) of the reference graph: "
            f"{names}" + (f"; tsc said: {said}" if said else "")
        )
    return _Program(list(union), gap, built=built)


def _changed_since(files: set[str] | frozenset[str], buildinfo: str) -> bool:
    """Whether any of `files` changed (by ctime) after `buildinfo` was written."""
    if not files:
        return False
    try:
        built = os.stat(buildinfo).st_mtime_ns
    except OSError:
        return True
    for path in files:
        try:
            if os.stat(path).st_ctime_ns >= built:
                return True
        except OSError:
            return True
    return False


def _files_checked(root: Path, inputs: Sequence[str], in_scope: Callable[[str], bool]) -> int:
    """Program inputs that are project files (not node_modules, not the standard
    library, not our state) inside the check's scope."""
    prefix = f"{root}/"
    count = 0
    for path in inputs:
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix) :]
        if not paths.in_node_modules(rel) and not rel.startswith(".signalint/") and in_scope(rel):
            count += 1
    return count


# A cold directory older than this belongs to a run that was killed before
# it could remove it (no tsc deadline comes close).
_ABANDONED_S = 6 * 3600


def _remove_abandoned_cold_dirs(directory: Path) -> None:
    cutoff = time.time() - _ABANDONED_S
    for entry in directory.glob("cold-*"):
        with contextlib.suppress(OSError):
            if entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)


async def run_tsc(
    engine: Engine,
    cache: ResultCache | None,
    *,
    root: Path,
    project_files: Callable[[], list[str]],
    options: dict[str, object],
    target: str,
    progress: Progress | None,
    timeout_s: float,
    state_dir: Path,
    in_scope: Callable[[str], bool] = lambda _: True,
) -> EngineOutcome:
    """Reuse the last TypeScript result while its program is unchanged.

    Without a cache the run is really cold: tsc gets a fresh directory for
    its build info and outputs, removed afterwards. A build-mode run that did
    not check every project of the reference graph returns `error` with a
    `coverage_gap` (and the issues it found), and is not stored.
    `files_checked` counts program inputs inside the scope (`in_scope`).
    """
    common = (engine, cache, root, project_files, options, target, progress, timeout_s)
    if cache is not None:
        return await _run_tsc(*common, state_dir, in_scope)
    (state_dir / "tsc").mkdir(parents=True, exist_ok=True)
    _remove_abandoned_cold_dirs(state_dir / "tsc")
    cold = Path(tempfile.mkdtemp(prefix="cold-", dir=state_dir / "tsc"))
    try:
        return await _run_tsc(*common, cold, in_scope)
    finally:
        # Off the answer's path; asyncio.run waits for it before exiting.
        await _in_background(lambda: shutil.rmtree(cold, ignore_errors=True))


async def _run_tsc(
    engine: Engine,
    cache: ResultCache | None,
    root: Path,
    project_files: Callable[[], list[str]],
    options: dict[str, object],
    target: str,
    progress: Progress | None,
    timeout_s: float,
    state_dir: Path,
    in_scope: Callable[[str], bool],
) -> EngineOutcome:
    run_args: dict[str, Any] = {"timeout_s": timeout_s, "state_dir": state_dir}
    resolved = resolve(engine, root)
    record_key = None
    plan = None
    config = None
    if resolved.path is not None:
        try:
            config = select_config(root, target)
        except EngineConfigError:
            config = None
        if config is not None and has_references(root, config):
            plan = plan_build(root, config, state_dir, typescript_major(resolved.path))
        chain = _tsc_configs(root, config) if config and cache is not None else None
        if chain is not None and cache is not None:
            chain_digests = cache.digests(root, chain)
            record_key = _digest(
                KEY_VERSION,
                "tsc-program-2",
                # Records hold absolute inputs: two projects with equal configs
                # (or a shared state dir) must never share one.
                str(root),
                await engine_version(cache, resolved, engine.spec.provision, timeout_s),
                config,
                json.dumps(options, sort_keys=True),
                *(f"{c}={chain_digests.get(c, '-')}" for c in chain),
            )
    prefix = f"{root}/"
    changed: frozenset[str] = frozenset()  # inputs whose content changed since the record
    if record_key is not None and cache is not None:
        candidates = sorted(f for f in project_files() if engine.relevant(f))
        for record in _program_records(cache, record_key):
            outside = [f for f in candidates if prefix + f not in record.inputs]
            now = _absolute_digests(cache, list(record.inputs))
            if outside != record.outside or now != dict(record.inputs):
                changed = frozenset(f for f, d in record.inputs.items() if now.get(f) != d)
            else:
                _remember_program(record_key, record)
                return EngineOutcome(
                    engine.name,
                    "ok",
                    record.issues,
                    files_checked=_files_checked(root, list(record.inputs), in_scope),
                    cache_hits=1,
                )
    started_ns = time.time_ns()

    async def run_once() -> EngineRun:
        return await run_engine(
            engine,
            root=root,
            files=[],
            options=options,
            target=target,
            progress=progress,
            resolved=resolved,
            **run_args,
        )

    run = await run_once()
    outcome = run.outcome
    program = _Program([])
    if outcome.status == "ok" and run.results:
        stdout = run.results[-1].stdout
        if plan is None:
            program = _Program(list(dict.fromkeys(program_files(stdout))))
        else:
            program = _build_program(plan, stdout, cache, root, changed)
            if program.distrusted:
                for buildinfo in program.distrusted:
                    with contextlib.suppress(OSError):
                        os.remove(buildinfo)
                run = await run_once()
                outcome = run.outcome
                program = _Program([])
                if outcome.status == "ok" and run.results:
                    program = _build_program(plan, run.results[-1].stdout, cache, root)
    if cache is not None and program.built:
        # Off the answer's path, like the program record below.
        built = program.built
        await _in_background(lambda: cache.put_many(built))
    status = outcome.status
    message = outcome.message
    if program.gap is not None or program.distrusted:
        gap = program.gap or "tsc reported projects up to date whose inputs are unknown"
        status, message = "error", gap
    else:
        gap = None
    if record_key is not None and cache is not None and status == "ok" and program.inputs:
        listed = program.inputs
        inputs = _absolute_digests(cache, listed)
        if len(inputs) == len(listed) and not _touched_since(listed, started_ns):
            candidates = sorted(f for f in project_files() if engine.relevant(f))
            fresh = _ProgramRecord(
                inputs=inputs,
                outside=[f for f in candidates if prefix + f not in inputs],
                issues=outcome.issues,
            )
            _remember_program(record_key, fresh)
            # Serializing thousands of issues is off the answer's path: this
            # process already remembers the record, and asyncio.run waits for
            # worker threads before a CLI process exits.
            key = record_key
            await _in_background(lambda: cache.put_many({key: fresh.dump()}))
    return EngineOutcome(
        engine=outcome.engine,
        status=status,
        issues=outcome.issues,
        message=message,
        duration_ms=outcome.duration_ms,
        files_checked=_files_checked(root, program.inputs, in_scope),
        cache_misses=1 if cache is not None else 0,
        coverage_gap=gap,
    )

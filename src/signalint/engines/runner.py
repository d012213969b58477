"""The shared engine runner: resolve -> probe -> (select) -> command(s) -> parse.

Every engine goes through here, so failure handling is uniform: a missing
executable is `disabled` with the install command, a timeout, an output
overflow, a crash or unparseable output is `error` with a short excerpt, and
none of that affects the other engines of the check.

Linters whose file set comes from their own configuration (ESLint, Biome)
are given every candidate file (`Engine.relevant` is only a coarse filter)
and say which of them they really checked: either from the lint run itself
(`ReportsLinted`: ESLint lists one result per linted file) or from a cheap
selection run before it (`SelectsFiles`: Biome). Only those files count as
checked.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from signalint import process
from signalint.engines.base import (
    Engine,
    EngineConfigError,
    EngineContext,
    EngineOutputError,
    Memory,
    Program,
    ReportsLinted,
    Reruns,
    SelectsFiles,
    WholeProgram,
)
from signalint.engines.resolve import Resolved, install_hint, project_python, resolve
from signalint.model import (
    EngineOutcome,
    Failure,
    FailureKind,
    Issue,
    IssueMemo,
    Served,
    served_all,
)
from signalint.process import Command
from signalint.project.outside import Boundary
from signalint.settings.homes import timeout_setting

EXCERPT_CHARS = 300
# Leave room for the environment and the engine's fixed arguments; a single
# batch never needs to approach the kernel's limit to be efficient.
_ARGV_BUDGET = min(os.sysconf("SC_ARG_MAX") // 2, 1 << 20) if hasattr(os, "sysconf") else 30000


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short, single-line sample of engine output for error messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def batches(
    files: Sequence[str], fixed: Sequence[str], budget: int | None = None
) -> list[list[str]]:
    """Split `files` so each command line (fixed args + batch) fits `budget` bytes."""
    budget = budget or _ARGV_BUDGET
    base = sum(len(a.encode()) + 1 for a in fixed) + sum(
        len(k) + len(v) + 2 for k, v in os.environ.items()
    )
    room = max(budget - base, 4096)
    out: list[list[str]] = []
    current: list[str] = []
    used = 0
    for name in files:
        size = len(name.encode()) + 1
        if current and used + size > room:
            out.append(current)
            current, used = [], 0
        current.append(name)
        used += size
    if current:
        out.append(current)
    return out


def _failure(
    engine: Engine, result: process.ProcessResult, command: Command, root: Path
) -> tuple[str, Failure] | None:
    """Why a run cannot be trusted (message and typed failure), or None when
    its output may be parsed."""
    if result.timed_out:
        setting = timeout_setting(root, engine.name)
        message = f"{engine.name} timed out after {command.timeout_s:g} s; raise {setting}"
        return message, Failure("timeout", setting)
    if result.output_limited:
        limit_mib = process.DEFAULT_OUTPUT_LIMIT // (1024 * 1024)
        message = f"{engine.name} produced more than {limit_mib} MiB of output and was stopped"
        return message, Failure("output_limit")
    if result.start_error:
        return f"{engine.name} could not be started: {result.start_error}", Failure("crashed")
    code = result.exit_code
    if code is not None and code < 0:
        return f"{engine.name} was killed by signal {-code}", Failure("crashed")
    return None


Progress = Callable[[str, str], None]


class WarmAnswer(Protocol):
    """A warm pool's answer (`warm.pool.WarmAnswer`): the result, or None
    when the cold path must run."""

    @property
    def result(self) -> process.ProcessResult | None: ...

    @property
    def served(self) -> Literal["warm", "fallback"]: ...

    @property
    def scoped(self) -> frozenset[str] | None: ...

    @property
    def unread(self) -> Callable[[], None] | None: ...


class Warm(Protocol):
    """Where an engine's command may be answered by a kept-warm worker
    (`warm.pool.WarmPool`); None from `answer`: it is not served warm."""

    async def answer(
        self,
        engine: str,
        ctx: EngineContext,
        command: Command,
        *,
        live: bool = False,
        only: frozenset[str] | None = None,
    ) -> WarmAnswer | None: ...


@dataclass(frozen=True, slots=True, repr=False)
class EngineRun:
    """An engine's outcome plus the raw results it was parsed from.

    `results` lets the caller read what the adapter does not turn into
    issues (tsc's `--listFiles` program inputs); empty when nothing ran.
    """

    outcome: EngineOutcome
    results: tuple[process.ProcessResult, ...] = ()
    # The files the engine really checked; None when it does not say (every
    # file it was given counts then).
    linted: frozenset[str] | None = None
    # A whole-program run answered for these files alone (`run_engine`'s
    # `only`); None: for its whole program.
    scoped: frozenset[str] | None = None
    # A live run's warm answers taken back from the pool's counts when the
    # caller does not use the run (`run_live`).
    unread: tuple[Callable[[], None], ...] = ()

    def by_file(self, files: Sequence[str]) -> dict[str, tuple[Issue, ...] | None] | None:
        """Each of `files` (what the run was given) with its issues, None for
        a file the engine did not check; None when some issue is not in a
        checked one of them (it cannot be attributed to one input)."""
        checked = set(files) if self.linted is None else self.linted
        found: dict[str, list[Issue]] = {f: [] for f in files if f in checked}
        for issue in self.outcome.issues:
            if issue.file not in found:
                return None
            found[issue.file].append(issue)
        return {f: (tuple(found[f]) if f in found else None) for f in files}


@dataclass(frozen=True, slots=True)
class Job:
    """How an engine runs in one check, whatever files it is given: where
    (`root`, `target`: the check's first target, which selects a program),
    with which `options`, for how long, with which state directory, where
    progress goes, and the check's toolchain (`resolve.Toolchain`): the
    executable (`resolved`; looked up for `root` when None) and the
    project's Python (`python`; `project_python(root)` when None), and
    its version (`resolve.engine_version`). `work_dir` is where the engine
    keeps what holds source files or links to them (`signalint.project.work_dir`: outside
    the project); None: the state directory."""

    root: Path
    options: Mapping[str, object]
    timeout_s: float
    state_dir: Path
    target: str = "."
    progress: Progress | None = None
    resolved: Resolved | None = None
    python: Path | None = None
    # The engine's version as cache keys name it and adapters read it
    # ("unknown" when it cannot be told).
    version: str = "unknown"
    # Seconds its `--version` went unanswered in this check
    # (`resolve.VersionUnanswered`): the engine hung before it was asked
    # to check and is not started again; None: it answered or was not asked.
    unanswered_s: float | None = None
    # Kept-warm workers that may answer the engine's commands (the MCP
    # server's and the daemon's pool); None: every command runs cold.
    warm: Warm | None = None
    work_dir: Path | None = None
    # The check's project edge (`project.outside`): what an engine says
    # about a file outside the root is dropped; None: one for `root`.
    boundary: Boundary | None = field(default=None, compare=False)
    # Issues a whole-program engine made before, given to its adapter
    # (`model.IssueMemo`, the process's); None: each is made anew.
    issue_memo: IssueMemo | None = field(default=None, compare=False)

    def edge(self) -> Boundary:
        """The check's `Boundary`, or a new one for `root`."""
        return self.boundary or Boundary(self.root)

    def executable(self, engine: Engine) -> Resolved:
        return self.resolved or resolve(engine, self.root)

    def interpreter(self) -> Path | None:
        return self.python or project_python(self.root)

    def context(self, executable: Path, issues: IssueMemo | None = None) -> EngineContext:
        """What the engine's adapter is given to build commands and parse output."""
        return EngineContext(
            root=self.root,
            executable=executable,
            timeout_s=self.timeout_s,
            state_dir=self.state_dir,
            work_dir=self.work_dir,
            options=dict(self.options),
            target=self.target,
            python=self.interpreter(),
            issues=issues,
            version=self.version,
            outside=tuple(sorted(self.boundary.links)) if self.boundary is not None else (),
        )


class _NotLive(Exception):
    """A live-only run (`run_live`) met a command no running worker answers."""


async def run_live(
    engine: Engine, job: Job, only: frozenset[str] | None = None
) -> EngineRun | None:
    """`run_engine` for a whole-program engine when every command it runs is
    answered by a warm worker that runs already (`Warm.answer`, `live`);
    None when one is not: then nothing was started (no process, no worker)."""
    if job.warm is None or not engine.spec.whole_program:
        return None
    quiet = dataclasses.replace(job, progress=None)  # reported once, by the run that counts
    try:
        run = await run_engine(engine, quiet, live=True, only=only)
    except _NotLive:
        return None
    if job.progress:
        job.progress(engine.name, "start")
        job.progress(engine.name, "done")
    return run


async def run_engine(
    engine: Engine,
    job: Job,
    files: Sequence[str] = (),
    *,
    known_checked: AbstractSet[str] = frozenset(),
    live: bool = False,
    only: frozenset[str] | None = None,
) -> EngineRun:
    """Run one engine as `job` says over `files` (ignored by whole-program engines).

    `known_checked` are files a `SelectsFiles` engine is already known to
    check (its selection run is skipped for them). `live`: see `run_live`.
    `only` (absolute paths): a warm worker may answer a whole-program
    engine's command for these files alone (`Warm.answer`); the run then
    says which it covered (`EngineRun.scoped`). A whole-program job's
    `issue_memo` is given to its adapter.
    """
    runs = _Runs(engine, job, [f for f in files if engine.relevant(f)], live, only)
    if not engine.spec.whole_program and not runs.relevant:
        return runs.outcome("ok")
    resolved = job.executable(engine)
    if resolved.path is None:
        return runs.outcome(
            "disabled",
            message=f"{engine.name} is enabled but not installed; install it with "
            f"`{install_hint(engine.name)}` or add {engine.spec.provision.package} to the project",
            failure=Failure("missing", install_hint(engine.name)),
        )
    if job.unanswered_s is not None:
        setting = timeout_setting(job.root, engine.name)
        return runs.outcome(
            "error",
            message=f"{engine.name} timed out after {job.unanswered_s:g} s answering "
            f"`--version` and was not started again; raise {setting}",
            failure=Failure("timeout", setting),
        )
    if job.progress:
        job.progress(engine.name, "start")
    runs.ctx = job.context(resolved.path, job.issue_memo)
    runs.executable = resolved.path
    if not engine.spec.whole_program and isinstance(engine, SelectsFiles):
        failed = await runs.select(engine, known_checked)
        if failed is not None:
            return failed
        if not runs.relevant:
            return runs.outcome("ok")
    commands = await runs.commands()
    if isinstance(commands, EngineRun):
        return commands
    return await runs.lint(commands)


class _Runs:
    """One `run_engine` call's runs of its engine: each process result, the
    files it is known to have checked, how each command was served, and the
    outcome made of them (`outcome`)."""

    def __init__(
        self,
        engine: Engine,
        job: Job,
        relevant: list[str],
        live: bool,
        only: frozenset[str] | None,
    ) -> None:
        self.engine, self.job, self.relevant = engine, job, relevant
        self.live, self.only = live, only
        self.started = time.monotonic()
        self.results: list[process.ProcessResult] = []
        self.linted: set[str] | None = None
        self.served: list[Served] = []
        self.scoped: list[frozenset[str]] = []
        self.unread: list[Callable[[], None]] = []
        self.ctx: EngineContext | None = None  # set once the executable is resolved
        self.executable: Path | None = None

    def outcome(
        self,
        status: str,
        issues: Sequence[Issue] = (),
        message: str | None = None,
        failure: Failure | None = None,
    ) -> EngineRun:
        """The run's outcome, now: what was found, how long it took, what it covered."""
        name, linted = self.engine.name, self.linted
        if self.job.progress:
            self.job.progress(name, "done")
        done = EngineOutcome(
            engine=name,
            status=status,  # type: ignore[arg-type]
            issues=tuple(issues),
            message=message,
            duration_ms=(time.monotonic() - self.started) * 1000,
            files_checked=len(self.relevant) if linted is None else len(linted),
            failure=failure,
            served=served_all(self.served),
        )
        covered = None if linted is None else frozenset(linted)
        scoped = self.scoped[0] if self.scoped else None
        return EngineRun(done, tuple(self.results), covered, scoped, tuple(self.unread))

    async def attempt(
        self, command: Command, warm: bool = False
    ) -> process.ProcessResult | EngineRun:
        """Run `command` (through a warm worker if `warm` and the job has
        one that serves it): its result when the output may be parsed,
        else the failed run."""
        engine, job, ctx = self.engine, self.job, self.ctx
        assert ctx is not None
        answer = None
        if warm and job.warm:
            answer = await job.warm.answer(
                engine.name, ctx, command, live=self.live, only=self.only
            )
        if self.live and (answer is None or answer.result is None):
            raise _NotLive  # nothing was started
        if answer is not None and answer.result is not None:
            result = answer.result
            if answer.scoped is not None:
                self.scoped.append(answer.scoped)
            if answer.unread is not None:
                self.unread.append(answer.unread)
        else:
            result = await process.run(command)
        self.served.append("cold" if answer is None else answer.served)
        self.results.append(result)
        if result.missing:
            return self.outcome(
                "disabled",
                message=f"{engine.name} executable vanished: {self.executable}",
                failure=Failure("missing", install_hint(engine.name)),
            )
        problem = _failure(engine, result, command, job.root)
        if problem:
            return self.outcome("error", message=problem[0], failure=problem[1])
        return result

    def output_error(
        self, exc: EngineOutputError, prefix: str, kind: FailureKind = "bad_output"
    ) -> EngineRun:
        sample = excerpt(exc.excerpt)
        detail = f" (output: {sample})" if sample and sample not in exc.message else ""
        message = f"{prefix}: {exc.message}{detail}"
        return self.outcome("error", message=message, failure=Failure(kind))

    async def select(
        self, engine: SelectsFiles, known_checked: AbstractSet[str]
    ) -> EngineRun | None:
        """Keep of the relevant files those the engine's own selection run
        says it checks (`known_checked` are known to be); the failed run, if
        the selection failed."""
        ctx = self.ctx
        assert ctx is not None
        fixed = engine.selection(ctx, []).argv
        chosen = {f for f in self.relevant if f in known_checked}
        for batch in batches([f for f in self.relevant if f not in chosen], fixed):
            selection = await self.attempt(engine.selection(ctx, batch))
            if isinstance(selection, EngineRun):
                return selection
            try:
                chosen |= engine.selected(selection, ctx)
            except EngineOutputError as exc:
                return self.output_error(exc, f"{self.engine.name} file selection")
        self.linted = set()  # grows as the lint runs succeed
        self.relevant = [f for f in self.relevant if f in chosen]
        return None

    async def commands(self) -> list[Command] | EngineRun:
        """The engine's commands over the relevant files, in batches, after
        its probe when it has one; the failed run, if that failed."""
        engine, ctx = self.engine, self.ctx
        assert ctx is not None
        probe_result = None
        try:
            probe_command = engine.probe(ctx)
            if probe_command is not None:
                probed = await self.attempt(probe_command)
                if isinstance(probed, EngineRun):
                    return probed
                probe_result = probed
            if engine.spec.whole_program:
                return [engine.command(ctx, [], probe_result)]
            fixed = engine.command(ctx, [], probe_result).argv
            return [
                engine.command(ctx, batch, probe_result) for batch in batches(self.relevant, fixed)
            ]
        except EngineConfigError as exc:
            return self.outcome("error", message=str(exc), failure=Failure("config_error"))

    async def lint(self, commands: list[Command]) -> EngineRun:
        """Run `commands` and parse their issues: the engine's outcome."""
        engine, ctx = self.engine, self.ctx
        assert ctx is not None
        reports = not engine.spec.whole_program and isinstance(engine, ReportsLinted)
        if reports:
            self.linted = set()
        issues: list[Issue] = []
        # Cold, warm and live answers all pass here: nothing an engine says about
        # a file outside the root goes further (project.outside).
        edge = self.job.edge()
        checked: list[str] = []
        for command in commands:
            result = await self.attempt(command, warm=True)
            if isinstance(engine, Reruns) and not isinstance(result, EngineRun):
                again = engine.rerun(result, ctx, command)
                result = result if again is None else await self.attempt(again)
            if isinstance(result, EngineRun):
                return result
            abnormal = result.exit_code not in command.ok_exit_codes
            prefix = (
                f"{engine.name} exited with code {result.exit_code}" if abnormal else engine.name
            )
            try:
                parsed = engine.parse(result, ctx)
                if reports and isinstance(engine, ReportsLinted):
                    checked.extend(f for f in engine.linted(result, ctx) if not edge.outside(f))
            except EngineOutputError as exc:
                # Unreadable output after an abnormal exit: the exit is the failure.
                return self.output_error(exc, prefix, "crashed" if abnormal else "bad_output")
            if abnormal:
                said = first_line(result.stderr) or first_line(result.stdout)
                message = prefix + (f": {excerpt(said)}" if said else "")
                return self.outcome("error", message=message, failure=Failure("crashed"))
            outside = {f for f in {i.file for i in parsed} if edge.outside(f)}
            issues.extend([i for i in parsed if i.file not in outside] if outside else parsed)
        if self.linted is not None:
            self.linted.update(checked if reports else self.relevant)
        return self.outcome("ok", issues)


async def run_program(
    engine: Engine,
    job: Job,
    memory: Memory | None,
    changed: frozenset[str],
    first: EngineRun | None = None,
    only: frozenset[str] | None = None,
) -> tuple[EngineRun, Program]:
    """Run a whole-program engine and read its program (`WholeProgram.program`);
    twice at most, when the engine asks to retry. `changed` are inputs whose
    content changed since its last recorded run; `memory` what the engine
    may read of its own earlier values; `first` the first run when it was
    made already (`run_live`). `only`: see `run_engine`; a run scoped to
    some files has no program read (it is no record of the whole)."""
    resolved = job.executable(engine)
    job = dataclasses.replace(job, resolved=resolved)
    program = Program(())
    learned: dict[str, bytes] = {}  # what the first run remembered, read by the second
    for attempt in range(2):
        if attempt == 0 and first is not None:
            run = first
        else:
            run = await run_engine(engine, job, only=only)
        if (
            run.outcome.status != "ok"
            or not run.results
            or run.scoped is not None
            or not isinstance(engine, WholeProgram)
        ):
            return run, Program(())
        assert resolved.path is not None
        since = changed if attempt == 0 else frozenset()
        read = memory if not learned else _Learned(learned, memory)
        program = engine.program(run.results, job.context(resolved.path), read, since)
        learned = {**learned, **program.remember}
        if not program.retry:
            break
    return run, dataclasses.replace(program, remember=learned)


@dataclass(frozen=True, slots=True)
class _Learned:
    """`below` with what an earlier run of the same check remembered on top:
    a run asked to retry reads the values the first run printed."""

    values: Mapping[str, bytes]
    below: Memory | None

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        rest = [k for k in keys if k not in self.values]
        found = self.below.get_many(rest) if self.below is not None and rest else {}
        return found | {k: self.values[k] for k in keys if k in self.values}

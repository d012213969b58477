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
from signalint.config_files import timeout_setting
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
    keeps what holds source files or links to them (`signalint.work`: outside
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
    # Kept-warm workers that may answer the engine's commands (the MCP
    # server's and the daemon's pool); None: every command runs cold.
    warm: Warm | None = None
    work_dir: Path | None = None
    # The check's project edge (`project.outside`): what an engine says
    # about a file outside the root is dropped; None: one for `root`.
    boundary: Boundary | None = field(default=None, compare=False)

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
    engine: Engine,
    job: Job,
    issue_memo: IssueMemo | None = None,
    only: frozenset[str] | None = None,
) -> EngineRun | None:
    """`run_engine` for a whole-program engine when every command it runs is
    answered by a warm worker that runs already (`Warm.answer`, `live`);
    None when one is not: then nothing was started (no process, no worker)."""
    if job.warm is None or not engine.spec.whole_program:
        return None
    quiet = dataclasses.replace(job, progress=None)  # reported once, by the run that counts
    try:
        run = await run_engine(engine, quiet, issue_memo=issue_memo, live=True, only=only)
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
    issue_memo: IssueMemo | None = None,
    live: bool = False,
    only: frozenset[str] | None = None,
) -> EngineRun:
    """Run one engine as `job` says over `files` (ignored by whole-program engines).

    `known_checked` are files a `SelectsFiles` engine is already known to
    check (its selection run is skipped for them). `live`: see `run_live`.
    `only` (absolute paths): a warm worker may answer a whole-program
    engine's command for these files alone (`Warm.answer`); the run then
    says which it covered (`EngineRun.scoped`).
    """
    started = time.monotonic()
    relevant = [f for f in files if engine.relevant(f)]
    results: list[process.ProcessResult] = []
    linted: set[str] | None = None
    served: list[Served] = []
    scoped: list[frozenset[str]] = []
    unread: list[Callable[[], None]] = []

    def outcome(
        status: str,
        issues: Sequence[Issue] = (),
        message: str | None = None,
        failure: Failure | None = None,
    ) -> EngineRun:
        if job.progress:
            job.progress(engine.name, "done")
        done = EngineOutcome(
            engine=engine.name,
            status=status,  # type: ignore[arg-type]
            issues=tuple(issues),
            message=message,
            duration_ms=(time.monotonic() - started) * 1000,
            files_checked=len(relevant) if linted is None else len(linted),
            failure=failure,
            served=served_all(served),
        )
        covered = None if linted is None else frozenset(linted)
        return EngineRun(
            done, tuple(results), covered, scoped[0] if scoped else None, tuple(unread)
        )

    if not engine.spec.whole_program and not relevant:
        return outcome("ok")
    resolved = job.executable(engine)
    missing = Failure("missing", install_hint(engine.name))
    if resolved.path is None:
        return outcome(
            "disabled",
            message=f"{engine.name} is enabled but not installed; install it with "
            f"`{install_hint(engine.name)}` or add {engine.spec.provision.package} to the project",
            failure=missing,
        )
    if job.progress:
        job.progress(engine.name, "start")
    ctx = job.context(resolved.path, issue_memo)
    root = job.root

    async def attempt(command: Command, warm: bool = False) -> process.ProcessResult | EngineRun:
        """Run `command` (through a warm worker if `warm` and the job has
        one that serves it): its result when the output may be parsed,
        else the failed run."""
        answer = None
        if warm and job.warm:
            answer = await job.warm.answer(engine.name, ctx, command, live=live, only=only)
        if live and (answer is None or answer.result is None):
            raise _NotLive  # nothing was started
        if answer is not None and answer.result is not None:
            result = answer.result
            if answer.scoped is not None:
                scoped.append(answer.scoped)
            if answer.unread is not None:
                unread.append(answer.unread)
        else:
            result = await process.run(command)
        served.append("cold" if answer is None else answer.served)
        results.append(result)
        if result.missing:
            return outcome(
                "disabled",
                message=f"{engine.name} executable vanished: {resolved.path}",
                failure=missing,
            )
        problem = _failure(engine, result, command, root)
        if problem:
            return outcome("error", message=problem[0], failure=problem[1])
        return result

    def output_error(
        exc: EngineOutputError, prefix: str, kind: FailureKind = "bad_output"
    ) -> EngineRun:
        sample = excerpt(exc.excerpt)
        detail = f" (output: {sample})" if sample and sample not in exc.message else ""
        return outcome("error", message=f"{prefix}: {exc.message}{detail}", failure=Failure(kind))

    if not engine.spec.whole_program and isinstance(engine, SelectsFiles):
        fixed = engine.selection(ctx, []).argv
        chosen = {f for f in relevant if f in known_checked}
        for batch in batches([f for f in relevant if f not in chosen], fixed):
            selection = await attempt(engine.selection(ctx, batch))
            if isinstance(selection, EngineRun):
                return selection
            try:
                chosen |= engine.selected(selection, ctx)
            except EngineOutputError as exc:
                return output_error(exc, f"{engine.name} file selection")
        linted = set()  # grows as the lint runs succeed
        relevant = [f for f in relevant if f in chosen]
        if not relevant:
            return outcome("ok")
    probe_result = None
    try:
        probe_command = engine.probe(ctx)
        if probe_command is not None:
            probed = await attempt(probe_command)
            if isinstance(probed, EngineRun):
                return probed
            probe_result = probed
        if engine.spec.whole_program:
            commands = [engine.command(ctx, [], probe_result)]
        else:
            fixed = engine.command(ctx, [], probe_result).argv
            commands = [
                engine.command(ctx, batch, probe_result) for batch in batches(relevant, fixed)
            ]
    except EngineConfigError as exc:
        return outcome("error", message=str(exc), failure=Failure("config_error"))

    reports = not engine.spec.whole_program and isinstance(engine, ReportsLinted)
    if reports:
        linted = set()
    issues: list[Issue] = []
    # Cold, warm and live answers all pass here: nothing an engine says about
    # a file outside the root goes further (project.outside).
    edge = job.edge()
    checked: list[str] = []
    for command in commands:
        result = await attempt(command, warm=True)
        if isinstance(engine, Reruns) and not isinstance(result, EngineRun):
            again = engine.rerun(result, ctx, command)
            result = result if again is None else await attempt(again)
        if isinstance(result, EngineRun):
            return result
        abnormal = result.exit_code not in command.ok_exit_codes
        prefix = f"{engine.name} exited with code {result.exit_code}" if abnormal else engine.name
        try:
            parsed = engine.parse(result, ctx)
            if reports and isinstance(engine, ReportsLinted):
                checked.extend(f for f in engine.linted(result, ctx) if not edge.outside(f))
        except EngineOutputError as exc:
            # Unreadable output after an abnormal exit: the exit is the failure.
            return output_error(exc, prefix, "crashed" if abnormal else "bad_output")
        if abnormal:
            said = first_line(result.stderr) or first_line(result.stdout)
            message = prefix + (f": {excerpt(said)}" if said else "")
            return outcome("error", message=message, failure=Failure("crashed"))
        outside = {f for f in {i.file for i in parsed} if edge.outside(f)}
        issues.extend([i for i in parsed if i.file not in outside] if outside else parsed)
    if linted is not None:
        linted.update(checked if reports else relevant)
    return outcome("ok", issues)


async def run_program(
    engine: Engine,
    job: Job,
    memory: Memory | None,
    changed: frozenset[str],
    issue_memo: IssueMemo | None = None,
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
    for attempt in range(2):
        if attempt == 0 and first is not None:
            run = first
        else:
            run = await run_engine(engine, job, issue_memo=issue_memo, only=only)
        if (
            run.outcome.status != "ok"
            or not run.results
            or run.scoped is not None
            or not isinstance(engine, WholeProgram)
        ):
            return run, Program(())
        assert resolved.path is not None
        since = changed if attempt == 0 else frozenset()
        program = engine.program(run.results, job.context(resolved.path), memory, since)
        if not program.retry:
            return run, program
    return run, program

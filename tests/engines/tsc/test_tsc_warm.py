"""tsc kept warm (signalint.engines.tsc.warm) answers exactly what cold tsc does (D23).

A small strict TypeScript project gets the project's own TypeScript 5 or 6
(`tests/typescripts.py`); checks go through `run_check` with a real
`WarmPool` in the `Context`, one event loop per scenario (the pool's pipes
belong to it). After every step of an edit sequence (an exported type
changed so dependents break, a file added or deleted, an export renamed,
the tsconfig edited, a file edited behind the worker's back with its old
modification time put back) the warm check's issues, coverage and checked
files equal a cold run's (`run_program` without the pool after every step,
a `use_cache=False` check at the end), and so do the engine's program
inputs. Build mode runs the same on `tests/fixtures/tsc-references`.
Also: a killed worker is restarted, garbage falls back to cold, only a
module resolution changing is seen (a file added, a package installed,
retyped or relinked), TypeScript 7 stays cold.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from signalint.cache.context import Context
from signalint.cache.local_store import ResultCache
from signalint.engines.base import Program
from signalint.engines.resolve import resolve
from signalint.engines.runner import EngineRun, Job, run_program
from signalint.engines.tsc.adapter import ENGINE as TSC
from signalint.engines.tsc.warm import TscDriver, TscSession, _stdout
from signalint.model import CheckResult, EngineOutcome, Scope
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.process import Command, ProcessResult
from signalint.project import work_dir as work
from signalint.settings.config import load_config, state_dir
from signalint.warm.driver import WorkerFailed, exchange
from signalint.warm.pool import WarmPool
from tests.typescripts import install_typescript, typescript


@dataclass
class Project:
    """The generated project: module texts by path, and the config's options."""

    root: Path
    size: str = "number"  # the type of `Shape.size`
    area: str = "area"  # the name geometry.ts exports
    extras: list[int] = field(default_factory=list)
    unused_locals: bool = False

    def write(self) -> None:
        src = self.root / "src"
        src.mkdir(parents=True, exist_ok=True)
        options = {"strict": True, "target": "es2022", "module": "esnext"}
        options |= {"moduleResolution": "bundler", "noUnusedLocals": self.unused_locals}
        config = {"compilerOptions": options, "include": ["src"]}
        text = json.dumps(config, indent=2) + "\n"
        if (self.root / "tsconfig.json").exists() is False or (
            self.root / "tsconfig.json"
        ).read_text() != text:
            (self.root / "tsconfig.json").write_text(text)
        files = {
            "types.ts": f"export type Shape = {{ size: {self.size}; name: string }};\n",
            "geometry.ts": (
                'import type { Shape } from "./types";\n'
                f"export function {self.area}(s: Shape): number {{\n"
                "  const scale = 2;\n"
                "  return s.size * 2;\n"
                "}\n"
            ),
            "main.ts": (
                'import { area } from "./geometry";\n'
                'import type { Shape } from "./types";\n'
                'const shape: Shape = { size: 3, name: "sq" };\n'
                "export const total: number = area(shape);\n"
            ),
        }
        for number in self.extras:
            files[f"extra{number}.ts"] = (
                'import type { Shape } from "./types";\n'
                f'export const e{number}: Shape = {{ size: {number}, name: "e" }};\n'
                f"export const bad{number}: string = {number};\n"
            )
        wanted = {src / name: text for name, text in files.items()}
        for path in src.glob("*.ts"):
            if path not in wanted:
                path.unlink()
        for path, text in wanted.items():
            if not path.exists() or path.read_text() != text:
                path.write_text(text)


def make_project(base: Path, major: int) -> Project:
    root = base / "repo"
    root.mkdir()
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True, "biome": False, "eslint": False}})
    )
    install_typescript(root, major)
    project = Project(root)
    project.write()
    return project


def pool_for(root: Path, drivers: dict[str, TscDriver] | None = None) -> WarmPool:
    return WarmPool(1 << 32, state_dir(root) / "warm", drivers)


def warm_project(base: Path, major: int = 5) -> tuple[Project, WarmPool, Context]:
    """The generated project on TypeScript `major`, and a context keeping its tsc warm."""
    typescript(major)
    project = make_project(base, major)
    pool = pool_for(project.root)
    return project, pool, Context(warm=pool)


async def check(
    root: Path, context: Context, *, use_cache: bool, files: tuple[str, ...] = ()
) -> CheckResult:
    """A check of the project, or of `files` alone (as the CLI's `check
    FILE` asks: a warm tsc may answer for them alone)."""
    scope = Scope(files) if files else Scope()
    config = load_config(root)
    request = RunRequest(root, config, scope, use_cache=use_cache, files_only=bool(files))
    return (await run_check(request, context)).result


async def assert_scoped_equals_cold(root: Path, context: Context, file: str) -> CheckResult:
    """A warm check of `file` alone answers for it alone (`scoped`; unless
    nothing changed since the program's record, which answers), with what
    a cold check of it reports."""
    warm = await check(root, context, use_cache=True, files=(file,))
    cold = await check(root, Context(), use_cache=False, files=(file,))
    outcome = warm.outcomes["tsc"]
    if outcome.cache_hits:
        assert outcome.served is None and not outcome.scoped
    else:
        assert outcome.served == "warm" and outcome.scoped and outcome.files_checked == 1
    assert not cold.outcomes["tsc"].scoped
    assert reading(warm) == reading(cold)
    return warm


def issues_of(result: CheckResult | EngineOutcome) -> Counter[tuple[object, ...]]:
    """The tsc issues of a check or an engine run, as a multiset."""
    return Counter(
        (i.file, i.line, i.col, i.rule, i.severity, i.message)
        for i in result.issues
        if i.engine == "tsc"
    )


def reading(result: CheckResult) -> tuple[object, ...]:
    """What a check says about tsc, for comparison: its issues as a multiset,
    its status, coverage gap and checked file count."""
    outcome = result.outcomes["tsc"]
    return issues_of(result), outcome.status, outcome.coverage_gap, outcome.files_checked


class Remembered:
    """What the engine asked to remember (`Program.remember`), as the program
    cache's store would keep it: build mode reads the inputs of a project tsc
    found up to date from it."""

    def __init__(self) -> None:
        self.values: dict[str, bytes] = {}

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        return {k: self.values[k] for k in keys if k in self.values}


async def program_of(
    root: Path, pool: WarmPool | None, memory: Remembered | None = None
) -> tuple[EngineRun, Program]:
    """tsc run as the program cache runs it (warm when given a pool)."""
    # The cold run keeps its build info apart: one written beside the
    # worker's would make it start its program afresh on the next ask.
    job = Job(
        root=root,
        options={},
        timeout_s=180,
        state_dir=state_dir(root) if pool is not None else state_dir(root) / "cold",
        # The warm side's wrappers where a check keeps them (the worker's
        # key names them); the cold side's apart, with its state.
        work_dir=work.for_project(root) if pool is not None else None,
        warm=pool,
        resolved=resolve(TSC, root),
    )
    # Every source (and every input remembered, deleted ones too) may have
    # changed: a project tsc -b finds up to date is trusted only when none of
    # its inputs changed after its build info was written.
    sources = {
        str(p)
        for p in root.rglob("*.ts")
        if "node_modules" not in p.parts and ".signalint" not in p.parts
    }
    for listed in memory.values.values() if memory is not None else ():
        sources.update(json.loads(listed))
    run, program = await run_program(TSC, job, memory, frozenset(sources))
    if memory is not None:
        memory.values.update(program.remember)
    return run, program


def program_reading(run: EngineRun, program: Program) -> tuple[object, ...]:
    return Counter(program.inputs), program.gap, run.outcome.status


async def assert_warm_equals_cold(
    root: Path, context: Context, memory: Remembered | None = None
) -> CheckResult:
    """The same content checked warm and run cold: equal issues, coverage
    and program inputs.

    The warm side is a whole check through the pool (`run_check`) and the
    engine's run through it (`run_program`); the cold side is the engine
    run cold (one cold tsc per step: it takes seconds on a busy machine).
    The check-level cold comparison (`use_cache=False`) ends each scenario.
    """
    warm = await check(root, context, use_cache=True)
    pool = context.warm
    assert pool is not None
    # One store for both, as the program cache has: what the warm run
    # remembered serves the cold run's up-to-date projects.
    warm_run, warm_program = await program_of(root, pool, memory)
    cold_run, cold_program = await program_of(root, None, memory)
    assert warm_run.outcome.served == "warm"
    assert cold_run.outcome.served == "cold"
    only_warm = set(warm_program.inputs) - set(cold_program.inputs)
    only_cold = set(cold_program.inputs) - set(warm_program.inputs)
    assert program_reading(warm_run, warm_program) == program_reading(cold_run, cold_program), (
        only_warm,
        only_cold,
    )
    assert warm_program.inputs  # --listFiles was read
    assert issues_of(warm) == issues_of(cold_run.outcome)
    assert issues_of(warm_run.outcome) == issues_of(cold_run.outcome)
    assert warm.outcomes["tsc"].coverage_gap == cold_program.gap
    return warm


async def assert_check_equals_cold(root: Path, context: Context) -> None:
    """A warm check and a cold `use_cache=False` check: the same reading."""
    warm = await check(root, context, use_cache=True)
    cold = await check(root, Context(), use_cache=False)
    assert reading(warm) == reading(cold)


def touch_back(path: Path, edit: Callable[[], object]) -> None:
    """Make `edit` to `path` and put its old modification time back."""
    before = path.stat()
    edit()
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def types_package(root: Path, name: str, declaration: str) -> None:
    package = root / "node_modules" / "@types" / name
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": f"@types/{name}", "types": "index.d.ts"})
    )
    (package / "index.d.ts").write_text(declaration)


STEPS = st.sampled_from(
    ["retype", "add", "delete", "rename", "config", "behind", "break-import", "types", "nothing"]
)


def apply(project: Project, step: str) -> None:
    if step == "retype":
        project.size = "string" if project.size == "number" else "number"
    elif step == "add":
        project.extras.append(max(project.extras, default=0) + 1)
    elif step == "delete" and project.extras:
        project.extras.pop(0)
    elif step == "rename":
        project.area = "areaOf" if project.area == "area" else "area"
    elif step == "config":
        project.unused_locals = not project.unused_locals
    elif step == "types":
        # A package of node_modules/@types installed or removed behind the
        # worker: TypeScript 5 makes each one an entry point of the program.
        package = project.root / "node_modules" / "@types" / "extra"
        if package.exists():
            shutil.rmtree(package)
        else:
            types_package(project.root, "extra", "declare const EXTRA: number;\n")
        return
    elif step == "break-import":
        # Deleting a module others import: they break.
        (project.root / "src" / "types.ts").unlink()
        return
    elif step == "behind":
        types = project.root / "src" / "types.ts"
        project.size = "string" if project.size == "number" else "number"
        if types.exists():
            text = f"export type Shape = {{ size: {project.size}; name: string }};\n"
            touch_back(types, lambda: types.write_text(text))
            return
    project.write()


def run(scenario: Callable[[], Coroutine[object, object, None]]) -> None:
    asyncio.run(scenario())


@pytest.mark.real
@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEPS, min_size=2, max_size=4))
@example(steps=["types", "retype", "types"])
def test_warm_tsc_equals_cold_after_every_edit(settled_inputs: None, steps: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="signalint-tsc-warm-") as directory:
        project, pool, context = warm_project(Path(directory))

        async def scenario() -> None:
            try:
                first = await assert_warm_equals_cold(project.root, context)
                assert first.outcomes["tsc"].served == "warm"
                for number, step in enumerate(steps):
                    apply(project, step)
                    if number % 2 == 0:
                        # A check of one file first: the whole check after
                        # it must still see everything the edit affected.
                        await assert_scoped_equals_cold(project.root, context, "src/main.ts")
                    await assert_warm_equals_cold(project.root, context)
                await assert_check_equals_cold(project.root, context)
                assert pool.counts.fallbacks == 0
                assert pool.counts.started == 1 + steps.count("config")
            finally:
                await pool.close()

        run(scenario)


@pytest.mark.real
@pytest.mark.parametrize("major", [6])
def test_each_edit_kind_once_under_typescript(
    settled_inputs: None, tmp_path: Path, major: int
) -> None:
    project, pool, context = warm_project(tmp_path, major)

    async def scenario() -> None:
        try:
            result = await assert_warm_equals_cold(project.root, context)
            assert result.outcomes["tsc"].served == "warm"
            assert result.issues == ()
            for step in ("retype", "add", "rename", "behind", "delete", "config", "retype"):
                apply(project, step)
                result = await assert_warm_equals_cold(project.root, context)
                assert result.outcomes["tsc"].served == "warm", step
            await assert_check_equals_cold(project.root, context)
            assert pool.counts.fallbacks == 0 and pool.counts.started == 2
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_an_edit_behind_the_workers_back_with_the_old_mtime_is_seen(
    settled_inputs: None, tmp_path: Path
) -> None:
    project, pool, context = warm_project(tmp_path)

    async def scenario() -> None:
        try:
            clean = await check(project.root, context, use_cache=True)
            assert [i.rule for i in clean.issues] == []
            apply(project, "behind")  # Shape.size becomes a string, mtime kept
            broken = await check(project.root, context, use_cache=True)
            assert broken.outcomes["tsc"].served == "warm"
            # geometry.ts multiplies it, main.ts assigns a number to it.
            assert {i.file for i in broken.issues} == {"src/geometry.ts", "src/main.ts"}
            cold = await check(project.root, Context(), use_cache=False)
            assert reading(broken) == reading(cold)
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_a_settled_file_edited_behind_the_workers_back_is_seen(
    settled_inputs: None, tmp_path: Path
) -> None:
    """The worker skips reading a file whose stat is unchanged once it has
    settled (written over 2 s before it was read): an edit that keeps size
    and mtime still moves ctime."""
    project, pool, context = warm_project(tmp_path)
    time.sleep(2.2)  # past the worker's SETTLE_MS: the first ask trusts the stats after it

    async def scenario() -> None:
        try:
            await check(project.root, context, use_cache=True)
            apply(project, "behind")  # same size, old mtime
            broken = await check(project.root, context, use_cache=True)
            assert broken.outcomes["tsc"].served == "warm"
            assert {i.file for i in broken.issues} == {"src/geometry.ts", "src/main.ts"}
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_a_new_file_that_changes_where_an_import_resolves_is_seen(
    settled_inputs: None, tmp_path: Path
) -> None:
    # No file of the program changes: `../lib/helper` resolved to a
    # declaration file outside `include`; a `.ts` beside it now wins.
    typescript(5)
    project = make_project(tmp_path, 5)
    lib = project.root / "lib"
    lib.mkdir()
    (lib / "helper.d.ts").write_text("export declare const h: string;\n")
    (project.root / "src" / "uses.ts").write_text(
        'import { h } from "../lib/helper";\nexport const n: number = h;\n'
    )
    project.extras = []
    pool = pool_for(project.root)
    context = Context(warm=pool)

    async def scenario() -> None:
        try:
            first = await assert_warm_equals_cold(project.root, context)
            assert [i.rule for i in first.issues] == ["TS2322"]
            (lib / "helper.ts").write_text("export const h = 1;\n")
            second = await assert_warm_equals_cold(project.root, context)
            assert second.issues == ()
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_packages_installed_retyped_and_relinked_behind_the_worker_are_seen(
    settled_inputs: None, tmp_path: Path
) -> None:
    # Module resolutions are kept between asks while what they read answers
    # the same: a package appearing, its package.json naming another types
    # file (the listing unchanged), and a pnpm-style link moved to another
    # version each change where `dep` resolves, and each is seen.
    typescript(6)
    project = make_project(tmp_path, 6)
    (project.root / "src" / "uses.ts").write_text(
        'import { h } from "dep";\nexport const n: number = h;\n'
    )
    store = project.root / "node_modules" / ".pnpm"
    versions = {}
    for version, type_ in (("1", "number"), ("2", "string")):
        package = store / f"dep@{version}" / "node_modules" / "dep"
        package.mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"name": "dep", "types": "a.d.ts"}))
        (package / "a.d.ts").write_text(f"export declare const h: {type_};\n")
        (package / "b.d.ts").write_text("export declare const h: boolean;\n")
        versions[version] = package
    link = project.root / "node_modules" / "dep"
    pool = pool_for(project.root)
    context = Context(warm=pool)

    def installed(step: str) -> None:
        # What pnpm rewrites on every install (`engines.node_env`).
        (project.root / "node_modules" / ".modules.yaml").write_text(f"step: {step}\n")

    async def scenario() -> None:
        try:
            missing = await assert_warm_equals_cold(project.root, context)
            assert [i.rule for i in missing.issues] == ["TS2307"]
            link.symlink_to(versions["1"], target_is_directory=True)
            assert (await assert_warm_equals_cold(project.root, context)).issues == ()
            manifest = versions["1"] / "package.json"
            manifest.write_text(json.dumps({"name": "dep", "types": "b.d.ts"}))
            installed("retyped")
            retyped = await assert_warm_equals_cold(project.root, context)
            assert [i.rule for i in retyped.issues] == ["TS2322"]
            manifest.write_text(json.dumps({"name": "dep", "types": "a.d.ts"}))
            link.unlink()
            link.symlink_to(versions["2"], target_is_directory=True)
            relinked = await assert_warm_equals_cold(project.root, context)
            assert [i.rule for i in relinked.issues] == ["TS2322"]
            assert "string" in relinked.issues[0].message
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_automatic_types_packages_are_read_as_cold_reads_them(
    settled_inputs: None, tmp_path: Path
) -> None:
    # TypeScript 5 includes every package of node_modules/@types unless the
    # config names `types`; the worker once handed module resolution each
    # directory listing as one string, so it looked for a package per letter
    # of `globals` (TS2688 "Cannot find type definition file for 'g'").
    typescript(5)
    project = make_project(tmp_path, 5)
    types_package(project.root, "globals", "declare const GLOBAL_SIZE: number;\n")
    (project.root / "src" / "uses.ts").write_text(
        "export const n: number = GLOBAL_SIZE;\nexport const s: string = LATER_NAME;\n"
    )
    pool = pool_for(project.root)
    context = Context(warm=pool)

    async def scenario() -> None:
        try:
            before = await assert_warm_equals_cold(project.root, context)
            assert [i.rule for i in before.issues] == ["TS2304"]  # LATER_NAME, not yet declared
            # A package installed behind the worker's back is one more entry point.
            types_package(project.root, "later", "declare const LATER_NAME: string;\n")
            after = await assert_warm_equals_cold(project.root, context)
            assert after.issues == ()
            assert pool.counts.fallbacks == 0 and pool.counts.started == 1
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_a_killed_worker_is_restarted_and_still_equal(settled_inputs: None, tmp_path: Path) -> None:
    project, pool, context = warm_project(tmp_path)

    async def scenario() -> None:
        try:
            await assert_warm_equals_cold(project.root, context)
            (worker,) = pool.workers()
            os.killpg(worker.pid, signal.SIGKILL)
            apply(project, "retype")
            result = await assert_warm_equals_cold(project.root, context)
            assert result.outcomes["tsc"].served == "warm"
            assert pool.counts.restarts == 1
            (again,) = pool.workers()
            assert again.pid != worker.pid
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_a_running_worker_is_asked_while_the_inputs_are_hashed(
    settled_inputs: None, tmp_path: Path
) -> None:
    # After an edit the check's one ask is the early one (`run_live`); with
    # nothing changed the record answers and the early answer goes unread:
    # the pool's counts take it back (no warm answer of a check).
    project, pool, context = warm_project(tmp_path)

    async def scenario() -> None:
        try:
            first = await check(project.root, context, use_cache=True)
            assert first.outcomes["tsc"].served == "warm" and pool.counts.started == 1
            apply(project, "retype")
            asked = pool.counts.warm
            edited = await check(project.root, context, use_cache=True)
            assert edited.outcomes["tsc"].served == "warm"
            assert edited.outcomes["tsc"].cache_misses == 1
            assert pool.counts.warm == asked + 1
            assert reading(edited) != reading(first)
            same = await check(project.root, context, use_cache=True)
            assert same.outcomes["tsc"].cache_hits == 1
            assert reading(same) == reading(edited)
            apply(project, "rename")  # its ask waits for the unread one to end
            await assert_check_equals_cold(project.root, context)
            assert pool.counts.warm == asked + 2  # the edit's and the rename's
            assert pool.counts.started == 1 and pool.counts.fallbacks == 0
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_a_check_of_a_file_is_answered_for_that_file_alone(
    settled_inputs: None, tmp_path: Path
) -> None:
    # An exported type changed: every importer breaks. A check of one of
    # them asks the worker for that file alone; what it says of the file is
    # what a cold check says, it stores no record (the whole check after it
    # runs, and sees every importer), and twice in a row it asks twice.
    project, pool, context = warm_project(tmp_path)
    project.extras = [1, 2]
    project.write()

    async def scenario() -> None:
        try:
            await check(project.root, context, use_cache=True)
            apply(project, "retype")
            asked = pool.counts.warm
            scoped = await assert_scoped_equals_cold(project.root, context, "src/main.ts")
            assert {i.file for i in scoped.issues} == {"src/main.ts"}
            again = await check(project.root, context, use_cache=True, files=("src/main.ts",))
            assert again.outcomes["tsc"].scoped and reading(again) == reading(scoped)
            assert pool.counts.warm == asked + 2
            whole = await check(project.root, context, use_cache=True)
            assert whole.outcomes["tsc"].cache_misses == 1 and not whole.outcomes["tsc"].scoped
            assert {"src/geometry.ts", "src/extra1.ts", "src/extra2.ts"} <= {
                i.file for i in whole.issues
            }
            await assert_check_equals_cold(project.root, context)
            # A file tsc's program does not hold: nothing of it, and 0 checked.
            (project.root / "notes.ts").write_text("export const n: string = 1;\n")
            outside = await check(project.root, context, use_cache=True, files=("notes.ts",))
            assert outside.outcomes["tsc"].files_checked == 0 and outside.issues == ()
            assert pool.counts.fallbacks == 0 and pool.counts.started == 1
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_an_edit_while_the_inputs_are_hashed_keeps_no_record_of_the_early_answer(
    settled_inputs: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The early answer read the files before the edit, the hashes after it:
    # a record would pair the new content with the old issues. The run
    # started when the early ask did, so the edit counts as during the run.
    project, pool, context = warm_project(tmp_path)
    real_digests, real_ask = ResultCache.absolute_digests, TscSession.ask
    answered: list[float] = []  # when each ask to the worker started, once answered
    raced: list[float] = []  # when the raced check started

    async def ask(session: TscSession, command: Command) -> ProcessResult:
        started = time.monotonic()
        result = await real_ask(session, command)
        answered.append(started)
        return result

    def edited_while_hashing(store: ResultCache, paths: Sequence[str]) -> dict[str, str]:
        monkeypatch.setattr(ResultCache, "absolute_digests", real_digests)
        deadline = time.monotonic() + 60
        while not any(t >= raced[0] for t in answered) and time.monotonic() < deadline:
            time.sleep(0.01)  # the raced check's early ask has answered
        time.sleep(0.02)  # a later timestamp than the run's start
        apply(project, "rename")
        return real_digests(store, paths)

    monkeypatch.setattr(TscSession, "ask", ask)

    async def scenario() -> None:
        try:
            await check(project.root, context, use_cache=True)
            # Its record is made behind its answer: one more check waits for it.
            await check(project.root, context, use_cache=True)
            apply(project, "retype")
            raced.append(time.monotonic())
            monkeypatch.setattr(ResultCache, "absolute_digests", edited_while_hashing)
            await check(project.root, context, use_cache=True)  # the answer before the edit
            assert any(t >= raced[0] for t in answered)
            await assert_check_equals_cold(project.root, context)
        finally:
            await pool.close()

    run(scenario)


REFERENCES = Path(__file__).resolve().parents[2] / "fixtures" / "tsc-references"
CORE = "packages/core/src/index.ts"


def references_project(base: Path, major: int) -> Path:
    """The build-mode fixture (`tests/engines/tsc/test_tsc_build.py`) with TypeScript `major`."""
    root = base / "repo"
    shutil.copytree(REFERENCES, root)
    stale = root / "packages" / "core" / "dist" / "index.d.ts"
    stale.parent.mkdir(parents=True)
    stale.write_text("export declare const stale: MissingType;\n")
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True, "biome": False, "eslint": False}})
    )
    install_typescript(root, major)
    return root


def warm_references(base: Path, major: int) -> tuple[Path, WarmPool, Context]:
    """The build-mode fixture on TypeScript `major`, and a context keeping its tsc warm."""
    typescript(major)
    root = references_project(base, major)
    pool = pool_for(root)
    return root, pool, Context(warm=pool)


def core(name: str, first: str) -> str:
    return f"export function {name}(a: {first}, b: number): number {{\n  return b;\n}}\n"


def build_steps(root: Path) -> list[tuple[str, Callable[[], object]]]:
    """Each kind of edit once, on the reference graph (app uses core's `add`)."""
    index = root / CORE
    extra = root / "packages" / "core" / "src" / "extra.ts"
    app_config = root / "packages" / "app" / "tsconfig.json"

    def config() -> None:
        data = json.loads(app_config.read_text())
        data["compilerOptions"]["noUnusedLocals"] = True
        app_config.write_text(json.dumps(data))

    return [
        # app passes a string where core now wants it: the error goes away.
        ("retype", lambda: index.write_text(core("add", "string"))),
        ("add", lambda: extra.write_text('export const e: number = "x";\n')),
        ("rename", lambda: index.write_text(core("plus", "string"))),
        ("behind", lambda: touch_back(index, lambda: index.write_text(core("add", "number")))),
        ("delete", lambda: extra.unlink(missing_ok=True)),
        ("config", config),
        ("retype", lambda: index.write_text(core("add", "boolean"))),
    ]


@pytest.mark.real
@pytest.mark.timeout(900)  # a cold tsc -b takes ten seconds and more on a busy machine
@pytest.mark.parametrize("major", [5, 6])
def test_build_mode_warm_equals_cold_after_each_edit_kind(
    settled_inputs: None, tmp_path: Path, major: int
) -> None:
    root, pool, context = warm_references(tmp_path, major)
    memory = Remembered()

    async def scenario() -> None:
        try:
            result = await assert_warm_equals_cold(root, context, memory)
            assert result.outcomes["tsc"].served == "warm"
            assert {i.rule for i in result.issues} == {"TS2345", "TS2322"}
            for step, edit in build_steps(root):
                edit()
                result = await assert_warm_equals_cold(root, context, memory)
                assert result.outcomes["tsc"].served == "warm", step
            await assert_check_equals_cold(root, context)
            assert pool.counts.fallbacks == 0 and pool.counts.started == 2
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
@pytest.mark.timeout(900)
@pytest.mark.parametrize("major", [5, 6])
def test_build_mode_answers_a_check_of_a_file_for_that_file_alone(
    settled_inputs: None, tmp_path: Path, major: int
) -> None:
    # core's `add` retyped: app's call breaks. A check of a file selects the
    # nearest config: the root's file builds core and app whole, then
    # reports the root's project for that file alone; app's (app's config,
    # build mode) builds core, not the root. core's has no references
    # (`-p`). Each equals a cold check of the file, and the whole check
    # after them equals a cold one.
    root, pool, context = warm_references(tmp_path, major)
    app = "packages/app/src/index.ts"

    async def scenario() -> None:
        try:
            await check(root, context, use_cache=True)
            (root / CORE).write_text(core("add", "boolean"))
            main = await assert_scoped_equals_cold(root, context, "src/main.ts")
            assert {i.file for i in main.issues} == {"src/main.ts"}
            scoped = await assert_scoped_equals_cold(root, context, app)
            assert {i.file for i in scoped.issues} == {app}
            await assert_scoped_equals_cold(root, context, CORE)
            (root / CORE).write_text(core("add", "string") + 'export const n: number = "";\n')
            await assert_scoped_equals_cold(root, context, CORE)
            await assert_check_equals_cold(root, context)
            # A worker per program: the root's, app's, core's.
            assert pool.counts.fallbacks == 0 and pool.counts.started == 3
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
@pytest.mark.timeout(900)
@settings(
    max_examples=2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(picks=st.lists(st.integers(min_value=0, max_value=6), min_size=2, max_size=4))
def test_build_mode_warm_equals_cold_after_random_edits(
    settled_inputs: None, picks: list[int]
) -> None:
    with tempfile.TemporaryDirectory(prefix="signalint-tsc-warm-") as directory:
        root, pool, context = warm_references(Path(directory), 5)
        steps = build_steps(root)
        memory = Remembered()

        async def scenario() -> None:
            try:
                await assert_warm_equals_cold(root, context, memory)
                for pick in picks:
                    steps[pick][1]()
                    await assert_warm_equals_cold(root, context, memory)
                await assert_check_equals_cold(root, context)
                assert pool.counts.fallbacks == 0
            finally:
                await pool.close()

        run(scenario)


GARBAGE_WORKER = """
process.stdout.write(JSON.stringify({ready: true, version: "0"}) + "\\n");
require("readline").createInterface({input: process.stdin})
  .on("line", () => process.stdout.write("this is not JSON\\n"))
  .on("close", () => process.exit(0));
"""


class GarbageDriver(TscDriver):
    """The real driver's key and protocol, with a worker that answers garbage."""

    def __init__(self, script: Path) -> None:
        self.script = script

    async def open(self, ctx: object, command: Command, log: Path) -> TscSession:
        from signalint import process

        started = await process.start(
            Command(("node", str(self.script)), command.cwd, command.timeout_s), stderr_to=log
        )
        assert not isinstance(started, process.ProcessResult)
        session = TscSession(started, "garbage")
        await exchange(started, None, "the garbage worker")  # its greeting
        return session


@pytest.mark.real
def test_garbage_from_the_worker_falls_back_to_cold_and_is_still_equal(
    settled_inputs: None, tmp_path: Path
) -> None:
    typescript(5)
    project = make_project(tmp_path, 5)
    script = tmp_path / "garbage.cjs"
    script.write_text(GARBAGE_WORKER)
    pool = pool_for(project.root, {"tsc": GarbageDriver(script)})
    context = Context(warm=pool)

    async def scenario() -> None:
        try:
            apply(project, "retype")
            warm = await check(project.root, context, use_cache=True)
            cold = await check(project.root, Context(), use_cache=False)
            assert warm.outcomes["tsc"].served == "fallback"
            assert reading(warm) == reading(cold)
            assert warm.issues  # the retyped Shape breaks its users
            assert pool.counts.fallbacks == 1 and pool.counts.restarts == 1
        finally:
            await pool.close()

    run(scenario)


@pytest.mark.real
def test_typescript_7_is_not_served_warm(settled_inputs: None, tmp_path: Path) -> None:
    """This driver declines TypeScript 7 (engines/tsc/warm_native.py serves it)."""
    typescript(7)
    project = make_project(tmp_path, 7)
    pool = pool_for(project.root, {"tsc": TscDriver()})

    async def scenario() -> None:
        try:
            result = await check(project.root, Context(warm=pool), use_cache=True)
            assert result.outcomes["tsc"].served == "cold"
            assert pool.workers() == []
        finally:
            await pool.close()

    run(scenario)


def test_a_session_reading_garbage_raises_worker_failed() -> None:
    class Lines:
        def __init__(self, line: bytes) -> None:
            self.line = line

        async def readline(self) -> bytes:
            return self.line

    class FakeChild:
        def __init__(self, line: bytes) -> None:
            self.stdout = Lines(line)

    async def read(line: bytes) -> None:
        await exchange(FakeChild(line), None, "x")  # type: ignore[arg-type]

    for line in (b"", b"not json\n", b"[1]\n"):
        with pytest.raises(WorkerFailed):
            asyncio.run(read(line))


def test_an_answer_given_as_its_change_is_rebuilt_exactly() -> None:
    before = "a.ts(1,7): error TS2322: Type '\"😀\"' is not assignable.\nb.ts(2,1): x\n/lib.d.ts\n"
    last = (4, before)
    # Unchanged: the very same string (the adapter has read it already).
    same = {"id": 5, "base": 4, "head": len(before), "tail": 0, "middle": "", "exit": 2}
    assert _stdout(same, last) is before
    # The second line changed; counts are in characters, the emoji is one.
    head = before.index("b.ts")
    tail = len("/lib.d.ts\n")
    changed = {"id": 5, "base": 4, "head": head, "tail": tail, "middle": "b.ts(3,1): y\n"}
    assert _stdout(changed, last) == before.replace("b.ts(2,1): x", "b.ts(3,1): y")
    assert _stdout({"id": 5, "stdout": "whole\n"}, last) == "whole\n"
    # Another base, counts past the text, or a part missing: not an answer.
    for wrong in (
        changed | {"base": 3},
        changed | {"head": len(before)},
        changed | {"tail": -1},
        {k: v for k, v in changed.items() if k != "middle"},
        {"id": 5},
    ):
        assert _stdout(wrong, last) is None


@pytest.mark.real
def test_answers_given_as_changes_equal_cold_with_two_unit_characters(
    settled_inputs: None, tmp_path: Path
) -> None:
    # A diagnostic quoting a character outside the BMP (two UTF-16 units in
    # the worker, one character here) before and after the changed lines;
    # more than the worker's 4,096-character comparison blocks of them on
    # either side.
    typescript(6)
    project = make_project(tmp_path, 6)
    src = project.root / "src"
    (src / "a0.ts").write_text('export const face: "😀" = "a";\n')
    (src / "zz.ts").write_text('export const late: "🙂" = "b";\n')
    for side in ("b", "n"):
        for i in range(80):
            (src / f"{side}{i:03}.ts").write_text(f'export const p{i}: "😀{i}" = "x";\n')
    pool = pool_for(project.root)
    context = Context(warm=pool)

    async def scenario() -> None:
        try:
            await assert_warm_equals_cold(project.root, context)
            for text in ('export const n: number = "x";\n', "export const n = 1;\n", ""):
                (src / "middle.ts").write_text(text)
                await assert_warm_equals_cold(project.root, context)
                (src / "zz.ts").write_text(f'export const late: "🙂" = "{text[:1]}";\n')
                result = await assert_warm_equals_cold(project.root, context)
                assert any("😀" in i.message for i in result.issues)
        finally:
            await pool.close()

    run(scenario)

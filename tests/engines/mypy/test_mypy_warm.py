"""mypy kept warm (`warm.mypy`) against cold mypy runs (real tier).

Each test drives the driver through a real `WarmPool`: directly through the
runner (`run_engine`, where the program inputs the adapter reads can be
compared) or through a whole check (`run_check` with
`Context(warm=pool)`). After every step of an edit sequence the warm
answer equals a cold run (`use_cache=False`, a fresh state directory) of the
same content: the same issues with multiplicity, the same program inputs.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from signalint import process
from signalint.cache.context import Context
from signalint.engines.base import EngineContext, Program
from signalint.engines.mypy import warm as warm_mypy
from signalint.engines.mypy.adapter import ENGINE
from signalint.engines.resolve import Resolved
from signalint.engines.runner import EngineRun, Job, run_engine
from signalint.model import Issue
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.process import Command, ProcessResult
from signalint.settings.config import load_config
from signalint.warm.driver import WorkerFailed
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "engines" / "mypy"
MEMORY = 2 << 30
T = TypeVar("T")

LIB = "def base(value: int) -> int:\n    return value + 1\n\n\nLIMIT: int = 10\n"
USER = (
    "from app.lib import LIMIT, base\n\n\n"
    "def use{n}(value: int) -> int:\n    return base(value) + LIMIT + {n}\n"
)


def make_project(root: Path, users: int = 4) -> Path:
    """The mypy fixture (strict, errors with notes, an excluded directory)
    plus `app/lib.py`, imported by `users` modules."""
    shutil.copytree(FIXTURE, root)
    (root / "app" / "lib.py").write_text(LIB)
    for n in range(users):
        (root / "app" / f"user{n}.py").write_text(USER.format(n=n))
    return root


def key(issue: Issue) -> tuple[Any, ...]:
    return (issue.file, issue.line, issue.col, issue.end_line, issue.end_col, issue.rule,
            issue.severity, issue.message, issue.help)  # fmt: skip


def job(root: Path, state: Path, pool: WarmPool | None) -> Job:
    return Job(
        root=root,
        options={},
        timeout_s=300.0,
        state_dir=state,
        resolved=Resolved("mypy", require_engine("mypy"), "managed"),
        warm=pool,
    )


def program(root: Path, state: Path, done: EngineRun) -> Program:
    ctx = EngineContext(root=root, executable=require_engine("mypy"), timeout_s=300.0,
                        state_dir=state)  # fmt: skip
    return ENGINE.program(done.results, ctx, None, frozenset())


class Runs:
    """Warm and cold runs of one project, compared (module docstring)."""

    def __init__(self, root: Path, tmp: Path, pool: WarmPool) -> None:
        self.root = root
        self.tmp = tmp
        self.pool = pool
        self.state = tmp / "warm-state"
        self.colds = 0

    async def engine(self) -> tuple[EngineRun, Program]:
        done = await run_engine(ENGINE, job(self.root, self.state, self.pool))
        return done, program(self.root, self.state, done)

    async def cold(self) -> tuple[EngineRun, Program]:
        self.colds += 1
        state = self.tmp / f"cold-state-{self.colds}"
        done = await run_engine(ENGINE, job(self.root, state, None))
        return done, program(self.root, state, done)

    async def same(self, served: str = "warm") -> EngineRun:
        """Warm equals cold: issues with multiplicity, program inputs."""
        warm, warm_program = await self.engine()
        cold, cold_program = await self.cold()
        assert warm.outcome.status == cold.outcome.status == "ok", (
            warm.outcome.message,
            cold.outcome.message,
        )
        assert warm.outcome.served == served
        assert Counter(map(key, warm.outcome.issues)) == Counter(map(key, cold.outcome.issues))
        assert warm.results[-1].exit_code == cold.results[-1].exit_code
        assert set(warm_program.inputs) == set(cold_program.inputs)
        assert set(warm_program.checked or ()) == set(cold_program.checked or ())
        return warm


def in_loop(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(make())


async def closing(pool: WarmPool, work: Awaitable[T]) -> T:
    try:
        return await work
    finally:
        await pool.close()


def new_pool(tmp: Path) -> WarmPool:
    return WarmPool(MEMORY, tmp / "warm-logs")


def edited_warm_as_cold(root: Path, tmp: Path, edits: list[Callable[[Path], None]]) -> WarmPool:
    """Warm equals cold before the edits and after each; the pool used."""
    pool = new_pool(tmp)
    runs = Runs(root, tmp, pool)

    async def sequence() -> None:
        await runs.same()
        for edit in edits:
            edit(root)
            await runs.same()

    in_loop(lambda: closing(pool, sequence()))
    return pool


def same_size_edit(path: Path, old: str, new: str) -> None:
    """Replace `old` by `new` (as long) keeping the file's size and mtime:
    what a stat-based watcher cannot tell from no edit at all."""
    assert len(old) == len(new)
    before = path.stat()
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


# Edits of an edit sequence: each changes the project's content.
def lib_of(root: Path) -> Path:
    """`app/lib.py`, written again if an edit deleted it."""
    lib = root / "app" / "lib.py"
    if not lib.exists():
        lib.write_text(LIB)
    return lib


def change_signature(root: Path) -> None:
    lib = lib_of(root)
    text = lib.read_text()
    if "value: int) -> int" in text:
        lib.write_text(text.replace("value: int) -> int", "value: str) -> int", 1))
    else:
        lib.write_text(text.replace("value: str) -> int", "value: int) -> int", 1))


def rename_export(root: Path) -> None:
    lib = lib_of(root)
    text = lib.read_text()
    if "LIMIT" in text:
        lib.write_text(text.replace("LIMIT", "BOUND"))
    else:
        lib.write_text(text.replace("BOUND", "LIMIT"))


def add_user(root: Path, template: str) -> None:
    """A new `app/user<n>.py` from `template` (formatted with `n`)."""
    n = len(list((root / "app").glob("user*.py")))
    (root / "app" / f"user{n}.py").write_text(template.format(n=n))


def add_module(root: Path) -> None:
    add_user(root, USER)


def delete_module(root: Path) -> None:
    users = sorted((root / "app").glob("user*.py"))
    if users:
        users[-1].unlink()


def delete_imported(root: Path) -> None:
    """Delete (or restore) the module everyone imports."""
    lib = root / "app" / "lib.py"
    if lib.exists():
        lib.unlink()
    else:
        lib.write_text(LIB)


def edit_config(root: Path) -> None:
    config = root / "pyproject.toml"
    text = config.read_text()
    if "warn_unused_ignores = true" in text:
        config.write_text(text.replace("warn_unused_ignores = true", "warn_unused_ignores = false"))
    else:
        config.write_text(text.replace("warn_unused_ignores = false", "warn_unused_ignores = true"))


def behind_the_back(root: Path) -> None:
    """A same-size, same-mtime edit of a module others import."""
    lib = root / "app" / "lib.py"
    if not lib.exists():
        return
    text = lib.read_text()
    if "LIMIT: int" in text or "BOUND: int" in text:
        same_size_edit(lib, ": int = 10", ": str = 10")
    else:
        same_size_edit(lib, ": str = 10", ": int = 10")


def toggle_stub(root: Path) -> None:
    """Add (or remove) a stub beside the imported module: mypy prefers it."""
    stub = root / "app" / "lib.pyi"
    if stub.exists():
        stub.unlink()
    else:
        stub.write_text("def base(value: bytes) -> int: ...\n\nLIMIT: int\n")


def toggle_init(root: Path) -> None:
    """Delete (or write again) the package's `__init__.py`: its modules'
    names change (a namespace package, or top-level modules)."""
    init = root / "app" / "__init__.py"
    if init.exists():
        init.unlink()
    else:
        init.write_text("")


EDITS = [
    change_signature,
    rename_export,
    add_module,
    delete_module,
    delete_imported,
    edit_config,
    behind_the_back,
    toggle_stub,
    toggle_init,
]


@pytest.mark.real
@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(EDITS), min_size=3, max_size=5))
def test_warm_mypy_equals_cold_after_every_edit(
    tmp_path_factory: pytest.TempPathFactory, edits: list[Callable[[Path], None]]
) -> None:
    tmp = tmp_path_factory.mktemp("seq")
    pool = edited_warm_as_cold(make_project(tmp / "project"), tmp, edits)
    assert pool.counts.fallbacks == 0
    # One worker for the sequence, a new one only for a config edit.
    assert pool.counts.started == 1 + edits.count(edit_config)


@pytest.mark.real
def test_an_edit_keeping_size_and_mtime_is_seen(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    pool = new_pool(tmp_path)
    runs = Runs(root, tmp_path, pool)

    async def sequence() -> None:
        before = await runs.same()
        behind_the_back(root)
        after = await runs.same()
        assert Counter(map(key, before.outcome.issues)) != Counter(map(key, after.outcome.issues))

    in_loop(lambda: closing(pool, sequence()))
    assert pool.counts.started == 1 and pool.counts.warm == 2


@pytest.mark.real
def test_a_stub_added_beside_a_module_and_removed(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    pool = new_pool(tmp_path)
    runs = Runs(root, tmp_path, pool)

    async def sequence() -> None:
        await runs.same()
        toggle_stub(root)
        await runs.same()
        toggle_stub(root)
        await runs.same()

    in_loop(lambda: closing(pool, sequence()))
    assert pool.counts.started == 1


@pytest.mark.real
def test_a_package_losing_its_init_and_getting_it_back(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    pool = new_pool(tmp_path)
    runs = Runs(root, tmp_path, pool)

    async def sequence() -> None:
        await runs.same()
        toggle_init(root)
        await runs.same()
        change_signature(root)
        await runs.same()
        toggle_init(root)
        await runs.same()

    in_loop(lambda: closing(pool, sequence()))


@pytest.mark.real
def test_a_syntax_error_is_answered_as_a_cold_run_and_the_worker_goes_on(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    pool = new_pool(tmp_path)
    runs = Runs(root, tmp_path, pool)
    lib = root / "app" / "lib.py"

    async def sequence() -> None:
        await runs.same()
        lib.write_text(LIB + "def broken(:\n")
        broken = await runs.same()
        assert broken.results[-1].exit_code == 2
        lib.write_text(LIB.replace("value + 1", "value + 2"))
        await runs.same()

    in_loop(lambda: closing(pool, sequence()))
    assert pool.counts.started == 1 and pool.counts.fallbacks == 0


async def check_issues(root: Path, context: Context | None) -> tuple[Counter[Any], str | None]:
    request = RunRequest(root, load_config(root), use_cache=context is not None)
    done = await run_check(request, context)
    outcome = done.result.outcomes["mypy"]
    assert outcome.status == "ok", outcome.message
    return Counter(map(key, outcome.issues)), outcome.served


@pytest.mark.real
def test_a_check_with_a_warm_pool_is_served_warm_and_equals_cold(tmp_path: Path) -> None:
    require_engine("mypy")
    root = make_project(tmp_path / "project")
    pool = new_pool(tmp_path)
    context = Context(warm=pool)

    async def sequence() -> None:
        warm, served = await check_issues(root, context)
        cold, _ = await check_issues(root, None)
        assert served == "warm" and warm == cold
        change_signature(root)
        warm, served = await check_issues(root, context)
        cold, _ = await check_issues(root, None)
        assert served == "warm" and warm == cold
        # The worker is killed: the pool starts another, which answers.
        (worker,) = pool.workers()
        os.killpg(worker.pid, signal.SIGKILL)
        rename_export(root)
        warm, served = await check_issues(root, context)
        cold, _ = await check_issues(root, None)
        assert served == "warm" and warm == cold

    in_loop(lambda: closing(pool, sequence()))
    assert pool.counts.restarts == 1 and pool.counts.fallbacks == 0


class GarbageDriver(warm_mypy.MypyDriver):
    """The real driver, but its worker answers lines that are not JSON."""

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> warm_mypy.MypySession:
        script = "import sys\nfor line in sys.stdin:\n    print('{not json', flush=True)\n"
        started = await process.start(
            Command((sys.executable, "-c", script), command.cwd, command.timeout_s),
            stderr_to=log,
        )
        if isinstance(started, ProcessResult):
            raise WorkerFailed("could not start")
        return warm_mypy.MypySession(started, "garbage")


@pytest.mark.real
def test_a_worker_answering_garbage_falls_back_to_cold_and_still_equals_it(
    tmp_path: Path,
) -> None:
    require_engine("mypy")
    root = make_project(tmp_path / "project")
    pool = WarmPool(MEMORY, tmp_path / "logs", drivers={"mypy": GarbageDriver()})

    async def sequence() -> None:
        warm, served = await check_issues(root, Context(warm=pool))
        cold, _ = await check_issues(root, None)
        assert served == "fallback" and warm == cold

    in_loop(lambda: closing(pool, sequence()))
    assert pool.counts.fallbacks == 1 and pool.counts.started == 2


@pytest.mark.real
def test_the_worker_exits_when_its_stdin_closes(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")

    async def sequence() -> int | None:
        executable = require_engine("mypy")
        ctx = EngineContext(root=root, executable=executable, timeout_s=300.0,
                            state_dir=tmp_path / "state")  # fmt: skip
        command = ENGINE.command(ctx, [], None)
        session = await warm_mypy.DRIVER.open(ctx, command, tmp_path / "log")
        answer = await session.ask(command)
        assert answer.exit_code == 1
        session.child.stdin.close()
        for _ in range(100):
            if not session.child.alive:
                break
            await asyncio.sleep(0.1)
        code = session.child.exit_code
        session.child.kill()
        return code

    assert in_loop(sequence) == 0
    # Nothing outside the state directory.
    assert not (root / ".mypy_cache").exists()
    assert (tmp_path / "state" / "warm" / "mypy").is_dir()


@pytest.mark.real
def test_a_configuration_the_daemon_cannot_serve_runs_cold(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    config = root / "pyproject.toml"
    config.write_text(config.read_text() + 'follow_imports = "silent"\n')
    pool = new_pool(tmp_path)
    runs = Runs(root, tmp_path, pool)
    in_loop(lambda: closing(pool, runs.same(served="cold")))
    assert pool.counts.started == 0


@pytest.mark.real
def test_a_project_with_its_own_environment_and_an_installed_package_edited(
    tmp_path: Path,
) -> None:
    """`--python-executable` names the project's interpreter; a typed package
    installed there is part of the build, and an edit inside it (no new
    distribution: the environment's stamp is unchanged) is seen."""
    require_engine("mypy")
    root = tmp_path / "venv-project"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "use.py").write_text("from typedpkg import shout\n\nshout('hi')\n")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    site = next((root / ".venv" / "lib").glob("python*/site-packages"))
    (site / "typedpkg").mkdir()
    installed = site / "typedpkg" / "__init__.py"
    installed.write_text("def shout(text: str) -> str:\n    return text\n")
    (site / "typedpkg" / "py.typed").write_text("")
    (site / "typedpkg-1.0.dist-info").mkdir()
    pool = new_pool(tmp_path)
    runs = Runs(root, tmp_path, pool)

    async def sequence() -> None:
        before = await runs.same()
        assert "--python-executable" in before.results[-1].argv
        same_size_edit(installed, "text: str", "text: int")
        after = await runs.same()
        assert [i.rule for i in after.outcome.issues] == ["arg-type"]
        assert not before.outcome.issues

    in_loop(lambda: closing(pool, sequence()))
    assert pool.counts.started == 1

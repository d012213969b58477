"""Pyright kept warm (`warm.pyright`) against Pyright run cold (real tier).

Every test drives the driver through a real `WarmPool`, or through
`run_check` with `Context(warm=WarmPool(...))`, and compares with a cold
`use_cache=False` check of the same content, as multisets of issues. The
differential test applies random edit sequences (hypothesis): a widely
imported signature changed, a module added or deleted, an export renamed,
the Pyright config edited, an imported file outside the checked ones edited,
a file edited and restored behind the worker's back.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import tempfile
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from signalint.cache.context import Context
from signalint.engines.base import EngineContext
from signalint.engines.pyright import warm as warm_pyright
from signalint.engines.pyright.adapter import ENGINE
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine
from tests.warm.differential import Differential

T = TypeVar("T")

CONFIG = {
    "include": ["src"],
    "exclude": ["src/generated"],
    "typeCheckingMode": "standard",
    "reportUnusedVariable": "warning",
}
LIB = '''"""The widely imported module."""


def scale(value: int) -> int:
    return value * 2


NAME: str = "lib"
'''
USER = '''"""A user of lib."""

from src.lib import NAME, scale
from src.generated.gen import MADE


def use{n}() -> int:
    size: int = scale({n})
    unused = NAME
    wrong: str = scale({n})
    return size + MADE + len(wrong)
'''
GEN = '''"""Generated, excluded, imported."""

MADE: int = 1
'''


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_config(root: Path, config: dict[str, Any]) -> None:
    """The Pyright config in whichever form the project has (JSON by default)."""
    pyproject = root / "pyproject.toml"
    if pyproject.exists():
        lines = ['[project]\nname = "p"\nversion = "0"\n\n[tool.pyright]']
        lines += [f"{key} = {json.dumps(value)}" for key, value in config.items()]
        pyproject.write_text("\n".join(lines) + "\n")
    else:
        _write(root, "pyrightconfig.json", json.dumps(config, indent=2))


def read_config(root: Path) -> dict[str, Any]:
    pyproject = root / "pyproject.toml"
    if pyproject.exists():
        table: dict[str, Any] = tomllib.loads(pyproject.read_text())["tool"]["pyright"]
        return table
    loaded: dict[str, Any] = json.loads((root / "pyrightconfig.json").read_text())
    return loaded


def make_project(root: Path, users: int = 3, form: str = "pyrightconfig.json") -> Path:
    """A small typed project: `src/lib.py` imported by every `src/useN.py`,
    configured in `form` (pyrightconfig.json or pyproject.toml)."""
    root.mkdir(parents=True, exist_ok=True)
    if form == "pyproject.toml":
        (root / "pyproject.toml").write_text("")
    write_config(root, CONFIG)
    _write(root, "src/__init__.py", "")
    _write(root, "src/generated/__init__.py", "")
    _write(root, "src/generated/gen.py", GEN)
    _write(root, "src/lib.py", LIB)
    for n in range(users):
        _write(root, f"src/use{n}.py", USER.format(n=n))
    return root.resolve()


PYRIGHT = Differential("pyright", warm_pyright.DRIVER, files_only=True)
check = PYRIGHT.check
issues = PYRIGHT.issues
pool = PYRIGHT.pool
run = PYRIGHT.run
warm_equals_cold = PYRIGHT.warm_equals_cold


@pytest.fixture
def project(tmp_path: Path) -> Path:
    require_engine("pyright")
    return make_project(tmp_path / "proj")


def context(root: Path) -> EngineContext:
    return EngineContext(
        root=root,
        executable=require_engine("pyright"),
        timeout_s=300,
        state_dir=root / ".signalint" / "engines",
    )


@pytest.mark.real
def test_the_pool_answers_the_cold_commands_output_warm(project: Path) -> None:
    ctx = context(project)
    command = ENGINE.command(ctx, [], None)

    async def body(warm: WarmPool) -> None:
        from signalint import process

        first = await warm.answer("pyright", ctx, command)
        second = await warm.answer("pyright", ctx, command)
        cold = await process.run(command)
        assert first is not None and second is not None
        assert first.served == second.served == "warm"
        assert first.result is not None and second.result is not None
        for answer in (first.result, second.result):
            assert answer.exit_code == cold.exit_code == 1
            assert Counter(ENGINE.parse(answer, ctx)) == Counter(ENGINE.parse(cold, ctx))
        assert warm.counts.started == 1 and warm.counts.warm == 2

    run(body)


@pytest.mark.real
def test_the_fixture_project_checked_warm_equals_cold(tmp_path: Path) -> None:
    """tests/fixtures/engines/pyright: syntax errors, elaborated messages,
    a reveal_type (information), a rule turned into information, unused
    variables as warnings, an excluded directory and a script outside."""
    require_engine("pyright")
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "engines" / "pyright"
    root = tmp_path / "fixture"
    import shutil

    shutil.copytree(fixture, root)

    async def body(warm: WarmPool) -> None:
        await warm_equals_cold(root.resolve(), warm)
        severities = {i.severity for i in issues(await check(root.resolve(), Context(warm=warm)))}
        assert severities == {"error", "warning"}

    run(body)


EDITS = (
    "signature",
    "add",
    "delete",
    "rename",
    "config",
    "generated",
    "behind",
)


def apply(root: Path, edit: str, step: int) -> None:
    lib = root / "src" / "lib.py"
    if edit == "signature":
        text = lib.read_text()
        swapped = "value: str" if "value: int" in text else "value: int"
        lib.write_text(text.replace("value: int", swapped).replace("value: str", swapped))
    elif edit == "add":
        _write(root, f"src/added{step}.py", USER.format(n=100 + step))
    elif edit == "delete":
        users = sorted((root / "src").glob("use*.py")) + sorted((root / "src").glob("added*.py"))
        if users:
            users[0].unlink()
    elif edit == "rename":
        text = lib.read_text()
        lib.write_text(
            text.replace("NAME:", "TITLE:") if "NAME:" in text else text.replace("TITLE:", "NAME:")
        )
    elif edit == "config":
        config = read_config(root)
        current = config.get("reportUnusedVariable")
        config["reportUnusedVariable"] = "error" if current == "warning" else "warning"
        write_config(root, config)
    elif edit == "generated":
        gen = root / "src" / "generated" / "gen.py"
        text = gen.read_text()
        gen.write_text(text.replace("MADE: int", "MADE: str") if "int" in text else GEN)
    elif edit == "behind":
        # Edited and restored between two asks: same content, same mtime
        # would not be trusted either way; nothing may change.
        user = next(iter(sorted((root / "src").glob("*.py"))))
        original = user.read_bytes()
        user.write_bytes(original + b"\nbroken = (\n")
        user.write_bytes(original)


@pytest.mark.real
@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(edits=st.lists(st.sampled_from(EDITS), min_size=3, max_size=5))
def test_random_edit_sequences_answer_warm_as_cold(edits: list[str]) -> None:
    require_engine("pyright")
    root = make_project(Path(tempfile.mkdtemp(prefix="pyright-warm-")) / "proj")

    async def body(warm: WarmPool) -> None:
        await warm_equals_cold(root, warm)
        for step, edit in enumerate(edits):
            apply(root, edit, step)
            await warm_equals_cold(root, warm)

    run(body)


@pytest.mark.real
@pytest.mark.parametrize("form", ["pyrightconfig.json", "pyproject.toml"])
def test_each_kind_of_edit_answers_warm_as_cold(tmp_path: Path, form: str) -> None:
    """Every edit of the differential once, in a fixed order; configured
    either way Pyright reads."""
    require_engine("pyright")
    project = make_project(tmp_path / "proj", form=form)

    async def body(warm: WarmPool) -> None:
        await warm_equals_cold(project, warm)
        for step, edit in enumerate(EDITS):
            apply(project, edit, step)
            await warm_equals_cold(project, warm)
        # Content edits, added and deleted modules are told to the server;
        # the config edit alone starts a new one.
        assert warm.counts.fallbacks == 0
        assert warm.counts.started == 2 and warm.counts.restarts == 1

    run(body)


@pytest.mark.real
def test_a_content_edit_is_told_to_the_running_server(project: Path) -> None:
    """A signature change answered without a restart, and it changes the answer."""

    async def body(warm: WarmPool) -> None:
        before = issues(await check(project, Context(warm=warm)))
        apply(project, "signature", 0)
        after = issues(await check(project, Context(warm=warm)))
        assert warm.counts.started == 1 and warm.counts.restarts == 0
        assert before != after
        assert after == issues(await check(project))

    run(body)


CHAIN_LINK = '''"""Link {k}: its return type is inferred through every link before it."""

from chain.link{p} import VALUE{p}, compute{p}

VALUE{k}: int = VALUE{p} + {k}


def compute{k}(value: int):
    result: int = "not a number"
    return compute{p}(value)


CHECK{k}: int = compute{k}(1)
'''


def make_chain(root: Path, links: int) -> Callable[[str], None]:
    """A package `chain` of `links` modules (CHAIN_LINK) under `root`; returns
    the function that writes the first link with a given return type."""
    write_config(root, {"include": ["chain"]})
    _write(root, "chain/__init__.py", "")
    for k in range(1, links):
        _write(root, f"chain/link{k}.py", CHAIN_LINK.format(k=k, p=k - 1))

    def first(returns: str) -> None:
        signature = f"def compute0(value: int) -> {returns}:"
        text = f"VALUE0: int = 0\n\n\n{signature}\n    return value  # type: ignore\n"
        _write(root, "chain/link0.py", text)

    first("int")
    return first


@pytest.mark.real
def test_inference_at_pyrights_depth_limit_answers_warm_as_cold(tmp_path: Path) -> None:
    """A chain of 120 inferred return types runs past Pyright's inference
    depth limit, where what a file reports depends on what the program had
    already evaluated, in which order (the edge that ruled out two servers
    splitting the files: docs/engines.md). The warm server is held to the
    cold run there too, across return-type flips of the first link."""
    require_engine("pyright")
    root = tmp_path / "proj"
    first = make_chain(root, 120)
    root = root.resolve()

    async def body(warm: WarmPool) -> None:
        await warm_equals_cold(root, warm)
        for returns in ("str", "int", "str", "int", "str"):
            first(returns)
            cold = await warm_equals_cold(root, warm)
            if returns == "str":  # past the limit, the links report nothing
                checks = sum(n for issue, n in cold.items() if 'Type "str"' in issue.message)
                assert 0 < checks < 100
        assert warm.counts.restarts == 0 and warm.counts.fallbacks == 0

    run(body)


@pytest.mark.real
def test_a_check_of_some_links_answers_through_links_not_asked_about(tmp_path: Path) -> None:
    """Which files Pyright re-checks after an edit depends on which it was
    asked about before (docs/benchmarks-history.md, 2026-12-05). A check of every
    third link of a 40-link chain, whose types pass through the links in
    between, says what a cold check of those links says after each flip of
    the first link, and so does a whole check between them."""
    require_engine("pyright")
    root = tmp_path / "proj"
    first = make_chain(root, 40)
    root = root.resolve()
    asked = tuple(f"chain/link{k}.py" for k in range(3, 40, 3))

    async def body(warm: WarmPool) -> None:
        await check(root, Context(warm=warm), asked)
        for step, returns in enumerate(("str", "int", "str", "bytes", "int")):
            first(returns)
            some = await check(root, Context(warm=warm), asked)
            assert some.result.outcomes["pyright"].scoped
            assert issues(some) == issues(await check(root, None, asked))
            if returns != "int":
                assert any(f'Type "{returns}"' in i.message for i in some.result.issues)
            if step == 2:
                await warm_equals_cold(root, warm)
        assert warm.counts.restarts == 0 and warm.counts.fallbacks == 0

    run(body)


@pytest.mark.real
def test_a_check_of_a_file_pulls_that_file_alone(project: Path) -> None:
    """After a signature change every user breaks; a check of one user asks
    the server for that file alone and says what a cold check of it says;
    the whole check after it still finds every user broken."""

    async def body(warm: WarmPool) -> None:
        await check(project, Context(warm=warm))
        apply(project, "signature", 0)
        pulls: list[str] = []
        pull = warm_pyright.PyrightSession._pull

        async def counted(session: warm_pyright.PyrightSession, path: str) -> Any:
            pulls.append(path)
            return await pull(session, path)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(warm_pyright.PyrightSession, "_pull", counted)
            one = await check(project, Context(warm=warm), ("src/use1.py",))
        assert pulls == [str(project / "src" / "use1.py")]
        outcome = one.result.outcomes["pyright"]
        assert outcome.served == "warm" and outcome.scoped and outcome.files_checked == 1
        assert issues(one) == issues(await check(project, None, ("src/use1.py",)))
        assert {i.file for i in one.result.issues} == {"src/use1.py"}
        assert one.filtered_out == 0
        whole = await check(project, Context(warm=warm))
        assert not whole.result.outcomes["pyright"].scoped
        assert issues(whole) == issues(await check(project))
        assert {f"src/use{n}.py" for n in range(3)} <= {i.file for i in whole.result.issues}
        assert warm.counts.started == 1 and warm.counts.fallbacks == 0

    run(body)


@pytest.mark.real
def test_a_killed_server_is_restarted_and_answers_as_cold(project: Path) -> None:
    async def body(warm: WarmPool) -> None:
        await warm_equals_cold(project, warm)
        (worker,) = warm.workers()
        os.killpg(worker.pid, signal.SIGKILL)
        apply(project, "signature", 0)
        await warm_equals_cold(project, warm)
        assert warm.counts.restarts == 1 and warm.counts.fallbacks == 0

    run(body)


@pytest.mark.real
def test_a_server_that_answers_garbage_falls_back_to_cold(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "pyright-langserver"
    fake.write_text(
        "#!/bin/sh\n"
        "printf 'Content-Length: 9\\r\\n\\r\\nnot json!'\n"
        "printf 'garbage without a header\\r\\n'\n"
        "cat >/dev/null\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(warm_pyright, "langserver", lambda _executable: fake)

    async def body(warm: WarmPool) -> None:
        warm_run = await check(project, Context(warm=warm))
        cold_run = await check(project)
        assert warm_run.result.outcomes["pyright"].served == "fallback"
        assert issues(warm_run) == issues(cold_run)
        assert warm.counts.fallbacks == 1 and warm.counts.warm == 0

    run(body)


@pytest.mark.real
def test_a_config_above_the_root_is_left_to_the_cold_run(tmp_path: Path) -> None:
    """The CLI run in the root finds a config above it; the language server,
    whose workspace is the root, would not: the driver does not serve it."""
    require_engine("pyright")
    above = tmp_path / "above"
    (above / ".git").mkdir(parents=True)
    (above / "pyrightconfig.json").write_text('{"typeCheckingMode": "strict"}')
    root = above / "proj"
    _write(root, "pkg/__init__.py", "")
    _write(root, "pkg/a.py", "def f(x):\n    return x\n")
    ctx = context(root.resolve())
    assert warm_pyright.DRIVER.key(ctx, ENGINE.command(ctx, [], None)) is None
    (above / "pyrightconfig.json").unlink()
    _write(root, "pyrightconfig.json", '{"typeCheckingMode": "strict"}')
    assert warm_pyright.DRIVER.key(ctx, ENGINE.command(ctx, [], None)) is not None


@pytest.mark.real
def test_a_server_tracking_other_files_than_the_checked_ones_is_not_trusted(
    tmp_path: Path,
) -> None:
    """An `include` outside the root: pyright tracks a file `checked_files`
    does not list. The first check falls back to cold, later ones run cold
    without starting servers again, and both equal cold."""
    require_engine("pyright")
    _write(tmp_path, "shared/extra.py", "x: int = 'shared'\n")
    root = make_project(tmp_path / "proj")
    write_config(root, {**CONFIG, "include": ["src", "../shared"]})

    async def body(warm: WarmPool) -> None:
        first = await check(root, Context(warm=warm))
        second = await check(root, Context(warm=warm))
        cold = await check(root)
        assert first.result.outcomes["pyright"].served == "fallback"
        assert second.result.outcomes["pyright"].served == "cold"
        assert issues(first) == issues(second) == issues(cold)
        assert warm.counts.started == 0 and warm.counts.fallbacks == 1

    run(body)


@pytest.mark.real
def test_the_server_exits_when_its_stdin_closes(project: Path, tmp_path: Path) -> None:
    ctx = context(project)
    command = ENGINE.command(ctx, [], None)

    async def body() -> int | None:
        session = await warm_pyright.DRIVER.open(ctx, command, tmp_path / "log")
        child = session.child
        child.stdin.close()
        for _ in range(100):
            if not child.alive:
                break
            await asyncio.sleep(0.1)
        alive = child.alive
        await child.stop()
        await session.close()
        assert not alive, "pyright-langserver outlived its stdin"
        return child.exit_code

    asyncio.run(body())


def test_include_roots_stop_at_the_first_wildcard(tmp_path: Path) -> None:
    _write(tmp_path, "pyrightconfig.json", json.dumps({"include": ["src", "pkg/*/mod", "**/x"]}))
    found = warm_pyright.include_roots(tmp_path)
    assert found == [str(tmp_path / "src"), str(tmp_path / "pkg"), str(tmp_path)]

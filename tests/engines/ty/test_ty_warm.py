"""ty kept warm (`warm.ty`) against ty run cold (real tier).

Every check runs through a real `WarmPool` with `ty server` and is compared
with a cold `use_cache=False` check of the same content, as multisets of
issues and as the files the engine says it checked, after every edit of a
sequence (hypothesis): a widely imported signature changed, a module added
or deleted, an export renamed, the config edited (a rule's severity), an
excluded module edited, a file edited and restored behind the worker's
back, a syntax error, a non-ASCII line before an error's column, a line
break moved with every byte offset kept. ty 0.0.44 (an older server,
which lists the project's files only in its first pull) answers warm too.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from signalint.cache.context import Context
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import resolve
from signalint.engines.ty import warm as warm_ty
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine
from tests.helpers import pinned_pip_engine
from tests.warm.differential import Differential

T = TypeVar("T")
TY_0 = "0.0.44"
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "engines" / "ty"
LIB = '''"""The widely imported module."""


def scale(value: int) -> int:
    return value * 2


NAME: str = "lib"
'''
USER = '''"""A user of lib."""

from app.lib import NAME, scale


def use{n}() -> int:
    size: int = scale({n})
    wrong: str = scale({n})
    label: str = "héllo 😀"; bad: int = NAME
    return size + len(wrong) + len(label) + bad
'''


TY = Differential("ty", warm_ty.DRIVER, checked=True)
check = TY.check
issues = TY.issues
run = TY.run
warm_equals_cold = TY.warm_equals_cold


def project(base: Path, git: bool = False) -> Path:
    """The ty fixture with `src/app/lib.py` imported by three users; in a
    git repository when `git` (ty's ignore files apply only there)."""
    require_engine("ty")
    root = base / "proj"
    shutil.copytree(FIXTURE, root)
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "src/app/lib.py").write_text(LIB)
    for n in range(3):
        (root / f"src/app/use{n}.py").write_text(USER.format(n=n))
    return root.resolve()


def apply(root: Path, kind: str, step: int) -> None:
    lib = root / "src/app/lib.py"
    if kind == "signature":
        text = lib.read_text()
        swapped = "value: str" if "value: int" in text else "value: int"
        lib.write_text(text.replace("value: int", swapped).replace("value: str", swapped))
    elif kind == "add":
        (root / f"src/app/added{step}.py").write_text(USER.format(n=100 + step))
    elif kind == "delete":
        users = sorted((root / "src/app").glob("use*.py")) + sorted(
            (root / "src/app").glob("added*.py")
        )
        if users:
            users[0].unlink()
    elif kind == "rename":
        text = lib.read_text()
        lib.write_text(
            text.replace("NAME:", "TITLE:") if "NAME:" in text else text.replace("TITLE:", "NAME:")
        )
    elif kind == "config":
        pyproject = root / "pyproject.toml"
        text = pyproject.read_text()
        pyproject.write_text(
            text.replace('invalid-argument-type = "warn"', 'invalid-argument-type = "error"')
            if '"warn"' in text
            else text.replace('invalid-argument-type = "error"', 'invalid-argument-type = "warn"')
        )
    elif kind == "generated":
        gen = root / "src/generated/gen.py"
        gen.write_text(gen.read_text() + f"more{step}: int = 'x'\n")
    elif kind == "syntax":
        broken = root / "src/app/broken.py"
        text = broken.read_text()
        broken.write_text(
            "def fine():\n    pass\n" if "(:" in text else "def unfinished(:\n    pass\n"
        )
    elif kind == "ignore":
        ignore = root / ".gitignore"
        text = ignore.read_text()
        extra = "src/app/use1.py\n"
        ignore.write_text(text.replace(extra, "") if extra in text else text + extra)
    elif kind == "shift":
        # The same bytes at the same offsets, lines moved: ty's result id
        # (a hash of byte ranges) stays the same, the lines do not.
        users = sorted((root / "src/app").glob("use*.py")) + sorted(
            (root / "src/app").glob("added*.py")
        )
        if not users:
            return
        user = users[-1]
        text = user.read_text()
        moved = '"""A user\nof lib."""\n'
        user.write_text(
            text.replace('"""A user of lib."""\n', moved)
            if moved not in text
            else text.replace(moved, '"""A user of lib."""\n')
        )
    elif kind == "behind":
        user = sorted((root / "src/app").glob("*.py"))[0]
        original = user.read_bytes()
        user.write_bytes(original + b"\nbroken = (\n")
        user.write_bytes(original)


KINDS = (
    "signature",
    "add",
    "delete",
    "rename",
    "config",
    "generated",
    "syntax",
    "ignore",
    "behind",
    "shift",
)


@pytest.mark.real
@pytest.mark.parametrize("git", [False, True])
def test_each_kind_of_edit_answers_warm_as_cold(tmp_path: Path, git: bool) -> None:
    root = project(tmp_path, git)

    async def body(warm: WarmPool) -> None:
        first = await warm_equals_cold(root, warm)
        assert {i.severity for i in first} == {"error", "warning"}
        assert not [i for i in first if i.file.startswith(("scripts/", "src/generated/"))]
        for step, kind in enumerate(KINDS):
            apply(root, kind, step)
            await warm_equals_cold(root, warm)
        # Content edits, added and deleted modules are told to the server;
        # the config and the ignore file's edits start a new one.
        assert warm.counts.fallbacks == 0
        assert warm.counts.started == 3

    run(body)


@pytest.mark.real
@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(edits=st.lists(st.sampled_from(KINDS), min_size=3, max_size=6))
def test_random_edit_sequences_answer_warm_as_cold(edits: list[str]) -> None:
    root = project(Path(tempfile.mkdtemp(prefix="ty-warm-")))

    async def body(warm: WarmPool) -> None:
        await warm_equals_cold(root, warm)
        for step, kind in enumerate(edits):
            apply(root, kind, step)
            await warm_equals_cold(root, warm)
        assert warm.counts.fallbacks == 0

    run(body)


@pytest.mark.real
def test_a_config_ty_refuses_is_reported_as_the_cold_run_reports_it(tmp_path: Path) -> None:
    """The CLI refuses an invalid `pyproject.toml` (exit code 2); the server
    would check with its defaults instead. The worker is refused, once per
    content of the config, and the check says what the cold run says."""
    root = project(tmp_path)
    pyproject = root / "pyproject.toml"
    good = pyproject.read_text()

    async def body(warm: WarmPool) -> None:
        await warm_equals_cold(root, warm)
        pyproject.write_text(good + "\n[tool.ty.nonsense]\nx = 1\n")
        for _ in range(2):
            warm_run = await check(root, Context(warm=warm))
            cold_run = await check(root)
            outcome = warm_run.result.outcomes["ty"]
            assert outcome.status == cold_run.result.outcomes["ty"].status == "error"
            # The same failure; its excerpt quotes logs of different times.
            assert (outcome.message or "").startswith("ty exited with code 2")
            assert (cold_run.result.outcomes["ty"].message or "").startswith(
                "ty exited with code 2"
            )
            assert outcome.failure == cold_run.result.outcomes["ty"].failure
            assert outcome.served != "warm"
            assert Counter(warm_run.result.issues) == Counter(cold_run.result.issues)
        # One server refused at its start; the second check did not try again.
        assert warm.counts.fallbacks == 1
        pyproject.write_text(good)
        await warm_equals_cold(root, warm)
        assert warm.counts.started == 2

    run(body)


@pytest.fixture(scope="session")
def ty0_venv() -> Path:
    """A virtual environment holding ty 0.0.44 (pinned, as scripts/setup
    installs it beside the other old engines), made when missing."""
    return pinned_pip_engine("ty0", "ty", TY_0, f"ty {TY_0}")


@pytest.mark.real
def test_an_older_ty_that_lists_its_files_in_its_first_pull_answers_warm(
    tmp_path: Path, ty0_venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ty 0.0.44 (the project's own, its active virtual environment) lists
    the project's files in its first pull, not at its start: the worker
    starts once the log says the project was loaded and answers every
    check warm, equal to the cold run, an invalid config refused."""
    monkeypatch.setenv("VIRTUAL_ENV", str(ty0_venv))
    root = project(tmp_path)
    executable = resolve(ENGINES["ty"], root).path
    assert executable is not None and executable.is_relative_to(ty0_venv)
    pyproject = root / "pyproject.toml"
    good = pyproject.read_text()

    async def body(warm: WarmPool) -> None:
        first = await warm_equals_cold(root, warm)
        assert {i.severity for i in first} == {"error", "warning"}
        for step, kind in enumerate(("signature", "add", "delete", "rename", "shift")):
            apply(root, kind, step)
            await warm_equals_cold(root, warm)
        assert warm.counts.fallbacks == 0
        assert warm.counts.started == 1
        pyproject.write_text(good + "\n[tool.ty.nonsense]\nx = 1\n")
        warm_run = await check(root, Context(warm=warm))
        outcome = warm_run.result.outcomes["ty"]
        assert outcome.status == "error" and outcome.served != "warm"
        assert warm.counts.fallbacks == 1

    run(body)

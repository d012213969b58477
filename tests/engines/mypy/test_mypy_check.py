"""mypy through a whole check and the program cache, against mypy run alone (real tier).

tests/fixtures/engines/mypy is strict, excludes `build/`, and has errors
with attached notes, a standalone note, a missing import, non-ASCII lines
and an unused `type: ignore`. The native count is `mypy -O json .` as the
project would run it, compared with multiplicity.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signalint import process
from signalint.engines.base import EngineContext
from signalint.engines.mypy.adapter import ENGINE
from signalint.engines.resolve import Resolved
from signalint.engines.runner import EngineRun, Job, run_engine
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.conftest import require_engine
from tests.engines.recordings import recorded
from tests.helpers import git_status

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "engines" / "mypy"


def commit_all(root: Path) -> None:
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "fixture"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv], cwd=root, check=True
        )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A committed git copy of the fixture, outside this repository's packages."""
    require_engine("mypy")
    root = tmp_path / "mypy"
    shutil.copytree(FIXTURE, root)
    commit_all(root)
    return root


def run(root: Path) -> EngineRun:
    executable = require_engine("mypy")
    return asyncio.run(
        run_engine(
            ENGINE,
            Job(
                root=root,
                options={},
                timeout_s=300.0,
                state_dir=root / ".signalint",
                resolved=Resolved("mypy", executable, "managed"),
            ),
        )
    )


def context(root: Path) -> EngineContext:
    return EngineContext(
        root=root,
        executable=require_engine("mypy"),
        timeout_s=300.0,
        state_dir=root / ".signalint",
    )


def native(root: Path, cache: Path) -> Counter[tuple[str, str, int]]:
    done = subprocess.run(
        [str(require_engine("mypy")), "-O", "json", "--cache-dir", str(cache), "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return Counter((r["file"], r["code"] or r["severity"], max(r["line"], 1)) for r in rows)


def check(root: Path, *, use_cache: bool = True) -> CheckRun:
    return asyncio.run(run_check(RunRequest(root, load_config(root), use_cache=use_cache)))


@pytest.fixture
def mypy_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, ...]]]:
    """The argv of every mypy process a check starts (recorded, then run)."""
    started: list[tuple[str, ...]] = []
    real_run = process.run

    async def recording(command: Any, *args: Any, **kwargs: Any) -> Any:
        if "-O" in command.argv:
            started.append(tuple(command.argv))
        return await real_run(command, *args, **kwargs)

    monkeypatch.setattr(process, "run", recording)
    yield started


@pytest.mark.real
@pytest.mark.parametrize("use_cache", [False, True])
def test_mypy_check_reports_every_native_diagnostic_exactly_once(
    project: Path, tmp_path: Path, use_cache: bool
) -> None:
    expected = native(project, tmp_path / "native-cache")
    outcome = check(project, use_cache=use_cache).result.outcomes["mypy"]
    assert outcome.status == "ok", outcome.message
    found = Counter((i.file, i.rule, i.line) for i in outcome.issues)
    assert found == expected
    assert sum(found.values()) == 7
    # app/__init__.py, app/core.py, app/util.py; not build/gen.py (excluded).
    assert outcome.files_checked == 3


@pytest.mark.usefixtures("settled_inputs")
@pytest.mark.real
def test_mypy_warm_check_reuses_the_program_until_an_input_changes(
    project: Path, mypy_runs: list[tuple[str, ...]]
) -> None:
    cold = check(project).result
    warm = check(project).result
    assert len(mypy_runs) == 1
    assert warm.outcomes["mypy"].cache_hits == 1
    assert warm.issues == cold.issues
    # Outside the program: mypy's config excludes build/.
    (project / "build" / "gen.py").write_text("def broken() -> str:\n    return 1\n")
    check(project)
    assert len(mypy_runs) == 1
    (project / "app" / "util.py").write_text("def double(n: int) -> int:\n    return n * 2\n")
    edited = check(project).result
    assert len(mypy_runs) == 2
    assert not [i for i in edited.issues if i.file == "app/util.py"]


@pytest.mark.usefixtures("settled_inputs")
@pytest.mark.real
def test_mypy_new_module_reruns_the_program(
    project: Path, mypy_runs: list[tuple[str, ...]]
) -> None:
    check(project)
    (project / "missing_module_xyz.py").write_text("VALUE = 1\n")
    rules = {i.rule for i in check(project).result.issues}
    assert len(mypy_runs) == 2
    assert "import-not-found" not in rules


@pytest.mark.real
def test_mypy_program_is_what_mypy_read_and_checked(project: Path) -> None:
    done = run(project)
    program = ENGINE.program(done.results, context(project), None, frozenset())
    own = {str(project / "app" / name) for name in ("__init__.py", "core.py", "util.py")}
    assert program.checked is not None and set(program.checked) == own
    assert own < set(program.inputs)
    assert all(Path(p).is_file() for p in program.inputs)
    again = ENGINE.program(run(project).results, context(project), None, frozenset())
    assert set(again.inputs) == set(program.inputs)  # mypy's cache warm: "Metadata fresh"


@pytest.mark.real
def test_mypy_check_writes_nothing_in_the_project_outside_the_state_directory(
    project: Path,
) -> None:
    check(project, use_cache=False)
    check(project)
    status = git_status(project)
    assert status and all(line[3:].startswith(".signalint/") for line in status)
    assert not (project / ".mypy_cache").exists()


@pytest.mark.usefixtures("settled_inputs")
@pytest.mark.real
def test_mypy_sees_the_packages_of_the_projects_virtual_environment(tmp_path: Path) -> None:
    require_engine("mypy")
    root = tmp_path / "venv-project"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "use.py").write_text("from typedpkg import shout\n\nshout(3)\n")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    site = next((root / ".venv" / "lib").glob("python*/site-packages"))
    (site / "typedpkg").mkdir()
    (site / "typedpkg" / "__init__.py").write_text(
        "def shout(text: str) -> str:\n    return text\n"
    )
    (site / "typedpkg" / "py.typed").write_text("")
    (site / "typedpkg-1.0.dist-info").mkdir()
    outcome = check(root).result.outcomes["mypy"]
    assert outcome.status == "ok", outcome.message
    assert [(i.file, i.rule, i.line) for i in outcome.issues] == [("app/use.py", "arg-type", 3)]
    assert check(root).result.outcomes["mypy"].cache_hits == 1
    # Installing a package (a new *.dist-info, no new module) re-runs the program.
    (site / "other-2.0.dist-info").mkdir()
    again = check(root).result.outcomes["mypy"]
    assert again.cache_hits == 0 and again.cache_misses == 1


@pytest.mark.real
def test_real_mypy_output_parses_like_the_recording(project: Path) -> None:
    """A failure means mypy's output drifted from tests/engines/recorded: re-record."""
    live = {(i.file, i.line, i.col, i.rule, i.message, i.help) for i in run(project).outcome.issues}
    ctx = context(project)
    replayed = ENGINE.parse(recorded("mypy", project), ctx)
    assert live == {(i.file, i.line, i.col, i.rule, i.message, i.help) for i in replayed}


@pytest.mark.usefixtures("settled_inputs")
@pytest.mark.real
def test_a_namespace_package_does_not_stop_the_program_from_being_reused(
    tmp_path: Path, mypy_runs: list[tuple[str, ...]]
) -> None:
    # mypy logs a namespace package (a directory without __init__.py) as an
    # input of its own; the real-world tier found warm checks re-running mypy.
    require_engine("mypy")
    root = tmp_path / "ns"
    (root / "tests" / "other").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "other" / "api.py").write_text("x: int = 1\n")
    commit_all(root)
    check(root)
    warm = check(root).result
    assert len(mypy_runs) == 1
    assert warm.outcomes["mypy"].cache_hits == 1

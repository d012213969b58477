"""Pyright through a whole check and the program cache, against pyright run alone (real tier).

tests/fixtures/engines/pyright includes `src` minus `src/generated`, turns
two rules into a warning and an information, and has errors with
elaborated messages, syntax errors, non-ASCII lines, a `reveal_type` and a
script outside its `include`. The native count is `pyright --outputjson`
as the project would run it, compared with multiplicity.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signalint import process
from signalint.engines.base import EngineContext
from signalint.engines.pyright.adapter import ENGINE
from signalint.model import Issue
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.conftest import require_engine
from tests.engines.recordings import recorded
from tests.helpers import git_status

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "engines"


def copy(name: str, target: Path) -> Path:
    """A committed git copy of a fixture (so `git status` shows any write)."""
    require_engine("pyright")
    root = target / name
    shutil.copytree(FIXTURES / name, root)
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "fixture"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv], cwd=root, check=True
        )
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy("pyright", tmp_path)


def check(root: Path, *, use_cache: bool = True) -> CheckRun:
    return asyncio.run(run_check(RunRequest(root, load_config(root), use_cache=use_cache)))


def native(root: Path) -> Counter[tuple[str, str, int]]:
    done = subprocess.run(
        [str(require_engine("pyright")), "--outputjson"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return Counter(
        (
            str(Path(d["file"]).relative_to(root)),
            d.get("rule") or d["severity"],
            d["range"]["start"]["line"] + 1,
        )
        for d in json.loads(done.stdout)["generalDiagnostics"]
    )


@pytest.fixture
def pyright_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, ...]]]:
    started: list[tuple[str, ...]] = []
    real_run = process.run

    async def recording(command: Any, *args: Any, **kwargs: Any) -> Any:
        if "--outputjson" in command.argv:
            started.append(tuple(command.argv))
        return await real_run(command, *args, **kwargs)

    monkeypatch.setattr(process, "run", recording)
    yield started


@pytest.mark.real
@pytest.mark.parametrize("use_cache", [False, True])
def test_pyright_check_reports_every_native_diagnostic_exactly_once(
    project: Path, use_cache: bool
) -> None:
    expected = native(project)
    outcome = check(project, use_cache=use_cache).result.outcomes["pyright"]
    assert outcome.status == "ok", outcome.message
    found = Counter((i.file, i.rule, i.line) for i in outcome.issues)
    assert found == expected
    assert sum(found.values()) == 16
    # src/app/__init__.py, broken.py, core.py; not src/generated nor scripts.
    assert outcome.files_checked == 3


@pytest.mark.usefixtures("settled_inputs")
@pytest.mark.real
def test_pyright_warm_check_starts_no_pyright_until_a_python_file_changes(
    project: Path, pyright_runs: list[tuple[str, ...]]
) -> None:
    cold = check(project).result
    warm = check(project).result
    assert len(pyright_runs) == 1
    assert warm.outcomes["pyright"].cache_hits == 1
    assert warm.issues == cold.issues
    (project / "src" / "app" / "broken.py").write_text("def fixed() -> None:\n    pass\n")
    edited = check(project).result
    assert len(pyright_runs) == 2
    assert not [i for i in edited.issues if i.file == "src/app/broken.py"]


@pytest.mark.real
def test_pyright_check_writes_nothing_in_the_project_outside_the_state_directory(
    project: Path,
) -> None:
    check(project, use_cache=False)
    check(project)
    status = git_status(project)
    assert all(line[3:].startswith(".signalint/") for line in status)


@pytest.mark.real
def test_pyright_config_it_cannot_parse_is_an_engine_error(tmp_path: Path) -> None:
    root = copy("pyright-badconfig", tmp_path)
    outcome = check(root).result.outcomes["pyright"]
    assert outcome.status == "error"
    assert outcome.message is not None and "could not be parsed" in outcome.message


@pytest.mark.real
def test_real_pyright_output_parses_like_the_recording(project: Path) -> None:
    """A failure means pyright's output drifted from tests/engines/recorded: re-record."""
    outcome = check(project, use_cache=False).result.outcomes["pyright"]
    ctx = EngineContext(
        root=project, executable=require_engine("pyright"), timeout_s=60.0, state_dir=project
    )
    replayed = ENGINE.parse(recorded("pyright", project), ctx)

    def key(i: Issue) -> tuple[object, ...]:
        return (i.file, i.line, i.col, i.end_line, i.end_col, i.rule, i.severity, i.message)

    assert {key(i) for i in outcome.issues} == {key(i) for i in replayed}

"""Ruff through a whole check, against Ruff run alone (real tier).

tests/fixtures/engines/ruff has a nested `ruff.toml` that extends the root
config, an `extend-exclude`d directory with errors, a notebook, a syntax
error, non-ASCII lines and a text file Ruff must not lint. The native count
is `ruff check .` as the project would run it, compared with multiplicity.
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
from signalint.model import Scope
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.conftest import require_engine
from tests.helpers import git_status

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "engines" / "ruff"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A committed git copy of the fixture (so `git status` shows any write)."""
    require_engine("ruff")
    root = tmp_path / "ruff"
    shutil.copytree(FIXTURE, root)
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "fixture"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv], cwd=root, check=True
        )
    return root


def check(root: Path, scope: Scope | None = None, *, use_cache: bool = True) -> CheckRun:
    return asyncio.run(
        run_check(RunRequest(root, load_config(root), scope or Scope(), use_cache=use_cache))
    )


def native(root: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(require_engine("ruff")), "check", "--output-format", "json", "--no-cache", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


@pytest.fixture
def engine_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, ...]]]:
    started: list[tuple[str, ...]] = []
    real_run = process.run

    async def recording(command: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(tuple(command.argv))
        return await real_run(command, *args, **kwargs)

    monkeypatch.setattr(process, "run", recording)
    yield started


@pytest.mark.real
def test_ruff_check_reports_every_native_diagnostic_exactly_once(project: Path) -> None:
    expected = Counter(
        (str(Path(d["filename"]).relative_to(project)), d["code"], d["location"]["row"])
        for d in native(project)
    )
    run = check(project, use_cache=False)
    outcome = run.result.outcomes["ruff"]
    assert outcome.status == "ok", outcome.message
    found = Counter((i.file, i.rule, i.line) for i in run.result.issues if i.engine == "ruff")
    assert found == expected
    assert sum(found.values()) == 14


@pytest.mark.real
def test_ruff_counts_only_the_files_its_configuration_selects(project: Path) -> None:
    outcome = check(project).result.outcomes["ruff"]
    # notebook.ipynb, pyproject.toml and the four modules under src/app;
    # not generated/gen.py (extend-exclude) and not notes.txt.
    assert outcome.files_checked == 6
    excluded = check(project, Scope(("generated",))).result
    assert excluded.outcomes["ruff"].files_checked == 0
    assert not [i for i in excluded.issues if i.engine == "ruff"]


@pytest.mark.real
def test_ruff_check_writes_nothing_in_the_project_outside_the_state_directory(
    project: Path,
) -> None:
    check(project, use_cache=False)
    check(project)
    status = git_status(project)
    assert [line for line in status if not line[3:].startswith(".signalint/")] == []


@pytest.mark.usefixtures("settled_inputs")
@pytest.mark.real
def test_ruff_warm_check_starts_no_process_and_an_edit_relints_that_file_only(
    project: Path, engine_runs: list[tuple[str, ...]]
) -> None:
    cold = check(project)
    engine_runs.clear()
    warm = check(project)
    assert engine_runs == []
    assert warm.result.issues == cold.result.issues
    (project / "src" / "app" / "a.py").write_text("import os\n")
    edited = check(project)
    lint_runs = [argv for argv in engine_runs if "--output-format" in argv]
    assert [argv[argv.index("--") + 1 :] for argv in lint_runs] == [("src/app/a.py",)]
    rules = Counter(i.rule for i in edited.result.issues if i.file == "src/app/a.py")
    assert rules == Counter({"F401": 1})


@pytest.mark.real
def test_ruff_nested_config_change_invalidates_the_files_it_governs(project: Path) -> None:
    check(project)
    (project / "src" / "app" / "sub" / "ruff.toml").write_text(
        'extend = "../../../pyproject.toml"\n\n[lint]\nselect = ["E702"]\n'
    )
    rules = Counter(i.rule for i in check(project).result.issues if i.file == "src/app/sub/c.py")
    assert rules == Counter({"E702": 1})

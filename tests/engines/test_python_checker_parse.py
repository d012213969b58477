"""ty's, Pyrefly's and basedpyright's recorded output parsed (quick tier), and the
real engines' output parsed like the recordings (real tier).

Recordings: tests/engines/recorded/{ty,pyrefly,pyrefly.probe,basedpyright}.json,
made by `python -m tests.engines.record_python_checkers` on the fixtures.
"""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from pathlib import Path

import pytest

from signalint.engines.base import Engine, EngineContext
from signalint.engines.basedpyright import adapter as basedpyright
from signalint.engines.pyrefly import adapter as pyrefly
from signalint.engines.ty import adapter as ty
from signalint.model import Issue
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.conftest import require_engine
from tests.engines.recordings import context, fixture, recorded, recorded_argv

ENGINES: dict[str, Engine] = {
    "ty": ty.ENGINE,
    "pyrefly": pyrefly.ENGINE,
    "basedpyright": basedpyright.ENGINE,
}


def key(i: Issue) -> tuple[object, ...]:
    return (i.file, i.line, i.col, i.end_line, i.end_col, i.rule, i.severity, i.message)


@pytest.mark.parametrize("name", list(ENGINES))
def test_the_recording_parses_to_the_fixtures_issues(name: str) -> None:
    engine = ENGINES[name]
    issues = engine.parse(recorded(name, fixture(name)), context(name))
    files = Counter(i.file for i in issues)
    # Recorded outside a git repository, where ty does not read `.gitignore`.
    assert set(files) <= {"src/app/core.py", "src/app/broken.py", "src/app/ignored.py"}
    core = [i for i in issues if i.file == "src/app/core.py"]
    # The two assignments on line 14 are two issues, their columns in order.
    line_14 = sorted(i.col for i in core if i.line == 14)
    assert len(line_14) == 2 and line_14[0] < line_14[1]
    assert all(i.engine == name and i.rule and i.message for i in issues)
    assert all(i.end_line is not None and i.end_line >= i.line for i in issues)
    # Rule codes, not messages, name the rule; messages do not repeat it.
    assert not [i for i in issues if i.message.startswith(f"{i.rule}: ")]


def test_ty_severities_and_its_command() -> None:
    issues = ty.ENGINE.parse(recorded("ty", fixture("ty")), context("ty"))
    assert {i.rule: i.severity for i in issues}["invalid-argument-type"] == "warning"
    assert {i.severity for i in issues if i.rule == "invalid-assignment"} == {"error"}
    assert recorded_argv("ty")[:6] == [
        "ty",
        "check",
        "--output-format",
        "gitlab",
        "--no-progress",
        "-vv",
    ]


def test_pyrefly_reads_its_probes_covered_files() -> None:
    root = fixture("pyrefly")
    results = [recorded("pyrefly.probe", root), recorded("pyrefly", root)]
    program = pyrefly.ENGINE.program(results, context("pyrefly"), None, frozenset())
    assert program.gap is None
    assert program.checked is not None
    assert sorted(Path(p).relative_to(root).as_posix() for p in program.checked) == [
        "src/app/__init__.py",
        "src/app/broken.py",
        "src/app/core.py",
    ]


def test_ty_reads_the_files_its_log_names() -> None:
    root = fixture("ty")
    program = ty.ENGINE.program([recorded("ty", root)], context("ty"), None, frozenset())
    assert program.checked is not None
    # The recording's copy was no git repository: ty checked what `.gitignore` names.
    assert sorted(Path(p).relative_to(root).as_posix() for p in program.checked) == [
        "src/app/__init__.py",
        "src/app/broken.py",
        "src/app/core.py",
        "src/app/ignored.py",
    ]
    assert str(root / ".gitignore") in program.inputs  # an input all the same


@pytest.mark.real
@pytest.mark.parametrize("name", list(ENGINES))
def test_real_output_parses_like_the_recording(tmp_path: Path, name: str) -> None:
    """A failure means the engine's output drifted: re-record."""
    require_engine(name)
    root = tmp_path / name
    shutil.copytree(fixture(name), root)
    request = RunRequest(root, load_config(root), use_cache=False)
    outcome = asyncio.run(run_check(request)).result.outcomes[name]
    assert outcome.status == "ok", outcome.message
    ctx = EngineContext(
        root=root, executable=require_engine(name), timeout_s=60.0, state_dir=tmp_path
    )
    replayed = ENGINES[name].parse(recorded(name, root), ctx)
    assert Counter(key(i) for i in outcome.issues) == Counter(key(i) for i in replayed)

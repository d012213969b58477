"""The warm mypy worker keeps the errors of what an update did not check
again (`engines/mypy/mypy_worker.py`, `KeptErrors`), and still answers as a cold
run (real tier).

The project has errors in every module and none of the messages that
depend on the whole run (no import errors, no notes shown once), so
every update goes through the kept errors: the differential test applies
random edits that fix or make errors in other modules (a signature, an
export renamed, an attribute a `type: ignore` covers, a function other
modules call, a module's own error, modules added and deleted, an edit
behind the watcher's back) and compares with a cold run after each step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import require_engine
from tests.engines.mypy.test_mypy_warm import (
    add_user,
    behind_the_back,
    delete_module,
    edited_warm_as_cold,
)

PYPROJECT = """[project]
name = "kept-errors"
version = "0.1.0"
requires-python = ">=3.11"

[tool.mypy]
strict = true
warn_unused_ignores = true
files = ["app"]
"""
LIB = """class Box:
    size: int = 1


def base(value: int) -> int:
    return value + 1


LIMIT: int = 10
"""
USER = """from app import lib as lib_module
from app.lib import LIMIT, Box, base


def use{n}(value: int) -> int:
    wrong: str = base(value)
    return base(value) + LIMIT + len(wrong)


def boxed{n}(box: Box) -> int:
    return box.size + box.extra  # type: ignore[attr-defined]


def helped{n}() -> int:
    return lib_module.helper()


def own{n}(value: int) -> int:
    mine: int = value
    return mine
"""


def make_project(root: Path, users: int = 4) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "lib.py").write_text(LIB)
    for n in range(users):
        (root / "app" / f"user{n}.py").write_text(USER.format(n=n))
    return root


def _toggle(path: Path, one: str, other: str) -> None:
    text = path.read_text()
    path.write_text(text.replace(one, other) if one in text else text.replace(other, one))


def change_signature(root: Path) -> None:
    _toggle(root / "app" / "lib.py", "def base(value: int)", "def base(value: str)")


def rename_export(root: Path) -> None:
    _toggle(root / "app" / "lib.py", "LIMIT", "BOUND")


def toggle_attribute(root: Path) -> None:
    """Box gains (or loses) the attribute the users' ignores cover."""
    grown = "    size: int = 1\n    extra: int = 2\n"
    _toggle(root / "app" / "lib.py", grown, "    size: int = 1\n")


def toggle_helper(root: Path) -> None:
    """lib gains (or loses) the function the users call."""
    lib = root / "app" / "lib.py"
    text = lib.read_text()
    helper = "\n\ndef helper() -> int:\n    return 3\n"
    lib.write_text(text.replace(helper, "") if helper in text else text + helper)


def own_error(root: Path) -> None:
    """The first user's own error, made or fixed."""
    users = sorted((root / "app").glob("user*.py"))
    if users:
        _toggle(users[0], "mine: int = value", "mine: str = value")


def add_module(root: Path) -> None:
    add_user(root, USER)


EDITS = [
    change_signature,
    rename_export,
    toggle_attribute,
    toggle_helper,
    own_error,
    add_module,
    delete_module,
    behind_the_back,
]


@pytest.mark.real
@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(EDITS), min_size=3, max_size=6))
def test_warm_mypy_keeping_errors_equals_cold_after_every_edit(
    tmp_path_factory: pytest.TempPathFactory, edits: list[Callable[[Path], None]]
) -> None:
    tmp = tmp_path_factory.mktemp("kept")
    pool = edited_warm_as_cold(make_project(tmp / "project"), tmp, edits)
    assert pool.counts.fallbacks == 0 and pool.counts.started == 1


@pytest.mark.real
@pytest.mark.parametrize("edit", EDITS, ids=lambda edit: edit.__name__)
def test_each_edit_answers_warm_as_cold_and_again_when_undone(
    tmp_path: Path, edit: Callable[[Path], None]
) -> None:
    pool = edited_warm_as_cold(make_project(tmp_path / "project"), tmp_path, [edit, edit])
    assert pool.counts.fallbacks == 0


WORKER = (
    Path(__file__).resolve().parents[3]
    / "src"
    / "signalint"
    / "engines"
    / "mypy"
    / "mypy_worker.py"
)
ARGS = ["-O", "json", "--no-color-output", "--no-error-summary"]
# Runs the worker in-process (the project's mypy interpreter): answers the
# check, then after each appended text (file, text) answers again, and
# prints each answer with the targets the last update checked.
PROBE = """
import json, os, sys
sys.argv = [sys.argv[0]]
sys.path.insert(0, os.path.dirname({worker!r}))
import mypy_worker
request = {{"args": {args!r}, "cwd": os.getcwd()}}
worker = mypy_worker.Worker(os.devnull)
worker.handle(request)
for name, text in {edits!r}:
    with open(name, "a") as handle:
        handle.write(text)
    answer = worker.handle(request)
    checked = sorted(worker.kept.targets) if worker.kept is not None else None
    print(json.dumps({{"answer": answer, "checked": checked}}))
"""


def probe(root: Path, edits: list[tuple[str, str]]) -> list[dict[str, Any]]:
    mypy = require_engine("mypy")
    python = mypy.with_name("python")
    interpreter = str(python) if python.exists() else sys.executable
    script = PROBE.format(worker=str(WORKER), args=ARGS, edits=edits)
    done = subprocess.run(
        [interpreter, "-c", script], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def cold_lines(root: Path) -> Counter[str]:
    done = subprocess.run(
        [str(require_engine("mypy")), *ARGS, "--cache-dir", os.devnull],
        cwd=root, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return Counter(done.stdout.splitlines())


@pytest.mark.real
def test_a_body_edit_checks_again_only_its_module_and_keeps_the_other_errors(
    tmp_path: Path,
) -> None:
    """Without kept errors the daemon checks again every function with an
    error in every module; here only the edited module is checked."""
    root = make_project(tmp_path / "project", users=6)
    (step,) = probe(root, [("app/user0.py", "\n\nADDED: int = 1\n")])
    assert step["checked"] == ["app.user0"]
    assert Counter(step["answer"]["stdout"].splitlines()) == cold_lines(root)
    assert len(cold_lines(root)) > 6


@pytest.mark.real
def test_an_import_error_made_while_errors_are_kept_is_answered_cold_then_built_anew(
    tmp_path: Path,
) -> None:
    """An import error hides other errors and adds a note shown once per
    run, which kept errors cannot place: that answer is the cold command's,
    and the next one comes from a fresh build, equal to cold."""
    root = make_project(tmp_path / "project")
    missing, later = probe(
        root,
        [("app/user1.py", "\n\nimport missing_module_kept\n"), ("app/user2.py", "\nX: int = 1\n")],
    )
    assert "cold" in missing["answer"]
    assert later["checked"] is None  # built anew: nothing kept yet
    assert "stdout" in later["answer"]
    assert Counter(later["answer"]["stdout"].splitlines()) == cold_lines(root)

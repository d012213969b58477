"""The post-edit hook through the daemon sees what an edit broke elsewhere (issue 37).

The daemon keeps tsc, mypy and Pyright warm. The hook through it checks
the edited file, and each whole-program engine's worker answers for its
program (tsc's builder re-checks the files the edit affects, Pyright's
server the files importing it, mypy's daemon what depends on it), so the
hook knows the program's previous run and names the importer the edit
broke first, as the hook in-process does (`test_hook_dependents.py`). An
edit that keeps the module's exported shape answers too, with nothing said
about other files; undoing the break says the importer was repaired.

Real daemon, real workers (TypeScript 7's native API, TypeScript 5's
JavaScript compiler API, mypy's daemon, Pyright's language server).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_engine
from tests.daemon.test_daemon import ENGINES_OFF, run_cli, status, stop_daemon
from tests.typescripts import install_typescript, typescript

pytestmark = pytest.mark.real

TS_GOOD = "export function size(): number {\n  return 1;\n}\n"
TS_BODY = "export function size(): number {\n  return 2;\n}\n"
TS_BAD = 'export function size(): string {\n  return "1";\n}\n'
PY_GOOD = "def size() -> int:\n    return 1\n"
PY_BODY = "def size() -> int:\n    return 2\n"
PY_BAD = 'def size() -> str:\n    return "1"\n'

# Engine -> (the edited file, its content: clean, body changed, breaking its importer;
# the importer, the broken line's start in the hook's context).
CASES: dict[str, tuple[str, tuple[str, str, str], str, str]] = {
    "tsc7": ("src/shape.ts", (TS_GOOD, TS_BODY, TS_BAD), "src/use.ts", "src/use.ts:2:14 error"),
    "tsc5": ("src/shape.ts", (TS_GOOD, TS_BODY, TS_BAD), "src/use.ts", "src/use.ts:2:14 error"),
    "mypy": ("pkg/shape.py", (PY_GOOD, PY_BODY, PY_BAD), "pkg/use.py", "pkg/use.py:3:"),
    "pyright": ("pkg/shape.py", (PY_GOOD, PY_BODY, PY_BAD), "pkg/use.py", "pkg/use.py:3:"),
}


def settle() -> None:
    """Past the settle window of what a check read (its record and kept answer)."""
    time.sleep(2.2)


def write_project(root: Path, case: str) -> Path:
    root.mkdir(parents=True)
    (root / ".git").mkdir()
    engine = "tsc" if case.startswith("tsc") else case
    engines = {**ENGINES_OFF, "ruff": False, "mypy": False, "pyright": False, engine: True}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    edited, (good, _, _), _, _ = CASES[case]
    if engine == "tsc":
        (root / "src").mkdir()
        (root / "package.json").write_text('{"name": "hooked", "private": true}\n')
        options = {"strict": True, "noEmit": True, "skipLibCheck": True, "types": []}
        (root / "tsconfig.json").write_text(
            json.dumps({"compilerOptions": options, "include": ["src"]})
        )
        (root / "src" / "use.ts").write_text(
            "import { size } from './shape';\nexport const v: number = size();\n"
        )
        install_typescript(root, int(case[-1]))
    else:
        (root / "pkg").mkdir()
        (root / "pyproject.toml").write_text('[project]\nname = "ripple"\nversion = "0"\n')
        (root / "pkg" / "__init__.py").write_text("")
        (root / "pkg" / "use.py").write_text("from pkg.shape import size\n\nv: int = size()\n")
    (root / edited).write_text(good)
    return Path(os.path.realpath(root))


def post_edit(root: Path, rel: str, session: str) -> list[str]:
    """The context the post-edit hook gives the model for an edit of `rel`, by lines.

    The edit settles first: a run's record is kept only when no input was
    touched shortly before it started (`check_store`), and the next step
    compares with it (undoing the break says what it repaired)."""
    time.sleep(0.5)
    event = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(root / rel), "content": ""},
    }
    done = run_cli(root, "hooks", "run", "--runtime", "claude", stdin=json.dumps(event))
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    context = answer.get("hookSpecificOutput", {}).get("additionalContext", "")
    assert isinstance(context, str)
    return context.splitlines()


def warm_answers(root: Path) -> int:
    count = status(root)["counts"]["warmAnswers"]
    assert isinstance(count, int)
    return count


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_post_edit_hook_through_the_daemon_names_the_broken_dependent_first(
    tmp_path: Path, case: str
) -> None:
    if case.startswith("tsc"):
        typescript(int(case[-1]))
    else:
        require_engine(case)
    root = write_project(tmp_path / "p", case)
    edited, (good, body, bad), user, where = CASES[case]
    assert run_cli(root, "daemon", "start").returncode == 0
    try:
        first = run_cli(root, "check", "--format", "json")
        assert first.returncode == 0, first.stdout + first.stderr
        engine = "tsc" if case.startswith("tsc") else case
        assert json.loads(first.stdout)["engines"][engine]["served"] == "warm", first.stdout
        settle()

        # The exported shape kept: an answer, nothing said about other files.
        (root / edited).write_text(body)
        asked = warm_answers(root)
        assert post_edit(root, edited, "s1") == []
        assert warm_answers(root) == asked + 1  # the worker answered, not a cold run
        settle()

        (root / edited).write_text(bad)
        lines = post_edit(root, edited, "s2")
        assert lines, "the hook said nothing of the broken importer"
        assert lines[0].startswith(
            f"Signalint: The edit broke 1 error in 1 other file ({user}): fix it first; "
            "list it with `signalint show "
        ), lines
        assert lines[1].startswith(where), lines
        assert warm_answers(root) == asked + 2
        settle()

        (root / edited).write_text(good)
        lines = post_edit(root, edited, "s3")
        assert lines == [f"Signalint: The edit repaired 1 error in 1 other file ({user})."]
    finally:
        stop_daemon(root)

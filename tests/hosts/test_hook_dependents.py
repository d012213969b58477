"""The hooks on an edit that breaks the files importing it (issue 37).

The post-edit hook checks the edited file; tsc runs its whole program and,
knowing its previous run, finds the importer it broke: the context given
to the model names it first and lists its error. The stop hook, which
checks the project, blocks on it. Real `signalint hooks run`, real tsc.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_engine

pytestmark = pytest.mark.real

SIGNALINT = Path(sys.executable).parent / "signalint"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "hooks"
GOOD = "export function size(): number {\n  return 1;\n}\n"
BAD = 'export function size(): string {\n  return "1";\n}\n'


def settle() -> None:
    """Files older than a check's settle window; the previous check's record kept."""
    time.sleep(0.6)


def run(args: list[str], root: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
    return subprocess.run(
        [str(SIGNALINT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
        env=env,
        check=False,
    )


def event(name: str, root: Path, **changes: Any) -> str:
    data = json.loads((FIXTURES / name).read_text().replace("${ROOT}", str(root)))
    data.update(changes)
    return json.dumps(data)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = (tmp_path / "proj").resolve()
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "hooked", "private": true}\n')
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "skipLibCheck": true,'
        ' "types": []}, "include": ["src"]}\n'
    )
    engines = {"oxlint": False, "tsc": True, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    (root / "src" / "shape.ts").write_text(GOOD)
    (root / "src" / "use.ts").write_text(
        "import { size } from './shape';\nexport const v: number = size();\n"
    )
    return root


def test_post_edit_names_the_broken_dependent_first_and_stop_blocks_on_it(project: Path) -> None:
    require_engine("tsc")
    settle()
    before = run(["check", "--format", "json"], project)
    assert before.returncode == 0, before.stderr
    settle()
    (project / "src" / "shape.ts").write_text(BAD)
    edit = event(
        "claude-post-tool-use-write.json",
        project,
        tool_input={"file_path": str(project / "src" / "shape.ts"), "content": BAD},
    )
    done = run(["hooks", "run", "--runtime", "claude"], project, edit)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    lines = context.splitlines()
    assert lines[0].startswith(
        "Signalint: The edit broke 1 error in 1 other file (src/use.ts): fix it first; "
        "list it with `signalint show "
    )
    assert lines[1].startswith("src/use.ts:2:14 error TS2322: Type 'string' is not assignable")
    # The dependents' check id resolves in a terminal.
    shown_id = lines[0].split("`signalint show ")[1].split("`")[0]
    shown = run(["show", shown_id], project)
    assert shown.returncode == 0 and "src/use.ts" in shown.stdout, shown.stderr

    # At priority 3, every error blocks the stop.
    policy = ["--fail-on-priority", "3"]
    stop = run(
        ["hooks", "run", "--runtime", "claude", *policy],
        project,
        event("claude-stop.json", project),
    )
    assert stop.returncode == 0, stop.stderr
    decision = json.loads(stop.stdout)
    assert decision["decision"] == "block" and "src/use.ts:2:14" in decision["reason"]


def test_post_edit_says_a_repaired_dependent(project: Path) -> None:
    require_engine("tsc")
    (project / "src" / "shape.ts").write_text(BAD)
    settle()
    assert run(["check", "--format", "json"], project).returncode == 1
    settle()
    (project / "src" / "shape.ts").write_text(GOOD)
    edit = event(
        "claude-post-tool-use-write.json",
        project,
        tool_input={"file_path": str(project / "src" / "shape.ts"), "content": GOOD},
    )
    done = run(["hooks", "run", "--runtime", "claude"], project, edit)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == "Signalint: The edit repaired 1 error in 1 other file (src/use.ts)."

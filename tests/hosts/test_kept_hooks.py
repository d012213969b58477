"""Kept post-edit hook answers (`signalint.answers`, `hosts.hook_policy`):
the same event on unchanged files is answered from one file, and never when
the answer would now differ: an edit, a new issue, or a change to what the
hook remembers having reported. A stop event (it counts its blocks) is
never kept.

The real console script answers Claude Code events on a small TypeScript
project with the managed Oxlint and tsc (`test_answers.project`); a replay
is told by `-X importtime` (it imports no check service).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from signalint.hosts.hook_policy import SEEN_FILE
from tests.test_answers import project, settle

__all__ = ["project"]  # the fixture, for pytest


def hook(root: Path, event: dict[str, object], *extra: str) -> tuple[str, int, bool]:
    """The hook's stdout, exit code, and whether it was a replay."""
    env = {**os.environ, "SIGNALINT_DAEMON": "0"}
    argv = [sys.executable, "-X", "importtime", "-m", "signalint.cli"]
    argv += ["hooks", "run", "--runtime", "claude", *extra]
    done = subprocess.run(
        argv, cwd=root, env=env, input=json.dumps(event), capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    timings = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    replayed = not any(
        line.rstrip().endswith(" signalint.service.check_service") for line in timings
    )
    return done.stdout, done.returncode, replayed


def edited(root: Path, rel: str) -> dict[str, object]:
    return {
        "session_id": "s1",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(root / rel), "old_string": "1", "new_string": "2"},
    }


def context(out: str) -> str:
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"])


@pytest.fixture
def broken(project: Path) -> Path:
    """The project with one type error in src/b.ts, settled."""
    (project / "src" / "b.ts").write_text("export function f(): number {\n  return '';\n}\n")
    settle()
    return project


def kept_hook(root: Path) -> str:
    """Hooks on src/b.ts until one is kept, and its replay's stdout."""
    first = hook(root, edited(root, "src/b.ts"))
    assert "1 new issue" in context(first[0]) and not first[2]
    settle()
    second = hook(root, edited(root, "src/b.ts"))
    assert context(second[0]).startswith("No new issues in the edited file")
    again = hook(root, edited(root, "src/b.ts"))
    assert again[2], "the same event on unchanged files was not replayed"
    assert again[:2] == second[:2]
    return again[0]


@pytest.mark.real
def test_the_same_event_on_unchanged_files_is_answered_from_the_kept_answer(
    broken: Path,
) -> None:
    out = kept_hook(broken)
    assert "TS2322" in context(out)
    # Another session's event is another answer.
    other = {**edited(broken, "src/b.ts"), "session_id": "s2"}
    assert not hook(broken, other)[2]


@pytest.mark.real
def test_a_new_issue_is_reported_not_replayed(broken: Path) -> None:
    kept_hook(broken)
    source = broken / "src" / "b.ts"
    source.write_text(source.read_text() + "export const g: string = 1;\n")
    out, code, replayed = hook(broken, edited(broken, "src/b.ts"))
    assert code == 0 and not replayed
    assert "1 new issue" in context(out) and "Still open from before (1)" in context(out)


@pytest.mark.real
def test_a_changed_memory_of_what_was_reported_is_not_replayed(broken: Path) -> None:
    """Another hook (another file, another session) rewrote what the hook
    remembers: the issue it forgot is new again."""
    kept_hook(broken)
    (broken / ".signalint" / SEEN_FILE).write_text("{}")
    out, _, replayed = hook(broken, edited(broken, "src/b.ts"))
    assert not replayed and "1 new issue" in context(out)


@pytest.mark.real
def test_a_stop_event_is_never_kept(broken: Path) -> None:
    stop: dict[str, object] = {"session_id": "s1", "cwd": str(broken), "hook_event_name": "Stop"}
    stop["stop_hook_active"] = False
    hook(broken, stop, "--fail-on-priority", "3")
    settle()
    answers = [hook(broken, stop, "--fail-on-priority", "3") for _ in range(2)]
    assert not any(replayed for _, _, replayed in answers)
    assert all('"decision": "block"' in out for out, _, _ in answers)

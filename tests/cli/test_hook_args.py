"""`hooks run` read without click (`cli.hook_args`): the same parameters as
click's parse or none at all, and the console script's hook run without click."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import click
import pytest

from signalint.cli.hook_args import OPTIONS, RunArgs, parse
from signalint.cli.hooks import run
from signalint.kept import fix_journal as journal
from tests.faults import KillAt

WORDS = [
    ["--runtime", "claude"],
    ["--runtime=codex"],
    ["--runtime", "cursor", "--no-daemon"],
    ["--no-daemon", "--runtime", "gemini", "--allow-partial"],
    ["--runtime", "vscode", "--fail-on-priority", "2", "--max-blocks=5"],
    ["--runtime", "claude", "--fail-on-priority=+3", "--max-blocks", " 4"],
    ["--runtime", "claude", "--payload", '{"a": 1}'],
    ["--runtime", "claude", "--payload=x=y"],
    ["--runtime", "claude", "--runtime", "codex"],  # the last one counts
    ["--runtime", "claude", "--payload", ""],
    # click's to judge: help, errors, and what this reader does not take
    [],
    ["--help"],
    ["-h"],
    ["--runtime"],
    ["--runtime", "Claude"],
    ["--runtime", "nope"],
    ["--runtime", "claude", "extra"],
    ["--runtime", "claude", "--unknown"],
    ["--runtime", "claude", "--fail-on-priority", "0"],
    ["--runtime", "claude", "--max-blocks", "two"],
    ["--runtime", "claude", "--max-blocks", "-1"],
    ["--runtime", "claude", "--allow-partial=yes"],
    ["--runtime", "claude", "--payload", "-"],
    ["--runtime", "claude", "--", "--payload", "x"],
    ["--runtime", "claude", "--no-daemo"],
]


def clicks(words: list[str]) -> dict[str, object] | None:
    """The parameters click passes to `hooks run` for `words`, or None when
    click answers them itself (help, a usage error)."""
    try:
        with run.make_context("run", list(words)) as ctx:
            return dict(ctx.params)
    except (click.exceptions.Exit, click.UsageError):
        return None


@pytest.mark.parametrize("words", WORDS, ids=" ".join)
def test_the_plain_reading_is_clicks_or_leaves_the_words_to_click(words: list[str]) -> None:
    plain, expected = parse(words), clicks(words)
    if expected is None:
        assert plain is None
    elif plain is not None:
        assert plain._asdict() == expected


def test_the_invocations_hosts_are_given_are_read_without_click() -> None:
    """What `hooks install` writes, and every well-formed option, is read
    here (a reader that left everything to click would pass the test above)."""
    read = [w for w in WORDS[:10] if parse(w) is not None]
    assert read == WORDS[:10]


def test_the_plain_reading_knows_each_option_of_the_command() -> None:
    """Its defaults are click's: the first invocation above gives none."""
    assert {name for param in run.params for name in param.opts} == set(OPTIONS)
    assert {param.name for param in run.params} == set(RunArgs._fields)
    for param in run.params:
        assert OPTIONS[param.opts[0]][0] == param.name


LOADED = """
import atexit, sys
sys.argv = ["signalint", "hooks", "run", "--runtime", "claude"]
atexit.register(lambda: print(" ".join(sorted(sys.modules)), file=sys.stderr))
from signalint.cli.main import entry
entry()
"""


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "p"}\n')
    engines = {name: False for name in ("oxlint", "tsc", "biome", "eslint", "mypy", "pyright")}
    (root / "signalint.config.json").write_text(json.dumps({"engines": {**engines, "ruff": True}}))
    (root / "README.md").write_text("# p\n")
    return root.resolve()


def _event(root: Path, file: str) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(root),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(root / file), "content": "# p\n"},
        }
    )


def _hook(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
    return subprocess.run(
        list(command),
        input=_event(root, "README.md"),
        capture_output=True,
        text=True,
        cwd=root,
        env={**env, "SIGNALINT_DAEMON": "0"},
        timeout=120,
        check=False,
    )


def test_the_console_scripts_hook_run_answers_without_click(tmp_path: Path) -> None:
    root = _project(tmp_path)
    done = _hook(root, sys.executable, "-c", LOADED)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {}  # a README: nothing of ours checks it
    loaded = done.stderr.split()
    assert "signalint.cli.hook_args" in loaded and "signalint.hosts.hook_run" in loaded
    assert not [m for m in loaded if m.split(".")[0] == "click"]


@pytest.mark.real  # the console script
def test_a_hook_run_without_click_first_undoes_a_half_applied_fix(tmp_path: Path) -> None:
    """As every command through click does (`recover_fix_transactions`)."""
    root = _project(tmp_path)
    original = "export const a = 1;\n" * 20
    writes = []
    for index in range(4):
        (root / "src" / f"f{index}.ts").write_text(original)
        writes.append(journal.Write(f"src/f{index}.ts", b"changed\n", original.encode()))
    pid = os.fork()
    if pid == 0:  # killed halfway through writing, before the commit point
        try:
            journal.write_all(root, "tx-hook", writes, checkpoint=KillAt(4))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert [p for p in journal.journal_dir(root).iterdir() if p.name != ".lock"]
    done = _hook(
        root, str(Path(sys.executable).parent / "signalint"), "hooks", "run", "--runtime", "claude"
    )
    assert done.returncode == 0, done.stderr
    assert "interrupted fix transaction" in done.stderr
    assert all((root / w.file).read_text() == original for w in writes)
    assert not [p for p in journal.journal_dir(root).iterdir() if p.name != ".lock"]

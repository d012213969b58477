"""Kept answers (`signalint.answers`): an unchanged project's check answered
from one file, before click or the check pipeline is imported, and never
when anything the check read has changed.

The real console script runs on a small TypeScript project with the managed
Oxlint and tsc. Whether a run was replayed is read from `-X importtime`:
a replay imports neither click nor the engine registry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from signalint import answers

from .conftest import require_engine

SETTLE_S = answers.SETTLE_NS / 1e9 + 0.2


def test_kept_commands_are_hooks_and_checks_without_options_that_read_more_than_files() -> None:
    assert answers.kept_command(["check"])
    assert answers.kept_command(["check", "--format", "json", "src"])
    for args in (
        ["check", "--no-cache"],
        ["check", "--changed"],
        ["check", "--new-from-rev=HEAD"],
        ["check", "--new-from-merge-base", "main"],
        ["check", "--shard", "1/2"],
        ["check", "--help"],
        ["show", "c1"],
        ["hooks", "run", "--help"],
        ["hooks", "install"],
        [],
    ):
        assert answers.kept_command(args) is None, args
    assert answers.kept_command(["hooks", "run", "--runtime", "claude"]) == "hooks run"


def test_a_stat_taken_when_a_file_was_read_is_the_one_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The reader's stat is kept as it was (no second stat of that path), so
    # a write after the read, even one the settle rule could not see, is
    # not replayed over.
    monkeypatch.setenv("SIGNALINT_STATE_DIR", str(tmp_path / "state"))
    read, other = tmp_path / "read.ts", tmp_path / "other.ts"
    for path in (read, other):
        path.write_text("a")
        os.utime(path, ns=(1, 1))
    monkeypatch.setattr(answers, "SETTLE_NS", 0)  # written before the start: settled
    args, env = ["check"], dict(os.environ)
    stats: list[str] = []
    real = answers._stat

    def counted(path: str) -> list[int] | None:
        stats.append(path)
        return real(path)

    monkeypatch.setattr(answers, "_stat", counted)
    with answers.recording() as recorded:
        answers.noted([str(read)], [os.stat(read)])
        answers.note([str(other)])
        read.write_text("b")  # a same-size write after the read, mtime put back
        os.utime(read, ns=(1, 1))
    assert answers.keep(tmp_path, args, env, recorded, ("out", "", 0))
    assert stats == [str(other)]
    assert answers.replay(tmp_path, args, env) is None  # ctime moved: not as read
    capsys.readouterr()


def test_an_answer_that_depends_on_files_it_did_not_note_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A warm engine that answered for some files alone read the program's
    # other inputs in its worker, not here (`program_cache`).
    monkeypatch.setenv("SIGNALINT_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(answers, "SETTLE_NS", 0)
    read = tmp_path / "read.ts"
    read.write_text("a")
    args, env = ["check", "read.ts"], dict(os.environ)
    for unkept in (False, True):
        with answers.recording() as recorded:
            answers.note([str(read)])
            if unkept:
                answers.unkept()
        kept = answers.keep(tmp_path, args, env, recorded, ("out", "", 0))
        assert kept is not unkept


def run(root: Path, *args: str) -> tuple[str, str, int, bool]:
    """stdout, stderr (without the import times), exit code, and whether
    the run was a replay (click was never imported)."""
    env = {**os.environ, "SIGNALINT_DAEMON": "0"}
    argv = [sys.executable, "-X", "importtime", "-m", "signalint.cli", "check", *args]
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    lines = done.stderr.splitlines(keepends=True)
    timings = [line for line in lines if line.startswith("import time:")]
    stderr = "".join(line for line in lines if not line.startswith("import time:"))
    replayed = not any(line.rstrip().endswith(" click") for line in timings)
    return done.stdout, stderr, done.returncode, replayed


def settle() -> None:
    time.sleep(SETTLE_S)  # files written this close to a check are not trusted


@pytest.fixture
def project(tmp_path: Path) -> Path:
    require_engine("oxlint")
    require_engine("tsc")
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "demo", "private": true}\n')
    engines = {"oxlint": True, "tsc": True, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}) + "\n")
    options = {"strict": True, "noEmit": True, "types": ["outside"]}
    (root / "tsconfig.json").write_text(
        json.dumps({"compilerOptions": options, "include": ["src"]}) + "\n"
    )
    types = root / "node_modules" / "@types" / "outside"
    types.mkdir(parents=True)
    (types / "index.d.ts").write_text("declare const outside: number;\n")
    (root / "src" / "a.ts").write_text("export const total: number = outside;\n")
    (root / "src" / "b.ts").write_text("export function f(): number {\n  return 1;\n}\n")
    settle()
    return root


def kept(root: Path) -> tuple[str, str, int]:
    """Checks until one keeps its answer, and a replay of it; the replay's output.

    The first check of a project makes its state directory, which changes
    the root directory while it runs: its answer is not kept."""
    run(root, "--format", "json")
    settle()
    first = run(root, "--format", "json")
    again = run(root, "--format", "json")
    assert again[3], "the second check of an unchanged project was not replayed"
    assert again[:3] == first[:3]
    return again[:3]


@pytest.mark.real
def test_an_unchanged_project_is_answered_from_the_kept_answer(project: Path) -> None:
    out, _, code = kept(project)
    assert code == 0 and json.loads(out)["totalIssues"] == 0
    # Another command line is another answer.
    text = run(project, "--format", "text")
    assert not text[3] and text[0] != out


@pytest.mark.real
def test_a_same_size_edit_with_the_old_mtime_is_not_replayed(project: Path) -> None:
    kept(project)
    source = project / "src" / "b.ts"
    before = source.stat()
    source.write_text("export function f(): number {\n  return '';\n}\n"[: before.st_size])
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert source.stat().st_size == before.st_size
    out, _, code, replayed = run(project, "--format", "json")
    assert not replayed and code == 1
    assert json.loads(out)["totalIssues"] > 0


@pytest.mark.real
def test_an_added_file_is_not_replayed(project: Path) -> None:
    kept(project)
    (project / "src" / "c.ts").write_text("export const c: string = 1;\n")
    out, _, code, replayed = run(project, "--format", "json")
    assert not replayed and code == 1 and json.loads(out)["totalIssues"] == 1


@pytest.mark.real
def test_a_program_input_outside_the_walk_is_watched(project: Path) -> None:
    """node_modules is never walked; tsc read its types, so they count."""
    kept(project)
    typed = project / "node_modules" / "@types" / "outside" / "index.d.ts"
    typed.write_text("declare const outside: string;\n")
    out, _, code, replayed = run(project, "--format", "json")
    assert not replayed and code == 1
    assert json.loads(out)["totalIssues"] == 1


@pytest.mark.real
def test_a_settings_change_is_not_replayed(project: Path) -> None:
    kept(project)
    engines = {"oxlint": True, "tsc": False, "biome": False, "eslint": False}
    (project / "signalint.config.json").write_text(json.dumps({"engines": engines}) + "\n")
    out, _, _, replayed = run(project, "--format", "json")
    assert not replayed and "tsc" not in json.loads(out)["engines"]


@pytest.mark.real
def test_nothing_written_just_before_the_check_is_trusted(project: Path) -> None:
    (project / "src" / "b.ts").write_text("export function f(): number {\n  return 2;\n}\n")
    run(project, "--format", "json")  # b.ts was written too recently: nothing kept
    assert not run(project, "--format", "json")[3]


@pytest.mark.real
def test_no_cache_never_keeps_nor_replays_and_cache_clear_forgets(project: Path) -> None:
    run(project, "--no-cache")
    assert not run(project, "--no-cache")[3]
    kept(project)
    env = {**os.environ, "SIGNALINT_DAEMON": "0"}
    cleared = subprocess.run(
        [sys.executable, "-m", "signalint.cli", "cache", "clear"],
        cwd=project, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "1 kept answer" in cleared.stdout
    assert not run(project, "--format", "json")[3]


@pytest.mark.real
def test_an_answer_naming_an_expired_or_evicted_check_is_not_replayed(project: Path) -> None:
    """`signalint show` must expand the checkId a replay prints."""
    out, _, _ = kept(project)
    snapshot = project / ".signalint" / "snapshots" / f"{json.loads(out)['checkId']}.snapshot"
    old = time.time() - 1801  # the default time to live is 1,800 s
    os.utime(snapshot, (old, old))
    again = run(project, "--format", "json")
    assert not again[3]
    assert json.loads(again[0])["checkId"] != json.loads(out)["checkId"]
    assert run(project, "--format", "json")[3]  # kept anew, naming the new check
    newest = project / ".signalint" / "snapshots" / f"{json.loads(again[0])['checkId']}.snapshot"
    newest.unlink()  # evicted (more checks than snapshotMax since)
    assert not run(project, "--format", "json")[3]

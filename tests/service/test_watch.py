"""`signalint watch`: the real command as a subprocess, plus its pure state logic.

The process tests drive real engines on a copy of examples/demo and read
stdout through a pipe, polling for lines with a deadline (no fixed sleeps).
"""

from __future__ import annotations

import dataclasses
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

from signalint.model import OutcomeStatus
from signalint.pipeline.check_run import CheckRun
from signalint.service.watching import (
    WatchState,
    classify,
    is_config_file,
    program_groups,
    project_relative,
)
from signalint.settings.config import load_config
from tests.conftest import require_engine
from tests.factories import issue, result
from tests.helpers import ANSWERS_VERSION, HANG_WITH_CHILD, wait_for_file, wait_until_dead
from tests.pipeline.test_engine_faults import make_project

DEADLINE_S = 60.0
SUMMARY = re.compile(r"^(\d+) introduced, (\d+) resolved, total (\d+) \((\w+)\)")


class Watch:
    """A running `signalint watch`, its output lines collected by reader threads."""

    def __init__(self, root: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "signalint.cli", "watch"],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: queue.Queue[str] = queue.Queue()
        self.err: queue.Queue[str] = queue.Queue()
        self.seen_err: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.pumps = [
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True)
            for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream: IO[str], sink: queue.Queue[str]) -> None:
        for line in stream:
            sink.put(line.rstrip("\n"))

    def lines_until(
        self, done: Callable[[str], bool], sink: queue.Queue[str] | None = None
    ) -> list[str]:
        """Lines read up to and including the first one `done` accepts."""
        sink = self.out if sink is None else sink
        deadline = time.monotonic() + DEADLINE_S
        lines: list[str] = []
        while True:
            try:
                line = sink.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                stderr = "\n".join(self.seen_err)
                raise AssertionError(f"no expected line; got {lines}; stderr: {stderr}") from None
            lines.append(line)
            if sink is self.err:
                self.seen_err.append(line)
            if done(line):
                return lines

    def batch(self) -> tuple[list[str], re.Match[str]]:
        """The lines of the next batch and its parsed summary line."""
        lines = self.lines_until(lambda line: SUMMARY.match(line) is not None)
        summary = SUMMARY.match(lines[-1])
        assert summary is not None
        return lines[:-1], summary

    def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=30)

    def rest_of_stderr(self) -> list[str]:
        """Every stderr line not read yet (call after the process exited)."""
        for pump in self.pumps:
            pump.join(timeout=10)
        lines: list[str] = []
        while not self.err.empty():
            lines.append(self.err.get_nowait())
        return lines


@pytest.fixture
def start_watch() -> Iterator[Callable[[Path], Watch]]:
    started: list[Watch] = []

    def start(root: Path) -> Watch:
        started.append(Watch(root))
        return started[-1]

    yield start
    for watch in started:
        if watch.proc.poll() is None:
            watch.proc.kill()
            watch.proc.wait()


@pytest.mark.real
def test_watch_prints_resolved_and_introduced_issues_and_stops_on_ctrl_c(
    demo_project: Path, start_watch: Callable[[Path], Watch]
) -> None:
    watch = start_watch(demo_project)
    first = watch.lines_until(lambda line: True)[0]
    initial = re.match(r"^issues_found: (\d+) issues \(engines: (.*)\)$", first)
    assert initial is not None, first
    assert "tsc ok" in initial.group(2) and "oxlint ok" in initial.group(2)
    watch.lines_until(lambda line: line.startswith("watching "), watch.err)
    total = int(initial.group(1))

    user = demo_project / "src" / "user.ts"
    user.write_text(user.read_text().replace("const greeting: number", "const greeting: string"))
    lines, summary = watch.batch()
    assert (
        "- resolved src/user.ts:7:9 TS2322 Type 'string' is not assignable to type 'number'."
        in lines
    )
    assert all(line.startswith("- resolved src/user.ts:") for line in lines)
    resolved = int(summary.group(2))
    assert summary.group(1) == "0" and resolved == len(lines)
    assert int(summary.group(3)) == total - resolved

    user.write_text(user.read_text() + 'export const broken: number = "text";\n')
    lines, summary = watch.batch()
    assert lines == [
        "+ error src/user.ts:14:14 TS2322 Type 'string' is not assignable to type 'number'."
    ]
    assert summary.groups()[:3] == ("1", "0", str(total - resolved + 1))

    (demo_project / "src" / "legacy.js").unlink()
    lines, summary = watch.batch()
    assert lines and all(line.startswith("- resolved src/legacy.js:") for line in lines)
    assert summary.group(2) == str(len(lines))

    (demo_project / ".gitignore").write_text("dist/\n")
    lines, summary = watch.batch()
    assert lines == [] and summary.groups()[:2] == ("0", "0")
    assert any(
        line.startswith("config changed (.gitignore)")
        for line in watch.lines_until(lambda line: "config changed" in line, watch.err)
    )

    assert watch.interrupt() == 130
    assert watch.rest_of_stderr()[-1:] == ["stopped"]


@pytest.mark.real
def test_ctrl_c_during_a_check_leaves_no_engine_process(
    tmp_path: Path, start_watch: Callable[[Path], Watch]
) -> None:
    require_engine("tsc")
    pidfile = tmp_path / "pids"
    root = make_project(tmp_path / "p", ANSWERS_VERSION + HANG_WITH_CHILD.format(pidfile=pidfile))
    watch = start_watch(root)
    pids = [int(p) for p in wait_for_file(pidfile).split()]
    assert watch.interrupt() == 130
    assert wait_until_dead(pids) == []


def test_config_and_ignored_files_are_told_apart(tmp_path: Path) -> None:
    root = tmp_path
    (root / "src" / "gen").mkdir(parents=True)
    (root / ".gitignore").write_text("src/gen/\n")
    for name in ("src/a.ts", "src/gen/b.ts", "src/notes.md"):
        (root / name).write_text("x\n")
    config = load_config(root)
    changed = ["src/a.ts", "src/gen/b.ts", "src/notes.md", "src/gone.ts", "tsconfig.app.json"]
    batch = classify(root, config, (".",), {"src/gone.ts", "src/a.ts"}, changed)
    assert batch.checked == ("src/a.ts",)
    assert batch.deleted == ("src/gone.ts",)
    assert batch.config_changed == ("tsconfig.app.json",)
    assert is_config_file("packages/x/eslint.config.mjs") and not is_config_file("src/a.ts")
    assert project_relative(root, str(root / "node_modules" / "x.js")) is None
    assert project_relative(root, str(root / "src" / "a.ts")) == "src/a.ts"


def test_files_under_different_tsconfigs_are_rechecked_separately(tmp_path: Path) -> None:
    (tmp_path / "packages" / "b").mkdir(parents=True)
    (tmp_path / "tsconfig.json").write_text("{}")
    (tmp_path / "packages" / "b" / "tsconfig.json").write_text("{}")
    files = ["src/a.ts", "packages/b/x.ts", "src/c.ts"]
    assert program_groups(tmp_path, load_config(tmp_path), files) == [
        ("src/a.ts", "src/c.ts"),
        ("packages/b/x.ts",),
    ]


def test_an_engine_that_failed_keeps_its_issues_and_a_deleted_file_resolves() -> None:
    a_lint = issue("src/a.ts", 1, engine="oxlint")
    a_type = issue("src/a.ts", 2, rule="TS2322", engine="tsc", message="Type 'x'.")
    b_type = issue("src/b.ts", 3, rule="TS2322", engine="tsc", message="Type 'y'.")
    both_ok: dict[str, OutcomeStatus] = {"oxlint": "ok", "tsc": "ok"}
    state = WatchState(CheckRun(result([a_lint, a_type, b_type], engines=both_ok), 0, 2), ["."])

    lint_failed: dict[str, OutcomeStatus] = {"oxlint": "error", "tsc": "ok"}
    recheck = CheckRun(result([], engines=lint_failed), 0, 1)
    update = state.absorb(recheck, ["src/a.ts"], ["src/b.ts"], full=False)
    assert [(e["file"], e["rule"]) for e in update.resolved] == [
        ("src/b.ts", "TS2322"),
        ("src/a.ts", "TS2322"),
    ]
    assert (update.introduced_count, update.resolved_count, update.unobserved) == (0, 2, 1)
    assert state.result.issues == (a_lint,) and state.result.status == "error"

    moved = issue("src/a.ts", 4, engine="oxlint")  # same diagnostic, two lines lower
    update = state.absorb(
        CheckRun(result([moved], engines=both_ok), 0, 1), ["src/a.ts"], [], full=False
    )
    assert (update.introduced_count, update.resolved_count, update.unobserved) == (0, 0, 0)
    assert state.result.issues == (moved,)
    assert str(state.result.status) == "issues_found"  # str(): mypy narrowed it above


def test_a_file_scoped_run_no_engine_checks_keeps_the_state_covered() -> None:
    both_ok: dict[str, OutcomeStatus] = {"oxlint": "ok", "biome": "ok"}
    state = WatchState(CheckRun(result([], engines=both_ok), 0, 2), ["."])
    css_edit = result([], engines=both_ok)
    css_edit.outcomes["oxlint"] = dataclasses.replace(css_edit.outcomes["oxlint"], files_checked=0)
    state.absorb(CheckRun(css_edit, 0, 1), ["styles/site.css"], [], full=False)
    assert state.result.status == "clean"
    assert state.result.outcomes["oxlint"].files_checked == 1

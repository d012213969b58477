"""SIGTERM and SIGHUP stop `signalint check` and every engine it started
(`cli.stop_signals`, `process.stop_children`).

The console script runs in-process (`--no-daemon`) on a project whose only
engine is a fake oxlint that answers `--version`, starts a grandchild and
hangs (fault injection); the last test stops a check of the demo project
while its real engines run. Every process a check starts inherits a mark in
its environment, so what survives is found in `/proc` even when the signal
came before a pid was written anywhere.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import require_engine
from tests.helpers import ANSWERS_VERSION, HANG_WITH_CHILD, wait_for_file, write_executable

pytestmark = pytest.mark.real

SIGNALINT = Path(sys.executable).parent / "signalint"
REPO = Path(__file__).resolve().parents[2]
MARK = "SIGNALINT_TEST_STOP_MARK"
# What a stopped check must not say: asyncio's clean-up was cut short.
NOISE = ("Traceback", "Task was destroyed", "never retrieved", "Exception ignored")


def make_project(root: Path, pidfile: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "stopped", "private": true}\n')
    (root / "src" / "a.js").write_text("export const a = 1;\n")
    engines = {"oxlint": True, "tsc": False, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    write_executable(
        root / "node_modules" / ".bin" / "oxlint",
        ANSWERS_VERSION + HANG_WITH_CHILD.format(pidfile=pidfile),
    )
    return root


def marked(mark: str) -> list[int]:
    """The live processes whose environment holds `MARK=mark`."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue
    return found


def survivors(mark: str, timeout_s: float = 5.0) -> list[str]:
    """The command lines of the marked processes still alive after
    `timeout_s` (polled; empty at once when none is left); those are then
    killed, so a failing test leaves nothing behind."""
    deadline = time.monotonic() + timeout_s
    while (left := marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.02)
    lines = []
    for pid in left:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                line = f.read().replace(b"\0", b" ").decode()
            lines.append(f"{pid}: {line}")
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
    return lines


def start_check(root: Path, mark: str, *args: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
    env.update({MARK: mark, "PYTHONFAULTHANDLER": "1"})
    return subprocess.Popen(
        [str(SIGNALINT), "check", "--no-daemon", *args],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a signal meant for pytest's group does not reach it
    )


def finish(proc: subprocess.Popen[bytes], signum: signal.Signals) -> tuple[bytes, str]:
    """`proc`'s output once it exited after `signum`; a check still running
    30 s later fails the test with every thread's stack (faulthandler)."""
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        _, err = proc.communicate(timeout=30)
        pytest.fail(f"check still running 30 s after {signum.name}:\n" + err.decode()[-6000:])
    return out, err.decode()


def tree(root: Path) -> dict[str, bytes]:
    """Every file of the project outside the state directory, with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".signalint" not in p.relative_to(root).parts
    }


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_check_and_every_engine_process(
    tmp_path: Path, signum: signal.Signals
) -> None:
    pidfile = tmp_path / "pids"
    root = make_project(tmp_path / "p", pidfile)
    before = tree(root)
    mark = uuid.uuid4().hex
    proc = start_check(root, mark)
    engine, grandchild = (int(p) for p in wait_for_file(pidfile).split())
    assert {engine, grandchild} <= set(marked(mark))
    proc.send_signal(signum)
    out, err = finish(proc, signum)
    assert proc.returncode == 128 + signum
    assert f"signalint: stopped by {signum.name}; its engines were stopped" in err
    assert not [w for w in NOISE if w in err] and out == b"", err
    assert survivors(mark) == []
    assert tree(root) == before  # the project's files are as they were


def test_a_signal_at_any_moment_of_an_engine_start_leaves_no_process(tmp_path: Path) -> None:
    """SIGTERM at moments spread over the check's start, through the window
    where the engine's process is being started: the command ends (143, or
    killed by the signal before its handler was set), and nothing it
    started is left."""
    pidfile = tmp_path / "pids"
    root = make_project(tmp_path / "p", pidfile)
    started = time.monotonic()
    first = start_check(root, uuid.uuid4().hex)
    wait_for_file(pidfile)
    until_engine = time.monotonic() - started
    first.send_signal(signal.SIGTERM)
    finish(first, signal.SIGTERM)
    codes = []
    for step in range(10):
        pidfile.unlink(missing_ok=True)
        mark = uuid.uuid4().hex
        proc = start_check(root, mark)
        time.sleep(until_engine * (0.5 + step * 0.07))
        proc.send_signal(signal.SIGTERM)
        _, err = finish(proc, signal.SIGTERM)
        codes.append(proc.returncode)
        assert survivors(mark) == [], f"left after SIGTERM at step {step}"
        assert proc.returncode in (143, -signal.SIGTERM), err
        assert not [w for w in NOISE if w in err], err
    assert 143 in codes, codes  # some of them stopped a running check


# A command that got SIGTERM while an engine was being started, past the
# process door's last look: the engine starts after the handler ended every
# child; asyncio's clean-up, cancelling that start, kills the engine alone
# (by pid, not its group), and what the engine had started is orphaned.
ORPHANED_BY_THE_CLEAN_UP = """
import os, signal, subprocess, sys, time
from pathlib import Path
from signalint import process  # loaded whenever an engine ran
from signalint.cli import stop_signals
stop_signals.install()
try:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
except stop_signals.Stopped as exc:
    stopped = exc
pidfile = Path(sys.argv[1])
engine = subprocess.Popen(
    ["sh", "-c", sys.argv[2]], start_new_session=True,
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
while not pidfile.exists() or not pidfile.read_text().strip():
    time.sleep(0.01)
engine.kill()
engine.wait()
sys.exit(stop_signals.exit_code(stopped))
"""


def test_what_an_engine_started_during_the_stop_leaves_is_ended_too(tmp_path: Path) -> None:
    """The last gap of a stop (`stop_signals._become_reaper`): the engine's
    own child, orphaned when asyncio killed the engine alone, is adopted
    and ended when the command leaves, not left running."""
    pidfile = tmp_path / "pids"
    mark = uuid.uuid4().hex
    env = {**os.environ, MARK: mark}
    done = subprocess.run(
        [sys.executable, "-c", ORPHANED_BY_THE_CLEAN_UP, str(pidfile),
         HANG_WITH_CHILD.format(pidfile=pidfile)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 143, done.stderr
    assert "stopped by SIGTERM" in done.stderr
    assert survivors(mark) == []


def engine_children(pid: int) -> dict[int, str]:
    """The direct children of `pid` (the engines a check runs), by pid, with their command line."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            if int(stat[stat.rindex(b")") + 2 :].split()[1]) != pid:
                continue
            with open(f"/proc/{name}/cmdline", "rb") as f:
                found[int(name)] = f.read().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
    return found


ENGINE_NAMES = ("oxlint", "tsc", "biome", "eslint")


def test_sigterm_stops_the_demos_real_engines(tmp_path: Path) -> None:
    """The demo with its four real engines, uncached: SIGTERM once an
    engine runs; none of them is left."""
    for name in ENGINE_NAMES:
        require_engine(name)
    root = tmp_path / "demo"
    shutil.copytree(REPO / "examples" / "demo", root)
    mark = uuid.uuid4().hex
    proc = start_check(root, mark, "--no-cache")
    seen: dict[int, str] = {}
    deadline = time.monotonic() + 60
    while not seen and proc.poll() is None and time.monotonic() < deadline:
        seen = {
            pid: line
            for pid, line in engine_children(proc.pid).items()
            if "--version" not in line and any(n in line for n in ENGINE_NAMES)
        }
        time.sleep(0.005)
    assert seen, "the check ended before any engine ran"
    proc.send_signal(signal.SIGTERM)
    _, err = finish(proc, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert "stopped by SIGTERM" in err
    assert survivors(mark) == [], f"engines seen running: {seen}"

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from signalint import process
from signalint.process import Command

from .helpers import HANG_WITH_CHILD, alive, wait_for_file, wait_until_dead, write_executable


def _command(argv: list[str], cwd: Path, timeout_s: float = 10.0) -> Command:
    return Command(argv=tuple(argv), cwd=cwd, timeout_s=timeout_s)


def test_output_is_captured_and_exit_code_reported(tmp_path: Path) -> None:
    script = write_executable(tmp_path / "t", "echo out; echo err >&2; exit 3\n")
    result = process.run_blocking(_command([str(script)], tmp_path))
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert result.finished


def test_stdin_is_empty_so_a_reader_does_not_block(tmp_path: Path) -> None:
    script = write_executable(tmp_path / "t", "cat; echo done\n")
    result = process.run_blocking(_command([str(script)], tmp_path, timeout_s=5))
    assert result.stdout == "done\n" and not result.timed_out


def test_stdin_input_is_delivered_whole_beside_the_output(tmp_path: Path) -> None:
    # More than a pipe buffer each way: writing and reading must overlap.
    data = b"x" * 300_000
    script = write_executable(tmp_path / "t", "cat; echo done >&2\n")
    command = Command(argv=(str(script),), cwd=tmp_path, timeout_s=10, stdin=data)
    result = process.run_blocking(command)
    assert result.stdout == data.decode() and result.stderr == "done\n"


def test_stdin_input_a_process_does_not_read_is_not_an_error(tmp_path: Path) -> None:
    script = write_executable(tmp_path / "t", "echo early\n")
    command = Command(argv=(str(script),), cwd=tmp_path, timeout_s=10, stdin=b"y" * 300_000)
    result = process.run_blocking(command)
    assert (result.exit_code, result.stdout) == (0, "early\n") and not result.timed_out


def test_missing_executable_is_a_result_not_an_exception(tmp_path: Path) -> None:
    result = process.run_blocking(_command([str(tmp_path / "nope")], tmp_path))
    assert result.missing and result.exit_code is None and not result.finished


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    # The script must start its child and write both pids before the timeout:
    # a short timeout first, longer ones only where the machine is too loaded
    # for that (each attempt still times out and is checked).
    pids: list[int] = []
    for attempt, timeout_s in enumerate((0.3, 1.5, 8.0)):
        pidfile = tmp_path / f"pids{attempt}"
        script = write_executable(
            tmp_path / f"hang{attempt}", HANG_WITH_CHILD.format(pidfile=pidfile)
        )
        result = process.run_blocking(_command([str(script)], tmp_path, timeout_s=timeout_s))
        assert result.timed_out and result.exit_code is None
        pids = [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []
        if len(pids) == 2:
            break
    assert len(pids) == 2, "the script never wrote its pids before the timeout"
    assert wait_until_dead(pids) == []


def test_output_flood_is_stopped_at_the_limit(tmp_path: Path) -> None:
    script = write_executable(tmp_path / "flood", "yes flooding\n")
    result = process.run_blocking(_command([str(script)], tmp_path), output_limit=1 << 20)
    assert result.output_limited and result.exit_code is None
    assert len(result.stdout) <= 1 << 20


def test_undecodable_bytes_are_replaced(tmp_path: Path) -> None:
    script = write_executable(tmp_path / "bin", "printf 'ok \\377\\376 end'\n")
    result = process.run_blocking(_command([str(script)], tmp_path))
    assert result.stdout.startswith("ok ") and result.stdout.endswith(" end")
    assert "\ufffd" in result.stdout


def test_cancellation_kills_the_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    script = write_executable(tmp_path / "hang", HANG_WITH_CHILD.format(pidfile=pidfile))

    async def scenario() -> list[int]:
        task = asyncio.ensure_future(process.run(_command([str(script)], tmp_path, 60)))
        while not (pidfile.exists() and pidfile.read_text().strip()):
            await asyncio.sleep(0.02)
        pids = [int(p) for p in pidfile.read_text().split()]
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return pids
        raise AssertionError("a cancelled run must re-raise CancelledError")

    pids = asyncio.run(scenario())
    assert wait_until_dead(pids) == []
    assert wait_for_file(pidfile)


def test_kill_running_ends_every_group_in_flight_from_another_thread(tmp_path: Path) -> None:
    """What a server whose event loop is busy does as a last resort
    (`server.leaving`): the runs' groups are killed without the loop."""
    import threading

    pidfile = tmp_path / "pids"
    script = write_executable(tmp_path / "hang", HANG_WITH_CHILD.format(pidfile=pidfile))
    results: list[process.ProcessResult] = []
    runner = threading.Thread(
        target=lambda: results.append(
            process.run_blocking(_command([str(script)], tmp_path, timeout_s=600))
        )
    )
    runner.start()
    pids = [int(p) for p in wait_for_file(pidfile).split()]
    # The run is in flight once `run` has registered its group, which can be
    # a moment after the child wrote its pids (a loaded machine failed here).
    deadline = time.monotonic() + 20
    while pids[0] not in process._RUNNING and time.monotonic() < deadline:
        time.sleep(0.01)
    process.kill_running()
    assert wait_until_dead(pids) == []
    runner.join(60)
    assert results and results[0].exit_code == -9  # killed, not timed out
    process.kill_running()  # nothing in flight: nothing to do


STOPPING = """
import json, sys, threading, time
from pathlib import Path
from signalint import process
from signalint.process import Command

script, pidfile, cwd = sys.argv[1:4]
daemon = process.detach(("sleep", "600"), cwd=Path(cwd), log=Path(cwd) / "daemon.log")

def stop_once_started():
    while not (Path(pidfile).exists() and Path(pidfile).read_text().strip()):
        time.sleep(0.01)
    process.stop_children()

threading.Thread(target=stop_once_started).start()
first = process.run_blocking(Command((script,), Path(cwd), 600))
after = process.run_blocking(Command(("true",), Path(cwd), 10))
print(json.dumps([first.exit_code, after.start_error, daemon.pid]))
"""


@pytest.mark.real  # another interpreter: `stop_children` ends every child of its process
def test_stop_children_ends_every_child_but_the_detached_and_starts_no_more(
    tmp_path: Path,
) -> None:
    """What the CLI's SIGTERM handler does first (`cli.stop_signals`):
    the run's group is killed from another thread, the next run is not
    started, and a detached daemon is left running."""
    pidfile = tmp_path / "pids"
    script = write_executable(tmp_path / "hang", HANG_WITH_CHILD.format(pidfile=pidfile))
    done = subprocess.run(
        [sys.executable, "-c", STOPPING, str(script), str(pidfile), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    exit_code, refused, daemon = json.loads(done.stdout)
    try:
        assert exit_code == -9 and refused == process.STOPPED_REASON
        assert wait_until_dead([int(p) for p in pidfile.read_text().split()]) == []
        assert alive(daemon)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(daemon, signal.SIGKILL)

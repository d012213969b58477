"""What a user reads of the project's daemon when its warm workers fail or it
is stopped mid-check: the reason in `signalint daemon status` (text and
json) and in one line of the daemon's log; a SIGTERM during a check is one
line of the log, no asyncio traceback. Real daemon, real console script,
the real ESLint worker on real Node, failing by fault injection
(tests/warm/broken_eslint.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from signalint.daemon.place import place
from tests.daemon.test_daemon import SIGNALINT, clean_env, run_cli, status, stop_daemon
from tests.helpers import wait_until_dead
from tests.warm.broken_eslint import INJECTED, broken_eslint_project, edit

pytestmark = pytest.mark.real

REASON = f"the ESLint worker did not start: Error: {INJECTED}"


def daemon_log(root: Path) -> str:
    return place(root, clean_env()).log.read_text()


def test_a_worker_that_fails_to_start_is_said_in_status_and_once_in_the_log(
    tmp_path: Path,
) -> None:
    root = broken_eslint_project(tmp_path)
    assert run_cli(root, "daemon", "start").returncode == 0
    try:
        for n in range(2):
            edit(root, n)  # so that ESLint runs (a cache hit runs nothing)
            checked = run_cli(root, "check", "--format", "json")
            assert checked.returncode == 0, checked.stderr
            assert json.loads(checked.stdout)["engines"]["eslint"]["served"] == "fallback"
        shown = run_cli(root, "daemon", "status")
        assert shown.returncode == 0, shown.stderr
        # Each check: a start and its one restart failed, then the cold run answered.
        line = next(x for x in shown.stdout.splitlines() if x.startswith("failed:"))
        assert line.startswith("failed:   eslint: 2 cold fallbacks (4 failures), last ")
        assert line.endswith(f" ago: {REASON}")
        data = json.loads(run_cli(root, "daemon", "status", "--format", "json").stdout)
        failed = data["failures"]["eslint"]
        assert (failed["failures"], failed["fallbacks"]) == (4, 2)
        assert failed["lastReason"] == REASON
        assert data["counts"]["fallbacks"] == 2
    finally:
        stop_daemon(root)
    log = daemon_log(root)
    said = [x for x in log.splitlines() if "worker failed" in x]
    assert len(said) == 1, log  # four identical failures, said once
    assert said[0].endswith(f"] warm eslint worker failed for {root}: {REASON}")
    assert "Traceback" not in log and "    at " not in log


def test_sigterm_during_a_check_stops_the_daemon_in_one_line(tmp_path: Path) -> None:
    root = broken_eslint_project(tmp_path)
    assert run_cli(root, "daemon", "start").returncode == 0
    pid = status(root)["pid"]
    (root / "slow").write_text("")  # the cold ESLint run waits a minute
    asking = subprocess.Popen(
        [str(SIGNALINT), "check"],
        cwd=root,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while (root / "slow").exists():  # removed once the cold run waits
            assert time.monotonic() < deadline, daemon_log(root)
            time.sleep(0.05)
        assert status(root)["idleS"] == 0.0  # busy with the check
        os.kill(pid, signal.SIGTERM)
        assert wait_until_dead([pid], 20) == []
        asking.wait(60)
    finally:
        if asking.poll() is None:
            asking.kill()
        stop_daemon(root)  # one the client may have started again
    log = daemon_log(root)
    mine = [x for x in log.splitlines() if f"[{pid}]" in x]
    assert mine[-1].endswith("stopped (on SIGTERM; the check in progress cancelled)"), log
    assert "Traceback" not in log and "Exception in callback" not in log, log
    assert "CancelledError" not in log, log

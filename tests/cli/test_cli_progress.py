"""On a terminal, `signalint check` shows progress on stderr and keeps stdout clean."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.real  # the CLI as a process, on the real engines


def test_progress_goes_to_a_tty_stderr_and_never_to_stdout(demo_project: Path) -> None:
    controller, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "signalint.cli", "check"],
        cwd=demo_project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=terminal,
    )
    os.close(terminal)
    stdout, _ = proc.communicate(timeout=120)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    progress = b"".join(chunks).decode()
    assert proc.returncode == 1
    assert json.loads(stdout)["schemaVersion"] == "1.4"
    assert "checking:" in progress and "tsc" in progress


def test_no_progress_when_stderr_is_not_a_terminal(demo_project: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
    done = subprocess.run(
        [sys.executable, "-m", "signalint.cli", "check"],
        cwd=demo_project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "checking:" not in done.stderr
    assert json.loads(done.stdout)["status"] == "issues_found"

"""Shared helpers for tests: fake executables for fault injection and process checks."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Runs `signalint ARGS` as the console script does (`python -c RECORDING
# ARGS`); at exit, the modules it held go to the file named by
# SIGNALINT_TEST_MODULES, one a line.
RECORDING = """\
import atexit, os, sys
def record():
    with open(os.environ["SIGNALINT_TEST_MODULES"], "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
atexit.register(record)
sys.argv = ["signalint", *sys.argv[1:]]
from signalint.cli.main import entry
entry()
"""


def write_executable(path: Path, body: str) -> Path:
    """Write a bash script (fault-injection fake engine) and make it executable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def alive(pid: int) -> bool:
    """Whether `pid` is a live (non-zombie) process."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:  # gone, or reaped between the open and the read (ESRCH)
        return False
    return state != "Z"


def wait_for_file(path: Path, timeout_s: float = 20.0) -> str:
    """Poll until `path` exists with content (event wait, not a fixed sleep)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.02)
    raise AssertionError(f"{path} did not appear within {timeout_s} s")


def wait_until_dead(pids: list[int], timeout_s: float = 15.0) -> list[int]:
    """Poll until every pid is gone; return the survivors (empty on success)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        survivors = [p for p in pids if alive(p)]
        if not survivors:
            return []
        time.sleep(0.02)
    return [p for p in pids if alive(p)]


# A fake engine that starts a grandchild, records both pids, then hangs.
# A fake engine's first line: it answers `--version` at once (an engine
# that does not is not started again in a check), so what follows runs in
# the check itself.
ANSWERS_VERSION = 'if [ "$1" = "--version" ]; then echo "Version: 1.0.0"; exit 0; fi\n'

HANG_WITH_CHILD = """
sleep 600 &
echo "$$ $!" > "{pidfile}"
sleep 600
"""

__all__ = [
    "ANSWERS_VERSION",
    "HANG_WITH_CHILD",
    "alive",
    "os",
    "wait_for_file",
    "wait_until_dead",
    "write_executable",
]


def git_status(root: Path) -> list[str]:
    """`git status --porcelain --ignored` of `root`, every untracked file listed."""
    return subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()


def git(root: Path, *args: str) -> str:
    """Run git in `root` as a fixed test author; its stdout (raises on failure)."""
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


# Where scripts/setup installs the old engines the tests pin
# (`SIGNALINT_TEST_OLD_ENGINES`).
OLD_ENGINES = Path.home() / ".cache" / "signalint" / "test-old-engines"


def pinned_pip_engine(name: str, package: str, version: str, says: str) -> Path:
    """A virtual environment `name` under the old engines' directory holding
    `package==version` (its executable `package`, whose `--version` output
    contains `says`), made when missing; fails under CI, skips elsewhere,
    when it cannot be installed."""
    prefix = Path(os.environ.get("SIGNALINT_TEST_OLD_ENGINES", str(OLD_ENGINES))) / name
    executable = prefix / "bin" / package

    def installed() -> bool:
        if not executable.exists():
            return False
        told = subprocess.run([str(executable), "--version"], capture_output=True, text=True)
        return says in told.stdout

    if not installed():
        subprocess.run([sys.executable, "-m", "venv", str(prefix)], check=True, timeout=120)
        done = subprocess.run(
            [str(prefix / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
             f"{package}=={version}"],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not installed():
            message = f"cannot install {package} {version}: {done.stderr.strip()[:300]}"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
    return prefix

"""Fault injection: hanging, crashing, garbage-printing and flooding engines.

The fake is a project-local `node_modules/.bin/oxlint` (resolved first, as a
real project-local install would be); TypeScript is the real pinned compiler
and must keep its results whatever the fake does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from tests.conftest import require_engine
from tests.helpers import (
    ANSWERS_VERSION,
    HANG_WITH_CHILD,
    wait_for_file,
    wait_until_dead,
    write_executable,
)

# The fakes stand beside the real pinned tsc, whose results must survive.
pytestmark = pytest.mark.real


def make_project(root: Path, fake_oxlint: str, oxlint_timeout_ms: int = 30000) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "faults", "private": true}\n')
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "skipLibCheck": true, "types": []},'
        ' "include": ["src"]}\n'
    )
    (root / "src" / "a.ts").write_text("export const n: number = 'text';\n")
    (root / "signalint.config.json").write_text(
        json.dumps(
            {
                "engines": {"oxlint": True, "tsc": True, "biome": False, "eslint": False},
                "timeoutsMs": {"oxlint": oxlint_timeout_ms},
            }
        )
    )
    write_executable(root / "node_modules" / ".bin" / "oxlint", fake_oxlint)
    return root


def check_json(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, dict[str, Any]]:
    monkeypatch.chdir(root)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    code = main(["check"])
    return code, json.loads(capsys.readouterr().out)


def assert_tsc_kept(payload: dict[str, Any]) -> None:
    assert payload["engines"]["tsc"]["status"] == "ok"
    assert payload["totalIssues"] == 1
    assert payload["remainingIssues"][0]["rule"] == "TS2322"


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("kill -SEGV $$\n", "killed by signal 11"),
        ("echo 'this is not json at all'\nexit 0\n", "this is not json at all"),
        ("echo 'config exploded' >&2\nexit 3\n", "exited with code 3: config exploded"),
        ('printf \'{"diagnostics": [{"message": "x"\'\nexit 1\n', "diagnostics"),
    ],
    ids=["crash", "garbage", "bad-exit", "truncated-json"],
)
def test_broken_engine_is_an_engine_error_and_others_survive(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    script: str,
    expected: str,
) -> None:
    require_engine("tsc")
    root = make_project(tmp_path / "p", script)
    code, payload = check_json(root, capsys, monkeypatch)
    assert code == 1 and payload["status"] == "error"
    oxlint = payload["engines"]["oxlint"]
    assert oxlint["status"] == "error" and expected in oxlint["message"]
    assert_tsc_kept(payload)


def test_hanging_engine_times_out_and_leaves_no_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    require_engine("tsc")
    pidfile = tmp_path / "pids"
    # Time enough, beside tsc on a loaded machine, for the fake to write its pids.
    root = make_project(
        tmp_path / "p",
        ANSWERS_VERSION + HANG_WITH_CHILD.format(pidfile=pidfile),
        oxlint_timeout_ms=5000,
    )
    code, payload = check_json(root, capsys, monkeypatch)
    assert code == 1
    assert payload["engines"]["oxlint"] == {
        "status": "error",
        "message": "oxlint timed out after 5 s;"
        " raise timeoutsMs.oxlint (milliseconds) in signalint.config.json",
        "filesChecked": 0,
        "failure": {
            "kind": "timeout",
            "fix": "timeoutsMs.oxlint (milliseconds) in signalint.config.json",
        },
    }
    assert_tsc_kept(payload)
    assert wait_until_dead([int(p) for p in pidfile.read_text().split()]) == []


def test_flooding_engine_is_stopped_at_the_output_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    require_engine("tsc")
    root = make_project(tmp_path / "p", "yes '{\"diagnostics\": ['\n")
    monkeypatch.setattr("signalint.process.DEFAULT_OUTPUT_LIMIT", 4 * 1024 * 1024)
    code, payload = check_json(root, capsys, monkeypatch)
    assert code == 1
    assert payload["engines"]["oxlint"] == {
        "status": "error",
        "message": "oxlint produced more than 4 MiB of output and was stopped",
        "filesChecked": 0,
        "failure": {"kind": "output_limit"},
    }
    assert_tsc_kept(payload)


def _terminal_sigint() -> None:
    # Ctrl-C in a terminal: SIGINT has its default action. A shell that starts
    # pytest in the background makes it ignore SIGINT, children inherit that,
    # and Python then leaves it ignored; the check would run on, untouched.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_kills_every_engine_process(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    root = make_project(tmp_path / "p", ANSWERS_VERSION + HANG_WITH_CHILD.format(pidfile=pidfile))
    env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
    proc = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "signalint.cli", "check"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_terminal_sigint,
    )
    pids = [int(p) for p in wait_for_file(pidfile).split()]
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        # faulthandler prints every thread's stack on SIGABRT: a hang says where.
        proc.send_signal(signal.SIGABRT)
        _, err = proc.communicate(timeout=30)
        pytest.fail("check still running 30 s after SIGINT:\n" + err.decode()[-6000:])
    assert proc.returncode != 0
    assert wait_until_dead(pids) == []


# Writes each start's arguments, then hangs, whatever it is asked.
HANG_LOGGING = """
echo "$@" >> "{log}"
sleep 600
"""


def test_an_engine_that_hangs_on_its_version_is_not_started_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hung engine costs one deadline, not one for `--version` and one more
    for the check, nor a third for the SARIF report's tool versions."""
    require_engine("tsc")
    log = tmp_path / "starts"
    root = make_project(tmp_path / "p", HANG_LOGGING.format(log=log), oxlint_timeout_ms=3000)
    code, payload = check_json(root, capsys, monkeypatch)
    assert code == 1
    assert log.read_text().splitlines() == ["--version"]
    oxlint = payload["engines"]["oxlint"]
    assert oxlint["status"] == "error"
    assert oxlint["message"] == (
        "oxlint timed out after 3 s answering `--version` and was not started again;"
        " raise timeoutsMs.oxlint (milliseconds) in signalint.config.json"
    )
    assert oxlint["failure"]["kind"] == "timeout"
    assert_tsc_kept(payload)
    assert main(["check", "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    drivers = {run["tool"]["driver"]["name"]: run["tool"]["driver"] for run in sarif["runs"]}
    assert "version" not in drivers.get("oxlint", {})
    # The second check asked once more (an unanswered version is not
    # remembered); the report asked nothing.
    assert log.read_text().splitlines() == ["--version", "--version"]

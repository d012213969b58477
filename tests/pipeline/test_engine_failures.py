"""Typed failures: every way an engine can fail has a kind and, when one exists, a fix.

The runner is driven directly with fake executables (fault injection: an
engine that hangs, floods, crashes, exits oddly or prints garbage); the
CLI then shows the kind in its json and SARIF, and snapshots keep it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import Resolved
from signalint.engines.runner import Job, run_engine
from signalint.kept.snapshot_codec import decode_snapshot, encode_snapshot
from signalint.model import CheckResult, EngineOutcome, Failure
from signalint.pipeline.cluster import cluster
from signalint.pipeline.snapshot import Snapshot
from tests.factories import result
from tests.helpers import write_executable

TIMEOUT_FIX = "timeoutsMs.oxlint (milliseconds) in signalint.config.json"
EMPTY_REPORT = """printf '{"diagnostics": []}'\n"""
# A fake that never finishes meets a short timeout (it cannot finish in time,
# however slow the machine; a check starts it twice, so waits twice); one
# that finishes gets a generous one.
HANG = "sleep 30\n"
HANG_TIMEOUT_S = 0.05
FINISH_TIMEOUT_S = 30.0


def outcome_of(
    root: Path, script: str | None, engine: str = "oxlint", timeout_s: float = 30.0
) -> EngineOutcome:
    """The runner's outcome for `engine` played by `script` (None: not installed)."""
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "a.ts").write_text("export const a = 1;\n")
    fake = None if script is None else write_executable(root / "fake" / engine, script)
    run = asyncio.run(
        run_engine(
            ENGINES[engine],
            Job(
                root=root,
                options={},
                timeout_s=timeout_s,
                state_dir=root / ".signalint",
                resolved=Resolved(engine, fake, "missing" if fake is None else "project"),
            ),
            ["src/a.ts"],
        )
    )
    return run.outcome


@pytest.mark.parametrize(
    ("script", "status", "failure"),
    [
        (EMPTY_REPORT, "ok", None),
        (None, "disabled", Failure("missing", "signalint engines install oxlint")),
        (HANG, "error", Failure("timeout", TIMEOUT_FIX)),
        ("kill -SEGV $$\n", "error", Failure("crashed")),
        ("echo 'config exploded' >&2\nexit 3\n", "error", Failure("crashed")),
        (EMPTY_REPORT + "exit 3\n", "error", Failure("crashed")),
        ("echo 'this is not json at all'\n", "error", Failure("bad_output")),
    ],
    ids=["ok", "missing", "timeout", "signal", "bad-exit", "bad-exit-readable", "garbage"],
)
def test_each_failed_run_says_its_kind_and_fix(
    tmp_path: Path, script: str | None, status: str, failure: Failure | None
) -> None:
    timeout_s = HANG_TIMEOUT_S if script == HANG else FINISH_TIMEOUT_S
    outcome = outcome_of(tmp_path, script, timeout_s=timeout_s)
    assert (outcome.status, outcome.failure) == (status, failure)
    assert outcome.failure is None or outcome.message  # the sentence stays for people


def test_flooding_engine_is_an_output_limit_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("signalint.process.DEFAULT_OUTPUT_LIMIT", 256 * 1024)
    outcome = outcome_of(tmp_path, "yes '{\"diagnostics\": ['\n")
    assert (outcome.status, outcome.failure) == ("error", Failure("output_limit"))


def test_an_engine_that_cannot_be_configured_is_a_config_error(tmp_path: Path) -> None:
    # tsc refuses to run without a TypeScript configuration to check.
    outcome = outcome_of(tmp_path, EMPTY_REPORT, engine="tsc")
    assert (outcome.status, outcome.failure) == ("error", Failure("config_error"))
    assert outcome.message and "tsconfig" in outcome.message


def test_the_timeout_fix_names_the_file_the_settings_come_from(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.signalint]\n")
    outcome = outcome_of(tmp_path, HANG, timeout_s=HANG_TIMEOUT_S)
    assert outcome.failure == Failure(
        "timeout", "timeoutsMs.oxlint (milliseconds) in [tool.signalint] of pyproject.toml"
    )


def hanging_oxlint_project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "hangs", "private": true}\n')
    (root / "src" / "a.ts").write_text("export const a = 1;\n")
    engines = dict.fromkeys(ENGINES, False) | {"oxlint": True}
    settings = {"engines": engines, "timeoutsMs": {"oxlint": int(HANG_TIMEOUT_S * 1000)}}
    (root / "signalint.config.json").write_text(json.dumps(settings))
    write_executable(root / "node_modules" / ".bin" / "oxlint", HANG)
    return root


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(list(argv))
    document = json.loads(capsys.readouterr().out)
    assert isinstance(document, dict)
    return code, document


def test_the_cli_json_sarif_and_show_carry_the_failure_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(hanging_oxlint_project(tmp_path / "p"))
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    code, payload = cli(capsys, "check", "--no-cache")
    assert code == 1
    expected = {"kind": "timeout", "fix": TIMEOUT_FIX}
    assert payload["engines"]["oxlint"]["failure"] == expected
    _, shown = cli(capsys, "show", payload["checkId"], "--format", "json")
    assert shown["engines"]["oxlint"]["failure"] == expected  # kept in the snapshot
    _, log = cli(capsys, "check", "--no-cache", "--format", "sarif")
    (run,) = log["runs"]
    (notification,) = run["invocations"][0]["toolExecutionNotifications"]
    assert notification["properties"] == {"failureKind": "timeout", "fix": TIMEOUT_FIX}


def test_a_cached_check_carries_the_failure_kind_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(hanging_oxlint_project(tmp_path / "p"))
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    _, payload = cli(capsys, "check")
    assert payload["engines"]["oxlint"]["failure"] == {"kind": "timeout", "fix": TIMEOUT_FIX}


def test_snapshots_keep_failures_and_read_files_from_before_they_were_typed() -> None:
    base = result([], engines={"tsc": "error", "oxlint": "disabled"})
    outcomes = {
        "tsc": EngineOutcome("tsc", "error", message="tsc timed out", failure=Failure("timeout")),
        "oxlint": EngineOutcome(
            "oxlint", "disabled", failure=Failure("missing", "signalint engines install oxlint")
        ),
    }
    checked = CheckResult(
        base.check_id, base.fingerprint, base.project_root, outcomes, (), base.created_at
    )
    data = encode_snapshot(Snapshot(checked, cluster([]), (".",), "project"))
    loaded = decode_snapshot(data)
    assert {n: o.failure for n, o in loaded.result.outcomes.items()} == {
        n: o.failure for n, o in outcomes.items()
    }
    document = json.loads(data)
    for fields in document["outcomes"].values():
        del fields[7:]  # as written before failures were typed
    older = decode_snapshot(json.dumps(document).encode())
    assert all(o.failure is None for o in older.result.outcomes.values())
    document["outcomes"]["tsc"].append(["exploded", None])
    with pytest.raises(ValueError, match="unknown engine failure"):
        decode_snapshot(json.dumps(document).encode())


def test_snapshots_keep_which_engines_answered_for_the_requested_files_alone() -> None:
    base = result([], engines={"tsc": "ok", "oxlint": "ok"})
    outcomes = {
        "tsc": EngineOutcome("tsc", "ok", served="warm", scoped=True),
        "oxlint": EngineOutcome("oxlint", "ok"),
    }
    checked = CheckResult(
        base.check_id, base.fingerprint, base.project_root, outcomes, (), base.created_at
    )
    snap = Snapshot(checked, cluster([]), ("src/a.ts",), "files", 0)
    assert snap.reported_filtered_out is None  # the rest was not counted
    loaded = decode_snapshot(encode_snapshot(snap))
    assert loaded.result.scoped_engines == ("tsc",) and loaded.reported_filtered_out is None
    whole = dataclasses.replace(checked, outcomes={**outcomes, "tsc": EngineOutcome("tsc", "ok")})
    assert Snapshot(whole, cluster([]), ("src/a.ts",), "files", 0).reported_filtered_out == 0


@pytest.mark.real
def test_a_state_directory_an_engine_cannot_use_fails_that_engine_only(
    demo_project: Path,
) -> None:
    """A file where tsc's state directory belongs fails tsc with its reason;
    the other engines answer and the check ends (it used to wait forever
    while the other engines' starts were cancelled)."""
    state = demo_project / ".signalint"
    state.mkdir(exist_ok=True)
    shutil.rmtree(state / "tsc", ignore_errors=True)
    (state / "tsc").write_text("in the way\n")
    env = {**os.environ, "SIGNALINT_DAEMON": "0", "SIGNALINT_PROJECT_ROOT": str(demo_project)}
    done = subprocess.run(
        [sys.executable, "-m", "signalint.cli", "check", "--no-cache", "--format", "json"],
        cwd=demo_project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    engines = json.loads(done.stdout)["engines"]
    assert engines["tsc"]["status"] == "error"
    assert str(state / "tsc") in engines["tsc"]["message"]
    assert {name for name, e in engines.items() if e["status"] == "ok"} >= {"oxlint", "biome"}

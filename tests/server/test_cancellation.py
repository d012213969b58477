"""Cancellation and engine failures inside the real server process.

The hanging engine is a project-local `node_modules/.bin/oxlint` (resolved
before any managed or PATH install) that records its pid and its
grandchild's pid, then sleeps.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from signalint.errors import EngineFailure
from signalint.model import Failure
from signalint.server.refusals import classify_failure, sanitize

from ..helpers import (
    ANSWERS_VERSION,
    HANG_WITH_CHILD,
    wait_for_file,
    wait_until_dead,
    write_executable,
)
from .conftest import connect

pytestmark = pytest.mark.anyio


def hanging_project(root: Path, pidfile: Path, timeout_ms: int = 60_000) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "hang", "private": true}\n')
    (root / "src" / "a.ts").write_text("export const a = 1;\n")
    config = {
        "engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False},
        "timeoutsMs": {"oxlint": timeout_ms},
    }
    (root / "signalint.config.json").write_text(json.dumps(config))
    write_executable(
        root / "node_modules" / ".bin" / "oxlint",
        ANSWERS_VERSION + HANG_WITH_CHILD.format(pidfile=pidfile),
    )
    return root


@pytest.mark.real
async def test_cancelled_check_kills_engine_processes_and_never_reports(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    root = hanging_project(tmp_path / "hang", pidfile)
    outcome: dict[str, Any] = {}
    async with connect(root) as client:
        scope = anyio.CancelScope()

        async def call() -> None:
            with scope:
                outcome["result"] = await client.session.call_tool("check_project", {})

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            pids = await anyio.to_thread.run_sync(wait_for_file, pidfile)
            scope.cancel()  # the SDK client sends notifications/cancelled
        engine_pids = [int(pid) for pid in pids.split()]
        survivors = await anyio.to_thread.run_sync(wait_until_dead, engine_pids, 10.0)
        assert survivors == []
        assert "result" not in outcome
        # The cancelled check left no trace: not recorded, so nothing reads it as clean.
        status = await client.call("get_loop_status")
        assert status.data["checksObserved"] == 0
        assert (await client.call("ping")).text == "pong"


@pytest.mark.real
async def test_engine_timeout_is_an_engine_error_not_a_clean_check(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    # Time enough, on a loaded machine, for the fake to write its pids before it is killed.
    root = hanging_project(tmp_path / "slow", pidfile, timeout_ms=5000)
    async with connect(root) as client:
        result = await client.call("check_project")
    assert not result.error  # a settled engine failure is data, not a thrown failure
    data = result.data
    assert data["status"] == "error"
    assert data["engines"]["oxlint"] == {
        "status": "error",
        "message": "oxlint timed out after 5 s;"
        " raise timeoutsMs.oxlint (milliseconds) in signalint.config.json",
        "filesChecked": 0,
        "failure": {
            "kind": "timeout",
            "fix": "timeoutsMs.oxlint (milliseconds) in signalint.config.json",
        },
    }
    assert str(tmp_path) not in json.dumps({k: v for k, v in data.items() if k != "projectRoot"})
    survivors = wait_until_dead([int(p) for p in wait_for_file(pidfile).split()])
    assert survivors == []


@pytest.mark.parametrize(
    ("failure", "code", "retryable", "step"),
    [
        (Failure("timeout", "timeoutsMs.tsc (milliseconds) in signalint.config.json"),
         "engine_timeout", True, "raise timeoutsMs.tsc (milliseconds) in signalint.config.json"),
        (Failure("output_limit"), "output_limit_exceeded", False, "Narrow the check"),
        (Failure("crashed"), "engine_execution_failed", False, "signalint engines list"),
        (Failure("missing", "signalint engines install biome"), "engine_execution_failed",
         False, "`signalint engines install biome`"),
    ],
    ids=["timeout", "output-limit", "crashed", "missing"],
)  # fmt: skip
def test_thrown_engine_failures_are_classified_by_their_kind(
    tmp_path: Path, failure: Failure, code: str, retryable: bool, step: str
) -> None:
    # The message says nothing the classification could match: only the kind counts.
    refusal = classify_failure(EngineFailure("biome", failure, "biome went wrong"), tmp_path)
    data = refusal.data
    assert data["code"] == code and data["retryable"] is retryable
    assert data["engine"] == "biome" and data["message"] == "biome went wrong"
    assert data["status"] == "error" and step in data["nextStep"]


def test_an_untyped_exception_is_never_classified_by_the_words_in_it(tmp_path: Path) -> None:
    refusal = classify_failure(
        RuntimeError("tsc timed out after producing 64 MiB past the output limit"), tmp_path
    )
    assert refusal.data["code"] == "engine_execution_failed"
    assert "engine" not in refusal.data and refusal.data["retryable"] is False


def test_failure_messages_carry_no_absolute_paths_or_environment_values(tmp_path: Path) -> None:
    env = {"API_TOKEN": "s3cr3t-value-123", "SHORT": "ab"}
    text = (
        f"oxlint exploded reading {tmp_path}/src/a.ts and /opt/tools/oxlint "
        "with s3cr3t-value-123 (see https://oxc.rs/docs)\nTraceback (most recent call last):"
    )
    clean = sanitize(text, tmp_path, env)
    assert clean == (
        "oxlint exploded reading src/a.ts and <path> with $API_TOKEN (see https://oxc.rs/docs)"
    )
    refusal = classify_failure(RuntimeError(f"tsc timed out in {tmp_path}"), tmp_path)
    assert str(tmp_path) not in refusal.data["message"]

"""scripts/demo_gate.py, the end of scripts/setup: exit code 1 from the demo
check is not enough, every engine must have run ok (an engine failure also
exits 1, which once let a broken set-up print success)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO, require_engine

GATE = REPO / "scripts" / "demo_gate.py"
DEMO_ENGINES = ["oxlint", "tsc", "biome", "eslint"]


def _gate_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_gate", GATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _answer(**engines: dict[str, object]) -> str:
    return json.dumps(
        {
            "status": "issues_found",
            "totalIssues": 14,
            "engines": {
                name: engines.get(name, {"status": "ok", "filesChecked": 2})
                for name in DEMO_ENGINES
            },
        }
    )


def test_the_gate_reads_the_demo_config_for_the_engines_it_requires() -> None:
    assert _gate_module().enabled_engines(REPO / "examples" / "demo") == DEMO_ENGINES


def test_issues_found_with_every_engine_ok_passes() -> None:
    assert _gate_module().problems(1, _answer(), DEMO_ENGINES) == []


def test_an_engine_error_with_exit_code_1_fails_naming_the_engine_and_reason() -> None:
    broken = {"status": "error", "message": "Cannot find module 'debug'", "filesChecked": 0}
    found = _gate_module().problems(1, _answer(eslint=broken), DEMO_ENGINES)
    assert found == ["eslint: error: Cannot find module 'debug'"]


def test_a_missing_engine_or_one_absent_from_the_answer_fails() -> None:
    missing = {"status": "disabled", "message": "not installed", "filesChecked": 0}
    answer = json.loads(_answer(oxlint=missing))
    del answer["engines"]["tsc"]
    found = _gate_module().problems(1, json.dumps(answer), DEMO_ENGINES)
    assert found == [
        "oxlint: disabled: not installed",
        "tsc: not in the check's answer (it did not run)",
    ]


def test_no_issues_wrong_exit_code_or_no_json_fail() -> None:
    gate = _gate_module()
    clean = json.loads(_answer())
    clean.update(status="clean", totalIssues=0)
    assert gate.problems(0, json.dumps(clean), DEMO_ENGINES) == [
        "expected the demo's deliberate issues (status issues_found), got status 'clean' "
        "with 0 issues"
    ]
    assert gate.problems(2, _answer(), DEMO_ENGINES) == [
        "expected exit code 1 (issues found), got 2"
    ]
    assert gate.problems(2, "Error: bad config", DEMO_ENGINES) == [
        "the check printed no JSON answer (exit code 2)"
    ]


def _run_gate(project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(GATE), str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.real
def test_the_gate_fails_naming_a_broken_engine_on_the_demo(demo_copy: Path, tmp_path: Path) -> None:
    # Fault injection: a managed directory whose ESLint cannot load a
    # dependency (what two concurrent installs once left); the other three
    # are the real pinned engines. No engine on PATH, only node.
    bin_dir = tmp_path / "managed" / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    for name in ("oxlint", "tsc", "biome"):
        (bin_dir / name).symlink_to(require_engine(name))
    eslint = bin_dir / "eslint"
    eslint.write_text("#!/bin/sh\necho \"Error: Cannot find module 'debug'\" >&2\nexit 2\n")
    eslint.chmod(0o755)
    node = shutil.which("node")
    assert node is not None
    env = {
        **os.environ,
        "SIGNALINT_ENGINES_DIR": str(tmp_path / "managed"),
        "PATH": os.pathsep.join([str(Path(node).parent), "/usr/bin", "/bin"]),
    }
    result = _run_gate(demo_copy, env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "demo gate FAILED" in result.stderr
    failed = [line.strip() for line in result.stderr.splitlines() if line.startswith("  ")]
    assert failed[0].startswith("eslint: error:")
    assert "Cannot find module 'debug'" in failed[0]
    assert not any(line.split(":")[0] in ("oxlint", "tsc", "biome") for line in failed)


@pytest.mark.real
def test_the_gate_passes_with_the_working_pinned_engines(demo_project: Path) -> None:
    result = _run_gate(demo_project, dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "demo gate passed: oxlint, tsc, biome, eslint ran ok" in result.stdout

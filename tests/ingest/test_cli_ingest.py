"""`signalint ingest`: a recorded tool report printed as a check, in the real CLI process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from signalint.ingest import MAX_REPORT_BYTES

from .conftest import recorded

SIGNALINT = Path(sys.executable).parent / "signalint"

pytestmark = pytest.mark.real


def run(cwd: Path, *argv: str, stdin: str | bytes = "") -> subprocess.CompletedProcess[bytes]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SIGNALINT_") or k == "SIGNALINT_WORK_DIR"
    }
    env["NO_COLOR"] = "1"
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [str(SIGNALINT), "ingest", *argv], cwd=cwd, env=env, input=data, capture_output=True,
        timeout=120, check=False,
    )  # fmt: skip


def test_a_report_becomes_a_check_in_every_output_format(reports: Path) -> None:
    js = reports / "js"
    report = js / "eslint-report.json"
    report.write_text(recorded("eslint.json", reports))
    as_json = run(js, "--format", "eslint", "eslint-report.json")
    assert as_json.returncode == 1, as_json.stderr
    payload = json.loads(as_json.stdout)
    assert payload["totalIssues"] == 5
    assert payload["engines"] == {"eslint": {"status": "ok", "filesChecked": 1}}
    shown = subprocess.run(
        [str(SIGNALINT), "show", payload["checkId"]], cwd=js, capture_output=True, check=False
    )
    assert shown.returncode == 0 and b"no-undef" in shown.stdout
    sarif = json.loads(run(js, "--format", "eslint", "--output-format", "sarif", "-",
                           stdin=report.read_text()).stdout)  # fmt: skip
    assert len(sarif["runs"][0]["results"]) == 5
    github = run(js, "--format", "eslint", "--output-format", "github", str(report))
    assert github.stdout.decode().count("::error ") == 4
    text = run(js, "--format", "eslint", "--output-format", "text", str(report))
    assert b"no-cond-assign" in text.stdout
    gate = run(js, "--format", "eslint", "--fail-on-priority", "1", str(report))
    assert gate.returncode == 0  # no cluster or issue of priority 1
    clean = run(reports / "go", "--format", "golangci", stdin='{"Issues": null}')
    assert clean.returncode == 0 and json.loads(clean.stdout)["status"] == "clean"


def test_bad_reports_exit_2_naming_the_problem(reports: Path) -> None:
    py = reports / "py"
    text = recorded("ruff.json", reports)
    truncated = run(py, "--format", "ruff", stdin=text[:300])
    assert truncated.returncode == 2
    assert b"not JSON" in truncated.stderr and b"complete" in truncated.stderr
    outside = run(reports / "js", "--format", "ruff", stdin=text)
    assert outside.returncode == 2 and b"outside the project root" in outside.stderr
    wrong = run(py, "--format", "pylint", stdin=text)
    assert wrong.returncode == 2 and b"'pylint' is not one of" in wrong.stderr
    huge = run(py, "--format", "ruff", stdin=b"[" + b" " * (MAX_REPORT_BYTES + 10) + b"]")
    assert huge.returncode == 2 and f"more than {MAX_REPORT_BYTES} bytes".encode() in huge.stderr
    assert not huge.stdout

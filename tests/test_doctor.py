"""`signalint doctor` (and its dispatch through `signalint-mcp doctor`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from signalint.cli.main import main


@pytest.mark.real  # reads the installed engines' versions
def test_doctor_passes_on_a_ready_project(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(demo_project)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "languages:     javascript" in out and out.rstrip().endswith("OK")
    assert "tsc     enabled" in out and "7.0.2" in out


def test_doctor_fails_on_a_broken_config_naming_it(
    demo_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (demo_copy / "signalint.config.json").write_text('{"engines": {"tsc": 1}}')
    monkeypatch.chdir(demo_copy)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    assert main(["doctor"]) == 1
    captured = capsys.readouterr()
    assert "engines.tsc" in captured.out and "configuration does not load" in captured.err


def test_doctor_fails_without_project_markers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    assert main(["doctor"]) == 1
    assert "languages:     none" in capsys.readouterr().out


@pytest.mark.real
def test_signalint_mcp_dispatches_doctor(demo_project: Path) -> None:
    server = Path(sys.executable).with_name("signalint-mcp")
    env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
    done = subprocess.run(
        [str(server), "doctor"],
        cwd=demo_project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "project root:" in done.stdout

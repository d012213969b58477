"""`signalint doctor` (and its dispatch through `signalint-mcp doctor`)."""

from __future__ import annotations

import os
import re
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
    assert "languages:     typescript (2 files), javascript (2 files)" in out
    assert out.rstrip().endswith("PASSED")
    assert re.search(r"^  tsc +enabled", out, re.MULTILINE) and "7.0.2" in out
    assert out.count("one-file check ok") == 4  # every enabled engine ran


@pytest.mark.real
def test_doctor_fails_when_eslint_cannot_load_its_plugin_quoting_eslint(
    demo_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (demo_copy / "eslint.config.js").write_text(
        'import nope from "eslint-plugin-nope-missing";\nexport default [{ plugins: { nope } }];\n'
    )
    monkeypatch.chdir(demo_copy)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    assert main(["doctor"]) == 1
    captured = capsys.readouterr()
    assert captured.out.rstrip().endswith("FAILED")
    assert (
        re.search(r"^  oxlint +enabled", captured.out, re.MULTILINE)
        and "one-file check ok" in captured.out
    )
    line = next(ln for ln in captured.err.splitlines() if "eslint" in ln)
    assert "Cannot find package 'eslint-plugin-nope-missing'" in line
    assert "Traceback" not in captured.out + captured.err


@pytest.mark.real
def test_doctor_fails_on_client_entries_that_would_mislead_a_host(
    demo_copy: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    (demo_copy / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"signalint": {"command": sys.executable, "cwd": str(tmp_path)}}})
    )
    monkeypatch.chdir(demo_copy)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    assert main(["doctor"]) == 1
    err = capsys.readouterr().err
    assert f"pins {tmp_path}, not this project" in err


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
    assert main(["doctor", "--no-run"]) == 1
    assert "languages:     none" in capsys.readouterr().out


def test_doctor_names_typescript_for_a_typescript_only_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "package.json").write_text('{"name": "ts-only"}')
    (tmp_path / "tsconfig.json").write_text("{}")
    (tmp_path / "src").mkdir()
    for name in ("a.ts", "b.tsx", "c.d.ts"):
        (tmp_path / "src" / name).write_text("export {};\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "a.js").write_text("export {};\n")  # ignored by default
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    main(["doctor", "--no-run"])
    out = capsys.readouterr().out
    assert "languages:     typescript (3 files)\n" in out
    assert "javascript" not in out.split("languages:", 1)[1].splitlines()[0]


def test_doctor_lists_each_language_found_with_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "package.json").write_text('{"name": "mixed"}')
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mixed"\n')
    (tmp_path / "a.ts").write_text("export {};\n")
    (tmp_path / "b.js").write_text("export {};\n")
    (tmp_path / "c.py").write_text("x = 1\n")
    (tmp_path / "d.py").write_text("y = 2\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    main(["doctor", "--no-run"])
    out = capsys.readouterr().out
    assert "languages:     python (2 files), typescript (1 file), javascript (1 file)\n" in out


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

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from signalint.cli.engines import engines
from signalint.engines.registry import ENGINES


def write_executable(path: Path, body: str) -> Path:
    """A fake script runnable with PATH restricted to our temporary bin dir."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SIGNALINT_ENGINES_DIR", str(tmp_path / "managed"))
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    (tmp_path / "project").mkdir()
    return tmp_path


def test_install_rejects_unknown_names_and_lists_the_accepted_ones(isolated: Path) -> None:
    result = CliRunner().invoke(engines, ["install", "oxlint", "prettier"])
    assert result.exit_code == 2
    assert "prettier" in result.output
    assert ", ".join(ENGINES) in result.output


def test_install_without_npm_fails_with_a_clear_message(isolated: Path) -> None:
    result = CliRunner().invoke(engines, ["install", "tsc"])
    assert result.exit_code == 1
    assert "npm was not found" in result.output


# The install itself (lock, generations, verification): test_install.py.


def test_list_json_reports_missing_engines_with_install_hints(isolated: Path) -> None:
    result = CliRunner().invoke(engines, ["list", "--json", "--root", str(isolated / "project")])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [row["engine"] for row in rows] == list(ENGINES)
    assert list(ENGINES)[:2] == ["oxlint", "tsc"]
    assert all(row["source"] == "missing" and row["path"] is None for row in rows)
    assert rows[1]["install"] == "signalint engines install tsc"


def test_list_table_shows_source_version_and_path(isolated: Path) -> None:
    fake = write_executable(
        isolated / "project" / "node_modules" / ".bin" / "biome", 'echo "Version: 2.6.8"\n'
    )
    result = CliRunner().invoke(engines, ["list", "--root", str(isolated / "project")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["engine", "source", "version", "path"]
    biome = next(line for line in lines if line.startswith("biome"))
    assert biome.split()[:3] == ["biome", "project", "2.6.8"]
    assert biome.endswith(str(fake))

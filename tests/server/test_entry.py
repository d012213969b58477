"""`signalint-mcp` as a command: terminal guidance, CLI verbs, root selection."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

import pytest

import signalint

from ..conftest import require_engine
from .conftest import SERVER, connect, write_project

pytestmark = pytest.mark.real  # every test starts the real signalint-mcp


def run(args: list[str], cwd: Path, stdin: int | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SERVER), *args], cwd=cwd, stdin=stdin, capture_output=True, text=True, timeout=120
    )


def test_on_a_terminal_without_arguments_it_explains_itself_and_exits_2(tmp_path: Path) -> None:
    controller, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [str(SERVER)], cwd=tmp_path, stdin=terminal, capture_output=True, text=True, timeout=60
        )
    finally:
        os.close(controller)
        os.close(terminal)
    assert done.returncode == 2
    assert "Model Context Protocol server" in done.stderr
    assert "signalint check" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("flag", ["--version", "-v"])
def test_version_flags_go_to_the_cli(tmp_path: Path, flag: str) -> None:
    done = run([flag], tmp_path)
    assert done.returncode == 0
    assert signalint.__version__ in done.stdout


@pytest.mark.parametrize("verb", ["help", "--help", "-h"])
def test_help_goes_to_the_cli(tmp_path: Path, verb: str) -> None:
    done = run([verb], tmp_path)
    assert done.returncode == 0
    assert "Usage:" in done.stdout and "check" in done.stdout


def test_check_verb_runs_the_cli_check(tmp_path: Path) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "p")
    done = run(["check", "src/a.ts"], root)
    assert done.returncode == 1  # issues found
    payload = json.loads(done.stdout)
    assert payload["schemaVersion"] == "1.4" and payload["totalIssues"] == 1


def test_show_verb_expands_an_id_from_a_check(tmp_path: Path) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "p")
    check_id = json.loads(run(["check", "src/a.ts"], root).stdout)["checkId"]
    done = run(["show", check_id, "--format", "json"], root)
    assert done.returncode == 0, done.stderr
    assert check_id in done.stdout


def test_unknown_arguments_are_a_usage_error(tmp_path: Path) -> None:
    done = run(["--stdio"], tmp_path, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "--stdio" in done.stderr


@pytest.mark.anyio
async def test_root_is_the_working_directory_and_is_logged(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj")
    log = tmp_path / "stderr.log"
    async with connect(root, stderr=log) as client:
        assert client.init.server_info.version == signalint.__version__
        ping = await client.call("ping")
    assert ping.data["projectRoot"] == str(root.resolve())
    assert f"project root {root.resolve()}" in log.read_text()


@pytest.mark.anyio
async def test_a_valid_root_override_is_used(tmp_path: Path) -> None:
    elsewhere = write_project(tmp_path / "elsewhere")
    launch = tmp_path / "launch"
    launch.mkdir()
    async with connect(launch, SIGNALINT_PROJECT_ROOT=str(elsewhere)) as client:
        ping = await client.call("ping")
    assert ping.data["projectRoot"] == str(elsewhere.resolve())


@pytest.mark.anyio
async def test_an_invalid_root_override_warns_and_falls_back(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj")
    log = tmp_path / "stderr.log"
    missing = str(tmp_path / "no-such-dir")
    async with connect(root, stderr=log, SIGNALINT_PROJECT_ROOT=missing) as client:
        ping = await client.call("ping")
    assert ping.data["projectRoot"] == str(root.resolve())
    text = log.read_text()
    assert "warning: ignoring SIGNALINT_PROJECT_ROOT" in text and "no such directory" in text

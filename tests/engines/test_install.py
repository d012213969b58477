"""`signalint engines install`: one install at a time, a new generation built
beside the managed directory, every engine verified with `--version`, then
swapped in atomically; on failure the managed directory stays as it was.

Fault injection: a fake npm (a Python script in the test's directory) that
lays out packages the way npm does (`node_modules/<pkg>/package.json`, a
`.bin` link to the package's executable), can be slow, and can leave a
broken executable. A real test runs two real installs of Oxlint at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from signalint.cli.engines import engines
from signalint.engines import install as installer
from signalint.engines import resolve
from signalint.engines.registry import ENGINES
from tests.helpers import wait_for_file

FAKE_NPM = """\
import json, os, pathlib, sys, time

args = sys.argv[1:]
prefix = pathlib.Path(args[args.index("--prefix") + 1])
log = pathlib.Path(os.environ["FAKE_NPM_LOG"])
with log.open("a") as handle:
    handle.write(f"start {os.getpid()} {' '.join(args)}\\n")
hold = os.environ.get("FAKE_NPM_HOLD")  # a file: npm runs on once it exists
deadline = time.monotonic() + 60
while hold and not os.path.exists(hold) and time.monotonic() < deadline:
    time.sleep(0.01)
bins = {"oxlint": "oxlint", "eslint": "eslint", "typescript": "tsc",
        "@biomejs/biome": "biome", "pyright": "pyright"}
broken = os.environ.get("FAKE_NPM_BROKEN", "").split(",")
for requirement in args:
    name, _, version = requirement.rpartition("@")
    if name not in bins:
        continue
    package = prefix / "node_modules" / name
    (package / "bin").mkdir(parents=True, exist_ok=True)
    (package / "package.json").write_text(json.dumps({"name": name, "version": version}))
    executable = package / "bin" / bins[name]
    if bins[name] in broken:
        body = "echo \\"Error: Cannot find module 'debug'\\" >&2\\nexit 2\\n"
    else:
        body = f"echo 'Version: {version}'\\n"
    executable.write_text("#!/bin/sh\\n" + body)
    executable.chmod(0o755)
    link = prefix / "node_modules" / ".bin" / bins[name]
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to(os.path.relpath(executable, link.parent))
with log.open("a") as handle:
    handle.write(f"end {os.getpid()}\\n")
"""


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """SIGNALINT_ENGINES_DIR in the test's directory; PATH holds only the fake npm."""
    monkeypatch.setenv("SIGNALINT_ENGINES_DIR", str(tmp_path / "managed"))
    npm = tmp_path / "bin" / "npm"
    npm.parent.mkdir()
    npm.write_text(f"#!{sys.executable}\n{FAKE_NPM}")
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{npm.parent}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setenv("FAKE_NPM_LOG", str(tmp_path / "npm.log"))
    return tmp_path


def _npm_runs(tmp: Path) -> list[str]:
    log = tmp / "npm.log"
    return log.read_text().splitlines() if log.exists() else []


def _generation(tmp: Path) -> Path:
    managed = tmp / "managed"
    assert managed.is_symlink()
    return Path(os.path.realpath(managed))


def test_install_builds_a_generation_verifies_it_and_links_it_in(fake: Path) -> None:
    result = CliRunner().invoke(engines, ["install", "eslint", "oxlint"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["eslint 10.15.0 installed", "oxlint 1.94.0 installed"]
    generation = _generation(fake)
    assert generation.parent == fake / "managed.generations"
    (start, _end) = _npm_runs(fake)
    argv = start.split()[2:]
    assert argv[:3] == ["install", "--prefix", str(generation)]
    assert argv[-2:] == ["eslint@10.15.0", "oxlint@1.94.0"]
    found = resolve.resolve(ENGINES["oxlint"], fake)
    assert found.source == "managed"
    assert found.path == fake / "managed" / "node_modules" / ".bin" / "oxlint"
    assert json.loads((fake / "managed" / "package.json").read_text())["private"] is True


def test_a_binary_that_fails_version_fails_the_install_and_keeps_the_previous(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert CliRunner().invoke(engines, ["install", "oxlint"]).exit_code == 0
    before = _generation(fake)
    monkeypatch.setenv("FAKE_NPM_BROKEN", "eslint")
    result = CliRunner().invoke(engines, ["install", "eslint"])
    assert result.exit_code == 1
    assert "installed" not in result.stdout
    assert "eslint: `" in result.stderr
    assert "--version` exited with code 2: Error: Cannot find module 'debug'" in result.stderr
    assert f"Nothing changed in {fake / 'managed'}" in result.stderr
    # The managed directory still points at the same, intact generation, and
    # the failed one is gone.
    assert _generation(fake) == before
    assert sorted((fake / "managed.generations").iterdir()) == [before]
    oxlint = fake / "managed" / "node_modules" / ".bin" / "oxlint"
    assert installer.answered_version(oxlint, 5) == ("1.94.0", "")
    assert resolve.managed_executable(ENGINES["eslint"]) is None


def test_npm_failure_shows_its_stderr_and_leaves_no_managed_directory(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    npm = fake / "bin" / "npm"
    npm.write_text('#!/bin/sh\necho "npm error code E503" >&2\nexit 1\n')
    result = CliRunner().invoke(engines, ["install"])
    assert result.exit_code == 1
    assert "npm error code E503" in result.stderr
    assert "failed (exit code 1)" in result.stderr
    assert not (fake / "managed").exists()
    assert list((fake / "managed.generations").iterdir()) == []


def test_installed_engines_are_left_alone_unless_forced(fake: Path) -> None:
    assert CliRunner().invoke(engines, ["install", "oxlint"]).exit_code == 0
    first = _generation(fake)
    again = CliRunner().invoke(engines, ["install", "oxlint"])
    assert again.exit_code == 0
    assert again.stdout == "oxlint 1.94.0 already installed\n"
    assert len(_npm_runs(fake)) == 2  # one run: start and end
    forced = CliRunner().invoke(engines, ["install", "--force", "oxlint"])
    assert forced.exit_code == 0
    assert forced.stdout == "oxlint 1.94.0 installed\n"
    assert _generation(fake) != first


def test_installing_one_engine_keeps_the_others_and_one_previous_generation(fake: Path) -> None:
    assert CliRunner().invoke(engines, ["install", "oxlint"]).exit_code == 0
    first = _generation(fake)
    assert CliRunner().invoke(engines, ["install", "eslint"]).exit_code == 0
    second = _generation(fake)
    assert _npm_runs(fake)[-2].endswith("eslint@10.15.0 oxlint@1.94.0")
    assert resolve.managed_executable(ENGINES["oxlint"]) is not None
    assert sorted((fake / "managed.generations").iterdir()) == sorted([first, second])
    assert CliRunner().invoke(engines, ["install", "--force", "biome"]).exit_code == 0
    third = _generation(fake)
    # The generation just replaced stays (a running check may use it); older ones go.
    assert sorted((fake / "managed.generations").iterdir()) == sorted([second, third])


def test_a_managed_directory_from_before_generations_is_replaced(fake: Path) -> None:
    legacy = fake / "managed" / "node_modules" / ".bin" / "oxlint"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("#!/bin/sh\necho 'Version: 1.0.0'\n")
    legacy.chmod(0o755)
    result = CliRunner().invoke(engines, ["install", "eslint"])
    assert result.exit_code == 0, result.output
    # The old Oxlint was kept managed, now at its pinned version.
    assert _npm_runs(fake)[0].endswith("eslint@10.15.0 oxlint@1.94.0")
    oxlint = fake / "managed" / "node_modules" / ".bin" / "oxlint"
    assert installer.answered_version(oxlint, 5) == ("1.94.0", "")
    moved = [p for p in (fake / "managed.generations").iterdir() if p != _generation(fake)]
    assert [p.name.endswith("-before-generations") for p in moved] == [True]


def test_a_second_install_waits_for_the_lock_then_finds_the_engines_installed(
    fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = fake / "release"
    monkeypatch.setenv("FAKE_NPM_HOLD", str(release))
    said: dict[str, list[str]] = {"first": [], "second": []}
    done: dict[str, list[installer.Installed]] = {}

    def run(name: str) -> None:
        done[name] = installer.install([ENGINES["oxlint"]], 60, said[name].append)

    first = threading.Thread(target=run, args=("first",))
    first.start()
    wait_for_file(fake / "npm.log")  # the first install holds the lock, npm is running
    second = threading.Thread(target=run, args=("second",))
    second.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any("waiting" in s for s in said["second"]):
        time.sleep(0.01)  # until the second says it waits for the lock
    release.write_text("")  # npm finishes: the first install ends, the second goes on
    first.join(30)
    second.join(30)
    assert done["first"] == [installer.Installed("oxlint", "1.94.0", already=False)]
    assert done["second"] == [installer.Installed("oxlint", "1.94.0", already=True)]
    assert any("waiting for it to finish" in line for line in said["second"])
    assert len(_npm_runs(fake)) == 2  # npm ran once


@pytest.mark.real
def test_two_real_installs_at_once_leave_a_working_engine(tmp_path: Path) -> None:
    env = {**os.environ, "SIGNALINT_ENGINES_DIR": str(tmp_path / "managed")}
    argv = [str(Path(sys.executable).parent / "signalint"), "engines", "install", "oxlint"]
    runs = [
        subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    stdout = sorted(out for out, _err in outputs)
    assert stdout == ["oxlint 1.94.0 already installed\n", "oxlint 1.94.0 installed\n"]
    assert any("waiting for it to finish" in err for _out, err in outputs)
    oxlint = tmp_path / "managed" / "node_modules" / ".bin" / "oxlint"
    answer = subprocess.run([str(oxlint), "--version"], capture_output=True, text=True, check=True)
    assert "1.94.0" in answer.stdout

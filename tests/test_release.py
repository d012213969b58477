"""A release a workflow can pin (docs/ci.md, "Installing Signalint").

One version: `signalint --version`, the package metadata and CHANGELOG.md
agree. The wheel and the sdist that `python -m build` makes pass `twine
check`, the wheel holds every file of the package, and Signalint installed
from the wheel file and from a git URL pinned to a commit, with pip, pipx
and `uv tool install`, each into new environments outside the repository,
checks the bundled demo exactly as the development install does. The
tools are pinned in the `test` extra.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from signalint import __version__
from signalint.engines import resolve

from .conftest import DEMO, REPO, require_engine
from .source_clone import committed_clone

VENV_BIN = Path(sys.executable).parent
CHANGELOG = REPO / "CHANGELOG.md"
RELEASE_HEADING = re.compile(r"^## \[(\d+\.\d+\.\d+(?:[a-z]+\d+)?)\]", re.M)


def changelog_version() -> str:
    found = RELEASE_HEADING.search(CHANGELOG.read_text())
    assert found is not None, "CHANGELOG.md has no release heading `## [X.Y.Z]`"
    return found.group(1)


def test_the_version_is_one_in_the_package_its_metadata_and_the_changelog() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "src/signalint/__init__.py"
    assert importlib.metadata.version("signalint") == __version__
    assert changelog_version() == __version__


def test_the_changelog_heading_is_read_as_written() -> None:
    """The test above can fail: another version in the newest heading is found."""
    text = "# Changelog\n\n## [9.8.7] - 2027-01-01\n\n## [0.1.0] - unreleased\n"
    found = RELEASE_HEADING.search(text)
    assert found is not None and found.group(1) == "9.8.7"


@pytest.fixture(scope="module")
def fresh_clone(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A fresh clone of the repository holding the working tree, committed,
    and its commit: what is built and what a git URL pins."""
    source = tmp_path_factory.mktemp("source") / "signalint"
    return source, committed_clone(source)


@pytest.fixture(scope="module")
def dist(fresh_clone: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and sdist of a fresh clone, built with `python -m build`
    (so nothing the working tree has beside git's files goes in)."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(fresh_clone[0])],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("signalint-*.whl")
    return wheel


@pytest.mark.real
def test_the_wheel_and_sdist_pass_twine_and_hold_the_package(dist: Path) -> None:
    wheel = _wheel(dist)
    (sdist,) = dist.glob("signalint-*.tar.gz")
    assert wheel.name == f"signalint-{__version__}-py3-none-any.whl"
    assert sdist.name == f"signalint-{__version__}.tar.gz"
    checked = subprocess.run(
        [str(VENV_BIN / "twine"), "check", "--strict", str(wheel), str(sdist)],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # Every file of the package, data files included (the MCP handshake, the
    # warm engines' Node workers, py.typed), as git knows them.
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "src/signalint"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    package = {name.removeprefix("src/") for name in listed if (REPO / name).is_file()}
    assert "signalint/server/handshake.json" in package
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"signalint-{__version__}.dist-info/METADATA").decode()
    assert package <= names, sorted(package - names)
    assert f"\nVersion: {__version__}\n" in metadata
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
    for needed in ("CHANGELOG.md", "README.md", ".pre-commit-hooks.yaml", "pyproject.toml"):
        assert needed in members
    assert {f"src/{name}" for name in package} <= members


Answer = tuple[list[str], Counter[tuple[str, str, str, int, int, str]]]


def _sarif_key(text: str) -> Answer:
    """The engines (runs) and every issue of a SARIF answer."""
    log = json.loads(text)
    engines = sorted(run["tool"]["driver"]["name"] for run in log["runs"])
    issues: Counter[tuple[str, str, str, int, int, str]] = Counter()
    for run in log["runs"]:
        for result in run["results"]:
            where = result["locations"][0]["physicalLocation"]
            issues[
                (
                    run["tool"]["driver"]["name"],
                    where["artifactLocation"]["uri"],
                    result["ruleId"],
                    where["region"]["startLine"],
                    where["region"].get("startColumn", 0),
                    result["message"]["text"],
                )
            ] += 1
    return engines, issues


def _demo_check(signalint: Path, where: Path, env: dict[str, str]) -> tuple[int, Answer]:
    """`signalint check` of a fresh copy of examples/demo at `where`: exit code and answer."""
    shutil.copytree(DEMO, where, ignore=shutil.ignore_patterns(".signalint", "node_modules"))
    done = subprocess.run(
        [str(signalint), "check", "--format", "sarif", "--no-cache"],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, _sarif_key(done.stdout)


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(
        SIGNALINT_DAEMON="0",
        SIGNALINT_ENGINES_DIR=str(resolve.managed_dir()),
        PIPX_HOME=str(tmp / "pipx"),
        PIPX_BIN_DIR=str(tmp / "pipx-bin"),
        PIPX_MAN_DIR=str(tmp / "pipx-man"),
        UV_TOOL_DIR=str(tmp / "uv-tools"),
        UV_TOOL_BIN_DIR=str(tmp / "uv-bin"),
        UV_PYTHON=sys.executable,
        UV_PYTHON_DOWNLOADS="never",
    )
    env.pop("SIGNALINT_PROJECT_ROOT", None)
    return env


@pytest.fixture(scope="module")
def development_answer(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Answer]:
    for engine in ("oxlint", "tsc", "biome", "eslint"):
        require_engine(engine)
    tmp = tmp_path_factory.mktemp("development")
    return _demo_check(VENV_BIN / "signalint", tmp / "demo", _env(tmp))


@pytest.fixture(scope="module")
def source_commit(fresh_clone: tuple[Path, str]) -> str:
    """A git URL of the fresh clone pinned to its commit."""
    source, commit = fresh_clone
    return f"git+file://{source}@{commit}"


@pytest.mark.real
@pytest.mark.parametrize("tool", ["pip", "pipx", "uv"])
@pytest.mark.parametrize("origin", ["wheel", "git"])
def test_an_install_outside_the_repository_checks_the_demo_as_development_does(
    tool: str,
    origin: str,
    dist: Path,
    source_commit: str,
    development_answer: tuple[int, Answer],
    tmp_path: Path,
) -> None:
    env = _env(tmp_path)
    what = str(_wheel(dist)) if origin == "wheel" else source_commit
    if tool == "pip":
        venv = tmp_path / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # The bare VCS URL: the pip a venv of Python 3.11 bundles refuses
        # `signalint @ git+file:///...` (a URL without a host), not `git+https`.
        command = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", what]
        installed = venv / "bin" / "signalint"
    elif tool == "pipx":
        command = [str(VENV_BIN / "pipx"), "install", what]
        installed = tmp_path / "pipx-bin" / "signalint"
    else:
        command = [str(VENV_BIN / "uv"), "tool", "install", what]
        installed = tmp_path / "uv-bin" / "signalint"
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert installed.is_file()
    # The console script runs the installed copy, not the repository's.
    where = subprocess.run(
        [str(installed), "--version"], env=env, capture_output=True, text=True, check=True
    )
    assert where.stdout == f"signalint, version {changelog_version()}\n"
    answer = _demo_check(installed, tmp_path / "demo", env)
    assert answer == development_answer
    code, (engines, issues) = answer
    assert code == 1 and engines == ["biome", "eslint", "oxlint", "tsc"] and len(issues) >= 10

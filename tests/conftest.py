"""Shared fixtures: the pinned real engines and copies of fixture projects.

Real-tier tests need the engines that `signalint engines install` puts in the
managed directory (scripts/setup does that). Locally a missing engine skips
those tests; under CI (CI=true) it fails them, so a broken set-up cannot pass
as a green run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from signalint import file_cache
from signalint.engines import resolve
from signalint.engines.registry import ENGINES

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "examples" / "demo"


def engines_bin() -> Path:
    return Path(
        os.environ.get(
            "SIGNALINT_TEST_ENGINES_BIN", str(resolve.managed_dir() / "node_modules" / ".bin")
        )
    )


def python_engines_bin() -> Path:
    """Where pip-provisioned engines (Ruff, mypy) live: the managed virtual environment."""
    return Path(
        os.environ.get("SIGNALINT_TEST_PYTHON_ENGINES_BIN", str(resolve.managed_venv() / "bin"))
    )


def _bin_dir(bin_name: str) -> Path:
    pip = {
        e.spec.provision.bin_name for e in ENGINES.values() if e.spec.provision.installer == "pip"
    }
    return python_engines_bin() if bin_name in pip else engines_bin()


def require_engine(bin_name: str) -> Path:
    """Path of a pinned engine binary; skip (locally) or fail (CI) when missing."""
    path = _bin_dir(bin_name) / bin_name
    if not path.exists():
        message = f"{path} is not installed: run `signalint engines install`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture
def real_engines() -> dict[str, Path]:
    return {name: require_engine(name) for name in ("oxlint", "tsc", "biome", "eslint")}


@pytest.fixture
def demo_project(tmp_path: Path, real_engines: dict[str, Path]) -> Iterator[Path]:
    """A private copy of examples/demo (errors for all four engines)."""
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target, ignore=shutil.ignore_patterns(".signalint", "node_modules"))
    yield target


@pytest.fixture
def in_project(monkeypatch: pytest.MonkeyPatch) -> object:
    """Run CLI code as if launched inside `path` (cwd, no root override)."""

    def enter(path: Path) -> Path:
        monkeypatch.chdir(path)
        monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
        monkeypatch.delenv("SIGNALINT_COMPACT", raising=False)
        return path

    return enter


@pytest.fixture
def settled_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files the test wrote just before a check count as settled, so the check
    may store its results (a real edit is older than the settle window)."""
    monkeypatch.setattr(file_cache, "SETTLE_NS", 0)

"""TypeScript releases for tests that compare tsc versions.

TypeScript 7 is the managed engine; scripts/setup pins 6 (with the language
server, `~/.cache/signalint/lsp`) and 5 (`~/.cache/signalint/ts5`). A test
makes one of them a fixture copy's own tsc with `install_typescript`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from signalint.engines.resolve import resolve
from signalint.engines.tsc.adapter import ENGINE as TSC
from signalint.engines.tsc.build import typescript_major

from .conftest import require_engine

CACHE = Path.home() / ".cache" / "signalint"
# Where scripts/setup puts the older TypeScript releases (pinned).
PACKAGES = {
    6: Path(os.environ.get("SIGNALINT_LSP_DIR", CACHE / "lsp")),
    5: Path(os.environ.get("SIGNALINT_TEST_TS5_DIR", CACHE / "ts5")),
}


def typescript(major: int) -> Path:
    """The `tsc` of TypeScript `major`: skipped (failed under CI) when not set up."""
    if major == 7:
        return require_engine("tsc")
    tsc = PACKAGES[major] / "node_modules" / ".bin" / "tsc"
    if not tsc.exists() or typescript_major(tsc) != major:
        message = f"TypeScript {major} is not installed at {tsc}: run scripts/setup"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return tsc


def install_typescript(root: Path, major: int) -> None:
    """Make TypeScript `major` the project's own tsc (hard links: no copy of 20 MB)."""
    if major == 7:
        return  # no tsc of its own: the managed TypeScript 7 is resolved
    package = PACKAGES[major] / "node_modules" / "typescript"

    def link(source: str, target: str) -> None:
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)

    shutil.copytree(package, root / "node_modules" / "typescript", copy_function=link)
    bin_dir = root / "node_modules" / ".bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "tsc").symlink_to("../typescript/bin/tsc")
    resolved = resolve(TSC, root)
    assert resolved.source == "project" and resolved.path is not None
    assert typescript_major(resolved.path) == major

"""Which languages a project is written in, from its manifests and top-level files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

JS_TS_SUFFIXES: Final = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
MARKER_FILES: Final = ("package.json", "tsconfig.json", "jsconfig.json")
PYTHON_MARKER_FILES: Final = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt")


def has_python_markers(root: Path) -> bool:
    """Whether `root` looks like a Python project (a manifest or a top-level module)."""
    if any((root / name).is_file() for name in PYTHON_MARKER_FILES):
        return True
    try:
        with os.scandir(root) as entries:
            return any(e.name.endswith((".py", ".pyi")) and e.is_file() for e in entries)
    except OSError:
        return False


MARKERS_HINT: Final = (
    "package.json, tsconfig.json, jsconfig.json, pyproject.toml, setup.py, setup.cfg, "
    "requirements.txt or a top-level source file"
)


def project_languages(root: Path) -> tuple[str, ...]:
    """The languages `root` has project markers for: "javascript", "python"."""
    found = [("javascript", has_js_ts_markers(root)), ("python", has_python_markers(root))]
    return tuple(name for name, present in found if present)


def has_js_ts_markers(root: Path) -> bool:
    """Whether `root` looks like a JS/TS project (a manifest or a top-level source)."""
    if any((root / name).is_file() for name in MARKER_FILES):
        return True
    try:
        with os.scandir(root) as entries:
            return any(e.name.endswith(JS_TS_SUFFIXES) and e.is_file() for e in entries)
    except OSError:
        return False

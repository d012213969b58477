"""Generate a synthetic Python project for benchmarks: Ruff, mypy and Pyright.

A package `pkg` of modules that each import the previous one, configured in
`pyproject.toml` for all three engines (Ruff with pycodestyle, Pyflakes and
isort rules; mypy strict with `files`; Pyright standard with `include`).
Every module carries a few diagnostics so each engine has real findings:

- Ruff: an unused import (F401) and a comparison to None with `==` (E711);
- mypy and Pyright: a `str` assigned to an `int` variable (mypy
  `assignment`, Pyright `reportAssignmentType`) and a call with an argument
  of the wrong type (`arg-type`, `reportArgumentType`);
- mypy strict only: a function without annotations (`no-untyped-def`).

The project has no virtual environment and imports nothing outside the
standard library, so the engines come from Signalint's managed directory.
"""

from __future__ import annotations

import json
from pathlib import Path

TEMPLATE = '''"""Module {index}."""

import os

from pkg.mod{prev:05d} import VALUE{prev}, compute{prev}

VALUE{index}: int = VALUE{prev} + {index}


def compute{index}(value: int) -> int:
    """Return a number built on the previous module."""
    result: int = "not a number"
    result = compute{prev}(value) + VALUE{index}
    if value == None:
        return 0
    return result + compute{prev}(str(value))


def untyped{index}(value):
    return value
'''

FIRST = '''"""Module 0."""

VALUE0: int = 0


def compute0(value: int) -> int:
    """Return the value."""
    return value
'''

PYPROJECT = """[project]
name = "synthpy"
version = "0.0.0"
requires-python = ">=3.11"

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "I"]

[tool.mypy]
strict = true
files = ["pkg"]

[tool.pyright]
include = ["pkg"]
typeCheckingMode = "standard"
"""


def generate(root: Path, files: int) -> Path:
    """Write a project of `files` Python files (the package's `__init__.py`
    included) under `root` and return it."""
    package = root / "pkg"
    package.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "signalint.config.json").write_text(
        json.dumps(
            {
                "engines": {
                    "oxlint": False,
                    "tsc": False,
                    "biome": False,
                    "eslint": False,
                    "ruff": True,
                    "mypy": True,
                    "pyright": True,
                }
            }
        )
        + "\n"
    )
    (package / "__init__.py").write_text('"""A generated package."""\n')
    (package / "mod00000.py").write_text(FIRST)
    for index in range(1, files - 1):
        (package / f"mod{index:05d}.py").write_text(TEMPLATE.format(index=index, prev=index - 1))
    return root

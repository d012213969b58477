"""Benchmarks (docs/benchmarks.md); run each as a script."""

from __future__ import annotations

import compileall
from pathlib import Path

import signalint


def compile_bytecode() -> None:
    """Write the bytecode of Signalint's modules, as an install does.

    A bench that times process starts would otherwise also time compiling
    every module edited since its bytecode was last written, on every start,
    where `PYTHONDONTWRITEBYTECODE` is set (it is on some machines) and an
    editable install never compiled them.
    """
    compileall.compile_dir(str(Path(signalint.__file__).parent), quiet=1)

"""Regenerate Pyright's recordings in tests/engines/recorded/ (see record.py).

Not a test module. Usage (from the repository root), with the pinned pyright
installed by `signalint engines install pyright`:

    .venv/bin/python -m tests.engines.record_pyright [BIN_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from signalint.engines import resolve
from tests.engines.record import RECORDED, _run


def main(argv: list[str]) -> None:
    bin_dir = Path(argv[0]) if argv else resolve.managed_dir() / "node_modules" / ".bin"
    RECORDED.mkdir(exist_ok=True)
    _run("pyright", "pyright", bin_dir, "pyright", [], copy=True)
    _run("pyright-badconfig", "pyright", bin_dir, "pyright-badconfig", [], copy=True)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Regenerate ty's, Pyrefly's and basedpyright's recordings in tests/engines/recorded/.

Not a test module (see record.py). Usage (from the repository root), with the
pinned engines installed by `signalint engines install ty pyrefly basedpyright`:

    .venv/bin/python -m tests.engines.record_python_checkers [BIN_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from signalint.engines import resolve
from tests.engines.record import RECORDED, _run


def main(argv: list[str]) -> None:
    bin_dir = Path(argv[0]) if argv else resolve.managed_venv() / "bin"
    RECORDED.mkdir(exist_ok=True)
    for name in ("ty", "pyrefly", "basedpyright"):
        _run(name, name, bin_dir, name, [], copy=True)


if __name__ == "__main__":
    main(sys.argv[1:])

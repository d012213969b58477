"""Pyright kept warm (`signalint.engines.pyright.warm`) against `pyright` run cold.

    .venv/bin/python bench/bench_warm_pyright.py [--files 300] [--runs 3] [--longest N]

bench/warm_python.py's package (one chain of imports unless `--longest`),
edits and comparison with the cold run, for Pyright; T is native cold
`pyright --outputjson` (the pinned engine).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.warm_python import measure, package, report
from signalint.engines.base import EngineContext
from signalint.engines.pyright import warm as warm_pyright
from signalint.engines.pyright.adapter import ENGINE
from signalint.engines.resolve import managed_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--longest", type=int, default=None, help="the longest chain of imports")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        root = package(Path(home), args.files, args.longest)
        executable = managed_dir() / "node_modules" / ".bin" / "pyright"
        ctx = EngineContext(root, executable, 600.0, root / ".signalint")
        natives = {"cold": ENGINE.command(ctx, [], None)}
        times = asyncio.run(
            measure(warm_pyright.DRIVER, ENGINE, ctx, natives, args.files, args.runs)
        )
    report("pyright", args.files, times)


if __name__ == "__main__":
    main()

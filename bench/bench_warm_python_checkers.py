"""ty kept warm (`signalint.engines.ty.warm`) against `ty check` run cold.

    .venv/bin/python bench/bench_warm_python_checkers.py [--files 800] [--runs 3] [--longest 400]

bench/warm_python.py's package, edits and comparison with the cold run,
for ty; T is native cold `ty check` with the adapter's arguments. Also
printed: native cold `pyrefly check` on the same package (Pyrefly has no
warm driver: docs/engines.md, "Engines that stay cold").
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
from signalint.engines.pyrefly.adapter import ENGINE as PYREFLY
from signalint.engines.resolve import managed_venv
from signalint.engines.ty import warm as warm_ty
from signalint.engines.ty.adapter import ENGINE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=800)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--longest", type=int, default=400, help="the longest chain of imports")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        root = package(Path(home), args.files, args.longest)
        bin_dir = managed_venv() / "bin"
        ctx = EngineContext(root, bin_dir / "ty", 600.0, root / ".signalint")
        pyrefly = EngineContext(root, bin_dir / "pyrefly", 600.0, root / ".signalint")
        natives = {
            "cold": ENGINE.command(ctx, [], None),
            "pyrefly": PYREFLY.command(pyrefly, [], None),
        }
        times = asyncio.run(measure(warm_ty.DRIVER, ENGINE, ctx, natives, args.files, args.runs))
    report("ty", args.files, times)


if __name__ == "__main__":
    main()

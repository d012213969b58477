"""Pyright kept warm (`signalint.engines.pyright.warm`) against `pyright` run cold.

    .venv/bin/python bench/bench_warm_pyright.py [--files 300] [--runs 3]

On bench/synth_python.py's package (each module imports the one before
it), in the same run: T is native cold `pyright --outputjson` (the pinned
engine); then a `WarmPool` answers the same command after its first start:

1. a one-module body edit (the last module: nothing depends on it);
2. the first module's signature changed (every module depends on it
   through the chain of imports);

each compared with a cold run of the same content (issues as multisets).
Medians of `--runs`, printed as seconds and ratios to T, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synth_python import generate
from signalint import process
from signalint.engines.base import EngineContext
from signalint.engines.pyright import warm as warm_pyright
from signalint.engines.pyright.adapter import ENGINE
from signalint.engines.resolve import managed_dir
from signalint.warm.pool import WarmPool


async def measure(root: Path, files: int, runs: int) -> dict[str, list[float]]:
    executable = managed_dir() / "node_modules" / ".bin" / "pyright"
    ctx = EngineContext(root, executable, 600.0, root / ".signalint")
    command = ENGINE.command(ctx, [], None)
    pool = WarmPool(8 << 30, Path(tempfile.mkdtemp()), {"pyright": warm_pyright.DRIVER})
    times: dict[str, list[float]] = {"cold": [], "start": [], "body": [], "signature": []}
    last = root / "pkg" / f"mod{files - 2:05d}.py"
    first = root / "pkg" / "mod00000.py"

    async def warm(label: str) -> None:
        started = time.monotonic()
        answer = await pool.answer("pyright", ctx, command)
        times[label].append(time.monotonic() - started)
        assert answer is not None and answer.result is not None, "not answered warm"
        cold = await process.run(command)
        same = Counter(ENGINE.parse(answer.result, ctx)) == Counter(ENGINE.parse(cold, ctx))
        print(f"  {label}: {times[label][-1]:.2f} s, equal to cold: {same}", flush=True)

    try:
        for run in range(runs):
            started = time.monotonic()
            await process.run(command)
            times["cold"].append(time.monotonic() - started)
            print(f"run {run + 1}: cold {times['cold'][-1]:.2f} s", flush=True)
            if run == 0:
                await warm("start")
            last.write_text(last.read_text() + f"\n\nEXTRA{run}: int = {run}\n")
            await warm("body")
            text = first.read_text()
            swapped = (
                text.replace("value: int", "value: float")
                if "value: int" in text
                else text.replace("value: float", "value: int")
            )
            first.write_text(swapped)
            await warm("signature")
    finally:
        await pool.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        root = generate(Path(home) / "project", args.files).resolve()
        times = asyncio.run(measure(root, args.files, args.runs))
    cold = statistics.median(times["cold"])
    print(f"\n{args.files} modules, T = native cold pyright {cold:.2f} s (median)")
    for label in ("start", "body", "signature"):
        value = statistics.median(times[label])
        print(f"  warm {label:<9} {value:6.2f} s  {value / cold:5.2f} x T")


if __name__ == "__main__":
    main()

"""TypeScript 7 kept warm (engines/tsc/warm_native.py) against cold native `tsc`.

    .venv/bin/python bench/bench_warm_tsc_native.py [--files 3000] [--runs 3]

On a generated strict TypeScript project (bench/synth.py), after a one-file
edit that changes an exported value's type (so dependents' errors change):
1. cold: the exact command the tsc adapter runs (`tsc -p ... --incremental`,
   its build info warm from the run before the edit);
2. warm: the same command answered by the kept-warm worker through a
   `WarmPool` (the worker started and asked once before the edits);
3. the same edit through a whole `signalint` check (`run_check`, tsc only,
   the result cache on) in a process without a pool and in one with a
   pool (as the MCP server or the daemon keeps).
Every warm answer is compared with the cold one (stdout and exit code) and
the figures are printed only if all were equal, with the worker's own
account of each answer (its log). Medians of `--runs`; printed, never
asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synth import generate
from signalint import process
from signalint.cache.context import Context
from signalint.engines.base import EngineContext
from signalint.engines.resolve import managed_dir
from signalint.engines.tsc.adapter import ENGINE
from signalint.engines.tsc.warm_native import NativeTscDriver
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from signalint.warm.pool import WarmPool

TSC = managed_dir() / "node_modules" / ".bin" / "tsc"
EDITS = [
    "export const value{i}: number = {i};\n",
    "export const value{i}: string = 'edited {i}';\n",
]


async def main(files: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "synth", files)
        ctx = EngineContext(root, TSC, 600.0, root / ".state")
        command = ENGINE.command(ctx, [], None)
        pool = WarmPool(1 << 33, Path(tmp) / "logs", {"tsc": NativeTscDriver()})
        try:
            started = time.perf_counter()
            first_cold = await process.run(command)
            first_cold_s = time.perf_counter() - started
            started = time.perf_counter()
            answer = await pool.answer("tsc", ctx, command)
            first_warm_s = time.perf_counter() - started
            assert answer is not None and answer.result is not None
            assert answer.result.stdout == first_cold.stdout, "first answers differ"
            cold_s: list[float] = []
            warm_s: list[float] = []
            middle = files // 2
            for run in range(runs):
                target = root / "src" / f"file{middle:05d}.ts"
                target.write_text(EDITS[run % 2].format(i=middle))
                started = time.perf_counter()
                cold = await process.run(command)
                cold_s.append(time.perf_counter() - started)
                started = time.perf_counter()
                answer = await pool.answer("tsc", ctx, command)
                warm_s.append(time.perf_counter() - started)
                assert answer is not None and answer.result is not None
                warm = answer.result
                assert (warm.stdout, warm.exit_code) == (cold.stdout, cold.exit_code), run
            diagnostics = sum(1 for line in cold.stdout.splitlines() if ": error TS" in line)
            checks = await whole_checks(root, pool, middle, runs)
            # The worker's own account of each answer (hashing, snapshot, check).
            said = (Path(tmp) / "logs" / "tsc.log").read_text(encoding="utf-8").splitlines()
        finally:
            await pool.close()
    print(f"{files} modules, {diagnostics} diagnostics; medians of {runs} edits")
    print(f"cold tsc, first run (no build info):   {first_cold_s:7.2f} s")
    print(f"warm worker, first answer (start):     {first_warm_s:7.2f} s")
    print(f"cold tsc --incremental after an edit:  {statistics.median(cold_s):7.2f} s")
    print(f"warm answer after the same edit:       {statistics.median(warm_s):7.2f} s")
    print(f"signalint check after an edit, cold:   {checks[0]:7.2f} s")
    print(f"signalint check after an edit, warm:   {checks[1]:7.2f} s")
    print("the worker's log:", *said, sep="\n  ")


async def whole_checks(root: Path, pool: WarmPool, middle: int, runs: int) -> tuple[float, float]:
    """Median seconds of a tsc-only check after an edit: cold, then warm."""
    (root / "signalint.config.json").write_text(
        '{"engines": {"oxlint": false, "tsc": true, "biome": false, "eslint": false}}\n'
    )
    config = load_config(root)
    medians = []
    for context in (Context(), Context(warm=pool)):
        times = []
        for run in range(runs + 1):
            (root / "src" / f"file{middle:05d}.ts").write_text(EDITS[run % 2].format(i=middle))
            started = time.perf_counter()
            checked = await run_check(RunRequest(root, config), context)
            if run:  # the first one fills the cache (and the pool's worker is warm already)
                times.append(time.perf_counter() - started)
            served = checked.result.outcomes["tsc"].served
            assert served == ("warm" if context.warm else "cold"), served
        medians.append(statistics.median(times))
    return medians[0], medians[1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.files, args.runs))

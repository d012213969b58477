"""mypy kept warm (`warm.mypy`) against mypy cold, on a generated project.

    .venv/bin/python bench/bench_warm_mypy.py [--files 300] [--runs 3]

bench/synth_python.py's package (mypy strict, `files = ["pkg"]`, each
module importing the previous one). Cold: the adapter's command run as a
process with a fresh state directory (no cache) and again with the cache
the previous cold run left (mypy's own incremental mode). Warm: one
`WarmPool` asked the same command: its first answer (the worker starts
and builds), then after a one-line body edit of the last module, and after
a change to the signature of the first module's function (every module
depends on it). Each warm answer is compared with a cold run of the same
content (issues with multiplicity). `--clean` takes the generated
modules' deliberate errors out first: the daemon checks again every part
of the program that has errors after each update, so a program with an
error in every module is its worst case. Medians of `--runs`; printed,
never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import re
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
from signalint.engines.mypy.adapter import ENGINE
from signalint.engines.resolve import managed_venv
from signalint.process import ProcessResult
from signalint.warm.pool import WarmPool

MYPY = managed_venv() / "bin" / "mypy"
# What `--clean` changes in every generated module (bench/synth_python.py's
# TEMPLATE): its mypy errors become correct code.
CLEAN = (
    (r'result: int = "not a number"', "result: int = 0"),
    (r"\(str\(value\)\)", "(value)"),
    (r"def (untyped\d+)\(value\):", r"def \1(value: int) -> int:"),
    (r"value == None", "value == 0"),
)


def context(root: Path, state: Path) -> EngineContext:
    return EngineContext(root=root, executable=MYPY, timeout_s=600.0, state_dir=state)


def issues(root: Path, state: Path, result: ProcessResult) -> Counter[object]:
    return Counter(
        (i.file, i.line, i.col, i.rule, i.message)
        for i in ENGINE.parse(result, context(root, state))
    )


async def cold(root: Path, state: Path) -> tuple[float, ProcessResult]:
    command = ENGINE.command(context(root, state), [], None)
    started = time.monotonic()
    result = await process.run(command)
    return time.monotonic() - started, result


async def warm(pool: WarmPool, root: Path, state: Path) -> tuple[float, ProcessResult]:
    ctx = context(root, state)
    command = ENGINE.command(ctx, [], None)
    started = time.monotonic()
    answer = await pool.answer("mypy", ctx, command)
    assert answer is not None and answer.result is not None and answer.served == "warm"
    return time.monotonic() - started, answer.result


def clean(root: Path) -> None:
    """Take the generated project's deliberate mypy errors out."""
    for path in (root / "pkg").glob("mod*.py"):
        text = path.read_text()
        for old, new in CLEAN:
            text = re.sub(old, new, text)
        path.write_text(text)


async def one_run(base: Path, files: int, without_errors: bool) -> dict[str, float]:
    root = generate(base / "project", files)
    if without_errors:
        clean(root)
    first = root / "pkg" / "mod00000.py"
    last = root / "pkg" / f"mod{files - 2:05d}.py"
    figures: dict[str, float] = {}
    figures["cold, no cache"], _ = await cold(root, base / "cold-a")
    pool = WarmPool(4 << 30, base / "logs")
    state = base / "warm"
    try:
        figures["warm, first answer (start + build)"], _ = await warm(pool, root, state)
        edits = {
            "body edit of the last module": (last, "+ VALUE", "- VALUE"),
            "signature of the first module's function": (first, "value: int", "value: float"),
        }
        for name, (path, old, new) in edits.items():
            path.write_text(path.read_text().replace(old, new, 1))
            figures[f"cold with cache, {name}"], _ = await cold(root, base / "cold-a")
            taken, answer = await warm(pool, root, state)
            figures[f"warm, {name}"] = taken
            _, fresh = await cold(root, base / f"cold-{name[:4]}")
            same = issues(root, state, answer) == issues(root, state, fresh)
            figures[f"equal to cold ({name})"] = 1.0 if same else 0.0
    finally:
        await pool.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--clean", action="store_true", help="without the generated modules' mypy errors"
    )
    args = parser.parse_args()
    runs: list[dict[str, float]] = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-warm-mypy-") as directory:
            runs.append(asyncio.run(one_run(Path(directory), args.files, args.clean)))
    kind = "without errors" if args.clean else "three errors in each"
    print(f"mypy, {args.files} modules ({kind}), median of {args.runs} runs")
    for name in runs[0]:
        values = [run[name] for run in runs]
        if name.startswith("equal"):
            print(f"  {name}: {'yes' if all(values) else 'NO'}")
        else:
            print(f"  {name}: {statistics.median(values):.2f} s")


if __name__ == "__main__":
    main()

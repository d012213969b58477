"""Cold `signalint check` against the slowest native engine, same project, same run.

    .venv/bin/python bench/bench_check.py [--sizes 10,600,3000] [--runs 5]

For each size a synthetic strict TypeScript project is generated (see
synth.py). Reported per size, median of `--runs`: native tsc, native oxlint,
our CLI check (process start included, JSON to /dev/null, state dir wiped
before every run so nothing is reused), and the ratio of ours to the slowest
native engine. Also `signalint --version` start-up time.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile_bytecode
from bench.synth import generate
from signalint.engines.resolve import managed_dir

BIN = managed_dir() / "node_modules" / ".bin"
SIGNALINT = Path(sys.executable).with_name("signalint")


def timed(argv: list[str], cwd: Path, before: object = None) -> float:
    if callable(before):
        before()
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def median(argv: list[str], cwd: Path, runs: int, before: object = None) -> float:
    return statistics.median(timed(argv, cwd, before) for _ in range(runs))


def bench_size(size: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / f"synth{size}", size)
        files = sorted(str(p.relative_to(root)) for p in (root / "src").glob("*.ts"))

        def wipe() -> None:
            shutil.rmtree(root / ".signalint", ignore_errors=True)

        tsc = median(
            [str(BIN / "tsc"), "-p", "tsconfig.json", "--noEmit", "--pretty", "false"], root, runs
        )
        oxlint = median([str(BIN / "oxlint"), "--format", "json", *files], root, runs)
        ours = median([str(SIGNALINT), "check", "--format", "json"], root, runs, wipe)
        return {
            "files": size,
            "tsc": tsc,
            "oxlint": oxlint,
            "signalint": ours,
            "ratio": ours / max(tsc, oxlint),
        }


def main() -> None:
    compile_bytecode()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,600,3000")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    version = statistics.median(
        timed([str(SIGNALINT), "--version"], Path.cwd()) for _ in range(args.runs)
    )
    print(f"signalint --version: {version * 1000:.0f} ms (median of {args.runs})")
    print(f"{'files':>6} {'tsc s':>8} {'oxlint s':>9} {'signalint s':>12} {'ratio':>6}")
    for size in (int(s) for s in args.sizes.split(",")):
        row = bench_size(size, args.runs)
        print(
            f"{row['files']:>6.0f} {row['tsc']:>8.3f} {row['oxlint']:>9.3f} "
            f"{row['signalint']:>12.3f} {row['ratio']:>6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()

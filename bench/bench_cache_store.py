"""ResultCache micro-benchmark: memoized content digests and result round trips.

    .venv/bin/python bench/bench_cache_store.py [--files 20000] [--runs 7]

Creates `--files` small files in nested directories, fills the digest memo
once, then times `digests()` when nothing changed (the common case on every
check: one stat per file, one range scan of the memo, no file reads) next to
its floor, a bare os.stat of every file; then with one file edited, and
put_many/get_many of as many keys. No asserts: speed goals are read, not
enforced. Wall times are noisy on a shared machine; CPU time is steadier.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from signalint.cache import local_store as cache
from signalint.cache.local_store import ResultCache
from signalint.project import content


def timings_ms(action: Callable[[], object], runs: int) -> str:
    """Median and best wall time, and median CPU time (steadier on a busy machine)."""
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    median, best, median_cpu = (
        1000 * x for x in (statistics.median(wall), min(wall), statistics.median(cpu))
    )
    return f"median {median:7.1f} ms   best {best:7.1f} ms   cpu {median_cpu:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        rels = [f"src/pkg{i // 200:03d}/file{i:05d}.ts" for i in range(args.files)]
        for rel in rels:
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"export const value{rel[-8:-3]} = {len(rel)};\n")
        store = ResultCache(Path(tmp) / "state")
        # The files were just written, so they are inside the racy window and
        # would never be memoized; pretend the clock has moved on instead of sleeping.
        real_clock = cache._wall_ns
        cache._wall_ns = lambda: real_clock() + 10 * content.RACY_WINDOW_NS

        cold = timings_ms(lambda: store.digests(root, rels), 1)
        warm = timings_ms(lambda: store.digests(root, rels), args.runs)
        # A new ResultCache per call: what a fresh CLI process pays (no in-process memo).
        state = store.path.parent
        fresh = timings_ms(lambda: ResultCache(state).digests(root, rels), args.runs)
        # The floor any stat-validated memo pays: one os.stat per file, nothing else.
        full_paths = [f"{root}/{rel}" for rel in rels]
        floor = timings_ms(lambda: list(map(os.stat, full_paths)), args.runs)
        edited = root / rels[len(rels) // 2]

        def edit_one() -> None:
            edited.write_text(edited.read_text() + "//\n")
            store.digests(root, rels)

        one_changed = timings_ms(edit_one, args.runs)
        values = {f"key{i:06d}": b"x" * 200 for i in range(args.files)}
        put = timings_ms(lambda: store.put_many(values), args.runs)
        get = timings_ms(lambda: store.get_many(list(values)), args.runs)

    print(f"files: {args.files}, runs: {args.runs}")
    print(f"digests, cold (hashes everything)  {cold}")
    print(f"digests, unchanged, same instance  {warm}")
    print(f"digests, unchanged, new instance   {fresh}")
    print(f"  floor: os.stat of every file     {floor}")
    print(f"digests, one file edited           {one_changed}")
    print(f"put_many, {args.files} x 200 B        {put}")
    print(f"get_many, {args.files} hits           {get}")


if __name__ == "__main__":
    main()

"""ResultCache micro-benchmark: memoized content digests and result round trips.

    .venv/bin/python bench/bench_cache_store.py [--files 20000] [--runs 7]

Creates `--files` small files in nested directories, fills the digest memo
once, then reports the median time of `digests()` when nothing changed (the
common case on every check: one stat per file, one SELECT per 900 paths, no
file reads), with one file edited, and get_many/put_many for the same number
of keys. No asserts: speed goals are read, not enforced.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from signalint import cache
from signalint.cache import ResultCache


def median_ms(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


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
        cache._wall_ns = lambda: real_clock() + 10 * cache.RACY_WINDOW_NS

        cold = median_ms(lambda: store.digests(root, rels), 1)
        warm = median_ms(lambda: store.digests(root, rels), args.runs)
        edited = root / rels[len(rels) // 2]

        def edit_one() -> None:
            edited.write_text(edited.read_text() + "//\n")
            store.digests(root, rels)

        one_changed = median_ms(edit_one, args.runs)
        values = {f"key{i:06d}": b"x" * 200 for i in range(args.files)}
        put = median_ms(lambda: store.put_many(values), args.runs)
        get = median_ms(lambda: store.get_many(list(values)), args.runs)

    print(f"files: {args.files}")
    print(f"digests, cold (hash everything):   {cold:8.1f} ms")
    print(f"digests, unchanged (median):       {warm:8.1f} ms")
    print(f"digests, one file edited (median): {one_changed:8.1f} ms")
    print(f"put_many {args.files} x 200 B (median):  {put:8.1f} ms")
    print(f"get_many {args.files} hits (median):    {get:8.1f} ms")


if __name__ == "__main__":
    main()

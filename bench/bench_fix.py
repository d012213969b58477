"""Fix transactions: preview + apply of 20 files, and suggest_fix against the engine's --fix.

    .venv/bin/python bench/bench_fix.py [--runs 15] [--dir /dev/shm]

1. Preview + apply of a 20-file transaction (each file ~4 KB, two of them
   new in a new directory): `make_patches` (paths, drift), staging, the
   preview answer with its diffs, then `write` (preflight, journal with
   fsyncs, adjacent temporary files, renames, commit), in process, median
   of `--runs`. The post-check is timed apart (check_files on the 20
   files with Oxlint and Biome, as apply_diagnostic_fix runs it).
2. suggest_fix on a 50-issue fixable cluster (Biome `useConst`, two per
   file in 25 files of a 200-file project) against Biome's own
   `biome lint --write` on those 25 files in a copy, median of `--runs`
   each, and their ratio (the goal: at most 1.2).

`--dir /dev/shm` puts the projects in memory, where an fsync costs
nothing: the difference to a disk run is what durability costs there.

Numbers are reported, never asserted (docs/architecture.md, "Tests and benchmarks").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from signalint.engines.registry import ENGINES
from signalint.engines.resolve import resolve
from signalint.features.engine_fixes import suggest
from signalint.features.transactions import TransactionStore, make_patches, preview_payload, write
from signalint.server.words import tool_words
from signalint.service import check_service as service
from signalint.settings.config import load_config

FILES = 20
PROJECT_FILES = 200
CLUSTER_FILES = 25


def _text(index: int, edited: bool) -> str:
    body = "".join(f"export const value{index}_{n} = {n} + {index};\n" for n in range(100))
    return body + ("// edited\n" if edited else "")


def _project(root: Path, *, oxlint: bool) -> None:
    """An empty Biome project with `src/`; Oxlint on or off, no tsc or ESLint."""
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "bench-fix", "private": true}\n')
    (root / "biome.json").write_text('{"linter": {"enabled": true}}\n')
    engines = {"oxlint": oxlint, "biome": True, "tsc": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))


def _patch_project(root: Path) -> list[dict[str, str]]:
    _project(root, oxlint=True)
    patches = []
    for index in range(FILES):
        if index < FILES - 2:
            (root / "src" / f"f{index}.ts").write_text(_text(index, False))
            patches.append(
                {"file": f"src/f{index}.ts", "originalContent": _text(index, False),
                 "patchedContent": _text(index, True)}
            )  # fmt: skip
        else:
            patches.append(
                {"file": f"gen/new/f{index}.ts", "originalContent": "",
                 "patchedContent": _text(index, True)}
            )  # fmt: skip
    return patches


def _reset(root: Path) -> None:
    for index in range(FILES - 2):
        (root / "src" / f"f{index}.ts").write_text(_text(index, False))
    shutil.rmtree(root / "gen", ignore_errors=True)


def bench_apply(base: Path, runs: int) -> tuple[float, float]:
    root = base / "apply"
    raw = _patch_project(root)
    store = TransactionStore()
    times = []
    for _ in range(runs):
        _reset(root)
        started = time.perf_counter()
        prepared = store.put(make_patches(root, raw))
        preview_payload(prepared, tool_words)
        write(root, prepared)
        times.append(time.perf_counter() - started)
    config = load_config(root)
    files = [p["file"] for p in raw]
    started = time.perf_counter()
    asyncio.run(
        service.check(
            service.CheckRequest(root, config, files, locate=service.from_root(root), kind="files")
        )
    )
    post_check = time.perf_counter() - started
    return statistics.median(times) * 1000, post_check * 1000


def _cluster_project(root: Path) -> list[str]:
    _project(root, oxlint=False)
    targets = []
    for index in range(PROJECT_FILES):
        file = f"src/m{index}.js"
        if index < CLUSTER_FILES:
            text = f"let a{index} = 1;\nlet b{index} = 2;\nexport {{ a{index}, b{index} }};\n"
            targets.append(file)
        else:
            text = f"export const c{index} = {index};\n"
        (root / file).write_text(text * 1 + "".join(f"// {n}\n" for n in range(40)))
    return targets


def bench_suggest(base: Path, runs: int) -> tuple[float, float, int]:
    root = base / "cluster"
    targets = _cluster_project(root)
    config = load_config(root)
    checked = asyncio.run(
        service.check(service.CheckRequest(root, config, locate=service.from_root(root)))
    )
    issues = [i for i in checked.result.issues if i.rule == "lint/style/useConst"]
    biome = resolve(ENGINES["biome"], root).path
    assert biome is not None, "biome is not installed: run `signalint engines install`"
    ours, native = [], []
    for _ in range(runs):
        started = time.perf_counter()
        suggestion = asyncio.run(suggest(root, config, issues))
        ours.append(time.perf_counter() - started)
        assert len(suggestion.patches) == CLUSTER_FILES
        copy = base / "native"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".signalint"))
        started = time.perf_counter()
        subprocess.run(
            [str(biome), "lint", "--write", "--colors=off", "--", *targets],
            cwd=copy, capture_output=True, check=False,
        )  # fmt: skip
        native.append(time.perf_counter() - started)
    return statistics.median(ours) * 1000, statistics.median(native) * 1000, len(issues)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--dir", default=None, help="where the projects live (default: $TMPDIR)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-fix-", dir=args.dir) as directory:
        base = Path(directory)
        apply_ms, post_ms = bench_apply(base, args.runs)
        print(f"preview + apply, {FILES} files: {apply_ms:.1f} ms (median of {args.runs})")
        print(f"post-check of those files (oxlint, biome): {post_ms:.0f} ms")
        ours, native, issues = bench_suggest(base, args.runs)
        print(
            f"suggest_fix, {issues} issues in {CLUSTER_FILES} of {PROJECT_FILES} files: "
            f"{ours:.0f} ms; biome lint --write on those files: {native:.0f} ms; "
            f"ratio {ours / native:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

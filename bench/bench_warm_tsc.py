"""tsc cold against tsc kept warm, one edit, same project.

    .venv/bin/python bench/bench_warm_tsc.py [--files 2000] [--typescript DIR] [--references]

A synthetic strict TypeScript project (see synth.py) gets TypeScript 5 or 6
as its own tsc (hard links from `--typescript`, an npm prefix holding
`node_modules/typescript`; scripts/setup pins 5 in ~/.cache/signalint/ts5).
The adapter's command (`tsc -p ... --incremental`) is run through the
runner: first answered by a new worker (its start and first full check),
then, after one edit inside a function body of a file in the middle of the
import chain, by the warm worker; then the same edit kind answered cold
(with the build info the previous runs left, as a cold check after an edit
has), and cold without build info. The issues of the warm and the cold
answer to the same content are compared. With `--references` the project
is bench_references.py's reference graph (build mode, `tsc -b` on the
wrappers; `--files` spread over its four packages) and the edit is in
`util`, which `app` and the root depend on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_references as references
from bench.synth import generate
from signalint.engines.resolve import resolve
from signalint.engines.runner import EngineRun, Job, run_engine
from signalint.engines.tsc.adapter import ENGINE as TSC
from signalint.project import work_dir as work
from signalint.settings.config import state_dir
from signalint.warm.pool import WarmPool

DEFAULT_TS = Path.home() / ".cache" / "signalint" / "ts5"


def install(root: Path, prefix: Path) -> None:
    def link(source: str, target: str) -> None:
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)

    package = prefix / "node_modules" / "typescript"
    shutil.copytree(package, root / "node_modules" / "typescript", copy_function=link)
    (root / "node_modules" / ".bin").mkdir()
    (root / "node_modules" / ".bin" / "tsc").symlink_to("../typescript/bin/tsc")


async def timed(root: Path, pool: WarmPool | None) -> tuple[float, EngineRun]:
    job = Job(
        root=root,
        options={},
        timeout_s=600,
        state_dir=state_dir(root),
        work_dir=work.for_project(root),
        warm=pool,
        resolved=resolve(TSC, root),
    )
    started = time.monotonic()
    run = await run_engine(TSC, job)
    return time.monotonic() - started, run


def issues(run: EngineRun) -> list[tuple[str, int, int, str]]:
    return sorted((i.file, i.line, i.col, i.rule) for i in run.outcome.issues)


def edited(text: str, edit: int) -> str:
    """`text` with one change inside a function body (no exported shape changes)."""
    if "return result;" in text:
        return text.replace("return result;", f"return result + {edit};")
    return text.replace("return `", f"return `{edit}")


async def bench(root: Path, middle: Path) -> None:
    pool = WarmPool(8 << 30, state_dir(root) / "warm")
    original = middle.read_text()
    buildinfo = state_dir(root) / "tsc"
    try:
        first, run = await timed(root, pool)
        print(f"worker start + first full check: {first:7.2f} s  ({run.outcome.served})")
        answers: list[EngineRun] = []
        for edit in range(1, 5):
            middle.write_text(edited(original, edit))
            warm, warm_run = await timed(root, pool)
            answers.append(warm_run)
            print(f"edit {edit}: warm {warm:7.2f} s ({warm_run.outcome.served})")
        for edit in range(5, 7):
            middle.write_text(edited(original, edit))
            cold, cold_run = await timed(root, None)
            print(f"edit {edit}: cold with build info {cold:7.2f} s")
        assert issues(answers[-1]) == issues(cold_run), "warm and cold differ"
        print(f"{len(cold_run.outcome.issues)} issues, warm equal to cold")
        shutil.rmtree(buildinfo, ignore_errors=True)
        full, _ = await timed(root, None)
        print(f"cold without build info: {full:7.2f} s")
        workers = pool.workers()
        if workers:
            print(f"worker resident memory: {workers[0].rss_bytes / 2**20:.0f} MiB")
    finally:
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--typescript", type=Path, default=DEFAULT_TS)
    parser.add_argument("--references", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="signalint-bench-tsc-") as directory:
        if args.references:
            per = max(args.files // 4, 4)
            root = references.generate(Path(directory) / "refs", per)
            middle = root / "packages" / "util" / "src" / f"f{per // 2}.ts"
        else:
            root = generate(Path(directory) / "synth", args.files)
            middle = root / "src" / f"file{args.files // 2:05d}.ts"
        (root / "signalint.config.json").write_text(
            json.dumps({"engines": {"oxlint": False, "tsc": True}}) + "\n"
        )
        install(root, args.typescript)
        version = json.loads((root / "node_modules" / "typescript" / "package.json").read_text())[
            "version"
        ]
        mode = "build mode (references)" if args.references else "one project"
        print(f"{args.files} modules, {mode}, typescript {version}")
        asyncio.run(bench(root, middle))


if __name__ == "__main__":
    main()

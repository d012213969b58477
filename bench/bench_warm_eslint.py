"""ESLint kept warm against cold `eslint FILE`, with typed rules, for one edit.

    .venv/bin/python bench/bench_warm_eslint.py [--files 300] [--rounds 3] [--mode project]

A synthetic TypeScript project (in /dev/shm when there is one) of
`--files` modules, each importing a type and a function from the one
before it, linted by typescript-eslint's type-aware rules through its
project service (`projectService: true`; `--mode project`: `project:
true`); typescript-eslint comes from the
test install (`~/.cache/signalint/test-typed`, `SIGNALINT_TEST_TYPED`), the
ESLint from Signalint's managed engines. Each round edits one module's
exported type (so the typed rules' answer in the module importing it
changes) and asks for that importer alone:

- cold: the cold command (`engines/eslint/adapter.py` `command()`) for that file;
- warm: the same command answered by the warm pool's ESLint worker (the
  edited module is refreshed in its project service before the ask:
  engines/eslint/warm.py);
- warm, nothing changed: the same ask again (the program is reused);
- the parts of a cold run: `node -e 0` (Node's start) and `eslint
  --version` (Node plus ESLint's CLI start, no config, no linting).

Median of `--rounds` rounds after one warm-up. Numbers are reported,
never asserted (docs/architecture.md, "Tests and benchmarks").
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from signalint import process
from signalint.engines.base import EngineContext
from signalint.engines.eslint import adapter
from signalint.engines.resolve import resolve
from signalint.process import Command
from signalint.warm.pool import WarmPool

CONFIG = """import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["eslint.config.mjs"] },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { PROJECT: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-unnecessary-type-assertion": "error",
      "@typescript-eslint/restrict-plus-operands": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
);
"""
TSCONFIG = """{
  "compilerOptions": {"target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",
                      "strict": true, "noEmit": true, "skipLibCheck": true},
  "include": ["src"]
}
"""


def module(index: int, promise: bool = False) -> str:
    value = "Promise<number>" if promise else "number"
    body = "Promise.resolve(1)" if promise else "1"
    head = f'import {{ get{index - 1} }} from "./m{index - 1}";\n' if index else ""
    use = (
        f"export async function use{index}(): Promise<number> {{\n"
        f"  get{index - 1}();\n  return (await get{index - 1}()) + {index};\n}}\n"
        if index
        else ""
    )
    return (
        f"{head}export type Value{index} = {value};\n"
        f"export function get{index}(): Value{index} {{\n  return {body};\n}}\n{use}"
    )


def make_project(where: Path, count: int, modules: Path, mode: str) -> Path:
    root = where / "typed"
    (root / "src").mkdir(parents=True)
    option = "projectService" if mode == "service" else "project"
    (root / "eslint.config.mjs").write_text(CONFIG.replace("PROJECT", option))
    (root / "tsconfig.json").write_text(TSCONFIG)
    (root / "package.json").write_text('{"name": "bench", "private": true, "type": "module"}\n')
    (root / "node_modules").symlink_to(modules, target_is_directory=True)
    for index in range(count):
        (root / "src" / f"m{index}.ts").write_text(module(index))
    return root


async def timed(coro: Awaitable[object], seen: list[object] | None = None) -> float:
    started = time.monotonic()
    found = await coro
    if seen is not None:
        seen.append(found)
    return time.monotonic() - started


def stdout(found: object) -> str:
    result = getattr(found, "result", found)
    assert isinstance(result, process.ProcessResult), "no warm answer"
    return result.stdout


async def measure(root: Path, count: int, rounds: int) -> dict[str, list[float]]:
    executable = resolve(adapter.ENGINE, root).path
    assert executable is not None, "eslint is not installed: signalint engines install"
    ctx = EngineContext(root=root, executable=executable, timeout_s=600, state_dir=root / ".st")
    pool = WarmPool(8 * 1024**3, root.parent / "warm")
    times: dict[str, list[float]] = {k: [] for k in ("cold", "warm", "unchanged", "node", "cli")}
    node = Command(("node", "-e", "0"), root, 60)
    version = Command((str(executable), "--version"), root, 60)
    try:
        await pool.answer("eslint", ctx, adapter.ENGINE.command(ctx, ["src/m1.ts"], None))
        for attempt in range(rounds + 1):
            edited = 2 + attempt * 7 % (count - 3)
            # A module not edited before, its type made a promise: the importer's
            # typed rule turns on (every round a real edit).
            (root / "src" / f"m{edited}.ts").write_text(module(edited, promise=True))
            command = adapter.ENGINE.command(ctx, [f"src/m{edited + 1}.ts"], None)
            seen: list[object] = []
            warm = await timed(pool.answer("eslint", ctx, command), seen)
            unchanged = await timed(pool.answer("eslint", ctx, command), seen)
            cold = await timed(process.run(command), seen)
            answers = {stdout(found) for found in seen}
            assert len(answers) == 1, "a warm answer differs from the cold one"
            assert "no-floating-promises" in answers.pop(), "the edit was not seen"
            node_s = await timed(process.run(node))
            cli_s = await timed(process.run(version))
            if attempt:  # the first round warms the disk cache
                for key, value in zip(times, (cold, warm, unchanged, node_s, cli_s), strict=True):
                    times[key].append(value)
        print(f"  workers started {pool.counts.started}, restarts {pool.counts.restarts}")
    finally:
        await pool.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mode", choices=("service", "project"), default="service")
    args = parser.parse_args()
    default = Path.home() / ".cache" / "signalint" / "test-typed"
    modules = Path(os.environ.get("SIGNALINT_TEST_TYPED", str(default))) / "node_modules"
    if not (modules / "typescript-eslint").is_dir():
        sys.exit(f"typescript-eslint is not installed in {modules} (scripts/setup)")
    shm = Path("/dev/shm")
    base = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="signalint-bench-", dir=base) as where:
        root = make_project(Path(where), args.files, modules, args.mode)
        times = asyncio.run(measure(root, args.files, args.rounds))
    how = "projectService" if args.mode == "service" else "project: true"
    print(f"{args.files} TypeScript modules, typed rules ({how}); one edited file")
    labels = {
        "cold": "cold eslint FILE",
        "warm": "warm, after an edit",
        "unchanged": "warm, nothing changed",
        "node": "node -e 0",
        "cli": "eslint --version",
    }
    for key, label in labels.items():
        each = " ".join(f"{t:.2f}" for t in times[key])
        print(f"  {label:24} median {statistics.median(times[key]):6.2f} s  ({each})")


if __name__ == "__main__":
    main()

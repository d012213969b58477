"""A long import chain: TypeScript's incremental builder overflows Node's stack.

When an exported type changes at the head of a chain of a few thousand
modules, each importing the one before, TypeScript 6's builder recurses
once per importer and `tsc --incremental` with the earlier build info dies
with `RangeError: Maximum call stack size exceeded` (plain `tsc` does not).
The test first proves that the project's own tsc overflows here, then that
a cold check runs it again with a deeper stack (`TscEngine.rerun`) and a
warm check's worker, started with one (`process.node_stack_flag`), answers
itself; both equal a `--no-cache` check of the same content.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from signalint.cache.context import Context
from signalint.model import CheckResult
from signalint.settings.config import state_dir
from tests.engines.tsc.test_tsc_warm import check, issues_of, pool_for
from tests.typescripts import install_typescript, typescript

pytestmark = pytest.mark.real

MODULES = 3000
HEAD = 10  # the module whose export changes type
OVERFLOW = "RangeError: Maximum call stack size exceeded"


def module(index: int, kind: str = "number") -> str:
    if index == 0:
        return "export const v0: number = 0;\n"
    value = f"v{index - 1} + {index}" if kind == "number" else f"String(v{index - 1})"
    # The annotation keeps every type below the head unchanged: the
    # builder still walks the chain (no isolatedModules).
    imported = f'import {{ v{index - 1} }} from "./m{index - 1}";\n'
    return imported + f"export const v{index}: {kind} = {value};\n"


def make_chain(root: Path) -> Path:
    src = root / "src"
    src.mkdir(parents=True)
    for index in range(MODULES):
        (src / f"m{index}.ts").write_text(module(index))
    options = {"strict": True, "noEmit": True, "target": "ES2022", "types": []}
    (root / "tsconfig.json").write_text(
        json.dumps({"compilerOptions": options, "include": ["src"]})
    )
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": True, "biome": False, "eslint": False}})
    )
    install_typescript(root, 6)
    return src / f"m{HEAD}.ts"


def change(head: Path, kind: str) -> None:
    head.write_text(module(HEAD, kind))


def native_overflows(root: Path, head: Path) -> bool:
    """Whether the project's tsc, incremental, overflows on the head's change."""
    tsc = str(root / "node_modules" / ".bin" / "tsc")
    argv = [tsc, "-p", "tsconfig.json", "--noEmit", "--incremental"]
    argv += ["--tsBuildInfoFile", str(root / "native" / "t.tsbuildinfo")]
    subprocess.run(argv, cwd=root, capture_output=True, check=False)
    change(head, "string")
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False)
    change(head, "number")
    return OVERFLOW in done.stdout + done.stderr


def reading(result: CheckResult) -> tuple[object, ...]:
    outcome = result.outcomes["tsc"]
    return issues_of(result), outcome.status, outcome.files_checked


@pytest.fixture
def chain(tmp_path: Path) -> tuple[Path, Path]:
    typescript(6)
    root = tmp_path / "repo"
    head = make_chain(root)
    if not native_overflows(root, head):
        pytest.fail(f"TypeScript 6 no longer overflows on a {MODULES}-module chain: grow it")
    return root, head


def test_cold_check_reruns_an_overflowed_tsc_with_a_deeper_stack(chain: tuple[Path, Path]) -> None:
    root, head = chain

    async def scenario() -> None:
        first = await check(root, Context(), use_cache=True)
        assert first.outcomes["tsc"].status == "ok"
        change(head, "string")
        changed = await check(root, Context(), use_cache=True)
        cold = await check(root, Context(), use_cache=False)
        assert changed.outcomes["tsc"].status == "ok", changed.outcomes["tsc"].message
        assert reading(changed) == reading(cold)
        message = "Type 'string' is not assignable to type 'number'."
        broken = (f"src/m{HEAD + 1}.ts", 2, 14, "TS2322", "error", message)
        assert issues_of(changed) == Counter({broken: 1})
        # The retry kept the build info: the next change back is incremental again.
        change(head, "number")
        back = await check(root, Context(), use_cache=True)
        assert back.outcomes["tsc"].status == "ok" and issues_of(back) == Counter()

    asyncio.run(scenario())


def test_warm_worker_answers_the_change_itself(chain: tuple[Path, Path]) -> None:
    root, head = chain
    pool = pool_for(root)

    async def scenario() -> None:
        try:
            first = await check(root, Context(warm=pool), use_cache=True)
            assert first.outcomes["tsc"].served == "warm"
            change(head, "string")
            changed = await check(root, Context(warm=pool), use_cache=True)
            assert changed.outcomes["tsc"].served == "warm", changed.outcomes["tsc"].message
            cold = await check(root, Context(), use_cache=False)
            assert reading(changed) == reading(cold) and issues_of(cold)
            assert pool.counts.fallbacks == 0 and pool.counts.restarts == 0
        finally:
            await pool.close()

    asyncio.run(scenario())
    assert (state_dir(root) / "warm").is_dir()

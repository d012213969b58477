"""Oxlint kept warm (`engines/oxlint/warm.py`) answers exactly as a cold `oxlint` run.

Real tier: the pinned Oxlint (a Node launcher around its native module).
Checks go through `run_check` with a real `WarmPool`, one event loop per
scenario; after every step (a file edited, added or deleted, the
`.oxlintrc.json` turning a rule off or on, a plugin enabled) the warm check
equals a cold `use_cache=False` check of the same content, issue for issue.
A broken configuration is answered by the cold run (its message, on
stderr, is the engine's own); a fix command is never served warm.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from signalint.cache.context import Context
from signalint.engines.base import EngineContext
from signalint.engines.oxlint.adapter import ENGINE as OXLINT
from signalint.engines.oxlint.warm import OxlintDriver, package_dir
from signalint.engines.resolve import resolve
from signalint.model import CheckResult, Scope
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.process import Command
from signalint.settings.config import load_config, state_dir
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine

pytestmark = pytest.mark.real


def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "p", "private": true}\n')
    engines = {"oxlint": True, "tsc": False, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    (root / "src" / "a.ts").write_text("const unused = 1;\nexport const a = 2;\n")
    (root / "src" / "b.js").write_text("export function b(x) {\n  debugger;\n  return x;\n}\n")
    return root


async def check(root: Path, context: Context, *, use_cache: bool) -> CheckResult:
    request = RunRequest(root, load_config(root), Scope(), use_cache=use_cache)
    return (await run_check(request, context)).result


def reading(result: CheckResult) -> tuple[object, ...]:
    outcome = result.outcomes["oxlint"]
    found = Counter((i.file, i.line, i.col, i.rule, i.severity, i.message) for i in result.issues)
    return found, outcome.status, outcome.message, outcome.files_checked


def test_warm_oxlint_equals_cold_after_every_edit(tmp_path: Path) -> None:
    require_engine("oxlint")
    root = project(tmp_path)
    config = root / ".oxlintrc.json"
    steps: list[tuple[str, Callable[[], object]]] = [
        ("edited", lambda: (root / "src" / "a.ts").write_text("export const a = 3;\n")),
        ("added", lambda: (root / "src" / "c.ts").write_text("debugger;\nconst c = 1;\n")),
        ("rule off", lambda: config.write_text('{"rules": {"no-debugger": "off"}}\n')),
        ("deleted", lambda: (root / "src" / "b.js").unlink()),
        ("rule on", lambda: config.write_text('{"rules": {"no-debugger": "error"}}\n')),
        ("plugin", lambda: config.write_text('{"plugins": ["unicorn"], "rules": {}}\n')),
        ("unused again", lambda: (root / "src" / "a.ts").write_text("const u = 1;\n")),
    ]
    pool = WarmPool(1 << 32, state_dir(root) / "warm")
    context = Context(warm=pool)

    async def scenario() -> None:
        try:
            first = await check(root, context, use_cache=True)
            assert first.outcomes["oxlint"].served == "warm"
            assert reading(first) == reading(await check(root, Context(), use_cache=False))
            assert {i.rule for i in first.issues} >= {"eslint(no-unused-vars)"}
            for name, step in steps:
                step()
                warm = await check(root, context, use_cache=True)
                cold = await check(root, Context(), use_cache=False)
                assert reading(warm) == reading(cold), name
                assert warm.outcomes["oxlint"].served in ("warm", None), name
            # One worker answered every step: none restarted, none fell back.
            counts = pool.counts
            assert counts.warm >= len(steps) and counts.started == 1
            assert counts.restarts == 0 and counts.fallbacks == 0
        finally:
            await pool.close()

    asyncio.run(scenario())


def test_a_broken_config_is_answered_by_the_cold_run(tmp_path: Path) -> None:
    require_engine("oxlint")
    root = project(tmp_path)
    pool = WarmPool(1 << 32, state_dir(root) / "warm")
    context = Context(warm=pool)

    async def scenario() -> None:
        try:
            assert (await check(root, context, use_cache=True)).outcomes["oxlint"].status == "ok"
            (root / ".oxlintrc.json").write_text('{"rules": {"no-debugger": "sometimes"}}\n')
            warm = await check(root, context, use_cache=True)
            cold = await check(root, Context(), use_cache=False)
            assert warm.outcomes["oxlint"].status == "error"
            assert reading(warm) == reading(cold)
            assert warm.outcomes["oxlint"].served == "fallback"
            # The worker answers again once the config is fixed.
            (root / ".oxlintrc.json").write_text("{}\n")
            again = await check(root, context, use_cache=True)
            assert again.outcomes["oxlint"].served == "warm"
            assert reading(again) == reading(await check(root, Context(), use_cache=False))
        finally:
            await pool.close()

    asyncio.run(scenario())


def test_only_the_lint_command_of_a_node_launcher_is_served(tmp_path: Path) -> None:
    executable = require_engine("oxlint")
    root = project(tmp_path)
    resolved = resolve(OXLINT, root)
    assert resolved.path is not None and package_dir(resolved.path) is not None
    ctx = EngineContext(root=root, executable=resolved.path, timeout_s=60, state_dir=tmp_path)
    driver = OxlintDriver()
    lint = OXLINT.command(ctx, ["src/a.ts"], None)
    assert driver.key(ctx, lint) is not None
    fix = Command(argv=(*lint.argv[:1], "--fix", *lint.argv[1:]), cwd=root, timeout_s=60)
    assert driver.key(ctx, fix) is None
    other = Command((str(executable), "--format", "github", "--", "src/a.ts"), root, 60)
    assert driver.key(ctx, other) is None
    # A native executable (older Oxlint) is not a launcher: it runs cold.
    native = tmp_path / "bin" / "oxlint"
    native.parent.mkdir()
    native.write_bytes(b"\x7fELF\x02\x01\x01")
    assert package_dir(native) is None

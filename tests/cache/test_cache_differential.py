"""Differential test of the result cache (D1, D2): cached == uncached, always.

Hypothesis drives random sequences of edits, renames, file additions and
deletions, config changes (a nested Oxlint override, an Oxlint `extends`
target, a TypeScript `extends` target) and engine option changes (Biome's
`includeFormatter`) on a real fixture project with the real engines. After
every step a cached check must equal a check with the cache disabled.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from signalint.model import CheckResult
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.conftest import require_engine

VARIANTS = [
    "export const value: number = 1;\n",
    "export const value: number = 'one';\n",
    "export function f(a: number) {\n  debugger;\n  return a == 1;\n}\n",
    "export function g(a: number): string {\n  const unused = a;\n  return a;\n}\n",
    "export  const   value = [1,2,3]\n",
]
NAMES = ["src/a.ts", "src/b.ts", "src/sub/c.ts", "src/sub/d.ts"]


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_fixture(root: Path) -> None:
    _write(root, "package.json", '{"name": "diff", "private": true}\n')
    _write(root, "tsconfig.base.json", '{"compilerOptions": {"strict": true}}\n')
    _write(
        root,
        "tsconfig.json",
        '{"extends": "./tsconfig.base.json", "compilerOptions": {"noEmit": true,'
        ' "skipLibCheck": true, "types": []}, "include": ["src"]}\n',
    )
    _write(root, "oxlint.base.json", '{"rules": {"eqeqeq": "error"}}\n')
    _write(root, ".oxlintrc.json", '{"extends": ["./oxlint.base.json"], "rules": {}}\n')
    _write(root, "biome.json", '{"formatter": {"enabled": true}, "linter": {"enabled": true}}\n')
    _write(root, "signalint.config.json", _config(False))
    _write(root, "src/a.ts", VARIANTS[1])
    _write(root, "src/sub/c.ts", VARIANTS[2])


def _config(include_formatter: bool) -> str:
    engines = {
        "oxlint": True,
        "tsc": True,
        "biome": {"includeFormatter": include_formatter},
        "eslint": False,
    }
    return json.dumps({"engines": engines}) + "\n"


def apply(root: Path, op: tuple[str, int, int]) -> None:
    kind, a, b = op
    if kind == "edit":
        _write(root, NAMES[a % len(NAMES)], VARIANTS[b % len(VARIANTS)])
    elif kind == "rename":
        source, target = root / NAMES[a % len(NAMES)], root / NAMES[b % len(NAMES)]
        if source.exists() and source != target:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(source, target)
    elif kind == "delete":
        (root / NAMES[a % len(NAMES)]).unlink(missing_ok=True)
    elif kind == "nested-override":
        level = ["off", "warn", "error"][b % 3]
        _write(root, "src/sub/.oxlintrc.json", json.dumps({"rules": {"no-debugger": level}}))
    elif kind == "oxlint-extends-target":
        level = ["off", "warn", "error"][b % 3]
        _write(root, "oxlint.base.json", json.dumps({"rules": {"eqeqeq": level}}))
    elif kind == "tsc-extends-target":
        strict = b % 2 == 0
        options = {"strict": strict, "noUnusedLocals": a % 2 == 0}
        _write(root, "tsconfig.base.json", json.dumps({"compilerOptions": options}))
    elif kind == "biome-option":
        _write(root, "signalint.config.json", _config(b % 2 == 1))


def observed(result: CheckResult) -> tuple[object, ...]:
    statuses = tuple(sorted((n, o.status, o.message) for n, o in result.outcomes.items()))
    issues = tuple(
        (i.engine, i.file, i.line, i.col, i.rule, i.severity, i.message, i.fixable)
        for i in result.issues
    )
    return statuses, issues


def check(root: Path, use_cache: bool) -> CheckResult:
    run = asyncio.run(run_check(RunRequest(root, load_config(root), use_cache=use_cache)))
    return run.result


OPS = st.tuples(
    st.sampled_from(
        [
            "edit",
            "edit",
            "edit",
            "rename",
            "delete",
            "nested-override",
            "oxlint-extends-target",
            "tsc-extends-target",
            "biome-option",
        ]
    ),
    st.integers(0, 7),
    st.integers(0, 7),
)


@pytest.mark.real
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(OPS, min_size=3, max_size=6))
# Each kind of change at least once, right after the cache was warmed.
@example(steps=[("nested-override", 0, 0), ("nested-override", 0, 2), ("edit", 1, 2)])
@example(steps=[("oxlint-extends-target", 0, 0), ("tsc-extends-target", 1, 1)])
@example(steps=[("biome-option", 0, 1), ("rename", 0, 1), ("rename", 2, 3)])
@example(steps=[("edit", 0, 3), ("delete", 2, 0), ("edit", 3, 2)])
def test_cached_results_equal_uncached_results(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, int]]
) -> None:
    for name in ("oxlint", "tsc", "biome"):
        require_engine(name)
    root = tmp_path_factory.mktemp("diff")
    make_fixture(root)
    check(root, use_cache=True)  # warm the cache
    hits = 0
    for step in [*steps, ("none", 0, 0)]:
        apply(root, step)
        cached = check(root, use_cache=True)
        hits += sum(o.cache_hits for o in cached.outcomes.values())
        fresh = check(root, use_cache=False)
        assert observed(cached) == observed(fresh), f"after {step}"
    assert hits > 0, "the cache was never used: the comparison proves nothing"

"""Real tier: the pinned engines on the fixtures parse exactly like the recordings.

Skipped unless the engines are installed (SIGNALINT_TEST_ENGINES_BIN, default
the managed directory of `signalint engines install`). A failure here means
the engine's output drifted from tests/engines/recorded/: re-run record.py.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest

from signalint.engines import resolve
from signalint.engines.base import EngineContext
from signalint.engines.registry import ENGINES
from signalint.process import run_blocking
from tests.conftest import python_engines_bin
from tests.engines.recordings import context, recorded

BIN = Path(
    os.environ.get(
        "SIGNALINT_TEST_ENGINES_BIN", str(resolve.managed_dir() / "node_modules" / ".bin")
    )
)

CASES = [
    ("oxlint", "oxlint", "oxlint", ["src/a.ts", "src/bad.js", "src/Comp.vue", "legacy/old.js"], {}),
    ("tsc-project", "tsc", "tsc/project", [], {}),
    ("tsc-solution", "tsc", "tsc/solution", [], {}),
    ("biome-lint", "biome", "biome", ["src/a.ts", "src/d.json", "src/missing.js"], {}),
    ("biome-check", "biome", "biome", ["src/fmt.js"], {"includeFormatter": True}),
    ("eslint", "eslint", "eslint", ["src/a.js", "src/bad.js", "src/directive.js"], {}),
    ("ruff", "ruff", "ruff", ["notebook.ipynb", "src/app/a.py", "src/app/sub/c.py"], {}),
]


def _executable(bin_name: str, installer: str) -> Path:
    if installer == "pip":
        return python_engines_bin() / bin_name
    return BIN / bin_name


def _key(issue: object) -> tuple[object, ...]:
    fields = ("file", "line", "col", "end_line", "end_col", "rule", "severity", "message")
    return tuple(getattr(issue, name) for name in (*fields, "fixable", "docs_url", "help"))


@pytest.mark.real
@pytest.mark.parametrize(("name", "engine_name", "fixture", "files", "options"), CASES)
def test_real_engine_output_parses_like_the_recording(
    name: str, engine_name: str, fixture: str, files: list[str], options: Mapping[str, object]
) -> None:
    engine = ENGINES[engine_name]
    executable = _executable(engine.spec.provision.bin_name, engine.spec.provision.installer)
    if not executable.exists():
        # Under CI a missing engine is a broken set-up, not a reason to pass.
        if os.environ.get("CI"):
            pytest.fail(f"{executable} is not installed: run `signalint engines install`")
        pytest.skip(f"{executable} not installed")
    if resolve.version(executable, engine.spec.provision) != engine.spec.provision.version:
        pytest.skip(f"{executable} is not the pinned version")
    base = context(fixture, options=options)
    with tempfile.TemporaryDirectory() as state:
        ctx = EngineContext(
            root=base.root,
            executable=executable,
            timeout_s=120.0,
            state_dir=Path(state),
            options=options,
        )
        probe = engine.probe(ctx)
        probe_result = run_blocking(probe) if probe else None
        result = run_blocking(engine.command(ctx, files, probe_result))
    for leftover in base.root.rglob("*.tsbuildinfo"):
        leftover.unlink()
    assert result.exit_code in engine.command(ctx, files, probe_result).ok_exit_codes
    live = {_key(i) for i in engine.parse(result, ctx)}
    expected = {_key(i) for i in engine.parse(recorded(name, base.root), base)}
    wanted = set(files)
    # Recordings cover more files than some live runs; compare the shared files.
    if not engine.spec.whole_program:
        expected = {k for k in expected if k[0] in wanted}
    assert live == expected

"""Regenerate tests/engines/recorded/ by running the real engines on the fixtures.

Not a test module. Usage (from the repository root):

    .venv/bin/python tests/engines/record.py [BIN_DIR [TSC5_BIN_DIR]]

BIN_DIR holds oxlint, tsc, biome and eslint (default: the managed directory
of `signalint engines install`). Each recording stores the adapter's argv
(executable as its bare name), exit code, stdout and stderr, plus the engine
version, so parse tests replay exactly what the engine printed.

    .venv/bin/python tests/engines/record.py --python

records only the Python engines (Ruff, mypy, Pyright), from the managed
directory (pip engines in its virtual environment, Pyright from npm).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from signalint.engines import resolve
from signalint.engines.base import EngineContext, SelectsFiles
from signalint.engines.registry import ENGINES
from signalint.process import Command, ProcessResult, run_blocking

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "engines"
RECORDED = HERE / "recorded"
ROOT = "<ROOT>"
STATE = "<STATE>"


def _portable(text: str, ctx: EngineContext) -> str:
    """Machine-specific directories become placeholders the tests substitute back."""
    return text.replace(str(ctx.state_dir), STATE).replace(str(ctx.root), ROOT)


def _save(name: str, command: Command, result: ProcessResult, ctx: EngineContext) -> None:
    engine = ENGINES[name.split("-")[0].split(".")[0].removesuffix("5")]
    record = {
        "engine": engine.name,
        "version": resolve.version(ctx.executable, engine.spec.provision),
        "argv": [engine.spec.provision.bin_name, *(_portable(a, ctx) for a in command.argv[1:])],
        "exit_code": result.exit_code,
        "stdout": _portable(result.stdout, ctx),
        "stderr": _portable(result.stderr, ctx),
    }
    (RECORDED / f"{name}.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    print(f"{name}: exit {result.exit_code}, {len(result.stdout)} chars")


def _run(
    name: str,
    engine_name: str,
    bin_dir: Path,
    fixture: str,
    files: Sequence[str],
    options: dict[str, object] | None = None,
    copy: bool = False,
    warm: bool = False,
) -> None:
    """Record `engine_name` on `fixture`; `copy` runs it on a copy outside
    this repository (mypy would otherwise see the fixture as part of the
    `tests` package above it); `warm` records a second run in the same state
    directory (the engine's own cache filled by the first)."""
    engine = ENGINES[engine_name]
    with tempfile.TemporaryDirectory() as state, tempfile.TemporaryDirectory() as scratch:
        root = (FIXTURES / fixture).resolve()
        if copy:
            root = Path(shutil.copytree(root, Path(scratch).resolve() / fixture))
        ctx = EngineContext(
            root=root,
            executable=bin_dir / engine.spec.provision.bin_name,
            timeout_s=120.0,
            state_dir=Path(state),
            options=options or {},
        )
        if isinstance(engine, SelectsFiles) and files:
            # As the runner does: lint only the candidates the selection names.
            selection = engine.selection(ctx, files)
            selected = run_blocking(selection)
            _save(f"{name}.selection", selection, selected, ctx)
            if selected.exit_code == 0:
                chosen = engine.selected(selected, ctx)
                files = [f for f in files if engine.relevant(f) and f in chosen]
        probe = engine.probe(ctx)
        probe_result = None
        if probe is not None:
            probe_result = run_blocking(probe)
            _save(f"{name}.probe", probe, probe_result, ctx)
        command = engine.command(ctx, files, probe_result)
        if warm:
            run_blocking(command)
        _save(name, command, run_blocking(command), ctx)


def _with_node_modules(fixture: str, rel: str, text: str) -> Path:
    """A node_modules file exists only while recording (git ignores node_modules)."""
    path = FIXTURES / fixture / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return FIXTURES / fixture / "node_modules"


def record_python() -> None:
    """The Python engines, from the managed directory."""
    python_bin = resolve.managed_venv() / "bin"
    files = [
        "notebook.ipynb",
        "notes.txt",
        "pyproject.toml",
        "generated/gen.py",
        "src/app/__init__.py",
        "src/app/a.py",
        "src/app/bad.py",
        "src/app/sub/c.py",
    ]
    _run("ruff", "ruff", python_bin, "ruff", files)
    _run("ruff-badconfig", "ruff", python_bin, "ruff-badconfig", ["a.py"])
    _run("mypy", "mypy", python_bin, "mypy", [], copy=True)
    _run("mypy-warm", "mypy", python_bin, "mypy", [], copy=True, warm=True)
    _run("mypy-badconfig", "mypy", python_bin, "mypy-badconfig", [], copy=True)


def main(argv: Sequence[str]) -> None:
    RECORDED.mkdir(exist_ok=True)
    if argv[:1] == ["--python"]:
        record_python()
        return
    bin_dir = Path(argv[0]) if argv else resolve.managed_dir() / "node_modules" / ".bin"
    RECORDED.mkdir(exist_ok=True)
    vendored = _with_node_modules("oxlint", "node_modules/dep/index.js", "debugger;\n")
    try:
        files = ["src/a.ts", "src/bad.js", "src/Comp.vue", "legacy/old.js"]
        _run("oxlint", "oxlint", bin_dir, "oxlint", [*files, "node_modules/dep/index.js"])
    finally:
        shutil.rmtree(vendored)
    _run("oxlint-badconfig", "oxlint", bin_dir, "oxlint-badconfig", ["a.js"])

    _run("tsc-project", "tsc", bin_dir, "tsc/project", [])
    _run("tsc-solution", "tsc", bin_dir, "tsc/solution", [])
    _run("tsc-noinputs", "tsc", bin_dir, "tsc/noinputs", [])
    if len(argv) > 1:  # a second BIN_DIR with TypeScript 5.x
        _run("tsc5-project", "tsc", Path(argv[1]), "tsc/project", [])
        _run("tsc5-solution", "tsc", Path(argv[1]), "tsc/solution", [])
    for leftover in (FIXTURES / "tsc").rglob("*.tsbuildinfo"):
        leftover.unlink()

    files = ["src/a.ts", "src/d.json", "src/s.css", "src/bad.js", "src/fmt.js", "src/missing.js"]
    _run("biome-lint", "biome", bin_dir, "biome", files)
    _run("biome-check", "biome", bin_dir, "biome", files, options={"includeFormatter": True})
    _run("biome-badconfig", "biome", bin_dir, "biome-badconfig", ["a.js"])

    files = ["src/a.js", "src/bad.js", "src/directive.js", "ignored/skip.js"]
    _run("eslint", "eslint", bin_dir, "eslint", files)
    _run("eslint-badconfig", "eslint", bin_dir, "eslint-badconfig", ["a.js"])


if __name__ == "__main__":
    main(sys.argv[1:])

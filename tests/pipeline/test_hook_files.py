"""Which of a git hook's files `signalint pre-commit` checks (`hook_files`):
ignored ones and those no enabled engine checks are passed over; the rest,
and anything the check must refuse itself, are kept as given."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from signalint.pipeline.hook_files import select, takes
from signalint.settings.config import load_config


def _project(tmp_path: Path, engines: dict[str, bool]) -> Path:
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "dist").mkdir()
    (root / "node_modules" / "x").mkdir(parents=True)
    settings = {"engines": engines, "ignore": ["node_modules/**", "dist/**", ".signalint/**"]}
    (root / "signalint.config.json").write_text(json.dumps(settings))
    for name in ("src/a.ts", "src/b.js", "src/c.py", "src/d.json", "dist/out.js", "README.md"):
        (root / name).write_text("x\n")
    (root / "node_modules" / "x" / "i.js").write_text("x\n")
    return Path(os.path.realpath(root))


def test_ignored_and_unchecked_files_are_passed_over(tmp_path: Path) -> None:
    root = _project(tmp_path, {"oxlint": True, "tsc": True, "eslint": True, "biome": True})
    config = load_config(root)
    given = [
        "src/a.ts",
        "dist/out.js",
        "src/c.py",
        "node_modules/x/i.js",
        "src/b.js",
        "README.md",
        "src/d.json",
    ]
    chosen = select(root, config, given, cwd=root)
    assert chosen.kept == ("src/a.ts", "src/b.js")
    assert chosen.ignored == ("dist/out.js", "node_modules/x/i.js")
    assert chosen.unchecked == ("src/c.py", "README.md", "src/d.json")
    assert chosen.passed_over() == (
        "passed over 2 files ignored by the settings and 3 files no enabled engine checks"
    )


def test_python_files_are_kept_when_a_python_engine_is_on(tmp_path: Path) -> None:
    js_off = {"oxlint": False, "tsc": False, "biome": False, "eslint": False}
    root = _project(tmp_path, {"ruff": True, **js_off})
    config = load_config(root)
    assert takes(config, "src/c.py") and not takes(config, "src/a.ts")
    chosen = select(root, config, ["src/c.py", "src/a.ts"], cwd=root)
    assert chosen.kept == ("src/c.py",) and chosen.unchecked == ("src/a.ts",)


def test_paths_are_relative_to_the_working_directory(tmp_path: Path) -> None:
    root = _project(tmp_path, {"oxlint": True})
    chosen = select(root, load_config(root), ["a.ts", "../dist/out.js"], cwd=root / "src")
    assert chosen.kept == ("a.ts",) and chosen.ignored == ("../dist/out.js",)


def test_what_the_check_must_refuse_is_kept_for_it_to_refuse(tmp_path: Path) -> None:
    """Missing, outside, option-like or empty paths are not "passed over":
    `check` refuses each with its own message (exit 2)."""
    root = _project(tmp_path, {"oxlint": True})
    (tmp_path / "outside.js").write_text("x\n")
    odd = ["src/missing.ts", "../outside.js", "-rf", "", str(tmp_path / "outside.js"), "."]
    chosen = select(root, load_config(root), odd, cwd=root)
    assert chosen.kept == tuple(odd)
    assert chosen.passed_over() is None


def test_a_directory_is_kept_unless_ignored(tmp_path: Path) -> None:
    root = _project(tmp_path, {"oxlint": True})
    chosen = select(root, load_config(root), ["src", "dist"], cwd=root)
    assert chosen.kept == ("src",) and chosen.ignored == ("dist",)


def test_the_hook_passes_over_by_the_run_s_own_engines_and_settings(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """`signalint pre-commit --skip`/`--only`/`--config` decide what is passed
    over with the engines and settings the check would run with."""
    root = _project(tmp_path, {"oxlint": True, "tsc": False})
    in_project(root)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"engines": {"ruff": True, "oxlint": False, "tsc": False}}))
    # oxlint would take src/a.ts; skipping it leaves no engine for the file.
    assert (
        main(["pre-commit", "--no-daemon", "--skip", "oxlint", "--only", "oxlint,ruff", "src/a.ts"])
        == 0
    )
    assert "1 file no enabled engine checks" in capsys.readouterr().err
    # The settings file elsewhere turns oxlint off and Ruff on.
    assert main(["pre-commit", "--no-daemon", "--config", str(elsewhere), "src/b.js"]) == 0
    assert "1 file no enabled engine checks" in capsys.readouterr().err

"""The check pipeline (run_check) directly: what front ends other than the CLI get."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from signalint.model import Scope
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.conftest import require_engine


def project(root: Path) -> Path:
    (root / "dist").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "dist" / "bundle.js").write_text("debugger;\n")
    (root / "src" / "a.js").write_text("export const a = 1;\n")
    (root / "signalint.config.json").write_text(
        json.dumps(
            {
                "engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False},
                "ignore": ["dist/**"],
            }
        )
    )
    return root.resolve()


@pytest.mark.real
def test_an_ignored_file_named_as_a_target_is_checked_and_its_issues_reported(
    tmp_path: Path,
) -> None:
    require_engine("oxlint")
    root = project(tmp_path / "p")
    config = load_config(root)
    run = asyncio.run(
        run_check(RunRequest(root, config, Scope(("dist/bundle.js",)), use_cache=False))
    )
    outcome = run.result.outcomes["oxlint"]
    assert outcome.files_checked == 1
    assert [(i.file, i.rule) for i in run.result.issues] == [
        ("dist/bundle.js", "eslint(no-debugger)")
    ]
    assert run.result.status == "issues_found"
    # The whole project still skips it.
    whole = asyncio.run(run_check(RunRequest(root, config, use_cache=False)))
    assert whole.result.issues == () and whole.result.status == "clean"

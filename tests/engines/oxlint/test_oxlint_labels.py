"""Oxlint diagnostics with several labels: one issue per native diagnostic (defect 3).

Real tier: the pinned oxlint on tests/fixtures/oxlint-labels, whose rules
report repeated occurrences against one shared anchor (four equal enum
values are three native diagnostics, all anchored at the first value).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from tests.conftest import require_engine

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "oxlint-labels"


def native_counts(root: Path) -> Counter[tuple[str, str]]:
    out = subprocess.run(
        [str(require_engine("oxlint")), "--format", "json", "."],
        cwd=root, capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    return Counter((d["filename"], d["code"]) for d in json.loads(out)["diagnostics"])


def sarif_results(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, Any]]:
    code = main(["check", "--format", "sarif", *argv])
    assert code == 1
    [run] = json.loads(capsys.readouterr().out)["runs"]
    return list(run["results"])


@pytest.mark.real
@pytest.mark.parametrize("cache", [True, False], ids=["cached", "no-cache"])
def test_every_native_oxlint_diagnostic_is_its_own_issue_at_its_own_occurrence(
    tmp_path: Path, in_project: Any, capsys: pytest.CaptureFixture[str], cache: bool
) -> None:
    root = tmp_path / "p"
    shutil.copytree(FIXTURE, root)
    in_project(root)
    expected = native_counts(root)
    assert expected[("src/enum.ts", "typescript(no-duplicate-enum-values)")] == 3
    results = sarif_results(capsys, *([] if cache else ["--no-cache"]))
    where = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
        )
        for r in results
    ]
    assert Counter((file, rule) for file, rule, _, _ in where) == expected
    # Each duplicate is located at its own occurrence, not at the shared anchor.
    enum_lines = sorted(line for file, rule, line, _ in where if file == "src/enum.ts")
    assert enum_lines == [3, 4, 5]
    cases = sorted(col for _, rule, _, col in where if rule == "eslint(no-duplicate-case)")
    assert cases == [63, 81]
    if cache:  # a warm check answers the same from the cache
        again = sarif_results(capsys)
        assert len(again) == len(results)

"""Fixes the engines already know: `fixable` for Oxlint and Biome, suggest_fix, `signalint fix`.

Real engines on a small project: Oxlint's `no-useless-rename` (a rule whose
every diagnostic has a safe fix) and Biome's `useConst` ("Safe fix" advice)
are fixable, Oxlint's `no-debugger` (a suggestion) is not; a fixable
cluster becomes one preview and one apply.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from signalint.engines.biome import fixes as biome_fixes
from signalint.engines.oxlint.fixes import OXLINT_VERSION, SAFE_FIX_RULES
from tests.conftest import require_engine
from tests.server.conftest import connect

SOURCE = (
    "let a = 1;\nexport { a };\nlet b = 2;\nexport { b };\n"
    "const { x: x } = { x: 1 };\nexport { x };\ndebugger;\n"
)
FIXED_BY_BIOME = "const a = 1;\nexport { a };\nconst b = 2;\nexport { b };\n"


def _project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "p", "private": true}\n')
    (root / "biome.json").write_text('{"linter": {"enabled": true}}\n')
    engines = {"oxlint": True, "biome": True, "tsc": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    for n in range(3):
        (root / "src" / f"m{n}.js").write_text(SOURCE)
    return root


@pytest.mark.real
def test_the_recorded_oxlint_rule_table_is_the_installed_oxlints() -> None:
    oxlint = require_engine("oxlint")
    version = subprocess.run([str(oxlint), "--version"], capture_output=True, text=True)
    assert OXLINT_VERSION in version.stdout
    rules = json.loads(
        subprocess.run(
            [str(oxlint), "--rules", "--format", "json"], capture_output=True, text=True
        ).stdout
    )
    always = {"fixable_fix", "fixable_safe_fix_or_suggestion"}
    safe = {f"{r['scope']}/{r['value']}" for r in rules if r["fix"] in always}
    assert safe == SAFE_FIX_RULES


@pytest.mark.real
def test_the_recorded_biome_rule_table_agrees_with_biome_explain() -> None:
    import random

    biome = require_engine("biome")
    version = subprocess.run([str(biome), "--version"], capture_output=True, text=True)
    assert biome_fixes.BIOME_VERSION in version.stdout
    rng = random.Random(3)
    safe = rng.sample(sorted(biome_fixes.SAFE_FIX_RULES), 4)
    for category in [*safe, "lint/suspicious/noDebugger", "lint/correctness/noUnusedVariables"]:
        rule = category.rsplit("/", 1)[1]
        explained = subprocess.run([str(biome), "explain", rule], capture_output=True, text=True)
        assert ("- Fix: safe" in explained.stdout) is (category in biome_fixes.SAFE_FIX_RULES)


@pytest.mark.real
@pytest.mark.anyio
async def test_a_fixable_cluster_becomes_one_preview_and_one_apply(tmp_path: Path) -> None:
    require_engine("oxlint")
    require_engine("biome")
    root = _project(tmp_path / "p")
    async with connect(root, SIGNALINT_ALLOW_UNINITIALIZED="1") as client:
        check = (await client.call("check_project")).data
        listed = (await client.call("list_issues", {"checkId": check["checkId"]})).data
        fixable = {(i["engine"], i["rule"]): i["fixable"] for i in listed["issues"]}
        assert fixable[("biome", "lint/style/useConst")] is True
        assert fixable[("biome", "lint/suspicious/noDebugger")] is False
        # One issue for Biome's noUselessRename and Oxlint's no-useless-rename (D20):
        # Oxlint's safe fix makes it fixable.
        assert fixable[("biome", "lint/complexity/noUselessRename")] is True
        cluster = next(c for c in check["clusters"] if c["ruleIds"] == ["lint/style/useConst"])
        assert cluster["priority"] == 5 and "suggestedAction" in cluster
        suggestion = await client.call(
            "suggest_fix", {"checkId": check["checkId"], "clusterId": cluster["clusterId"]}
        )
        data = suggestion.data
        assert not suggestion.error, data
        assert data["filesCount"] == 3 and data["engines"]["biome"]["status"] == "ok"
        assert "+const a = 1;" in data["patchesPreview"][0]["diff"]
        assert (root / "src" / "m0.js").read_text() == SOURCE, "suggest writes nothing"
        applied = await client.call(
            "apply_diagnostic_fix", {"transactionId": data["transactionId"], "confirm": True}
        )
        assert applied.data["status"] == "success"
        assert sorted(applied.data["filesModified"]) == [f"src/m{n}.js" for n in range(3)]
        assert (root / "src" / "m1.js").read_text().startswith(FIXED_BY_BIOME)


@pytest.mark.real
def test_signalint_fix_shows_the_diff_and_applies_it(tmp_path: Path) -> None:
    require_engine("oxlint")
    require_engine("biome")
    root = _project(tmp_path / "p")
    cli = [str(Path(__import__("sys").executable).parent / "signalint"), "fix"]
    dry = subprocess.run([*cli, "src/m0.js", "--dry-run"], cwd=root, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "+const { x } = { x: 1 };" in dry.stdout and "+const a = 1;" in dry.stdout
    assert (root / "src" / "m0.js").read_text() == SOURCE
    done = subprocess.run([*cli, "--engine", "biome"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = (root / "src" / "m2.js").read_text()
    assert text.startswith(FIXED_BY_BIOME)
    assert "const { x } = { x: 1 };" in text  # Biome's safe fix of noUselessRename
    assert "debugger;" in text  # an unsafe fix: never applied


def test_oxlint_issues_of_rules_that_always_fix_safely_are_fixable(tmp_path: Path) -> None:
    from signalint.engines.base import EngineContext
    from signalint.engines.oxlint.adapter import ENGINE
    from signalint.process import ProcessResult

    (tmp_path / "r.js").write_text("const { x: x } = { x: 1 };\nexport { x };\ndebugger;\n")
    rules = "https://oxc.rs/docs/guide/usage/linter/rules/eslint/"
    report = {
        "diagnostics": [
            {"message": "m", "code": f"eslint({rule})", "severity": "warning",
             "url": f"{rules}{rule}.html", "filename": "r.js",
             "labels": [{"span": {"offset": 0, "length": 1, "line": line, "column": 1}}]}
            for rule, line in (("no-useless-rename", 1), ("no-debugger", 3))
        ]
    }  # fmt: skip
    result = ProcessResult(("oxlint",), 0, json.dumps(report), "", 0.1)
    ctx = EngineContext(tmp_path, tmp_path / "oxlint", 1.0, tmp_path / "state")
    issues = ENGINE.parse(result, ctx)
    assert [(i.rule, i.fixable) for i in issues] == [
        ("eslint(no-useless-rename)", True),
        ("eslint(no-debugger)", False),
    ]


@pytest.mark.real
@pytest.mark.anyio
async def test_suggest_fix_names_what_it_cannot_fix_and_refuses_bad_references(
    tmp_path: Path,
) -> None:
    require_engine("tsc")
    from tests.server.conftest import write_project

    root = write_project(tmp_path / "ts")
    async with connect(root) as client:
        check = (await client.call("check_project")).data
        check_id = check["checkId"]
        issue_id = check["remainingIssues"][0]["issueId"]
        nothing = await client.call("suggest_fix", {"checkId": check_id, "issueIds": [issue_id]})
        assert not nothing.error
        assert nothing.data["status"] == "no_fix"
        assert "fix mode" in nothing.data["message"]
        assert nothing.data["notFixable"] == [issue_id]
        both = await client.call(
            "suggest_fix", {"checkId": check_id, "issueIds": [issue_id], "clusterId": "x"}
        )
        assert both.error and both.data["field"] == "issueIds"
        unknown = await client.call(
            "suggest_fix", {"checkId": check_id, "issueIds": [issue_id, "ffffffffffff"]}
        )
        assert unknown.data["status"] == "stale" and unknown.data["field"] == "issueIds[1]"
        stale = await client.call("suggest_fix", {"checkId": "0000000000000000", "clusterId": "x"})
        assert stale.data["status"] == "stale" and stale.data["field"] == "checkId"


def _fix(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cli = str(Path(__import__("sys").executable).parent / "signalint")
    return subprocess.run([cli, "fix", *args], cwd=root, capture_output=True, text=True)


@pytest.mark.real
def test_eslint_fixes_come_through_signalint_fix(demo_project: Path) -> None:
    before = (demo_project / "src" / "legacy.js").read_text()
    dry = _fix(demo_project, "src/legacy.js", "--engine", "eslint", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "-  let next = counter + step;\n+  const next = counter + step;" in dry.stdout
    assert (demo_project / "src" / "legacy.js").read_text() == before
    done = _fix(demo_project, "src/legacy.js", "--engine", "eslint")
    assert done.returncode == 0, done.stderr
    after = (demo_project / "src" / "legacy.js").read_text()
    assert "const next = counter + step;" in after and "debugger;" in after


@pytest.mark.real
def test_ruff_safe_fixes_come_through_signalint_fix(tmp_path: Path) -> None:
    require_engine("ruff")
    root = tmp_path / "py"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "0"\n\n[tool.signalint.engines]\n'
        "ruff = true\nmypy = false\npyright = false\n"
    )
    source = "import os\nimport sys\n\nprint(sys.argv)\n"
    (root / "pkg" / "main.py").write_text(source)
    done = _fix(root)
    assert done.returncode == 0, done.stderr
    assert "-import os\n" in done.stdout
    assert (root / "pkg" / "main.py").read_text() == "import sys\n\nprint(sys.argv)\n"

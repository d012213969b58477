"""SARIF output is valid against the official 2.1.0 schema and lists every issue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from signalint.formats import sarif
from signalint.model import EngineOutcome
from signalint.pipeline.cluster import cluster

from .builders import issue, mixed_issues, result

SCHEMA_PATH = Path(__file__).parent.parent / "fixtures" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def render_log(*args: Any, **kwargs: Any) -> dict[str, Any]:
    check = args[0]
    text = sarif.render(check, cluster(check.issues), **kwargs)
    assert text.endswith("\n")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def test_mixed_check_is_schema_valid(validator: jsonschema.protocols.Validator) -> None:
    outcomes = {
        "oxlint": EngineOutcome("oxlint", "ok"),
        "tsc": EngineOutcome("tsc", "ok"),
        "biome": EngineOutcome("biome", "ok"),
        "eslint": EngineOutcome("eslint", "error", message="eslint crashed: config invalid"),
        "ruff": EngineOutcome("ruff", "disabled", message="install ruff"),
    }
    log = render_log(result(mixed_issues(), outcomes), versions={"oxlint": "1.2.3", "tsc": None})
    validator.validate(log)
    assert log["version"] == "2.1.0"
    assert [run["tool"]["driver"]["name"] for run in log["runs"]] == [
        "biome",
        "eslint",
        "oxlint",
        "ruff",
        "tsc",
    ]


def test_empty_check_is_schema_valid(validator: jsonschema.protocols.Validator) -> None:
    log = render_log(result([]))
    validator.validate(log)
    assert log["runs"][0]["results"] == []


def test_every_issue_is_a_result_even_beyond_the_summary_caps(
    validator: jsonschema.protocols.Validator,
) -> None:
    issues = [issue(rule=f"r{i}", file=f"f{i:03d}.ts") for i in range(150)]
    log = render_log(result(issues))
    validator.validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == 150
    ids = {r["partialFingerprints"]["signalintIssueId/v1"] for r in results}
    assert ids == {i.issue_id for i in issues}


def runs_by_name(log: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {run["tool"]["driver"]["name"]: run for run in log["runs"]}


def test_results_carry_rules_levels_locations_and_full_messages() -> None:
    outcomes = {name: EngineOutcome(name, "ok") for name in ("oxlint", "tsc", "biome")}
    log = render_log(result(mixed_issues(), outcomes, root="/srv/my project"))
    runs = runs_by_name(log)
    tsc = runs["tsc"]
    assert tsc["originalUriBaseIds"] == {"%SRCROOT%": {"uri": "file:///srv/my%20project/"}}
    (only,) = tsc["results"]
    assert only["ruleId"] == "TS2322" and only["level"] == "error"
    assert tsc["tool"]["driver"]["rules"][only["ruleIndex"]]["id"] == "TS2322"
    assert only["message"]["text"].endswith("Details: 100% wrong")
    location = only["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {
        "uri": "src/with%20space%2C%20comma%3Acolon.ts",
        "uriBaseId": "%SRCROOT%",
    }
    assert location["region"] == {
        "startLine": 12,
        "startColumn": 14,
        "endLine": 12,
        "endColumn": 20,
    }

    biome = runs["biome"]
    assert biome["results"][0]["level"] == "warning"
    assert biome["tool"]["driver"]["rules"][0]["helpUri"].startswith("https://biomejs.dev/")
    assert biome["tool"]["driver"]["informationUri"] == "https://biomejs.dev/"

    oxlint = runs["oxlint"]
    assert [r["id"] for r in oxlint["tool"]["driver"]["rules"]] == ["no-debugger"]
    assert {r["ruleIndex"] for r in oxlint["results"]} == {0}
    assert "endLine" not in oxlint["results"][0]["locations"][0]["physicalLocation"]["region"]


def test_engine_versions_go_into_the_driver_when_known() -> None:
    outcomes = {"oxlint": EngineOutcome("oxlint", "ok"), "tsc": EngineOutcome("tsc", "ok")}
    runs = runs_by_name(render_log(result([], outcomes), versions={"oxlint": "1.9.0"}))
    assert runs["oxlint"]["tool"]["driver"]["version"] == "1.9.0"
    assert "version" not in runs["tsc"]["tool"]["driver"]


def test_failed_and_disabled_engines_report_unsuccessful_invocations() -> None:
    outcomes = {
        "oxlint": EngineOutcome("oxlint", "ok"),
        "tsc": EngineOutcome("tsc", "error", message="tsc exited 3"),
        "biome": EngineOutcome("biome", "disabled", message="npm i -D @biomejs/biome"),
    }
    runs = runs_by_name(render_log(result([], outcomes)))
    assert runs["oxlint"]["invocations"] == [{"executionSuccessful": True}]
    (tsc_invocation,) = runs["tsc"]["invocations"]
    assert tsc_invocation["executionSuccessful"] is False
    assert tsc_invocation["toolExecutionNotifications"] == [
        {"level": "error", "message": {"text": "tsc exited 3"}}
    ]
    biome_note = runs["biome"]["invocations"][0]["toolExecutionNotifications"][0]
    assert biome_note["level"] == "warning"


def test_an_ok_engine_that_left_links_out_of_the_root_says_so(
    validator: jsonschema.protocols.Validator,
) -> None:
    # Found by the real-world tier (zustand, issue 37): the JSON answer named
    # the links out of the root, the SARIF upload said nothing of them.
    note = (
        "2 files outside the project root were not checked (links out of the root): "
        "src/link.ts, src/dir/"
    )
    outcomes = {
        "tsc": EngineOutcome("tsc", "ok", message=note, files_checked=3),
        "eslint": EngineOutcome("eslint", "ok", files_checked=3),
    }
    log = render_log(result([], outcomes))
    validator.validate(log)
    runs = runs_by_name(log)
    assert runs["tsc"]["invocations"] == [
        {
            "executionSuccessful": True,
            "toolExecutionNotifications": [{"level": "note", "message": {"text": note}}],
        }
    ]
    assert runs["eslint"]["invocations"] == [{"executionSuccessful": True}]


def test_end_column_before_start_on_the_same_line_is_dropped() -> None:
    odd = issue(line=5, col=10, end_line=5, end_col=3)
    region = render_log(result([odd]))["runs"][0]["results"][0]["locations"][0]
    assert region["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 10, "endLine": 5}


def test_the_schema_rejects_a_malformed_log(validator: jsonschema.protocols.Validator) -> None:
    # Guards against a vacuous schema: a result level outside the enum must fail.
    log = render_log(result([issue()]))
    log["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(log)


WORKSPACE = {
    "source": "pnpm-workspace.yaml",
    "packages": [
        {"name": "@ws/core", "path": "packages/core", "status": "issues_found"},
        {"name": "@ws/core-extra", "path": "packages/core/extra", "status": "clean"},
        {"name": "@ws/app", "path": "packages/app", "status": "error"},
    ],
    "outsidePackages": {"errors": 1, "warnings": 0, "issues": 1},
}


def test_a_workspace_check_names_each_results_package_and_every_package(
    validator: jsonschema.protocols.Validator,
) -> None:
    found = [
        issue(file="packages/core/src/a.ts", rule="r1"),
        issue(file="packages/core/extra/b.ts", rule="r2"),  # the deepest package owns it
        issue(file="packages/application/c.ts", rule="r3"),  # a prefix is not a parent
        issue(file="scripts/d.ts", rule="r4"),
    ]
    log = render_log(result(found), workspace=WORKSPACE)
    validator.validate(log)
    owners = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r.get(
            "properties", {}
        ).get("package")
        for run in log["runs"]
        for r in run["results"]
    }
    assert owners == {
        "packages/core/src/a.ts": "@ws/core",
        "packages/core/extra/b.ts": "@ws/core-extra",
        "packages/application/c.ts": None,
        "scripts/d.ts": None,
    }
    for run in log["runs"]:
        assert run["properties"]["packages"] == {
            "@ws/core": {"path": "packages/core", "status": "issues_found"},
            "@ws/core-extra": {"path": "packages/core/extra", "status": "clean"},
            "@ws/app": {"path": "packages/app", "status": "error"},
        }


def test_a_check_without_packages_adds_no_package_data() -> None:
    found = [issue(file="src/a.ts")]
    for workspace in (None, {"warning": "the workspace has a cycle"}):
        log = render_log(result(found), workspace=workspace)
        assert all("packages" not in run["properties"] for run in log["runs"])
        assert all(
            "package" not in r.get("properties", {}) for run in log["runs"] for r in run["results"]
        )

"""Schema 1.4 payloads: keys, compact aliases, nextStep, detail, thresholds."""

from __future__ import annotations

import json
from typing import Any

from signalint.model import CheckResult, EngineOutcome, Issue
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import Additions, check_payload, fails_priority, issue_detail
from signalint.server.words import tool_words

FULL_KEYS = [
    "schemaVersion",
    "status",
    "projectRoot",
    "engines",
    "totalIssues",
    "clusters",
    "remainingIssues",
    "omittedIssueCount",
    "nextStep",
    "truncated",
    "checkId",
    "fingerprint",
]


def make(rule: str = "r", file: str = "a.ts", line: int = 1, **fields: Any) -> Issue:
    values: dict[str, Any] = {
        "engine": "oxlint",
        "file": file,
        "line": line,
        "col": 2,
        "rule": rule,
        "severity": "error",
        "message": f"{rule} here",
    }
    values.update(fields)
    return Issue(**values)


def ran(engine: str, files: int = 1, **fields: Any) -> EngineOutcome:
    """An outcome of an engine that ran fine on `files` files."""
    return EngineOutcome(engine, "ok", files_checked=files, **fields)


def result_of(issues: list[Issue], outcomes: dict[str, EngineOutcome] | None = None) -> CheckResult:
    return CheckResult(
        check_id="abcdef0123456789",
        fingerprint="0011223344556677",
        project_root="/p",
        outcomes=outcomes if outcomes is not None else {"oxlint": ran("oxlint")},
        issues=tuple(sorted(issues, key=Issue.sort_key)),
        created_at=0.0,
    )


def payload_for(issues: list[Issue], **options: Any) -> dict[str, Any]:
    payload: dict[str, Any] = check_payload(
        result_of(issues), cluster(issues), **options, words=tool_words
    )
    return payload


def test_full_payload_has_schema_fields_in_order() -> None:
    issues = [make("dup", line=1), make("dup", line=2), make("solo")]
    payload = payload_for(issues)
    assert list(payload) == FULL_KEYS
    assert payload["schemaVersion"] == "1.4" and payload["status"] == "issues_found"
    assert payload["totalIssues"] == 3 and payload["omittedIssueCount"] == 0
    assert payload["engines"] == {"oxlint": {"status": "ok", "filesChecked": 1}}
    assert payload["clusters"][0] == {
        "clusterId": payload["clusters"][0]["clusterId"],
        "rootCauseSummary": "2 dup issues across 1 file",
        "ruleIds": ["dup"],
        "issueCount": 2,
        "fileCount": 1,
        "priority": 2,
    }
    record = payload["remainingIssues"][0]
    assert set(record) == {"issueId", "file", "line", "col", "rule", "severity", "fixable"}
    assert len(record["issueId"]) == 12
    json.dumps(payload)  # JSON-ready


def test_compact_payload_renames_keys_and_drops_project_root() -> None:
    issues = [make(f"s{i}", file=f"f{i}.ts") for i in range(3)]
    full = payload_for(issues, added=Additions(filtered_out=2))
    compact = payload_for(issues, compact=True, added=Additions(filtered_out=2))
    assert "projectRoot" not in compact
    for long, short in [
        ("schemaVersion", "v"),
        ("totalIssues", "total"),
        ("remainingIssues", "remaining"),
        ("omittedIssueCount", "omitted"),
        ("filteredOutIssueCount", "filteredOut"),
    ]:
        assert long not in compact and compact[short] == full[long]
    assert "filteredOutCount" not in compact
    for same in ["status", "engines", "clusters", "truncated", "checkId", "fingerprint"]:
        assert compact[same] == full[same]


def test_next_step_names_list_issues_only_when_flat_records_are_omitted() -> None:
    few = payload_for([make(f"s{i}", file=f"f{i}.ts") for i in range(100)])
    assert few["truncated"] is False
    assert few["nextStep"].startswith("Every issue is listed here")
    assert "list_issues" not in few["nextStep"]
    many = payload_for([make(f"s{i}", file=f"f{i}.ts") for i in range(101)])
    assert many["omittedIssueCount"] == 1 and many["truncated"] is True
    assert "list_issues" in many["nextStep"] and "abcdef0123456789" in many["nextStep"]
    # MCP vocabulary only: an agent calls tools, it cannot run the CLI.
    assert "signalint check" not in many["nextStep"]


def test_a_filtered_check_emits_one_count_and_points_to_check_project() -> None:
    payload = payload_for([make()], added=Additions(filtered_out=4))
    assert payload["filteredOutIssueCount"] == 4 and "filteredOutCount" not in payload
    assert list(payload).count("filteredOutIssueCount") == 1
    assert "check_project" in payload["nextStep"]
    unfiltered = payload_for([make()], added=Additions(filtered_out=0))
    assert unfiltered["filteredOutIssueCount"] == 0 and "filteredOutCount" not in unfiltered
    assert "check_project" not in unfiltered["nextStep"]


def test_extras_sit_before_check_id_and_none_values_are_dropped() -> None:
    warnings: Any = {"loopWarning": {"k": 1}, "fileRuleChurnWarning": None}
    payload = payload_for([make()], added=Additions(warnings=warnings))
    keys = list(payload)
    assert keys.index("truncated") < keys.index("loopWarning") < keys.index("checkId")
    assert "fileRuleChurnWarning" not in payload


def test_engine_messages_are_omitted_when_absent() -> None:
    outcomes = {
        "oxlint": ran("oxlint"),
        "tsc": EngineOutcome("tsc", "error", message="tsc crashed"),
    }
    payload = check_payload(result_of([make()], outcomes), cluster([make()]), words=tool_words)
    assert payload["engines"] == {
        "oxlint": {"status": "ok", "filesChecked": 1},
        "tsc": {"status": "error", "message": "tsc crashed", "filesChecked": 0},
    }
    assert payload["status"] == "error" and "code" not in payload


def test_nothing_checked_explains_every_engine() -> None:
    outcomes = {
        "biome": EngineOutcome("biome", "disabled", message="npm i -D @biomejs/biome"),
        "tsc": EngineOutcome("tsc", "error", message="no tsconfig.json"),
    }
    payload = check_payload(result_of([], outcomes), cluster([]), words=tool_words)
    assert payload["status"] == "error" and payload["code"] == "nothing_checked"
    assert payload["message"].startswith("Nothing was checked. ")
    assert "biome is disabled and checked no file (npm i -D @biomejs/biome)" in payload["message"]
    assert "tsc failed and checked no file (no tsconfig.json)" in payload["message"]


def test_issue_detail_keeps_full_message_and_extras() -> None:
    long_message = "first line\nsecond " + "x" * 200
    issue = make(
        "TS2322",
        engine="tsc",
        message=long_message,
        end_line=3,
        end_col=9,
        docs_url="https://example.test/TS2322",
        help="Change the type.",
    )
    detail = issue_detail(issue, issue.issue_id[:12], "cafe00cafe00")
    assert detail["issueId"] == issue.issue_id and detail["shortId"] == issue.issue_id[:12]
    assert detail["message"] == long_message
    assert len(detail["summary"]) == 120 and "\n" not in detail["summary"]
    assert detail["sourceKind"] == "compiler" and detail["clusterId"] == "cafe00cafe00"
    assert (detail["endLine"], detail["endCol"]) == (3, 9)
    assert (
        detail["docsUrl"] == "https://example.test/TS2322" and detail["help"] == "Change the type."
    )


def test_issue_detail_leaves_out_absent_optional_fields() -> None:
    detail = issue_detail(make(), "abc")
    assert detail["sourceKind"] == "linter"
    for key in ["endLine", "endCol", "clusterId", "docsUrl", "help"]:
        assert key not in detail


def test_fail_on_priority_counts_returned_clusters_and_flat_records() -> None:
    warnings = [make(f"w{i}", file=f"f{i}.ts", severity="warning") for i in range(2)]
    clustering = cluster(warnings)
    assert fails_priority(clustering, 4) and not fails_priority(clustering, 3)
    errors = cluster([make("e", line=1), make("e", line=2)])
    assert fails_priority(errors, 2) and not fails_priority(errors, 1)


def test_fail_on_priority_reads_full_and_compact_payloads_alike() -> None:
    issues = [make("solo", fixable=True)]  # flat record, derived priority 3
    for compact in (False, True):
        payload = payload_for(issues, compact=compact)
        assert fails_priority(payload, 3) and not fails_priority(payload, 2)


def test_every_engine_entry_carries_files_checked_and_its_coverage_gap_when_set() -> None:
    outcomes = {
        "oxlint": ran("oxlint", files=7),
        "tsc": EngineOutcome(
            "tsc",
            "error",
            files_checked=3,
            message="tsc skipped packages/b",
            coverage_gap="packages/b/tsconfig.json was not checked",
        ),
        "biome": EngineOutcome("biome", "disabled", files_checked=5, message="install biome"),
    }
    engines = check_payload(result_of([make()], outcomes), cluster([make()]), words=tool_words)[
        "engines"
    ]
    assert engines["oxlint"] == {"status": "ok", "filesChecked": 7}
    assert engines["tsc"]["filesChecked"] == 3
    assert engines["tsc"]["coverageGap"] == "packages/b/tsconfig.json was not checked"
    # A disabled engine checked nothing, whatever its producer counted.
    assert engines["biome"]["filesChecked"] == 0 and "coverageGap" not in engines["biome"]


def test_engines_that_ran_but_checked_no_file_are_nothing_checked_not_clean() -> None:
    outcomes = {"oxlint": ran("oxlint", files=0), "eslint": ran("eslint", files=0)}
    result = CheckResult(
        check_id="abcdef0123456789",
        fingerprint="0011223344556677",
        project_root="/p",
        outcomes=outcomes,
        issues=(),
        created_at=0.0,
        files_in_scope=0,
    )
    payload = check_payload(result, cluster([]), words=tool_words)
    assert payload["status"] == "error" and payload["code"] == "nothing_checked"
    assert "the scope holds no file once ignore rules are applied" in payload["message"]
    assert "`ignore` in signalint.config.json" in payload["message"]
    assert "eslint checked no file" in payload["message"]
    assert "oxlint checked no file" in payload["message"]
    assert "coverageWarning" not in payload


def test_an_engine_that_checked_nothing_beside_others_is_a_coverage_warning() -> None:
    outcomes = {
        "biome": ran("biome", files=1),
        "oxlint": ran("oxlint", files=0),
        "eslint": EngineOutcome("eslint", "disabled", message="install eslint"),
    }
    payload = check_payload(result_of([], outcomes), cluster([]), words=tool_words)
    assert payload["status"] == "error" and "code" not in payload
    warning = payload["coverageWarning"]
    assert "oxlint checked no file" in warning and "eslint is disabled" in warning
    assert "only from biome" in warning
    keys = list(payload)
    assert keys.index("truncated") < keys.index("coverageWarning") < keys.index("checkId")


def test_a_fully_covered_check_without_issues_is_clean_and_has_no_warning() -> None:
    payload = check_payload(
        result_of([], {"oxlint": ran("oxlint"), "tsc": ran("tsc")}), cluster([]), words=tool_words
    )
    assert payload["status"] == "clean"
    assert "coverageWarning" not in payload and "code" not in payload


def test_issue_detail_names_the_other_engines_that_reported_it() -> None:
    merged = make("no-unused-vars", engine="eslint", also_reported_by=("biome", "oxlint"))
    detail = issue_detail(merged, merged.issue_id[:12])
    assert detail["engine"] == "eslint" and detail["alsoReportedBy"] == ["biome", "oxlint"]
    assert "alsoReportedBy" not in issue_detail(make(), "x")

"""Schema 1.4 check payloads, compact keys and normalized issue detail.

The payload is a plain JSON-ready dict with the field order of the
reference "Normal check response", plus our `fingerprint` (D4). The MCP
server and the CLI's json format both render from `check_payload`, so the
two can never disagree about a field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from signalint import SCHEMA_VERSION
from signalint.cluster import Cluster, Clustering, FlatRecord
from signalint.engines.registry import ENGINES
from signalint.model import CheckResult, EngineOutcome, Issue, covered, uncovered_reason

# Full key -> compact key (reference "Compact keys are a separate option").
# Both filtered-count aliases collapse into one compact key.
COMPACT_KEYS: dict[str, str] = {
    "schemaVersion": "v",
    "totalIssues": "total",
    "remainingIssues": "remaining",
    "omittedIssueCount": "omitted",
    "filteredOutIssueCount": "filteredOut",
    "filteredOutCount": "filteredOut",
}

# Who reads a payload: a terminal or hook ("cli") or an MCP client ("mcp").
FrontEnd = Literal["cli", "mcp"]

# Engines whose diagnostics come from a compiler rather than a linter.


def engine_status(outcome: EngineOutcome) -> dict[str, Any]:
    """`{status, message?, failure?, filesChecked, coverageGap?}` (D17).

    `filesChecked` is always present (0 for a disabled engine); `message`,
    `failure` (`{kind, fix?}`: what kind of failure, and the setting or
    command that fixes it) and `coverageGap` are left out when unset.
    """
    entry: dict[str, Any] = {"status": outcome.status}
    if outcome.message is not None:
        entry["message"] = outcome.message
    if outcome.failure is not None:
        failure: dict[str, str] = {"kind": outcome.failure.kind}
        if outcome.failure.fix is not None:
            failure["fix"] = outcome.failure.fix
        entry["failure"] = failure
    entry["filesChecked"] = outcome.files_checked if covered(outcome) else 0
    if outcome.coverage_gap is not None:
        entry["coverageGap"] = outcome.coverage_gap
    return entry


def cluster_entry(item: Cluster) -> dict[str, Any]:
    """One `clusters[]` element; optional fields appear only when set."""
    entry: dict[str, Any] = {
        "clusterId": item.cluster_id,
        "rootCauseSummary": item.summary,
        "ruleIds": list(item.rule_ids),
        "issueCount": item.issue_count,
        "fileCount": item.file_count,
        "priority": item.priority,
    }
    if item.suggested_action is not None:
        entry["suggestedAction"] = item.suggested_action
    if item.sample_ids:
        entry["sampleIssueIds"] = list(item.sample_ids)
    return entry


def flat_entry(record: FlatRecord) -> dict[str, Any]:
    """One `remainingIssues[]` element: no engine, no message (by design)."""
    issue = record.issue
    return {
        "issueId": record.short_id,
        "file": issue.file,
        "line": issue.line,
        "col": issue.col,
        "rule": issue.rule,
        "severity": issue.severity,
        "fixable": issue.fixable,
    }


def nothing_checked_message(result: CheckResult) -> str:
    """Why no engine checked any file: the scope, then one clause per engine."""
    if not result.outcomes:
        return (
            "Nothing was checked: no engine is enabled for this project "
            "(`engines` in signalint.config.json)."
        )
    head = "Nothing was checked"
    if result.files_in_scope == 0:
        head += (
            ": the scope holds no file once ignore rules are applied "
            "(`ignore` in signalint.config.json, .gitignore, node_modules)"
        )
    reasons = []
    for name in sorted(result.outcomes):
        outcome = result.outcomes[name]
        reason = uncovered_reason(outcome)
        if outcome.message:
            reason += f" ({outcome.message})"
        reasons.append(reason)
    return head + ". " + "; ".join(reasons) + "."


def next_step(check_id: str, omitted: int, filtered_out: int, front_end: FrontEnd) -> str | None:
    """Guidance for what the summary left out, or None when nothing was.

    `front_end` decides the vocabulary: "cli" names `signalint` commands
    (what a person or a hook can run), "mcp" names the server's tools (what
    an agent can call). Never both: an agent cannot run a shell command
    through MCP, and a terminal has no tools.
    """
    parts = []
    if omitted > 0:
        noun = "issue is" if omitted == 1 else "issues are"
        if front_end == "cli":
            parts.append(
                f"{omitted} more {noun} not listed here. `signalint show {check_id}` "
                "lists them by cluster; `signalint check --format sarif` lists every issue."
            )
        else:
            parts.append(
                f"{omitted} more {noun} not listed here. To see every issue, call the "
                f'list_issues tool with checkId "{check_id}"; get_issue_detail gives the '
                "full message of a clusterId or issueId."
            )
    if filtered_out > 0:
        noun = "diagnostic" if filtered_out == 1 else "diagnostics"
        whole = (
            "run `signalint check` without paths"
            if front_end == "cli"
            else "call check_project without paths"
        )
        parts.append(
            f"{filtered_out} {noun} outside the requested paths were filtered out; "
            f"{whole} to see the whole project."
        )
    return " ".join(parts) if parts else None


def check_payload(
    result: CheckResult,
    clustering: Clustering,
    *,
    compact: bool = False,
    filtered_out: int | None = None,
    extras: Mapping[str, Any] | None = None,
    front_end: FrontEnd = "mcp",
) -> dict[str, Any]:
    """The schema 1.4 check response for `result`, summarized by `clustering`.

    `totalIssues` is `clustering.total` (the issues that were summarized, so
    a file check passes its filtered clustering). `filtered_out` adds both
    filtered-count aliases (pass it for file checks, even when 0). `extras`
    holds active warning objects (`loopWarning`, `fileRuleChurnWarning`);
    they go between `truncated` and `checkId`, after `coverageWarning`
    (present when some engine checked no file while others did, D17).
    `compact` renames keys per `COMPACT_KEYS` and leaves out `projectRoot`.
    `front_end` words `nextStep` for the MCP tools (default) or the CLI (see
    `next_step`).
    """
    payload: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION,
        "status": result.status,
        "projectRoot": result.project_root,
        "engines": {name: engine_status(o) for name, o in sorted(result.outcomes.items())},
        "totalIssues": clustering.total,
        "clusters": [cluster_entry(item) for item in clustering.clusters],
        "remainingIssues": [flat_entry(record) for record in clustering.flat],
        "omittedIssueCount": clustering.omitted,
    }
    if filtered_out is not None:
        payload["filteredOutIssueCount"] = filtered_out
        payload["filteredOutCount"] = filtered_out
    step = next_step(result.check_id, clustering.omitted, filtered_out or 0, front_end)
    if step is not None:
        payload["nextStep"] = step
    payload["truncated"] = clustering.truncated
    warning = result.coverage_warning
    if warning is not None:
        payload["coverageWarning"] = warning
    for key, value in (extras or {}).items():
        if value is not None:  # inactive warnings are omitted, never null
            payload[key] = value
    payload["checkId"] = result.check_id
    payload["fingerprint"] = result.fingerprint
    if result.code is not None:
        payload["code"] = result.code
        payload["message"] = nothing_checked_message(result)
    return compact_keys(payload) if compact else payload


def compact_keys(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Rename top-level keys to their compact aliases and drop `projectRoot`."""
    renamed: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "projectRoot":
            continue
        renamed[COMPACT_KEYS.get(key, key)] = value
    return renamed


def issue_detail(issue: Issue, short_id: str, cluster_id: str | None = None) -> dict[str, Any]:
    """The normalized detail of one issue, with the D5 extras.

    `issueId` is the full id and `shortId` the prefix emitted in summaries.
    `summary` is the one-line form; `message` is the engine's full text.
    Optional fields (end position, cluster, docs, help) appear only when set.
    """
    detail: dict[str, Any] = {
        "issueId": issue.issue_id,
        "shortId": short_id,
        "file": issue.file,
        "line": issue.line,
        "col": issue.col,
    }
    if issue.end_line is not None:
        detail["endLine"] = issue.end_line
    if issue.end_col is not None:
        detail["endCol"] = issue.end_col
    detail.update(
        {
            "engine": issue.engine,
            "rule": issue.rule,
            "severity": issue.severity,
            "summary": issue.summary,
            "message": issue.message,
            "fixable": issue.fixable,
        }
    )
    if issue.also_reported_by:
        detail["alsoReportedBy"] = list(issue.also_reported_by)
    if cluster_id is not None:
        detail["clusterId"] = cluster_id
    engine = ENGINES.get(issue.engine)
    detail["sourceKind"] = engine.spec.kind if engine is not None else "linter"
    if issue.docs_url:
        detail["docsUrl"] = issue.docs_url
    if issue.help:
        detail["help"] = issue.help
    return detail


def _record_priority(record: Mapping[str, Any]) -> int:
    # Flat records carry no priority in schema 1.4; derive it the same way
    # cluster.issue_priority does.
    if isinstance(record.get("priority"), int):
        return int(record["priority"])
    error = record.get("severity") == "error"
    fixable = bool(record.get("fixable"))
    return (3 if fixable else 2) if error else (5 if fixable else 4)


def fails_priority(source: Clustering | Mapping[str, Any], threshold: int) -> bool:
    """Whether any returned cluster or flat record has priority <= `threshold`.

    Accepts a `Clustering` or a (full or compact) check payload. Omitted flat
    records are not examined, and engine errors are not considered here: the
    CLI fails on those separately (D14).
    """
    if isinstance(source, Clustering):
        priorities = [c.priority for c in source.clusters]
        priorities += [r.priority for r in source.flat]
    else:
        priorities = [int(c["priority"]) for c in source.get("clusters", [])]
        records = source.get("remainingIssues", source.get("remaining", []))
        priorities += [_record_priority(r) for r in records]
    return any(p <= threshold for p in priorities)


__all__ = [
    "FrontEnd",
    "check_payload",
    "compact_keys",
    "fails_priority",
    "issue_detail",
    "next_step",
]

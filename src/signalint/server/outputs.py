"""Output JSON schemas of the MCP tools (the pattern is described in `schemas`)."""

from __future__ import annotations

from typing import Final

from signalint.report import COMPACT_KEYS
from signalint.server.schemas import SEVERITY, Schema, closed, union

_STR: Final[Schema] = {"type": "string"}
_INT: Final[Schema] = {"type": "integer", "minimum": 0}
_BOOL: Final[Schema] = {"type": "boolean"}
_SEVERITY: Final[Schema] = SEVERITY

# Refusals and failures share one shape across tools (tools.py builds them).
ERROR_PROPERTIES: Final[dict[str, Schema]] = {
    "status": {"type": "string", "enum": ["error", "stale"]},
    "code": _STR,
    "message": _STR,
    "field": _STR,
    "engine": _STR,
    "retryable": _BOOL,
    "nextStep": _STR,
    "projectRoot": _STR,
}
ERROR_REQUIRED: Final = ["status", "code", "message"]

# `filesChecked`: files in scope the engine covered; `coverageGap`: what it
# was expected to check and did not (D17).
ENGINE_STATUS: Final = closed(
    {
        "status": {"type": "string", "enum": ["ok", "error", "disabled"]},
        "message": _STR,
        "filesChecked": _INT,
        "coverageGap": _STR,
    },
    ["status"],
)
ENGINES: Final[Schema] = {"type": "object", "additionalProperties": ENGINE_STATUS}
CLUSTER: Final = closed(
    {
        "clusterId": _STR,
        "rootCauseSummary": _STR,
        "ruleIds": {"type": "array", "items": _STR},
        "issueCount": _INT,
        "fileCount": _INT,
        "priority": {"type": "integer", "minimum": 1, "maximum": 5},
        "suggestedAction": _STR,
        "sampleIssueIds": {"type": "array", "items": _STR},
    },
    ["clusterId", "rootCauseSummary", "ruleIds", "issueCount", "fileCount", "priority"],
)
FLAT: Final = closed(
    {
        "issueId": _STR,
        "file": _STR,
        "line": _INT,
        "col": _INT,
        "rule": _STR,
        "severity": _SEVERITY,
        "fixable": _BOOL,
    },
    ["issueId", "file", "line", "col", "rule", "severity", "fixable"],
)
DETAIL: Final = closed(
    {
        "issueId": _STR,
        "shortId": _STR,
        "file": _STR,
        "line": _INT,
        "col": _INT,
        "endLine": _INT,
        "endCol": _INT,
        "engine": _STR,
        "rule": _STR,
        "severity": _SEVERITY,
        "summary": _STR,
        "message": _STR,
        "fixable": _BOOL,
        "clusterId": _STR,
        "sourceKind": {"type": "string", "enum": ["compiler", "linter", "lsp", "editor"]},
        "docsUrl": _STR,
        "help": _STR,
        "alsoReportedBy": {"type": "array", "items": _STR},
    },
    ["issueId", "shortId", "file", "line", "col", "engine", "rule", "severity",
     "summary", "message", "fixable", "sourceKind"],
)  # fmt: skip

# history.LoopTracker entries; `hint` appears on the warnings of a check.
LOOP_ENTRY: Final = closed(
    {
        "signature": _STR,
        "rule": _STR,
        "occurrences": _INT,
        "files": {"type": "array", "items": _STR},
        "hint": _STR,
    },
    ["signature", "rule", "occurrences", "files"],
)
CHURN_ENTRY: Final = closed(
    {"file": _STR, "rule": _STR, "checkCount": _INT, "hint": _STR},
    ["file", "rule", "checkCount"],
)

# The check response with full keys (report.check_payload), in payload order.
CHECK_PROPERTIES: Final[dict[str, Schema]] = {
    "schemaVersion": {"type": "string", "const": "1.4"},
    "status": {"type": "string", "enum": ["clean", "issues_found", "error"]},
    "projectRoot": _STR,
    "engines": ENGINES,
    "totalIssues": _INT,
    "clusters": {"type": "array", "items": CLUSTER, "maxItems": 10},
    "remainingIssues": {"type": "array", "items": FLAT, "maxItems": 100},
    "omittedIssueCount": _INT,
    "filteredOutIssueCount": _INT,
    "filteredOutCount": _INT,
    "nextStep": _STR,
    "truncated": _BOOL,
    "loopWarning": LOOP_ENTRY,
    "fileRuleChurnWarning": CHURN_ENTRY,
    "coverageWarning": _STR,
    "checkId": _STR,
    "fingerprint": _STR,
    "code": _STR,
    "message": _STR,
}
CHECK_REQUIRED: Final = [
    "schemaVersion", "status", "projectRoot", "engines", "totalIssues", "clusters",
    "remainingIssues", "omittedIssueCount", "truncated", "checkId", "fingerprint",
]  # fmt: skip


def _compact(keys: dict[str, Schema]) -> dict[str, Schema]:
    return {COMPACT_KEYS.get(k, k): v for k, v in keys.items() if k != "projectRoot"}


def check_output(*, compact: bool, extra: dict[str, Schema] | None = None) -> Schema:
    """Schema of a check answer (check_project, check_files, after_edit_check)."""
    if compact:
        properties = _compact(CHECK_PROPERTIES)
        required = [COMPACT_KEYS.get(k, k) for k in CHECK_REQUIRED if k != "projectRoot"]
    else:
        properties, required = dict(CHECK_PROPERTIES), list(CHECK_REQUIRED)
    properties.update(extra or {})
    for key, schema in ERROR_PROPERTIES.items():
        if key == "status":
            statuses = properties["status"]["enum"] + ["stale"]
            properties["status"] = {"type": "string", "enum": statuses}
        else:
            properties.setdefault(key, schema)
    return union(properties, required, ERROR_REQUIRED)


def output(properties: dict[str, Schema], required: list[str]) -> Schema:
    """Schema of a non-check answer: its own shape, or the shared refusal."""
    merged = dict(ERROR_PROPERTIES)
    for key, schema in properties.items():
        if key == "status":  # both shapes have a status: accept either's values
            values = ERROR_PROPERTIES["status"]["enum"] + schema["enum"]
            merged[key] = {"type": "string", "enum": sorted(set(values))}
        else:
            merged[key] = schema
    return union(merged, required, ERROR_REQUIRED)


# delta.compare
DELTA_ENTRY: Final = closed(
    {
        "issueId": _STR,
        "file": _STR,
        "line": _INT,
        "col": _INT,
        "engine": _STR,
        "rule": _STR,
        "severity": _SEVERITY,
        "summary": _STR,
        "reason": _STR,
    },
    ["issueId", "file", "line", "col", "engine", "rule", "severity", "summary"],
)
_ENTRIES: Final[Schema] = {"type": "array", "items": DELTA_ENTRY}
_COUNT_KEYS: Final = ["introduced", "resolved", "unobserved", "newlyObserved", "persisting"]
DELTA_PROPERTIES: Final[dict[str, Schema]] = {
    "baselineCheckId": _STR,
    "currentCheckId": _STR,
    "introduced": _ENTRIES,
    "resolved": _ENTRIES,
    "unobserved": _ENTRIES,
    "newlyObserved": _ENTRIES,
    "counts": closed({k: _INT for k in _COUNT_KEYS}, _COUNT_KEYS),
    "persisting": _INT,
    "errorsIntroduced": _INT,
    "errorsResolved": _INT,
    "netDelta": {"type": "integer"},
    "coverageComplete": _BOOL,
    "truncated": _BOOL,
    "nextStep": _STR,
}
DELTA_OUTPUT: Final = output(DELTA_PROPERTIES, list(DELTA_PROPERTIES))

# snapshots.snapshot_summary: metadata, then the check's summary keys.
_SNAPSHOT_CHECK_KEYS: Final = (
    "engines", "totalIssues", "clusters", "remainingIssues", "omittedIssueCount",
    "filteredOutIssueCount", "nextStep", "truncated", "coverageWarning", "code", "message",
)  # fmt: skip
SNAPSHOT_OUTPUT: Final = output(
    {
        "checkId": _STR,
        "fingerprint": _STR,
        "createdAt": {"type": "string", "format": "date-time"},
        "source": {"type": "string", "enum": ["project", "files"]},
        "targets": {"type": "array", "items": _STR},
        "status": CHECK_PROPERTIES["status"],
        **{key: CHECK_PROPERTIES[key] for key in _SNAPSHOT_CHECK_KEYS},
    },
    ["checkId", "fingerprint", "createdAt", "source", "targets", "status", "engines",
     "totalIssues", "clusters", "remainingIssues", "omittedIssueCount", "truncated"],
)  # fmt: skip

LOOP_STATUS_OUTPUT: Final = output(
    {
        "looping": _BOOL,
        "signatures": {"type": "array", "items": LOOP_ENTRY},
        "loopingSignatureCount": _INT,
        "fileChurning": _BOOL,
        "fileRuleChurns": {"type": "array", "items": CHURN_ENTRY},
        "fileRuleChurnCount": _INT,
        "checksObserved": _INT,
    },
    ["looping", "signatures", "loopingSignatureCount", "fileChurning", "fileRuleChurns",
     "fileRuleChurnCount", "checksObserved"],
)  # fmt: skip

PING_OUTPUT: Final = output(
    {"pong": {"type": "boolean", "const": True}, "projectRoot": _STR}, ["pong", "projectRoot"]
)
DETAIL_OUTPUT: Final = output(
    {"issues": {"type": "array", "items": DETAIL}, "total": _INT, "nextStep": _STR}, ["issues"]
)
LIST_OUTPUT: Final = output(
    {
        "checkId": _STR,
        "total": _INT,
        "issues": {"type": "array", "items": DETAIL},
        "nextCursor": _STR,
    },
    ["checkId", "total", "issues"],
)


def after_edit_output(*, compact: bool) -> Schema:
    """A file check plus `delta`: a comparison, or a stale marker for the baseline."""
    return check_output(compact=compact, extra={"delta": DELTA_OUTPUT})

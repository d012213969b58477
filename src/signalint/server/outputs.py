"""Output JSON schemas of the MCP tools (the pattern is described in `schemas`).

Every schema is sent to the client in `tools/list`, so each byte is paid on
every connection: the top level of an answer is closed and every key is
typed; nested objects (engine entries, clusters, flat records, delta
entries, warnings) state their type and the keys they always carry
(`required`), and leave value types to the README. Enumerations are written
as bare `enum`/`const` (the values imply the type) and counts as plain
integers.

Each shape is the JSON side of a type in `signalint.payloads`: a schema's
keys are that type's keys and its `required` keys the type's required ones
(tests/server/test_payload_types.py holds them together).
"""

from __future__ import annotations

from typing import Final

from signalint.pipeline.report import COMPACT_KEYS
from signalint.server.schemas import Schema, union

_STR: Final[Schema] = {"type": "string"}
_INT: Final[Schema] = {"type": "integer"}
_BOOL: Final[Schema] = {"type": "boolean"}
_STRS: Final[Schema] = {"type": "array", "items": _STR}


def _object(*required: str) -> Schema:
    """A nested object that always carries `required` keys."""
    return {"type": "object", "required": list(required)}


def _array(items: Schema, max_items: int | None = None) -> Schema:
    schema: Schema = {"type": "array", "items": items}
    if max_items is not None:
        schema["maxItems"] = max_items
    return schema


# Refusals share one shape (errors.py builds them). Lookups can only refuse
# an argument or an id (`field`); checks add the failure fields.
ERROR_PROPERTIES: Final[dict[str, Schema]] = {
    "status": {"enum": ["error", "stale"]},
    "code": _STR,
    "message": _STR,
    "field": _STR,
}
CHECK_ERROR_PROPERTIES: Final[dict[str, Schema]] = {
    **ERROR_PROPERTIES,
    "engine": _STR,
    "retryable": _BOOL,
    "nextStep": _STR,
    "projectRoot": _STR,
}
ERROR_REQUIRED: Final = ["status", "code", "message"]

# {status, filesChecked, message?, failure?: {kind, fix?}, coverageGap?, served?}
# per engine (D17).
ENGINE_STATUS: Final[Schema] = {
    "type": "object",
    "properties": {"status": {"enum": ["ok", "error", "disabled"]}, "failure": _object("kind")},
    "required": ["status", "filesChecked"],
}
ENGINES: Final[Schema] = {"type": "object", "additionalProperties": ENGINE_STATUS}
# + suggestedAction?, sampleIssueIds?
CLUSTER: Final = _object(
    "clusterId", "rootCauseSummary", "ruleIds", "issueCount", "fileCount", "priority"
)
FLAT: Final = _object("issueId", "file", "line", "col", "rule", "severity", "fixable")
# + endLine?, endCol?, alsoReportedBy?, clusterId?, docsUrl?, help?
DETAIL: Final = _object(
    "issueId", "file", "line", "col", "engine", "rule", "severity", "summary", "shortId",
    "message", "fixable", "sourceKind",
)  # fmt: skip
# loops.LoopTracker entries; `hint` appears on the warnings of a check.
LOOP_ENTRY: Final = _object("signature", "occurrences", "files")
CHURN_ENTRY: Final = _object("file", "rule", "checkCount")

# The check response with full keys (report.check_payload), in payload order.
CHECK_PROPERTIES: Final[dict[str, Schema]] = {
    "schemaVersion": {"const": "1.4"},
    "status": {"enum": ["clean", "issues_found", "error"]},
    "projectRoot": _STR,
    "engines": ENGINES,
    "totalIssues": _INT,
    "clusters": _array(CLUSTER, 10),
    "remainingIssues": _array(FLAT, 100),
    "omittedIssueCount": _INT,
    "filteredOutIssueCount": _INT,
    "nextStep": _STR,
    "truncated": _BOOL,
    "loopWarning": LOOP_ENTRY,
    "fileRuleChurnWarning": CHURN_ENTRY,
    "coverageWarning": _STR,
    "checkId": _STR,
    "fingerprint": _STR,
    "code": _STR,
    "message": _STR,
    # Workspace checks: per-package summary (signalint.service.package_summary).
    "workspace": {"type": "object"},
    # newFromRev / newFromMergeBase: what the answer was compared with (signalint.service.baseline).
    "baseline": {"type": "object"},
    # remoteCache configured: what the shared result store did for this check
    # (hits, misses, writes, rejected, errors, roundTrips; integers).
    "remoteCache": {"type": "object"},
}
CHECK_REQUIRED: Final = [
    "schemaVersion", "status", "projectRoot", "engines", "totalIssues", "clusters",
    "remainingIssues", "omittedIssueCount", "nextStep", "truncated", "checkId", "fingerprint",
]  # fmt: skip


def _compact(keys: dict[str, Schema]) -> dict[str, Schema]:
    return {COMPACT_KEYS.get(k, k): v for k, v in keys.items() if k != "projectRoot"}


def _merge_status(properties: dict[str, Schema], extra: list[str]) -> None:
    values = list(properties["status"]["enum"])
    properties["status"] = {"enum": values + [v for v in extra if v not in values]}


def check_output(*, compact: bool, extra: dict[str, Schema] | None = None) -> Schema:
    """Schema of a check answer (check_project, check_files, after_edit_check)."""
    if compact:
        properties = _compact(CHECK_PROPERTIES)
        required = [COMPACT_KEYS.get(k, k) for k in CHECK_REQUIRED if k != "projectRoot"]
    else:
        properties, required = dict(CHECK_PROPERTIES), list(CHECK_REQUIRED)
    properties.update(extra or {})
    # A check refuses with status "error" (never "stale": a stale baseline
    # goes into `delta`), which the check's own statuses already include.
    for key, schema in CHECK_ERROR_PROPERTIES.items():
        properties.setdefault(key, schema)
    return union(properties, required, ERROR_REQUIRED)


def output(properties: dict[str, Schema], required: list[str]) -> Schema:
    """Schema of a non-check answer: its own shape, or the shared refusal."""
    merged = dict(ERROR_PROPERTIES)
    for key, schema in properties.items():
        merged[key] = schema
        if key == "status":  # both shapes have a status: accept either's values
            _merge_status(merged, ERROR_PROPERTIES["status"]["enum"])
    return union(merged, required, ERROR_REQUIRED)


# delta.compare(summarize=True); entries carry the short issueId of their check.
DELTA_ENTRY: Final = _object(
    "issueId", "file", "line", "col", "engine", "rule", "severity", "summary"
)
# {byFile, moreFiles?, byEngine, byReason}: counts of issues one check did not observe.
DELTA_SUMMARY: Final = _object("byFile", "byEngine", "byReason")
_COUNT_KEYS: Final = ["introduced", "resolved", "unobserved", "newlyObserved", "persisting"]
DELTA_PROPERTIES: Final[dict[str, Schema]] = {
    "baselineCheckId": _STR,
    "currentCheckId": _STR,
    "introduced": _array(DELTA_ENTRY, 50),
    "resolved": _array(DELTA_ENTRY, 50),
    "unobserved": DELTA_SUMMARY,
    "newlyObserved": DELTA_SUMMARY,
    "counts": _object(*_COUNT_KEYS),
    "errorsIntroduced": _INT,
    "errorsResolved": _INT,
    "netDelta": _INT,
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
        "source": {"enum": ["project", "files", "lsp"]},
        "targets": _STRS,
        "status": CHECK_PROPERTIES["status"],
        **{key: CHECK_PROPERTIES[key] for key in _SNAPSHOT_CHECK_KEYS},
    },
    ["checkId", "fingerprint", "createdAt", "source", "targets", "status", "engines",
     "totalIssues", "clusters", "remainingIssues", "omittedIssueCount", "nextStep", "truncated"],
)  # fmt: skip

LOOP_STATUS_OUTPUT: Final = output(
    {
        "looping": _BOOL,
        "signatures": _array(LOOP_ENTRY, 50),
        "loopingSignatureCount": _INT,
        "fileChurning": _BOOL,
        "fileRuleChurns": _array(CHURN_ENTRY, 50),
        "fileRuleChurnCount": _INT,
        "checksObserved": _INT,
    },
    ["looping", "signatures", "fileChurning", "fileRuleChurns", "checksObserved"],
)

PING_OUTPUT: Final = output({"pong": {"const": True}, "projectRoot": _STR}, ["pong", "projectRoot"])
DETAIL_OUTPUT: Final = output(
    {"issues": _array(DETAIL), "total": _INT, "nextStep": _STR}, ["issues"]
)
LIST_OUTPUT: Final = output(
    {"checkId": _STR, "total": _INT, "issues": _array(DETAIL), "nextCursor": _STR},
    ["checkId", "total", "issues"],
)


# Nested in after_edit_check, a delta follows the nested-object rule: its
# keys, not their types (compare_diagnostics advertises the whole shape).
_NESTED_DELTA: Final[Schema] = {
    "type": "object",
    "anyOf": [{"required": list(DELTA_PROPERTIES)}, {"required": ERROR_REQUIRED}],
}


# What the edit did to the files that depend on the checked ones
# (`ripple.block`, `payloads.DependentsBlock`): an object here (the tool
# list has a byte budget), its shape in the README.
DEPENDENTS: Final[Schema] = {"type": "object"}


def files_output(*, compact: bool) -> Schema:
    """A file check (check_files): a check answer plus `dependents`."""
    return check_output(compact=compact, extra={"dependents": DEPENDENTS})


def after_edit_output(*, compact: bool) -> Schema:
    """A file check plus `delta` (a comparison, or a stale marker for the
    baseline) and `dependents` (what the edit did to other files)."""
    extra: dict[str, Schema] = {"delta": _NESTED_DELTA, "dependents": DEPENDENTS}
    return check_output(compact=compact, extra=extra)


# ---- fix transactions (server/fix_tools.py); refusals add transactionId,
# filesModified (apply) and files (drift) to the shared refusal keys.
_FIX_ERROR: Final[dict[str, Schema]] = {**ERROR_PROPERTIES, "files": _STRS}
_PATCH_PREVIEW: Final = _object("file", "originalLength", "patchedLength", "diff")
_PREVIEW_PROPERTIES: Final[dict[str, Schema]] = {
    **_FIX_ERROR,
    "status": {"enum": ["pending", "no_fix", "error", "stale"]},
    "transactionId": _STR,
    "filesCount": _INT,
    "summary": _STR,
    "patchesPreview": _array(_PATCH_PREVIEW),
    "expiresInSeconds": _INT,
    "note": _STR,
    "verification": _object("status"),
    "engines": {"type": "object"},
    "notFixable": _STRS,
}
_PREVIEW_REQUIRED: Final = ["transactionId", "filesCount", "summary", "status", "patchesPreview"]
PREVIEW_OUTPUT: Final = union(_PREVIEW_PROPERTIES, _PREVIEW_REQUIRED, ERROR_REQUIRED)
SUGGEST_OUTPUT: Final = union(
    _PREVIEW_PROPERTIES, _PREVIEW_REQUIRED, ["status", "message", "engines"], ERROR_REQUIRED
)
APPLY_OUTPUT: Final = union(
    {
        **_FIX_ERROR,
        "status": {"enum": ["success", "rolled_back", "error", "stale"]},
        "transactionId": _STR,
        "filesModified": _STRS,
        "postCheckId": _STR,
        "postCheck": _object("status", "totalIssues"),
        "postCheckError": _object("code", "message"),
        "delta": _object("baselineCheckId", "currentCheckId", "counts"),
    },
    ["status", "transactionId", "filesModified"],
    ERROR_REQUIRED,
)
DISCARD_OUTPUT: Final = union(
    {**ERROR_PROPERTIES, "transactionId": _STR, "discarded": _BOOL},
    ["transactionId", "discarded"],
    ERROR_REQUIRED,
)

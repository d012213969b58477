"""Input JSON schemas of the MCP tools, and the helpers output schemas share.

Input schemas are the single source of truth for argument checking:
`arguments.validate` enforces exactly what is advertised (closed objects,
types, bounds), so a client that honours the schema is never refused and one
that does not gets an error naming the field. Every string and every array
has a bound (D25; tests/server/test_input_bounds.py walks them all), and the
whole request has one more, the transport's (`server.transport`). Every
schema node has one `type` (a list of types, or none, makes some hosts'
models refuse the whole tool list).

Output schemas follow one pattern so every answer, success or refusal, in
every payload mode and with compact keys on or off, validates (D16): a
closed top-level object declaring the union of the keys the tool can send,
plus an `anyOf` of `required` key sets (one per answer shape). Clients that
ignore `anyOf` still get a correct, if looser, schema. Compact mode is fixed
when the server starts, so the check schema declares either the full or the
compact keys, never a mix. Nested objects are written out (no `$ref`), since
some clients do not resolve references.
"""

from __future__ import annotations

from typing import Any, Final

from signalint.ingest import (
    FORMATS,
    MAX_BATCH,
    MAX_CODE_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_RELATED,
    MAX_REPORT_BYTES,
    MAX_URI_CHARS,
)

Schema = dict[str, Any]

MAX_PATHS: Final = 10_000
MAX_PATH_CHARS: Final = 4096
MAX_ID_CHARS: Final = 200

SEVERITY: Final[Schema] = {"type": "string", "maxLength": 20, "enum": ["error", "warning"]}


def closed(properties: dict[str, Schema], required: list[str]) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def union(properties: dict[str, Schema], *shapes: list[str]) -> Schema:
    """A closed object with the union of keys; each shape lists its required keys."""
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    schema["anyOf"] = [{"required": shape} for shape in shapes]
    return schema


# ---------------------------------------------------------------- inputs


def _path_array(description: str) -> Schema:
    return {
        "type": "array",
        "items": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_CHARS},
        "minItems": 1,
        "maxItems": MAX_PATHS,
        "description": description,
    }


def _id(description: str) -> Schema:
    return {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS, "description": description}


_CHECK_ID = _id("checkId of an earlier check.")
_FILES = _path_array("Project-relative files, e.g. src/app.ts.")

# Only what is new since a git revision, as `check --new-from-rev` (signalint.service.baseline).
_REVISION: Final[Schema] = {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS}
SINCE: Final[dict[str, Schema]] = {
    "newFromRev": {
        **_REVISION,
        "description": 'Only issues absent at this git revision, e.g. "main" (see baseline).',
    },
    "newFromMergeBase": {
        **_REVISION,
        "description": "As newFromRev, at the merge base of HEAD and this branch.",
    },
}
# check_project's scopes besides `paths` (one at most), as `check --package`/`--changed`.
SCOPES: Final[dict[str, Schema]] = {
    "packages": {
        "type": "array",
        "items": {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS},
        "minItems": 1,
        "maxItems": 1000,
        "description": "Workspace packages (package.json name) to check, with what they need.",
    },
    "changed": {
        "type": "boolean",
        "description": "true: the files changed against HEAD, with the programs holding them.",
    },
}

PING_INPUT: Final = closed({}, [])
CHECK_PROJECT_INPUT: Final = closed(
    {
        "paths": _path_array('Project-relative files or directories; default ["."].'),
        **SCOPES,
        **SINCE,
    },
    [],
)
CHECK_FILES_INPUT: Final = closed({"files": _FILES, **SINCE}, ["files"])
GET_ISSUE_DETAIL_INPUT: Final = closed(
    {
        "checkId": _CHECK_ID,
        "clusterId": _id("A clusterId of that check (or give issueId)."),
        "issueId": _id("An issueId of that check, short ids accepted."),
    },
    ["checkId"],
)
GET_DIAGNOSTIC_SNAPSHOT_INPUT: Final = closed({"checkId": _CHECK_ID}, ["checkId"])
COMPARE_DIAGNOSTICS_INPUT: Final = closed(
    {
        "baselineCheckId": _id("checkId before the edit."),
        "currentCheckId": _id("checkId after the edit."),
    },
    ["baselineCheckId", "currentCheckId"],
)
AFTER_EDIT_CHECK_INPUT: Final = closed(
    {
        "files": _FILES,
        "baselineCheckId": _id("checkId of the check before the edit."),
    },
    ["files"],
)
GET_LOOP_STATUS_INPUT: Final = closed({}, [])
LIST_ISSUES_INPUT: Final = closed(
    {
        "checkId": _CHECK_ID,
        "cursor": _id("nextCursor of the previous page."),
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 500,
            "description": "Page size (default 100).",
        },
        "file": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_PATH_CHARS,
            "description": "A file or directory.",
        },
        "rule": _id("A rule id, exactly, e.g. TS2322."),
        "severity": SEVERITY,
        # Not an enumeration: the tool list must not grow with the engines.
        "engine": _id("An engine's name, as in a check's engines, or a live source's name."),
    },
    ["checkId"],
)


# ---- live diagnostics (server/live_tools.py). Input diagnostics are open
# objects: LSP diagnostics carry fields we do not read (`tags`, `data`; only
# the request's size bounds them, and nothing of them is kept). The fields
# of one type are bounded here for an element of `diagnostics`; `ingest.lsp`
# checks every diagnostic's values and bounds, also of the fields that take
# several types (`code`, `source`, `relatedInformation`) and at any depth
# (inside publishDiagnostics params too), naming the field's path.
_NAME: Final[Schema] = {"type": "string", "minLength": 1, "maxLength": 100}
_ANY_OBJECT: Final[Schema] = {"type": "object", "additionalProperties": True}
_DIAGNOSTIC_OR_PUBLISH: Final[Schema] = {
    "type": "object",
    "properties": {
        "file": {"type": "string", "maxLength": MAX_PATH_CHARS},
        "uri": {"type": "string", "maxLength": MAX_URI_CHARS},
        "message": {"type": "string", "maxLength": MAX_MESSAGE_CHARS},
        "diagnostics": {"type": "array", "items": _ANY_OBJECT, "maxItems": MAX_BATCH},
    },
    "additionalProperties": True,
}
_FILTER_PATHS: Final[Schema] = {
    "type": "array",
    "items": {"type": "string", "maxLength": MAX_PATH_CHARS},
    "maxItems": MAX_PATHS,
}

INGEST_DIAGNOSTICS_INPUT: Final = closed(
    {
        "diagnostics": {
            "type": "array",
            "items": _DIAGNOSTIC_OR_PUBLISH,
            "maxItems": MAX_BATCH,
            "description": "LSP diagnostics with file (path or file:// URI), or "
            f"publishDiagnostics params. code, source: at most {MAX_CODE_CHARS} "
            f"characters; relatedInformation: at most {MAX_RELATED} notes.",
        },
        "files": {
            **_FILTER_PATHS,
            "description": "More files it covers (cleared if none).",
        },
        "source": {**_NAME, "description": 'Default "lsp".'},
        "serverName": {**_NAME, "description": "Keeps this server's reports apart."},
        "format": {"type": "string", "maxLength": 20, "enum": list(FORMATS)},
        "report": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_REPORT_BYTES,
            "description": "A tool's output in `format`.",
        },
    },
    [],
)
GET_LIVE_DIAGNOSTICS_INPUT: Final = closed(
    {
        "files": {**_FILTER_PATHS, "description": "Files or directories."},
        "severity": SEVERITY,
    },
    [],
)
CLEAR_LIVE_INPUT: Final = closed(
    {
        "source": {**_NAME, "description": "Only this source (default: all)."},
        "serverName": _NAME,
        "files": {**_FILTER_PATHS, "description": "Only these files (default: all)."},
    },
    [],
)

# ---- fix transactions (server/fix_tools.py)
MAX_CONTENT_CHARS: Final = 4_000_000
_CONTENT: Final[Schema] = {"type": "string", "maxLength": MAX_CONTENT_CHARS}
_TRANSACTION_ID = _id("transactionId from preview_diagnostic_fix or suggest_fix.")
PREVIEW_DIAGNOSTIC_FIX_INPUT: Final = closed(
    {
        "patches": {
            "type": "array",
            "minItems": 1,
            "maxItems": 1000,
            "items": closed(
                {
                    "file": {"type": "string", "minLength": 1, "maxLength": MAX_PATH_CHARS},
                    "originalContent": _CONTENT,
                    "patchedContent": _CONTENT,
                    "description": {"type": "string", "maxLength": 500},
                },
                ["file", "originalContent", "patchedContent"],
            ),
            "description": 'Full-file replacements; originalContent "" creates a file.',
        },
        "verify": {
            "type": "boolean",
            "description": "Check the patched files on a shadow copy; return the delta.",
        },
    },
    ["patches"],
)
APPLY_DIAGNOSTIC_FIX_INPUT: Final = closed(
    {
        "transactionId": _TRANSACTION_ID,
        "confirm": {"type": "boolean", "description": "true to write; false refuses."},
        "baselineCheckId": _id("checkId to compare the post-apply check with."),
    },
    ["transactionId", "confirm"],
)
DISCARD_DIAGNOSTIC_FIX_INPUT: Final = closed({"transactionId": _TRANSACTION_ID}, ["transactionId"])
SUGGEST_FIX_INPUT: Final = closed(
    {
        "checkId": _CHECK_ID,
        "issueIds": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS},
            "minItems": 1,
            "maxItems": 1000,
            "description": "issueIds of that check (or give clusterId).",
        },
        "clusterId": _id("A clusterId of that check."),
    },
    ["checkId"],
)

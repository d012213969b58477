"""Input JSON schemas of the MCP tools, and the helpers output schemas share.

Input schemas are the single source of truth for argument checking:
`arguments.validate` enforces exactly what is advertised (closed objects,
types, bounds), so a client that honours the schema is never refused and one
that does not gets an error naming the field.

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

Schema = dict[str, Any]

MAX_PATHS: Final = 10_000
MAX_PATH_CHARS: Final = 4096
MAX_ID_CHARS: Final = 200

SEVERITY: Final[Schema] = {"type": "string", "enum": ["error", "warning"]}


def closed(properties: dict[str, Schema], required: list[str]) -> Schema:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


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


_CHECK_ID = _id("checkId returned by an earlier check in this server session.")
_FILES = _path_array("Project-relative paths of the files to check (e.g. src/app.ts).")

INPUTS: Final[dict[str, Schema]] = {
    "ping": closed({}, []),
    "check_project": closed(
        {"paths": _path_array('Project-relative files or directories; default ["."].')}, []
    ),
    "check_files": closed({"files": _FILES}, ["files"]),
    "get_issue_detail": closed(
        {
            "checkId": _CHECK_ID,
            "clusterId": _id("A clusterId from that check (give this or issueId)."),
            "issueId": _id("An issueId (or its short prefix) from that check."),
        },
        ["checkId"],
    ),
    "get_diagnostic_snapshot": closed({"checkId": _CHECK_ID}, ["checkId"]),
    "compare_diagnostics": closed(
        {
            "baselineCheckId": _id("checkId of the earlier (baseline) check."),
            "currentCheckId": _id("checkId of the later check."),
        },
        ["baselineCheckId", "currentCheckId"],
    ),
    "after_edit_check": closed(
        {
            "files": _FILES,
            "baselineCheckId": _id("checkId of the check made before the edit (optional)."),
        },
        ["files"],
    ),
    "get_loop_status": closed({}, []),
    "list_issues": closed(
        {
            "checkId": _CHECK_ID,
            "cursor": _id("nextCursor from the previous page of the same listing."),
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
                "description": "Only issues in this file or directory.",
            },
            "rule": _id("Only issues of this rule (exact, e.g. TS2322)."),
            "severity": {**SEVERITY, "description": "Only errors or only warnings."},
            "engine": _id("Only issues from this engine (oxlint, tsc, biome, eslint)."),
        },
        ["checkId"],
    ),
}

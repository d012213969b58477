"""The tool catalog: names, descriptions for a model, annotations, output schemas.

Descriptions are read by a model deciding what to call: each says what the
tool is for, when to call it, what comes back and which ids to keep.

Annotations: only apply_diagnostic_fix edits source files (destructive,
not idempotent); preview, suggest and discard change in-memory state.
Checks are read-only for source but not idempotent, since each one records
a snapshot and session history (loop detection counts repeated checks);
lookups change nothing. The live tools ingest_diagnostics and clear_live
change the server's live buffer (not read-only, not destructive: no source
file); clearing twice is clearing once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from signalint.server import live_schemas, outputs
from signalint.server.schemas import Schema


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    # compact keys on? -> advertised output schema
    output_schema: Callable[[bool], Schema]
    read_only: bool = True
    idempotent: bool = True
    destructive: bool = False


def _fixed(schema: Schema) -> Callable[[bool], Schema]:
    return lambda _compact: schema


def _check(compact: bool) -> Schema:
    return outputs.check_output(compact=compact)


def _after_edit(compact: bool) -> Schema:
    return outputs.after_edit_output(compact=compact)


_CHECK_RESULT = (
    "Returns status, engines (an engine not ok checked nothing), totalIssues, ranked clusters "
    "(priority 1 first), up to 100 flat issues and a checkId for the other tools."
)

_SPECS: Final = (
    ToolSpec(
        "ping",
        "Ping",
        "Confirm the connection and which project root this server checks.",
        _fixed(outputs.PING_OUTPUT),
    ),
    ToolSpec(
        "check_project",
        "Check project",
        "Run the project's configured linters and type checkers on the whole project or on "
        "`paths`: a baseline before editing, or to confirm a fix. " + _CHECK_RESULT,
        _check,
        idempotent=False,
    ),
    ToolSpec(
        "check_files",
        "Check files",
        "Check edited `files`: only their diagnostics are returned (tsc still compiles the "
        "whole program; filteredOutIssueCount counts the rest). " + _CHECK_RESULT,
        _check,
        idempotent=False,
    ),
    ToolSpec(
        "get_issue_detail",
        "Get issue detail",
        "Full detail (position, full message, docs URL, help) of the issues behind one "
        "clusterId or issueId of the check `checkId`.",
        _fixed(outputs.DETAIL_OUTPUT),
    ),
    ToolSpec(
        "get_diagnostic_snapshot",
        "Get diagnostic snapshot",
        "Re-read a retained check by checkId without running engines: time, targets, status, "
        "engines, clusters, first 100 issues.",
        _fixed(outputs.SNAPSHOT_OUTPUT),
    ),
    ToolSpec(
        "compare_diagnostics",
        "Compare diagnostics",
        "Compare two retained checks: issues introduced and resolved (listed), and counts of "
        "those one check could not observe (other files, engine not ok), never called "
        "resolved. coverageComplete: the second check looked everywhere the first did.",
        _fixed(outputs.DELTA_OUTPUT),
    ),
    ToolSpec(
        "after_edit_check",
        "Check after edit",
        "After an edit: check_files on the changed `files` plus, given baselineCheckId, "
        "`delta` against that check as in compare_diagnostics. Fix anything introduced.",
        _after_edit,
        idempotent=False,
    ),
    ToolSpec(
        "get_loop_status",
        "Get loop status",
        "Whether the session goes round in circles: issues fixed that came back twice "
        "(looping), rules that left a file and came back twice (fileChurning); only issues "
        "still present. If so, change approach.",
        _fixed(outputs.LOOP_STATUS_OUTPUT),
    ),
    ToolSpec(
        "list_issues",
        "List issues",
        "Page through every issue of a retained check with full detail, optionally filtered. "
        "Pass nextCursor back as cursor with the same filters.",
        _fixed(outputs.LIST_OUTPUT),
    ),
)

# Live and external diagnostics (D8): server/live_tools.py handles them.
_LIVE_SPECS: Final = (
    ToolSpec(
        "ingest_diagnostics",
        "Ingest diagnostics",
        "Give diagnostics from a language server (LSP-shaped) or a tool's raw output (format "
        "+ report). A batch replaces its source's diagnostics for each file it names; a file "
        "named with none is cleared. Returns the batch's summary and snapshotId (a checkId). "
        "Bounds are in the schema; a request over the server's limit (32 MiB by default) is "
        "refused: split it.",
        _fixed(live_schemas.INGEST_OUTPUT),
        read_only=False,
        idempotent=False,
    ),
    ToolSpec(
        "get_live_diagnostics",
        "Get live diagnostics",
        "Current diagnostics: each file's newest check merged with what each live source "
        "last reported (newer information wins; one problem reported by two sources "
        "appears once). Every issue in full plus clusters; filter by files and severity.",
        _fixed(live_schemas.LIVE_OUTPUT),
    ),
    ToolSpec(
        "clear_live",
        "Clear live diagnostics",
        "Forget ingested diagnostics: of one source (either name a batch was sent with, its "
        "source or its serverName) and/or files; everything without arguments. Says how many "
        "diagnostics and sets (per file per source) it removed.",
        _fixed(live_schemas.CLEAR_OUTPUT),
        read_only=False,
    ),
)

_FIX_SPECS: Final = (
    ToolSpec(
        "preview_diagnostic_fix",
        "Preview diagnostic fix",
        "Stage full-file replacements (patches: file, originalContent = the file's current "
        'text or "" for a new file, patchedContent). Writes nothing. Returns transactionId, '
        "a unified diff per file and, with verify: true, the issues the patch would introduce "
        "or resolve (checked on a shadow copy). Kept 15 minutes, newest 20. A request over "
        "the server's limit (32 MiB by default) is refused.",
        _fixed(outputs.PREVIEW_OUTPUT),
        read_only=False,
        idempotent=False,
    ),
    ToolSpec(
        "apply_diagnostic_fix",
        "Apply diagnostic fix",
        "Write a previewed transaction (confirm: true) all-or-nothing, even across a crash; "
        "refused with file_drift_detected if a file changed since the preview. Then checks "
        "the files: postCheckId, and delta against baselineCheckId if given.",
        _fixed(outputs.APPLY_OUTPUT),
        read_only=False,
        idempotent=False,
        destructive=True,
    ),
    ToolSpec(
        "discard_diagnostic_fix",
        "Discard diagnostic fix",
        "Drop a staged preview ({transactionId, discarded}). Does not undo an applied fix.",
        _fixed(outputs.DISCARD_OUTPUT),
        read_only=False,
    ),
    ToolSpec(
        "suggest_fix",
        "Suggest fix",
        "Turn the engines' own safe fixes (ESLint, Oxlint, Biome, Ruff) for a clusterId or "
        "issueIds of checkId into one preview transaction (same answer as "
        "preview_diagnostic_fix, whole files of those issues); apply it with "
        "apply_diagnostic_fix.",
        _fixed(outputs.SUGGEST_OUTPUT),
        read_only=False,
        idempotent=False,
    ),
)

TOOLS: Final[dict[str, ToolSpec]] = {
    spec.name: spec for spec in (*_SPECS, *_LIVE_SPECS, *_FIX_SPECS)
}

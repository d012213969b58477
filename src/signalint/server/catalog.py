"""The tool catalog: one `Tool` declaration per MCP tool, the only tool table.

Each declares the name, the description for a model, the input and output
schemas (`schemas`, `outputs`), the annotations and the handler.

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

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

from signalint.server import live_schemas, outputs, schemas
from signalint.server.schemas import Schema

if TYPE_CHECKING:
    from signalint.server.check_tools import SendProgress
    from signalint.server.payload import Reply
    from signalint.server.state import ServerState

Handler = Callable[["ServerState", dict[str, Any], "SendProgress"], Awaitable["Reply"]]


@dataclass(frozen=True, slots=True)
class Tool:
    """One MCP tool, declared once: `tools/list` and `tools/call` both read it.

    `handler` is "module.function" under `signalint.server` (e.g.
    "tools.ping"): the module is imported at the tool's first call, so
    listing the tools loads no handler and no check pipeline.
    """

    name: str
    title: str
    description: str
    input_schema: Schema
    # compact keys on? -> advertised output schema
    output_schema: Callable[[bool], Schema]
    handler: str
    read_only: bool = True
    idempotent: bool = True
    destructive: bool = False

    def handle(self) -> Handler:
        """The handler function, its module imported on first use."""
        module, function = self.handler.rsplit(".", 1)
        found = getattr(importlib.import_module(f"signalint.server.{module}"), function)
        return cast(Handler, found)


def _fixed(schema: Schema) -> Callable[[bool], Schema]:
    return lambda _compact: schema


def _check(compact: bool) -> Schema:
    return outputs.check_output(compact=compact)


def _files(compact: bool) -> Schema:
    return outputs.files_output(compact=compact)


def _after_edit(compact: bool) -> Schema:
    return outputs.after_edit_output(compact=compact)


_CHECK_RESULT = (
    "Returns status, engines (an engine not ok checked nothing), totalIssues, ranked clusters "
    "(priority 1 first), up to 100 flat issues and a checkId for the other tools."
)

_CHECK_TOOLS: Final = (
    Tool(
        "ping",
        "Ping",
        "Confirm the connection and which project root this server checks.",
        schemas.PING_INPUT,
        _fixed(outputs.PING_OUTPUT),
        "tools.ping",
    ),
    Tool(
        "check_project",
        "Check project",
        "Run the project's configured linters and type checkers on the whole project or on "
        "`paths`: a baseline before editing, or to confirm a fix. " + _CHECK_RESULT,
        schemas.CHECK_PROJECT_INPUT,
        _check,
        "tools.check_project",
        idempotent=False,
    ),
    Tool(
        "check_files",
        "Check files",
        "Check edited `files`: their diagnostics only (tsc compiles the whole program: "
        "filteredOutIssueCount counts the rest, `dependents` what the edit broke). "
        + _CHECK_RESULT,
        schemas.CHECK_FILES_INPUT,
        _files,
        "tools.check_files",
        idempotent=False,
    ),
    Tool(
        "get_issue_detail",
        "Get issue detail",
        "Full detail (position, full message, docs URL, help) of the issues behind one "
        "clusterId or issueId of the check `checkId`.",
        schemas.GET_ISSUE_DETAIL_INPUT,
        _fixed(outputs.DETAIL_OUTPUT),
        "tools.get_issue_detail",
    ),
    Tool(
        "get_diagnostic_snapshot",
        "Get diagnostic snapshot",
        "Re-read a retained check by checkId without running engines: time, targets, status, "
        "engines, clusters, first 100 issues.",
        schemas.GET_DIAGNOSTIC_SNAPSHOT_INPUT,
        _fixed(outputs.SNAPSHOT_OUTPUT),
        "tools.get_diagnostic_snapshot",
    ),
    Tool(
        "compare_diagnostics",
        "Compare diagnostics",
        "Compare two retained checks: issues introduced and resolved (listed), and counts of "
        "those one check could not observe (other files, engine not ok), never called "
        "resolved. coverageComplete: the second check looked everywhere the first did.",
        schemas.COMPARE_DIAGNOSTICS_INPUT,
        _fixed(outputs.DELTA_OUTPUT),
        "tools.compare_diagnostics",
    ),
    Tool(
        "after_edit_check",
        "Check after edit",
        "After an edit: check_files of the changed `files`, plus `delta` against "
        "baselineCheckId as in compare_diagnostics; errors it broke elsewhere count in both. "
        "Fix anything introduced.",
        schemas.AFTER_EDIT_CHECK_INPUT,
        _after_edit,
        "tools.after_edit_check",
        idempotent=False,
    ),
    Tool(
        "get_loop_status",
        "Get loop status",
        "Whether the session goes round in circles: issues fixed that came back twice "
        "(looping), rules that left a file and came back twice (fileChurning); only issues "
        "still present. If so, change approach.",
        schemas.GET_LOOP_STATUS_INPUT,
        _fixed(outputs.LOOP_STATUS_OUTPUT),
        "tools.get_loop_status",
    ),
    Tool(
        "list_issues",
        "List issues",
        "Page through every issue of a retained check with full detail, optionally filtered. "
        "Pass nextCursor back as cursor with the same filters.",
        schemas.LIST_ISSUES_INPUT,
        _fixed(outputs.LIST_OUTPUT),
        "tools.list_issues",
    ),
)

# Live and external diagnostics (D8): handled in server/live_tools.py.
_LIVE_TOOLS: Final = (
    Tool(
        "ingest_diagnostics",
        "Ingest diagnostics",
        "Give diagnostics from a language server (LSP-shaped) or a tool's raw output (format "
        "+ report). A batch replaces its source's diagnostics for each file it names; a file "
        "named with none is cleared. Returns the batch's summary and snapshotId (a checkId). "
        "Bounds are in the schema; a request over the server's limit (32 MiB by default) is "
        "refused: split it.",
        schemas.INGEST_DIAGNOSTICS_INPUT,
        _fixed(live_schemas.INGEST_OUTPUT),
        "live_tools.ingest_diagnostics",
        read_only=False,
        idempotent=False,
    ),
    Tool(
        "get_live_diagnostics",
        "Get live diagnostics",
        "Current diagnostics: each file's newest check merged with what each live source "
        "last reported (newer information wins; one problem reported by two sources "
        "appears once). Every issue in full plus clusters; filter by files and severity.",
        schemas.GET_LIVE_DIAGNOSTICS_INPUT,
        _fixed(live_schemas.LIVE_OUTPUT),
        "live_tools.get_live_diagnostics",
    ),
    Tool(
        "clear_live",
        "Clear live diagnostics",
        "Forget ingested diagnostics: of one source (either name a batch was sent with, its "
        "source or its serverName) and/or files; everything without arguments. Says how many "
        "diagnostics and sets (per file per source) it removed.",
        schemas.CLEAR_LIVE_INPUT,
        _fixed(live_schemas.CLEAR_OUTPUT),
        "live_tools.clear_live",
        read_only=False,
    ),
)

_FIX_TOOLS: Final = (
    Tool(
        "preview_diagnostic_fix",
        "Preview diagnostic fix",
        "Stage full-file replacements (patches: file, originalContent = the file's current "
        'text or "" for a new file, patchedContent). Writes nothing. Returns transactionId, '
        "a unified diff per file and, with verify: true, the issues the patch would introduce "
        "or resolve (checked on a shadow copy). Kept 15 minutes, newest 20. A request over "
        "the server's limit (32 MiB by default) is refused.",
        schemas.PREVIEW_DIAGNOSTIC_FIX_INPUT,
        _fixed(outputs.PREVIEW_OUTPUT),
        "fix_tools.preview_diagnostic_fix",
        read_only=False,
        idempotent=False,
    ),
    Tool(
        "apply_diagnostic_fix",
        "Apply diagnostic fix",
        "Write a previewed transaction (confirm: true) all-or-nothing, even across a crash; "
        "refused with file_drift_detected if a file changed since the preview. Then checks "
        "the files: postCheckId, and delta against baselineCheckId if given.",
        schemas.APPLY_DIAGNOSTIC_FIX_INPUT,
        _fixed(outputs.APPLY_OUTPUT),
        "fix_tools.apply_diagnostic_fix",
        read_only=False,
        idempotent=False,
        destructive=True,
    ),
    Tool(
        "discard_diagnostic_fix",
        "Discard diagnostic fix",
        "Drop a staged preview ({transactionId, discarded}). Does not undo an applied fix.",
        schemas.DISCARD_DIAGNOSTIC_FIX_INPUT,
        _fixed(outputs.DISCARD_OUTPUT),
        "fix_tools.discard_diagnostic_fix",
        read_only=False,
    ),
    Tool(
        "suggest_fix",
        "Suggest fix",
        "Turn the engines' own safe fixes (ESLint, Oxlint, Biome, Ruff) for a clusterId or "
        "issueIds of checkId into one preview transaction (same answer as "
        "preview_diagnostic_fix, whole files of those issues); apply it with "
        "apply_diagnostic_fix.",
        schemas.SUGGEST_FIX_INPUT,
        _fixed(outputs.SUGGEST_OUTPUT),
        "fix_tools.suggest_fix",
        read_only=False,
        idempotent=False,
    ),
)

TOOLS: Final[dict[str, Tool]] = {
    tool.name: tool for tool in (*_CHECK_TOOLS, *_LIVE_TOOLS, *_FIX_TOOLS)
}
"""Every tool by name, in `tools/list` order."""

INPUTS: Final[dict[str, Schema]] = {name: tool.input_schema for name, tool in TOOLS.items()}
"""Each tool's input schema by name (derived from `TOOLS`)."""

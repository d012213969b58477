"""The tool catalog: names, descriptions for a model, annotations, output schemas.

Descriptions are read by a model deciding what to call: each says what the
tool is for, when to call it, what comes back and which ids to keep.

Annotations: no tool edits source files. Checks are read-only for source
but not idempotent, since each one records a snapshot and session history
(loop detection counts repeated checks); lookups change nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from signalint.server import outputs
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


def _fixed(schema: Schema) -> Callable[[bool], Schema]:
    return lambda _compact: schema


def _check(compact: bool) -> Schema:
    return outputs.check_output(compact=compact)


def _after_edit(compact: bool) -> Schema:
    return outputs.after_edit_output(compact=compact)


_CHECK_RESULT = (
    "Returns schema 1.4: status (clean | issues_found | error), engines (each ok, error or "
    "disabled: read it, an engine that failed checked nothing), totalIssues, up to 10 "
    "ranked clusters (priority 1 is most urgent), up to 100 remainingIssues, and a "
    "checkId. Keep the checkId: get_issue_detail, list_issues and after_edit_check need it."
)

_SPECS: Final = (
    ToolSpec(
        "ping",
        "Ping",
        "Check the connection and see which project this server checks. Returns the text "
        "'pong' and {pong: true, projectRoot}. Call it first and verify projectRoot is the "
        "repository you are editing.",
        _fixed(outputs.PING_OUTPUT),
    ),
    ToolSpec(
        "check_project",
        "Check project",
        "Run the project's own linters and type checkers (oxlint, tsc, biome, eslint, as "
        "configured) over the whole project, or over `paths` (project-relative files or "
        "directories). Use it for a baseline before editing and to confirm a fix "
        "project-wide. Does not edit files. " + _CHECK_RESULT,
        _check,
        idempotent=False,
    ),
    ToolSpec(
        "check_files",
        "Check files",
        "Check specific files after editing them. Engines run as configured (TypeScript "
        "still compiles its whole program) and the answer keeps only diagnostics in "
        "`files`; filteredOutIssueCount counts the ones elsewhere and nextStep says when "
        "to run check_project. " + _CHECK_RESULT,
        _check,
        idempotent=False,
    ),
    ToolSpec(
        "get_issue_detail",
        "Get issue detail",
        "Full detail of the issues behind a clusterId or an issueId (a short id from a "
        "check is fine) from the check named by checkId: file, line and column, end "
        "position, engine, rule, the full untruncated message, docs URL and help. Give "
        "checkId and exactly one of clusterId or issueId. Returns {issues: [...]}.",
        _fixed(outputs.DETAIL_OUTPUT),
    ),
    ToolSpec(
        "get_diagnostic_snapshot",
        "Get diagnostic snapshot",
        "Re-read a retained check by checkId without running engines: when and over which "
        "targets it ran, status, engines, clusters and the first 100 flat issues. Use "
        "list_issues to see every issue. Checks are kept for 30 minutes (50 at most).",
        _fixed(outputs.SNAPSHOT_OUTPUT),
    ),
    ToolSpec(
        "compare_diagnostics",
        "Compare diagnostics",
        "Compare two retained checks (baselineCheckId before, currentCheckId after): issues "
        "introduced, resolved, and unobserved (outside the current check's files or from an "
        "engine that did not run ok, so not known to be resolved), with error counts, "
        "netDelta and coverageComplete. Trust 'resolved' only where coverage was complete.",
        _fixed(outputs.DELTA_OUTPUT),
    ),
    ToolSpec(
        "after_edit_check",
        "Check after edit",
        "After editing, check the changed `files` and, given the baselineCheckId of the check "
        "made before the edit, compare against it in `delta` (introduced, resolved, "
        "unobserved, errorsIntroduced, errorsResolved, netDelta, nextStep). Fix anything "
        "introduced before moving on. " + _CHECK_RESULT,
        _after_edit,
        idempotent=False,
    ),
    ToolSpec(
        "get_loop_status",
        "Get loop status",
        "Whether this session is going round in circles: issues that were fixed and came "
        "back at least twice (looping), and rules that left a file and came back, three "
        "appearances in all (fileChurning). Only issues still present are listed. If either "
        "is true, change approach instead of repeating the same edit.",
        _fixed(outputs.LOOP_STATUS_OUTPUT),
    ),
    ToolSpec(
        "list_issues",
        "List issues",
        "Page through every issue of a retained check (checkId), including those the check "
        "summary left out, with full detail. Filter by file (a file or directory), rule, "
        "severity or engine; limit is 1-500 (default 100). Pass nextCursor back as cursor "
        "for the next page, with the same filters.",
        _fixed(outputs.LIST_OUTPUT),
    ),
)

TOOLS: Final[dict[str, ToolSpec]] = {spec.name: spec for spec in _SPECS}

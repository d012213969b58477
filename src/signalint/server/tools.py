"""Tool handlers: validated arguments in, a transport-neutral `Reply` out.

Handlers raise `ToolRefusal` for anything the caller should correct (bad
arguments, refused paths, unknown or expired ids); `app` turns it into an
`isError: true` result. Summaries (the human sentence of `structured` mode)
are always written from full-key payloads, so they read the right counts
whether or not compact keys are on (D16).
"""

from __future__ import annotations

from typing import Any, Final

from signalint.payloads import CheckPayload, Delta, DetailAnswer, Pong
from signalint.server import check_tools as checking
from signalint.server.catalog import Tool
from signalint.server.check_tools import SendProgress
from signalint.server.payload import Reply
from signalint.server.refusals import ToolRefusal, field_refusal, refusal, stale
from signalint.server.state import ServerState
from signalint.server.words import tool_words
from signalint.wording import count, them

DETAIL_LIMIT: Final = 100
# Dependents shown in a file check's answer; the rest are counted, with the
# step that lists them (the answer's 2 KB budget).
DEPENDENTS_SHOWN: Final = 3


def check_summary(full: CheckPayload) -> str:
    """One sentence about a full-key check payload."""
    total = int(full["totalIssues"])
    bad = [f"{n} {e['status']}" for n, e in full["engines"].items() if e["status"] != "ok"]
    if full["status"] == "clean":
        text = "Clean: no issues found."
    else:
        shown = len(full["remainingIssues"])
        text = (
            f"{count(total, 'issue')} found: {count(len(full['clusters']), 'cluster')}, "
            f"{shown} listed individually"
        )
        if full["omittedIssueCount"]:
            text += f", {full['omittedIssueCount']} more not listed"
        text += "."
        if full["status"] == "error":
            text = "Check incomplete (engine failure). " + text
    if bad:
        text += " Engines not ok: " + ", ".join(bad) + "."
    if full.get("filteredOutIssueCount"):
        text += f" {full['filteredOutIssueCount']} outside the requested files filtered out."
    found = full.get("baseline")
    if found is not None:
        text += (
            f" Only new since {found['rev']}: {found['new']} new, "
            f"{found['unchanged']} unchanged not listed."
        )
        fallback = found.get("fallback")
        if isinstance(fallback, list) and fallback:
            names = ", ".join(str(f["engine"]) for f in fallback)
            text += f" Failed at {found['rev']}, new only on changed lines: {names}."
    return text


async def ping(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    pong: Pong = {"pong": True, "projectRoot": str(state.root)}
    return Reply(pong, "pong", literal="pong")


async def check_project(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    select = checking.selection(args, "paths")
    answer = await checking.run(
        state, args.get("paths", ["."]), field="paths", kind="project", send=send, select=select
    )
    return Reply(answer.wire, check_summary(answer.full))


async def check_files(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    select = checking.selection(args, "files")
    answer = await checking.run(
        state, args["files"], field="files", kind="files", send=send, select=select
    )
    wire, summary = _with_ripple(state, answer)
    return Reply(wire, summary)


async def after_edit_check(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    from signalint.features.delta import Elsewhere, compare

    answer = await checking.run(state, args["files"], field="files", kind="files", send=send)
    wire, summary = _with_ripple(state, answer)
    baseline_id = args.get("baselineCheckId")
    if baseline_id is None:
        return Reply(wire, summary)
    baseline = state.snapshot(baseline_id)
    if baseline is None:
        # The new check still stands; only the comparison is stale (reference).
        wire["delta"] = stale("baselineCheckId", "The baseline check is not retained").data
        return Reply(wire, summary + " Delta: baseline unknown or expired.")
    # The dependents block keeps the detail of other files' errors, and the
    # answer's nextStep the step listing them: the delta counts them and
    # lists none (the answer's 2 KB budget).
    elsewhere = None if not answer.ripple else Elsewhere(answer.ripple, "", 0)
    delta = compare(
        baseline, answer.snapshot, summarize=True, words=tool_words, elsewhere=elsewhere
    )
    wire["delta"] = delta
    return Reply(wire, summary + " " + _delta_summary(delta))


def _with_ripple(state: ServerState, answer: checking.CheckAnswer) -> tuple[dict[str, Any], str]:
    """A file check's wire payload and summary, told what its edit did to the
    files that depend on the checked ones (`ripple`): errors it broke or
    moved there make the status `issues_found` (a file check never calls
    clean an edit that broke another file) and come first in `nextStep`
    and the summary, named by file; `dependents` has the detail."""
    from signalint.pipeline.report import compact_keys
    from signalint.pipeline.ripple import block, told

    ripple = answer.ripple
    summary = check_summary(answer.full)
    if not ripple:
        return dict(answer.wire), summary
    check_id = "" if answer.dependents is None else answer.dependents.check_id
    said = told(ripple, check_id, tool_words)
    full: dict[str, Any] = dict(answer.full)
    if ripple.now and full["status"] == "clean":
        full["status"] = "issues_found"
    full["nextStep"] = said + (" " + full["nextStep"] if full["nextStep"] else "")
    full["dependents"] = block(ripple, answer.dependents, DEPENDENTS_SHOWN, tool_words)
    wire = compact_keys(full) if state.compact else full
    if ripple.now and summary.startswith("Clean"):
        summary = "Not clean: the checked files have no issues; the other files above do."
    return wire, said + " " + summary


def _delta_summary(delta: Delta) -> str:
    counts = delta["counts"]
    return (
        f"Delta: {counts['introduced']} introduced, {counts['resolved']} resolved, "
        f"{counts['unobserved']} unobserved (errors +{delta['errorsIntroduced']} "
        f"-{delta['errorsResolved']})."
    )


async def get_issue_detail(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    from signalint.pipeline.snapshot import find_references

    cluster_id, issue_id = args.get("clusterId"), args.get("issueId")
    if (cluster_id is None) == (issue_id is None):
        raise field_refusal("clusterId", "give exactly one of clusterId or issueId")
    snap = state.retained(args["checkId"])
    found = find_references(snap, cluster_id=cluster_id, issue_id=issue_id)
    if not found:
        field = "clusterId" if cluster_id is not None else "issueId"
        what = f"{field} {str(cluster_id or issue_id)[:40]!r} matches nothing in that check"
        raise stale(field, what[0].upper() + what[1:])
    issues = [snap.detail(issue) for issue in found[:DETAIL_LIMIT]]
    data: DetailAnswer = {"issues": issues}
    if len(found) > DETAIL_LIMIT:
        data["total"] = len(found)
        data["nextStep"] = (
            f"{count(len(found) - DETAIL_LIMIT, 'more issue', 'matches')}; page through "
            f"{them(len(found) - DETAIL_LIMIT)} with list_issues "
            f'(checkId "{snap.check_id}", rule "{found[0].rule}").'
        )
    summary = f"{count(len(found), 'matching issue')}; showing {len(issues)}."
    return Reply(data, summary, text_data=issues)


async def get_diagnostic_snapshot(
    state: ServerState, args: dict[str, Any], send: SendProgress
) -> Reply:
    from signalint.features.snapshot_query import snapshot_summary

    summary = snapshot_summary(state.retained(args["checkId"]), tool_words)
    text = f"Snapshot {summary['checkId']} ({summary['source']}): {summary['status']}, "
    text += f"{count(int(summary['totalIssues']), 'issue')}."
    return Reply(summary, text)


async def compare_diagnostics(
    state: ServerState, args: dict[str, Any], send: SendProgress
) -> Reply:
    from signalint.features.delta import compare

    baseline = state.retained(args["baselineCheckId"], "baselineCheckId")
    current = state.retained(args["currentCheckId"], "currentCheckId")
    delta = compare(baseline, current, summarize=True, words=tool_words)
    return Reply(delta, _delta_summary(delta))


async def get_loop_status(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    status = state.history.status()
    loops = status.get("loopingSignatureCount", len(status["signatures"]))
    churns = status.get("fileRuleChurnCount", len(status["fileRuleChurns"]))
    text = (
        f"{count(loops, 'looping signature')}, "
        f"{count(churns, 'churning file/rule pair')} "
        f"over {count(status['checksObserved'], 'check')}."
    )
    return Reply(status, text)


async def list_issues(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    from signalint.features.snapshot_query import CursorError, IssueFilter
    from signalint.features.snapshot_query import list_issues as page

    snap = state.retained(args["checkId"])
    try:
        data = page(
            snap,
            cursor=args.get("cursor"),
            limit=args.get("limit", 100),
            where=IssueFilter(
                args.get("file"), args.get("rule"), args.get("severity"), args.get("engine")
            ),
        )
    except CursorError as exc:
        raise field_refusal("cursor", str(exc)) from exc
    shown = len(data["issues"])
    text = f"{shown} of {count(data['total'], 'matching issue')}"
    text += "; more with nextCursor." if "nextCursor" in data else "."
    return Reply(data, text)


async def call(tool: Tool, state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    """Run `tool` (arguments already validated); refusals become error replies."""
    try:
        return await tool.handle()(state, args, send)
    except ToolRefusal as exc:
        return Reply(exc.data, exc.summary, error=True)


__all__ = ["call", "check_summary", "refusal"]

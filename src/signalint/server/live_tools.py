"""Handlers of the live tools: ingest_diagnostics, get_live_diagnostics, clear_live (D8).

A batch is validated whole (`signalint.ingest`) before anything changes:
a refused batch leaves the buffer and the snapshots as they were. Each
accepted batch is retained as a snapshot of kind "lsp" whose `checkId` is
the answer's `snapshotId`, so get_issue_detail, list_issues and
compare_diagnostics work on it.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Final

from signalint.features.live import CapacityError, Layer, batch_snapshot, view
from signalint.ingest import Batch, ReportError, parse_report
from signalint.ingest import lsp_batch as lsp_format
from signalint.ingest.places import Places
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import cluster_entry, flat_entry, issue_detail
from signalint.server.check_tools import SendProgress
from signalint.server.live_schemas import (
    ClearAnswer,
    EvictedSet,
    IngestAnswer,
    LiveAnswer,
)
from signalint.server.payload import Reply
from signalint.server.refusals import field_refusal
from signalint.server.state import ServerState
from signalint.wording import count as _plural

# Evicted sets named in one answer; the count covers them all.
EVICTED_LISTED: Final = 20
# Retained checks the live view reads at most (file checks after a project check).
MAX_LAYERS: Final = 20


def _label(args: dict[str, Any]) -> str | None:
    if "source" not in args and "serverName" not in args:
        return None
    return lsp_format.source_label(args.get("source"), args.get("serverName"))


def _relabel(batch: Batch, label: str | None) -> Batch:
    if label is None or label == batch.source:
        return batch
    issues = tuple(dataclasses.replace(issue, engine=label) for issue in batch.issues)
    return Batch(label, issues, batch.files)


def _given_names(args: dict[str, Any]) -> list[str]:
    """The cleaned `source` and `serverName` of a call; a name that cleans to nothing is refused."""
    names = []
    for key in ("source", "serverName"):
        if key in args:
            name = lsp_format.clean_name(args[key])
            if name is None:
                raise field_refusal(key, "expected a name with a letter, digit or one of ._@/+-")
            names.append(name)
    return names


def read_batch(
    root: Path, args: dict[str, Any], memo: lsp_format.Memo | None = None
) -> tuple[Batch, tuple[str, ...]]:
    """The batch of an ingest_diagnostics call and every name it was sent with.

    The names are the batch's source, the `source` and `serverName` given,
    and otherwise the default source ("lsp", or a report's tool), so that
    clear_live by any of them finds it. `ReportError` names the field at fault.
    """
    label = _label(args)
    given = _given_names(args)
    if "report" in args:
        if "diagnostics" in args:
            raise ReportError("report", "give diagnostics or a report with its format, not both")
        if "format" not in args:
            raise ReportError("format", "a report needs its format")
        try:
            batch = parse_report(args["format"], args["report"], root)
        except ReportError as exc:
            raise ReportError("report", str(exc)) from exc
        tool = batch.source
        batch = _relabel(batch, label)
        extra = lsp_format.parse([], root, label=batch.source, files=args.get("files", ()))
        files = tuple(dict.fromkeys(batch.files + extra.files))
        default = [] if "source" in args else [tool]
        return Batch(batch.source, batch.issues, files), (batch.source, *given, *default)
    if "format" in args:
        raise ReportError("report", "format names the format of a report; give the report")
    if "diagnostics" not in args and "files" not in args:
        raise ReportError("diagnostics", "this argument is required (or format with report)")
    batch = lsp_format.parse(
        args.get("diagnostics", []),
        root,
        label=label or lsp_format.DEFAULT_SOURCE,
        files=args.get("files", ()),
        memo=memo,
    )
    default = [] if "source" in args else ["lsp"]
    return batch, (batch.source, *given, *default)


async def ingest_diagnostics(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    try:
        batch, names = read_batch(state.root, args, state.live.memo)
    except ReportError as exc:
        field = exc.where.split(":", 1)[0] if exc.where else "diagnostics"
        raise field_refusal(field, exc.message) from exc
    try:
        applied = state.live.apply(batch, names)
    except CapacityError as exc:
        raise field_refusal("diagnostics", str(exc), "batch_too_large") from exc
    snap = batch_snapshot(batch, str(state.root))
    state.live_snapshots.put(snap)
    clustering = snap.clustering
    data: IngestAnswer = {
        "snapshotId": snap.check_id,
        "checkId": snap.check_id,
        "source": batch.source,
        "status": "issues_found" if snap.result.issues else "clean",
        "totalIssues": clustering.total,
        "clusters": [cluster_entry(item) for item in clustering.clusters],
        "remainingIssues": [flat_entry(record) for record in clustering.flat],
        "omittedIssueCount": clustering.omitted,
        "filesReplaced": len(applied.replaced),
        "filesCleared": len(applied.cleared),
        "bufferedIssues": applied.size,
        "bufferCapacity": applied.capacity,
    }
    text = (
        f"{batch.source}: {_plural(clustering.total, 'issue')} in "
        f"{_plural(len(applied.replaced), 'file')}, {len(applied.cleared)} cleared; "
        f"{applied.size}/{applied.capacity} buffered."
    )
    if applied.evicted:
        count = applied.evicted_entries
        sets: list[EvictedSet] = [
            {"source": s.source, "file": s.file, "issueCount": len(s.issues)}
            for s in applied.evicted[:EVICTED_LISTED]
        ]
        message = (
            f"The live buffer was full: {_plural(count, 'older diagnostic', 'was evicted')} "
            f"({_plural(len(applied.evicted), 'file set')}, least recently reported first); "
            "re-send those files or raise live.maxEntries."
        )
        data["evicted"] = {"issueCount": count, "sets": sets, "message": message}
        text += " " + message
    if clustering.omitted:
        data["nextStep"] = (
            f"{clustering.omitted} more not listed; call list_issues with checkId "
            f'"{snap.check_id}", or get_live_diagnostics for the merged view.'
        )
    return Reply(data, text)


def _filter_paths(root: Path, args: dict[str, Any]) -> list[str] | None:
    if "files" not in args:
        return None
    places = Places(root)
    try:
        return [
            places.file(path, f"files[{i}]", must_exist=False)
            for i, path in enumerate(args["files"])
        ]
    except ReportError as exc:
        raise field_refusal(exc.where, exc.message, "path_refused") from exc


def _layers(state: ServerState) -> list[Layer]:
    """The retained checks the live view merges, newest first.

    Back to the newest check of the whole project (it speaks for every file
    older checks did), at most `MAX_LAYERS` of them.
    """
    layers: list[Layer] = []
    for snap in state.snapshots.newest():
        layers.append((snap.check_id, snap.result.created_at, snap.scope, snap.result.issues))
        if snap.scope.whole_project or len(layers) == MAX_LAYERS:
            break
    return layers


async def get_live_diagnostics(
    state: ServerState, args: dict[str, Any], send: SendProgress
) -> Reply:
    files = _filter_paths(state.root, args)
    live = view(state.live, _layers(state), files=files, severity=args.get("severity"))
    clustering = cluster(live.issues)
    cluster_of = {i.issue_id: c.cluster_id for c in clustering.clusters for i in c.issues}
    data: LiveAnswer = {
        "status": "issues_found" if live.issues else "clean",
        "totalIssues": clustering.total,
        "clusters": [cluster_entry(item) for item in clustering.clusters],
        "remainingIssues": [flat_entry(record) for record in clustering.flat],
        "omittedIssueCount": clustering.omitted,
        "issues": [
            issue_detail(
                i, clustering.short_ids.get(i.issue_id, i.issue_id), cluster_of.get(i.issue_id)
            )
            for i in live.issues
        ],
        "sources": list(live.sources),
    }
    if live.check_ids:
        data["checkId"] = live.check_ids[0]
    if len(live.check_ids) > 1:
        data["checkIds"] = list(live.check_ids)
    if live.superseded:
        data["supersededIssueCount"] = live.superseded
    if live.merged:
        data["mergedReportCount"] = live.merged
    notes = []
    if not live.check_ids:
        notes.append("No retained check is merged in (run check_project for one).")
    if live.superseded:
        notes.append(
            f"{_plural(live.superseded, 'live diagnostic')} in "
            f"{_plural(len(live.files_superseded), 'file')} left out: a later check "
            f"covered {'that file' if len(live.files_superseded) == 1 else 'those files'} "
            "after the report."
        )
    if notes:
        data["nextStep"] = " ".join(notes)
    text = (
        f"{_plural(clustering.total, 'live issue')} from "
        f"{', '.join(live.sources) or 'no live source'}"
        + (f" and check {live.check_ids[0]}." if live.check_ids else ".")
    )
    return Reply(data, text)


async def clear_live(state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    names = _given_names(args)
    files = _filter_paths(state.root, args)
    cleared = state.live.clear(names, files)
    left = len(state.live)
    data: ClearAnswer = {
        "removed": cleared.issues,
        "removedSets": cleared.sets,
        "bufferedIssues": left,
    }
    text = (
        f"{_plural(cleared.issues, 'live diagnostic')} in {_plural(cleared.sets, 'set')} "
        f"(per file per source) removed; {left} left."
    )
    if not cleared.sets and names and len(state.live):
        held = ", ".join(json.dumps(name) for name in state.live.names()[:20])
        data["nextStep"] = (
            f"No buffered set was sent with {' and '.join(json.dumps(n) for n in names)}; "
            f"the buffered sets answer to {held}."
        )
        text += " " + data["nextStep"]
    return Reply(data, text)

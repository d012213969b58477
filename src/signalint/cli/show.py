"""`signalint show ID`: expand a check id, cluster id or issue id (D19).

Ids come from any front end (`signalint check`, a hook, an MCP server):
every check's snapshot is kept in the state directory, so this command,
run in another process, finds it. A check id shows that check's summary;
a cluster id every issue of the cluster with full detail; an issue id (full
or the short prefix printed in summaries) the issue with full detail: the
whole message, end position, docs URL, help.

Exit codes: 0 found, 2 unknown or expired id (or other usage errors).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

import click

from signalint.cli.project_args import open_project
from signalint.features.snapshot_query import snapshot_summary
from signalint.formats import text
from signalint.formats.commands import command_words
from signalint.formats.text import Line
from signalint.kept.snapshot_store import Found, SnapshotStore, live_snapshot_dir, snapshot_dir
from signalint.model import Issue
from signalint.pipeline.report import Additions
from signalint.pipeline.snapshot import Snapshot
from signalint.settings.config import Config
from signalint.wording import count

FORMATS = ("text", "json")


def _detail_lines(snap: Snapshot, issue: Issue) -> list[Line]:
    """One issue in full: location with end, engines, rule, message, help, docs."""
    where = f"{issue.file}:{issue.line}:{issue.col}"
    if issue.end_line is not None:
        where += f"-{issue.end_line}:{issue.end_col}" if issue.end_col else f"-{issue.end_line}"
    lines: list[Line] = [
        [
            (where, "bold"),
            ("  ", ""),
            (issue.severity, text.SEVERITY_STYLES[issue.severity]),
            (f"  {text.engine_names(issue)}  {issue.rule}", "dim"),
            (f"  [issue {issue.issue_id}]", "dim"),
        ]
    ]
    lines += [[(f"    {raw}", "")] for raw in issue.message.strip().splitlines()]
    if issue.help:
        lines += [[(f"    help: {raw}", "cyan")] for raw in issue.help.strip().splitlines()]
    if issue.docs_url:
        lines.append([(f"    docs: {issue.docs_url}", "cyan")])
    facts = [f"short id {snap.short_id(issue)}"]
    cluster_id = snap.group_of.get(issue.issue_id)
    if cluster_id is not None:
        facts.append(f"cluster {cluster_id}")
    facts.append("fixable by its engine" if issue.fixable else "no automatic fix")
    lines.append([(f"    {'; '.join(facts)}", "dim")])
    return lines


def _check_lines(snap: Snapshot) -> list[Line]:
    kind = f"{snap.kind} check of {', '.join(snap.targets)}"
    header: Line = [(f"Check {snap.check_id} ({kind})", "bold")]
    filtered = snap.reported_filtered_out or 0
    return [header, *text.build_lines(snap.result, snap.clustering, Additions(filtered))]


def _issue_lines(found: Found) -> list[Line]:
    snap = found.snapshot
    if found.kind == "cluster":
        item = next(c for c in snap.groups if c.cluster_id == found.cluster_id)
        lines: list[Line] = [
            [
                (f"Cluster {item.cluster_id}: ", "bold"),
                (f"{item.summary}, priority {item.priority}", ""),
                (f" (check {snap.check_id})", "dim"),
            ]
        ]
        if item.suggested_action:
            lines.append([(item.suggested_action, "cyan")])
    elif len(found.issues) == 1:
        lines = [[(f"Issue in check {snap.check_id}", "bold")]]
    else:
        lines = [
            [
                (f"{len(found.issues)} issues of check {snap.check_id} match", "bold"),
                (" (the id is a prefix of several; give more characters for one)", "dim"),
            ]
        ]
    for issue in found.issues:
        lines.append([])
        lines += _detail_lines(snap, issue)
    return lines


def _json(found: Found) -> Mapping[str, object]:
    snap = found.snapshot
    if found.kind == "check":
        return snapshot_summary(snap, command_words)
    answer: dict[str, Any] = {"checkId": snap.check_id, "kind": found.kind}
    if found.cluster_id is not None:
        answer["clusterId"] = found.cluster_id
    answer["issues"] = [snap.detail(issue) for issue in found.issues]
    return answer


def _find_in(snap: Snapshot, reference: str) -> Found | None:
    from signalint.pipeline.snapshot import find_references

    key = reference.strip().lower()
    if key == snap.check_id.lower():
        return Found("check", snap)
    if any(item.cluster_id == key for item in snap.groups):
        return Found("cluster", snap, key, tuple(find_references(snap, cluster_id=key)))
    matches = find_references(snap, issue_id=key) if key else []
    return Found("issue", snap, None, tuple(matches)) if matches else None


def _minutes(seconds: float) -> str:
    minutes = seconds / 60
    return count(int(minutes), "minute") if minutes.is_integer() else f"{minutes:g} minutes"


def _gone(what: str, config: Config) -> str:
    return (
        f"signalint show: {what} (unknown or expired). Checks are kept for "
        f"{_minutes(config.snapshot_ttl_s)}, the newest {config.snapshot_max} "
        '("snapshots": {"max", "ttlMinutes"} in signalint.config.json); '
        "run `signalint check` for fresh ids."
    )


@click.command()
@click.argument("reference", metavar="ID")
@click.option(
    "--check",
    "check_id",
    metavar="CHECKID",
    help="Look only in this check (an issue or cluster id can appear in several checks; "
    "without --check the newest check that has it is used).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: for people (colour on a terminal); json: a check's schema 1.4 summary "
    "with metadata, or {checkId, kind, clusterId?, issues: [full detail...]}.",
)
def show(reference: str, check_id: str | None, output_format: str) -> int:
    """Expand ID: a check id, a cluster id or an issue id from any check.

    A check id prints that check's summary (text: the same document as
    `signalint check --format text`); a cluster id every issue of the
    cluster in full; an issue id (full, or the short prefix printed in
    summaries) the issue in full: whole message, end position, docs URL and
    help. Ids from `signalint check`, hooks and the MCP server all resolve.
    """
    root, config, _ = open_project(())
    store = SnapshotStore(config.snapshot_max, config.snapshot_ttl_s, directory=snapshot_dir(root))
    # Ingested batches (`signalint ingest`, the MCP server's ingest tool) are kept apart.
    batches = SnapshotStore(
        config.snapshot_max, config.snapshot_ttl_s, directory=live_snapshot_dir(root)
    )
    found: Found | None
    if check_id is not None:
        snap = store.get(check_id.strip()) or batches.get(check_id.strip())
        if snap is None:
            click.echo(_gone(f"no retained check has id {check_id!r}", config), err=True)
            return 2
        found = _find_in(snap, reference)
        if found is None:
            click.echo(
                f"signalint show: nothing in check {snap.check_id} has id {reference!r}; "
                "give a cluster id or issue id printed by that check.",
                err=True,
            )
            return 2
    else:
        found = store.resolve(reference) or batches.resolve(reference)
        if found is None:
            what = f"no retained check, cluster or issue has id {reference!r}"
            click.echo(_gone(what, config), err=True)
            return 2

    if output_format == "json":
        sys.stdout.write(json.dumps(_json(found), indent=2, ensure_ascii=False) + "\n")
        return 0
    lines = _check_lines(found.snapshot) if found.kind == "check" else _issue_lines(found)
    colour = text.wants_colour(sys.stdout)
    sys.stdout.write(text.render_lines(lines, colour))
    return 0

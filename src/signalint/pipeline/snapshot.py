"""A retained check: the immutable value every snapshot store and query shares.

A `Snapshot` is a finished check (its result, clustering, targets and
kind) frozen, so a caller can never change what another caller later
reads. `find_references` names issues of one snapshot by cluster or issue
id; `group_ids` gives a snapshot's cluster ids without building clusters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from signalint import ids
from signalint.model import CheckResult, Issue, Scope
from signalint.payloads import IssueDetail
from signalint.pipeline.cluster import Cluster, Clustering, cluster, is_systemic
from signalint.pipeline.report import issue_detail

# "lsp": one batch of ingested diagnostics (signalint.features.live), not a check.
SnapshotKind = Literal["project", "files", "lsp"]
# The kinds that are checks: the live view merges the newest of these.
CHECK_KINDS: tuple[SnapshotKind, ...] = ("project", "files")


@dataclass(frozen=True, repr=False)
class Snapshot:
    """One retained check: its full result, its clustering, and what it covered.

    `targets` are the project-relative targets of the check (`(".",)` for a
    project check); `filtered_out` counts diagnostics dropped for lying
    outside them.
    """

    result: CheckResult
    clustering: Clustering
    targets: tuple[str, ...]
    kind: SnapshotKind
    filtered_out: int = 0

    def __repr__(self) -> str:
        return f"Snapshot({self.result.check_id}, {len(self.result.issues)} issues)"

    @property
    def check_id(self) -> str:
        return self.result.check_id

    @property
    def scope(self) -> Scope:
        return Scope(self.targets)

    @cached_property
    def by_id(self) -> dict[str, Issue]:
        """Full issue id -> issue, built on first use (cached on the instance)."""
        return {issue.issue_id: issue for issue in self.result.issues}

    @cached_property
    def groups(self) -> tuple[Cluster, ...]:
        """Every group of 2+ issues sharing a rule, ranked, uncapped.

        The summary returns only the top clusters; the others (demoted to
        its flat list) keep the same deterministic cluster id here, so an id
        printed by the text format or `signalint show` resolves (D6, D19).
        """
        return cluster(
            self.result.issues, max_clusters=len(self.result.issues), max_flat=0
        ).clusters

    @cached_property
    def group_of(self) -> dict[str, str]:
        """Full issue id -> cluster id, over every group (see `groups`)."""
        return {issue.issue_id: item.cluster_id for item in self.groups for issue in item.issues}

    @property
    def reported_filtered_out(self) -> int | None:
        """The filtered-out count this check's answers report; None leaves it out.

        One rule for every front end (CLI json and text, the MCP check
        answers, snapshot summaries, `signalint show`): a check limited to
        chosen paths (a file check, or a project check of paths other than
        the root) always reports how many diagnostics it dropped for lying
        outside them, 0 included, because 0 is news too: nothing was hidden
        (D6: what a check does not show, it says). A whole-project check
        cannot drop anything for scope, so it reports no count. Nor does a
        check whose whole-program engine answered for the requested files
        alone (`CheckResult.scoped_engines`): it could not count the rest,
        and its answer says so instead (`report.left_out_step`).
        """
        if self.result.scoped_engines:
            return None
        if self.kind == "files" or not self.scope.whole_project:
            return self.filtered_out
        return None

    def short_id(self, issue: Issue) -> str:
        return self.clustering.short_ids.get(issue.issue_id, issue.issue_id)

    def detail(self, issue: Issue) -> IssueDetail:
        """`report.issue_detail` with this snapshot's short id and cluster."""
        return issue_detail(issue, self.short_id(issue), self.group_of.get(issue.issue_id))


def group_ids(issues: Sequence[Issue]) -> list[str]:
    """The cluster id of every group of 2+ issues sharing a rule (as `Snapshot.groups`).

    Computed without building clusters: one pass over the issues, a few
    milliseconds for 12,000 of them. Severity and the systemic flag follow
    the rules of `signalint.pipeline.cluster`.
    """
    counts: dict[str, int] = {}
    files: dict[str, set[str]] = {}
    errors: set[str] = set()
    seen: set[str] = set()
    for issue in issues:
        if issue.issue_id in seen:
            continue
        seen.add(issue.issue_id)
        counts[issue.rule] = counts.get(issue.rule, 0) + 1
        files.setdefault(issue.rule, set()).add(issue.file)
        if issue.severity == "error":
            errors.add(issue.rule)
    return sorted(
        ids.cluster_id(
            rule,
            "error" if rule in errors else "warning",
            is_systemic(count, len(files[rule])),
        )
        for rule, count in counts.items()
        if count >= 2
    )


def find_references(
    snap: Snapshot, *, cluster_id: str | None = None, issue_id: str | None = None
) -> list[Issue]:
    """Issues of `snap` named by a cluster id and/or an issue id.

    A cluster id (exact, case-insensitive) names every member of a cluster,
    returned by the summary or demoted to its flat list (`Snapshot.groups`).
    An issue id is matched as a full id first, then as a prefix
    (short ids are prefixes); several results mean the prefix is ambiguous.
    With both, only members of the cluster that match the issue id are
    returned. Nothing matches -> empty list. Order: `Issue.sort_key()`.
    """
    if cluster_id is None and issue_id is None:
        raise ValueError("give a cluster_id or an issue_id")
    candidates: list[Issue] = list(snap.result.issues)
    if cluster_id is not None:
        wanted = cluster_id.strip().lower()
        members = {i for i, c in snap.group_of.items() if c == wanted}
        candidates = [issue for issue in candidates if issue.issue_id in members]
    if issue_id is not None:
        key = issue_id.strip().lower()
        if not key:
            return []
        exact = [issue for issue in candidates if issue.issue_id == key]
        candidates = exact or [i for i in candidates if i.issue_id.startswith(key)]
    return candidates

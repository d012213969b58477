"""Grouping, the priority ladder and response caps (reference "Clustering & priorities").

Pure: `cluster()` takes normalized `Issue` values and returns a `Clustering`
that every output format and the MCP server render from. Nothing here drops
an issue from the check itself; caps only decide what a summary shows (D6).

Rules, in order:
- issues are grouped by their rule string, across engines and severities;
- a group of 2+ issues is a cluster; it is systemic when it has more than 3
  issues across more than 2 files;
- a group is an error group if any member is an error, and fixable only if
  every member is fixable; the ladder (1 most urgent) follows from that;
- clusters sort by priority, issue count (descending), rule, then the first
  member's `Issue.sort_key()`; only the first `max_clusters` are returned;
- single issues and the members of overflow clusters form the flat list,
  each with its own individual priority, capped at `max_flat` records.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field

from signalint import ids
from signalint.engines.registry import ENGINES
from signalint.model import Issue, Severity

# `Issue.sort_key` at C speed (a check of a large program sorts thousands).
_SORT_KEY = operator.attrgetter("file", "line", "col", "rule", "issue_id")
_ISSUE_ID = operator.attrgetter("issue_id")
_FILE = operator.attrgetter("file")

MAX_CLUSTERS = 10
MAX_FLAT = 100
SAMPLE_COUNT = 2


@dataclass(frozen=True, slots=True)
class Cluster:
    """A returned group of 2+ issues sharing one rule.

    `issues` holds every member in `Issue.sort_key()` order; `sample_ids` are
    short ids (empty for two-issue clusters); `suggested_action` is set only
    when every member is fixable.
    """

    cluster_id: str
    rule: str
    rule_ids: tuple[str, ...]
    issues: tuple[Issue, ...]
    issue_count: int
    file_count: int
    priority: int
    systemic: bool
    severity: Severity
    suggested_action: str | None
    sample_ids: tuple[str, ...]

    @property
    def summary(self) -> str:
        """The rootCauseSummary: repetition and scope, not a diagnosis."""
        files = "1 file" if self.file_count == 1 else f"{self.file_count} files"
        return f"{self.issue_count} {self.rule} issues across {files}"


@dataclass(frozen=True, slots=True)
class FlatRecord:
    """One returned flat record: an issue, its short id, its own priority."""

    issue: Issue
    short_id: str
    priority: int


@dataclass(frozen=True, slots=True, repr=False)
class Clustering:
    """What a summary shows of a set of issues.

    `flat` is already capped; `omitted` counts the flat records beyond the
    cap and `truncated` says the cap was exceeded. `short_ids` maps every
    issue's full id to its prefix (computed over all issues, returned or
    not); `file_count` counts distinct files over all issues; `cluster_of`
    maps member ids of *returned* clusters only, since demoted groups do not
    get a cluster id.
    """

    total: int
    clusters: tuple[Cluster, ...]
    flat: tuple[FlatRecord, ...]
    omitted: int
    truncated: bool
    file_count: int = 0
    short_ids: dict[str, str] = field(default_factory=dict)
    cluster_of: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Clustering({self.total} issues, {len(self.clusters)} clusters)"


def issue_priority(issue: Issue) -> int:
    """A single issue's priority: errors 2/3 and warnings 4/5 by fixability."""
    if issue.severity == "error":
        return 3 if issue.fixable else 2
    return 5 if issue.fixable else 4


def is_systemic(issue_count: int, file_count: int) -> bool:
    """More than 3 issues across more than 2 files."""
    return issue_count > 3 and file_count > 2


def group_priority(*, has_error: bool, all_fixable: bool, systemic: bool) -> int:
    """The ladder for a group (see the module docstring)."""
    if has_error:
        if systemic:
            return 1  # stays 1 even when every issue is fixable
        return 3 if all_fixable else 2
    if systemic or all_fixable:
        return 5
    return 4


def suggested_action(members: Sequence[Issue]) -> str | None:
    """Advice for an all-fixable group; None when any member is not fixable."""
    if not members or not all(issue.fixable for issue in members):
        return None
    engines = sorted({issue.engine for issue in members})
    # Engines without an autofix command (tsc) keep the wording generic.
    fixes = (ENGINES[name].spec.fix_command if name in ENGINES else None for name in engines)
    commands = [command for command in fixes if command]
    rule = members[0].rule
    if commands:
        joined = " / ".join(f"`{command}`" for command in commands)
        return (
            f"Every {rule} issue here has an automatic fix offered by "
            f"{', '.join(engines)}; {joined} can apply them. Review the diff afterwards."
        )
    return (
        f"Every {rule} issue here has an automatic fix offered by {', '.join(engines)}; "
        "apply it with the engine's fix mode and review the diff afterwards."
    )


def _build_cluster(rule: str, members: list[Issue], short_ids: dict[str, str]) -> Cluster:
    members.sort(key=_SORT_KEY)
    file_count = len(set(map(_FILE, members)))
    systemic = is_systemic(len(members), file_count)
    has_error = any(issue.severity == "error" for issue in members)
    all_fixable = all(issue.fixable for issue in members)
    severity: Severity = "error" if has_error else "warning"
    samples: list[str] = []
    if len(members) > 2:
        for issue in members:
            short = short_ids[issue.issue_id]
            if short not in samples:
                samples.append(short)
            if len(samples) == SAMPLE_COUNT:
                break
    return Cluster(
        cluster_id=ids.cluster_id(rule, severity, systemic),
        rule=rule,
        rule_ids=(rule,),
        issues=tuple(members),
        issue_count=len(members),
        file_count=file_count,
        priority=group_priority(has_error=has_error, all_fixable=all_fixable, systemic=systemic),
        systemic=systemic,
        severity=severity,
        suggested_action=suggested_action(members),
        sample_ids=tuple(samples),
    )


def _cluster_order(item: Cluster) -> tuple[int, int, str, tuple[str, int, int, str, str]]:
    return (item.priority, -item.issue_count, item.rule, item.issues[0].sort_key())


def _flat_order(record: FlatRecord) -> tuple[int, str, int, int, str]:
    issue = record.issue
    return (record.priority, issue.file, issue.line, issue.col, issue.issue_id)


def cluster(
    issues: Sequence[Issue], *, max_clusters: int = MAX_CLUSTERS, max_flat: int = MAX_FLAT
) -> Clustering:
    """Group, rank and cap `issues` (see the module docstring for the rules).

    Deterministic for a given set of issues, whatever their input order.
    Issues sharing a full id are counted once.
    """
    unique: dict[str, Issue] = {}
    for issue in issues:
        unique.setdefault(issue.issue_id, issue)
    short_ids = ids.shorten(unique)

    groups: dict[str, list[Issue]] = {}
    for issue in unique.values():
        groups.setdefault(issue.rule, []).append(issue)

    candidates: list[Cluster] = []
    flat_issues: list[Issue] = []
    for rule, members in groups.items():
        if len(members) >= 2:
            candidates.append(_build_cluster(rule, members, short_ids))
        else:
            flat_issues.extend(members)
    candidates.sort(key=_cluster_order)
    kept = tuple(candidates[: max(0, max_clusters)])
    for demoted in candidates[len(kept) :]:
        flat_issues.extend(demoted.issues)

    records = sorted(
        (
            FlatRecord(issue, short_ids[issue.issue_id], issue_priority(issue))
            for issue in flat_issues
        ),
        key=_flat_order,
    )
    limit = max(0, max_flat)
    omitted = max(0, len(records) - limit)
    return Clustering(
        total=len(unique),
        clusters=kept,
        flat=tuple(records[:limit]),
        omitted=omitted,
        truncated=omitted > 0,
        file_count=len(set(map(_FILE, unique.values()))),
        short_ids=short_ids,
        cluster_of=_members(kept),
    )


def _members(clusters: Sequence[Cluster]) -> dict[str, str]:
    """Each member's id -> its cluster's id."""
    found: dict[str, str] = {}
    for c in clusters:
        found.update(dict.fromkeys(map(_ISSUE_ID, c.issues), c.cluster_id))
    return found

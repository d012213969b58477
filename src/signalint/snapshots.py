"""Retained check snapshots: lookup by check id, summaries, references, listing (D6).

The MCP server keeps the last `max_count` checks for `ttl_s` seconds so a
later tool call can name one by its `checkId` (get_diagnostic_snapshot,
get_issue_detail, list_issues, compare_diagnostics, after_edit_check).
Snapshots are immutable values (frozen model objects), so a caller can never
change what another caller later reads. They live in memory only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, Literal

from signalint.check import Scope
from signalint.cluster import Clustering
from signalint.model import CheckResult, Issue
from signalint.report import check_payload, issue_detail

SnapshotKind = Literal["project", "files"]

DEFAULT_MAX_COUNT = 50
DEFAULT_TTL_S = 1800.0
MAX_LIST_LIMIT = 500

# The answer for a check id that is unknown or has expired: the reference's
# stale shape, worded for check ids.
STALE_CHECK: dict[str, str] = {
    "status": "stale",
    "message": "This check no longer exists (unknown or expired checkId); run check_project again.",
}

# Keys of the check payload that a snapshot summary repeats, in this order.
_SUMMARY_KEYS = (
    "engines",
    "totalIssues",
    "clusters",
    "remainingIssues",
    "omittedIssueCount",
    "filteredOutIssueCount",
    "nextStep",
    "truncated",
    "code",
    "message",
)


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

    def short_id(self, issue: Issue) -> str:
        return self.clustering.short_ids.get(issue.issue_id, issue.issue_id)

    def detail(self, issue: Issue) -> dict[str, Any]:
        """`report.issue_detail` with this snapshot's short id and cluster."""
        return issue_detail(
            issue, self.short_id(issue), self.clustering.cluster_of.get(issue.issue_id)
        )


class SnapshotStore:
    """Check id -> snapshot, bounded by count and age.

    `get` returns None for an id that is unknown, expired (older than `ttl_s`
    by `clock`, measured from `put`) or evicted (only the newest `max_count`
    are kept). Putting an id that is already stored replaces it and makes it
    the newest. Meant for one asyncio thread: no locking, no awaits inside.
    """

    def __init__(
        self,
        max_count: int = DEFAULT_MAX_COUNT,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_count < 1 or ttl_s <= 0:
            raise ValueError("max_count must be >= 1 and ttl_s > 0")
        self.max_count = max_count
        self.ttl_s = ttl_s
        self._clock = clock
        self._items: OrderedDict[str, tuple[float, Snapshot]] = OrderedDict()

    def _prune(self) -> None:
        cutoff = self._clock() - self.ttl_s
        # Insertion order is age order, so expired entries are all at the front.
        while self._items:
            check_id, (stored_at, _) = next(iter(self._items.items()))
            if stored_at > cutoff:
                break
            del self._items[check_id]
        while len(self._items) > self.max_count:
            self._items.popitem(last=False)

    def put(self, snapshot: Snapshot) -> None:
        self._items.pop(snapshot.check_id, None)
        self._items[snapshot.check_id] = (self._clock(), snapshot)
        self._prune()

    def get(self, check_id: str) -> Snapshot | None:
        self._prune()
        entry = self._items.get(check_id)
        return entry[1] if entry is not None else None

    def __len__(self) -> int:
        self._prune()
        return len(self._items)


def snapshot_summary(snap: Snapshot) -> dict[str, Any]:
    """The get_diagnostic_snapshot answer: metadata plus the check's summary.

    Metadata: checkId, fingerprint, createdAt (ISO 8601, UTC), source
    ("project" or "files", the reference's name for the kind), targets,
    status. Then the same engines, totalIssues, clusters, bounded
    remainingIssues, omittedIssueCount, nextStep and truncated as the check
    response had (rendered by `report.check_payload`, never re-derived).
    The full issue list is not included: `list_issues` pages through it.
    """
    files_check = snap.kind == "files"
    payload = check_payload(
        snap.result, snap.clustering, filtered_out=snap.filtered_out if files_check else None
    )
    created = datetime.fromtimestamp(snap.result.created_at, tz=UTC)
    summary: dict[str, Any] = {
        "checkId": snap.check_id,
        "fingerprint": snap.result.fingerprint,
        "createdAt": created.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "source": snap.kind,
        "targets": list(snap.targets),
        "status": payload["status"],
    }
    for key in _SUMMARY_KEYS:
        if key in payload:
            summary[key] = payload[key]
    return summary


def find_references(
    snap: Snapshot, *, cluster_id: str | None = None, issue_id: str | None = None
) -> list[Issue]:
    """Issues of `snap` named by a cluster id and/or an issue id.

    A cluster id (exact, case-insensitive) names every member of a returned
    cluster. An issue id is matched as a full id first, then as a prefix
    (short ids are prefixes); several results mean the prefix is ambiguous.
    With both, only members of the cluster that match the issue id are
    returned. Nothing matches -> empty list. Order: `Issue.sort_key()`.
    """
    if cluster_id is None and issue_id is None:
        raise ValueError("give a cluster_id or an issue_id")
    candidates: list[Issue] = list(snap.result.issues)
    if cluster_id is not None:
        wanted = cluster_id.strip().lower()
        members = {i for i, c in snap.clustering.cluster_of.items() if c == wanted}
        candidates = [issue for issue in candidates if issue.issue_id in members]
    if issue_id is not None:
        key = issue_id.strip().lower()
        if not key:
            return []
        exact = [issue for issue in candidates if issue.issue_id == key]
        candidates = exact or [i for i in candidates if i.issue_id.startswith(key)]
    return candidates


class CursorError(ValueError):
    """A list_issues cursor that is malformed or belongs to another listing."""


def _listing_key(check_id: str, filters: tuple[str | None, ...]) -> str:
    # Binds a cursor to one snapshot and one set of filters, so a cursor can
    # never silently page through a different list than the one it came from.
    text = json.dumps([check_id, *filters])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _encode_cursor(offset: int, key: str) -> str:
    raw = json.dumps({"o": offset, "k": key}, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _decode_cursor(cursor: str, key: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        offset, cursor_key = data["o"], data["k"]
    except (binascii.Error, ValueError, TypeError, KeyError) as exc:
        raise CursorError("malformed cursor; start again without one") from exc
    if cursor_key != key or not isinstance(offset, int) or offset < 0:
        raise CursorError(
            "this cursor belongs to another check or other filters; start again without one"
        )
    return offset


def _in_path(file: str, path: str) -> bool:
    path = path.strip().rstrip("/")
    return path in ("", ".") or file == path or file.startswith(path + "/")


def list_issues(
    snap: Snapshot,
    *,
    cursor: str | None = None,
    limit: int = 100,
    file: str | None = None,
    rule: str | None = None,
    severity: str | None = None,
    engine: str | None = None,
) -> dict[str, Any]:
    """One page of every issue of `snap` (D6), optionally filtered.

    `file` matches a path or any file under a directory; `rule`, `severity`
    and `engine` match exactly. Issues are in `Issue.sort_key()` order.
    Returns `{checkId, total, issues: [issue_detail...], nextCursor?}` where
    `total` counts all matches and `nextCursor` (opaque) is present only
    when more follow. Raises `CursorError` for a cursor from another check
    or other filters, `ValueError` for a limit outside 1..500.
    """
    if not 1 <= limit <= MAX_LIST_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIST_LIMIT}")
    key = _listing_key(snap.check_id, (file, rule, severity, engine))
    offset = _decode_cursor(cursor, key) if cursor else 0
    matches = [
        issue
        for issue in snap.result.issues
        if (file is None or _in_path(issue.file, file))
        and (rule is None or issue.rule == rule)
        and (severity is None or issue.severity == severity)
        and (engine is None or issue.engine == engine)
    ]
    page = matches[offset : offset + limit]
    answer: dict[str, Any] = {
        "checkId": snap.check_id,
        "total": len(matches),
        "issues": [snap.detail(issue) for issue in page],
    }
    if offset + limit < len(matches):
        answer["nextCursor"] = _encode_cursor(offset + limit, key)
    return answer

"""What a retained snapshot answers: its summary, and its issues page by page (D6).

A summary re-reads the check's answer (metadata plus the same clusters and
counts the check returned); a listing pages through every issue of the
snapshot with filters and an opaque cursor bound to those filters."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from signalint.model import Issue
from signalint.payloads import IssuePage, SnapshotSummary, laid_out
from signalint.pipeline.report import Additions, check_payload
from signalint.pipeline.snapshot import Snapshot
from signalint.steps import Words

MAX_LIST_LIMIT = 500
# The answer for a check id that is unknown or has expired: the reference's
# stale shape, worded for check ids.
STALE_CHECK: dict[str, str] = {
    "status": "stale",
    "message": "This check no longer exists (unknown or expired checkId); check again.",
}

# A snapshot summary's keys in wire order: metadata, then the check's keys.
_SUMMARY_ORDER = tuple(SnapshotSummary.__annotations__)


def snapshot_summary(snap: Snapshot, words: Words) -> SnapshotSummary:
    """A retained check re-read: metadata plus the check's summary.

    Metadata: checkId, fingerprint, createdAt (ISO 8601, UTC), source
    ("project" or "files", the reference's name for the kind), targets,
    status. Then the same engines, totalIssues, clusters, bounded
    remainingIssues, omittedIssueCount, nextStep and truncated as the check
    response had (rendered by `report.check_payload`, never re-derived).
    The full issue list is not included: it is paged through separately.
    `filteredOutIssueCount` follows `Snapshot.reported_filtered_out`.
    `words` is the front end's wording of `nextStep` (`signalint.steps`).
    """
    payload = check_payload(
        snap.result,
        snap.clustering,
        added=Additions(filtered_out=snap.reported_filtered_out),
        words=words,
    )
    created = datetime.fromtimestamp(snap.result.created_at, tz=UTC)
    summary: SnapshotSummary = {
        "checkId": snap.check_id,
        "fingerprint": snap.result.fingerprint,
        "createdAt": created.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "source": snap.kind,
        "targets": list(snap.targets),
        "status": payload["status"],
        "engines": payload["engines"],
        "totalIssues": payload["totalIssues"],
        "clusters": payload["clusters"],
        "remainingIssues": payload["remainingIssues"],
        "omittedIssueCount": payload["omittedIssueCount"],
        "nextStep": payload["nextStep"],
        "truncated": payload["truncated"],
    }
    if "filteredOutIssueCount" in payload:
        summary["filteredOutIssueCount"] = payload["filteredOutIssueCount"]
    if "coverageWarning" in payload:
        summary["coverageWarning"] = payload["coverageWarning"]
    if "code" in payload:
        summary["code"] = payload["code"]
    if "message" in payload:
        summary["message"] = payload["message"]
    return laid_out(summary, _SUMMARY_ORDER)


class CursorError(ValueError):
    """A listing cursor that is malformed or belongs to another listing."""


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


@dataclass(frozen=True, slots=True)
class IssueFilter:
    """Which issues a listing keeps: `file` matches a path or any file under
    a directory; `rule`, `severity` and `engine` match exactly; None
    matches every issue."""

    file: str | None = None
    rule: str | None = None
    severity: str | None = None
    engine: str | None = None

    def matches(self, issue: Issue) -> bool:
        return (
            (self.file is None or _in_path(issue.file, self.file))
            and (self.rule is None or issue.rule == self.rule)
            and (self.severity is None or issue.severity == self.severity)
            and (self.engine is None or issue.engine == self.engine)
        )


EVERY_ISSUE: Final = IssueFilter()


def list_issues(
    snap: Snapshot, *, cursor: str | None = None, limit: int = 100, where: IssueFilter = EVERY_ISSUE
) -> IssuePage:
    """One page of every issue of `snap` (D6), optionally filtered (`where`).

    Issues are in `Issue.sort_key()` order.
    Returns `{checkId, total, issues: [issue_detail...], nextCursor?}` where
    `total` counts all matches and `nextCursor` (opaque) is present only
    when more follow. Raises `CursorError` for a cursor from another check
    or other filters, `ValueError` for a limit outside 1..500.
    """
    if not 1 <= limit <= MAX_LIST_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIST_LIMIT}")
    filters = (where.file, where.rule, where.severity, where.engine)
    key = _listing_key(snap.check_id, filters)
    offset = _decode_cursor(cursor, key) if cursor else 0
    matches = [issue for issue in snap.result.issues if where.matches(issue)]
    page = matches[offset : offset + limit]
    answer: IssuePage = {
        "checkId": snap.check_id,
        "total": len(matches),
        "issues": [snap.detail(issue) for issue in page],
    }
    if offset + limit < len(matches):
        answer["nextCursor"] = _encode_cursor(offset + limit, key)
    return answer

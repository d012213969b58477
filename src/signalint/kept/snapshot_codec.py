"""The on-disk form of a snapshot: compact JSON, one row per issue.

`encode_snapshot` and `decode_snapshot` are exact inverses for every
snapshot a check can produce; a file that does not decode is refused with
`ValueError`, never half-read."""

from __future__ import annotations

import json
import operator
from collections.abc import Iterator, Sequence
from typing import Any

from signalint.model import FAILURE_KINDS, CheckResult, EngineOutcome, Failure, Issue
from signalint.pipeline.cluster import cluster
from signalint.pipeline.snapshot import Snapshot, group_ids

_FORMAT = "signalint-snapshot"
_VERSION = 1
# Each issue is one JSON array in `_FIELDS` order. The id is stored so
# loading skips re-hashing (Issue.restore). A store remembers each issue's
# encoded row (`RowMemo`): a long-lived server sees the same issue objects
# check after check (the result cache hands them out), so saving a
# 12,000-issue snapshot again costs a join, not an encode.
_FIELDS = (
    "issue_id", "engine", "file", "line", "col", "rule", "severity", "message", "fixable",
    "end_line", "end_col", "docs_url", "help", "also_reported_by",
)  # fmt: skip
_ROW = operator.attrgetter(*_FIELDS)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


# The public encoder, one call per row (a private C entry point of the json
# module would be faster, but its signature is no contract); rows are
# remembered per issue object, so only new issues pay for it.
_ENCODE_ROW = _ENCODER.encode


class RowMemo:
    """Issue object -> its encoded row, bounded; for one thread at a time.

    Keyed by object identity with the object kept alive by the entry, so
    an id can never be reused by another object while remembered. Bound:
    `limit` rows (about four checks of 12,000 issues), forgotten whole past
    it (docs/architecture.md, "Memory").
    """

    def __init__(self, limit: int = 50_000) -> None:
        self.limit = limit
        self._rows: dict[int, tuple[Issue, str]] = {}

    def rows(self, issues: Sequence[Issue]) -> list[str]:
        rows = self._rows
        if len(rows) + len(issues) > self.limit:
            rows.clear()
        out = []
        for issue in issues:
            entry = rows.get(id(issue))
            if entry is None or entry[0] is not issue:
                entry = (issue, _ENCODE_ROW(_ROW(issue)))
                rows[id(issue)] = entry
            out.append(entry[1])
        return out


# Rows encoded to bytes together by `snapshot_chunks`.
CHUNK_ROWS = 1_000


def encode_snapshot(snap: Snapshot, memo: RowMemo | None = None) -> bytes:
    """The on-disk form of `snap` (compact JSON, UTF-8): `snapshot_chunks` joined."""
    return b"".join(snapshot_chunks(snap, memo))


def snapshot_chunks(snap: Snapshot, memo: RowMemo | None = None) -> Iterator[bytes]:
    """The on-disk form of `snap` in pieces of `CHUNK_ROWS` issue rows, so
    a writer holds one piece at a time, not the whole text and its UTF-8
    copy besides the rows (about 12 MiB at once for 12,000 issues).

    Engine outcomes are stored without their issue tuples: a snapshot's
    issues are `result.issues`, and nothing reads an outcome's own list
    after the check. The cluster ids of every group are stored so a
    reader can find a cluster id without decoding the issues.
    """
    result = snap.result
    rows = (memo or RowMemo()).rows(result.issues)
    outcomes = {
        name: [o.status, o.message, o.duration_ms, o.files_checked, o.cache_hits,
               o.cache_misses, o.coverage_gap, _encode_failure(o.failure), o.scoped]
        for name, o in result.outcomes.items()
    }  # fmt: skip
    head = {
        "format": _FORMAT,
        "version": _VERSION,
        "checkId": result.check_id,
        "fingerprint": result.fingerprint,
        "projectRoot": result.project_root,
        "createdAt": result.created_at,
        "kind": snap.kind,
        "targets": list(snap.targets),
        "filteredOut": snap.filtered_out,
        "wholeProject": result.whole_project,
        "clusterIds": group_ids(result.issues),
        "outcomes": outcomes,
    }
    yield (_ENCODER.encode(head)[:-1] + ',"issues":[').encode("utf-8")
    for start in range(0, len(rows), CHUNK_ROWS):
        piece = ",".join(rows[start : start + CHUNK_ROWS])
        yield (piece if start == 0 else "," + piece).encode("utf-8")
    yield b"]}"


def _decode_issues(rows: list[Any]) -> list[Issue]:
    if any(type(row) is not list or len(row) != len(_FIELDS) for row in rows):
        raise ValueError("malformed snapshot: issue rows of the wrong shape")
    columns = dict(zip(_FIELDS, map(list, zip(*rows, strict=True)), strict=True)) if rows else {}
    if not columns:
        return []
    # Types are checked per column (cheap), so a damaged or foreign file is
    # refused here instead of failing later inside a sort or a renderer.
    kinds = {name: {type(v) for v in column} for name, column in columns.items()}
    expected: dict[str, set[type]] = {
        "engine": {str}, "file": {str}, "rule": {str}, "severity": {str}, "message": {str},
        "issue_id": {str}, "line": {int}, "col": {int}, "fixable": {bool},
        "end_line": {int, type(None)}, "end_col": {int, type(None)},
        "docs_url": {str, type(None)}, "help": {str, type(None)}, "also_reported_by": {list},
    }  # fmt: skip
    for name, allowed in expected.items():
        if not kinds[name] <= allowed:
            raise ValueError(f"malformed snapshot: unexpected values in {name!r}")
    if not set(columns["severity"]) <= {"error", "warning"}:
        raise ValueError("malformed snapshot: unknown severity")
    issues = []
    for row in rows:
        issue_id, engine, file, line, col, rule, severity, message, fixable = row[:9]
        end_line, end_col, docs_url, help_, also = row[9:]
        issues.append(
            Issue.restore(
                issue_id, engine=engine, file=file, line=line, col=col, rule=rule,
                severity=severity, message=message, fixable=fixable, end_line=end_line,
                end_col=end_col, docs_url=docs_url, help=help_,
                also_reported_by=tuple(also),
            )
        )  # fmt: skip
    return issues


def _encode_failure(failure: Failure | None) -> list[str | None] | None:
    return None if failure is None else [failure.kind, failure.fix]


def _decode_failure(value: object) -> Failure | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2 or value[0] not in FAILURE_KINDS:
        raise ValueError(f"malformed snapshot: unknown engine failure {value!r}")
    kind, fix = value
    return Failure(kind, None if fix is None else str(fix))


def decode_snapshot(data: bytes) -> Snapshot:
    """Inverse of `encode_snapshot`; raises ValueError for anything else."""
    try:
        document = json.loads(data)
        if document.get("format") != _FORMAT or document.get("version") != _VERSION:
            raise ValueError("not a signalint snapshot of a known version")
        issues = _decode_issues(document["issues"])
        outcomes = {
            name: EngineOutcome(
                name, status, (), message, float(duration), int(files), int(hits),
                int(misses), gap, _decode_failure(rest[0] if rest else None),
                scoped=len(rest) > 1 and rest[1] is True,
            )
            # Files written before failures were typed have no 8th field,
            # before scoped answers no 9th.
            for name, (status, message, duration, files, hits, misses, gap, *rest)
            in document["outcomes"].items()
        }  # fmt: skip
        result = CheckResult(
            check_id=str(document["checkId"]),
            fingerprint=str(document["fingerprint"]),
            project_root=str(document["projectRoot"]),
            outcomes=outcomes,
            issues=tuple(issues),
            created_at=float(document["createdAt"]),
            whole_project=bool(document.get("wholeProject", True)),
        )
        kind = document["kind"]
        if kind not in ("project", "files", "lsp"):
            raise ValueError(f"unknown snapshot kind {kind!r}")
        targets = tuple(str(t) for t in document["targets"])
        filtered_out = int(document["filteredOut"])
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"malformed snapshot: {exc!r}") from exc
    return Snapshot(result, cluster(result.issues), targets, kind, filtered_out)

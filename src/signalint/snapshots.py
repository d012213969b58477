"""Retained check snapshots: lookup by check id, summaries, references, listing (D6, D19).

Every check (MCP server, CLI) keeps its snapshot for `ttl_s` seconds, at
most `max_count` of them, so a later request can name it by its `checkId`
(snapshot summaries, issue detail and listings, comparisons, the MCP
tools and `signalint show`). Snapshots are
immutable values (frozen model objects), so a caller can never change what
another caller later reads.

Snapshots persist in `<state dir>/snapshots/`, one file per check, so an id
from one process (a CLI check, a hook, an MCP server started per call by the
Inspector) resolves in any other (D19). Several processes share that
directory without locks: files are written whole and renamed into place,
a file that vanishes under a reader is simply absent, and an unreadable file
is skipped with a warning, never a crash.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import operator
import os
import re
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from signalint import ids
from signalint.cluster import Cluster, Clustering, cluster, is_systemic
from signalint.model import FAILURE_KINDS, CheckResult, EngineOutcome, Failure, Issue, Scope
from signalint.payloads import IssueDetail, IssuePage, SnapshotSummary, laid_out
from signalint.report import check_payload, issue_detail
from signalint.steps import Words
from signalint.storage.files import write_atomic

# "lsp": one batch of ingested diagnostics (signalint.live), not a check.
SnapshotKind = Literal["project", "files", "lsp"]
# The kinds that are checks: the live view merges the newest of these.
CHECK_KINDS: tuple[SnapshotKind, ...] = ("project", "files")

DEFAULT_MAX_COUNT = 50
DEFAULT_TTL_S = 1800.0
MAX_LIST_LIMIT = 500
# Decoded snapshots from other processes kept per store (each can be MBs).
_LOADED_LIMIT = 4
# A shorter reference would match issues of any check by chance.
MIN_REFERENCE = 4

# The answer for a check id that is unknown or has expired: the reference's
# stale shape, worded for check ids.
STALE_CHECK: dict[str, str] = {
    "status": "stale",
    "message": "This check no longer exists (unknown or expired checkId); check again.",
}

# A snapshot summary's keys in wire order: metadata, then the check's keys.
_SUMMARY_ORDER = tuple(SnapshotSummary.__annotations__)


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
        cannot drop anything for scope, so it reports no count.
        """
        if self.kind == "files" or not self.scope.whole_project:
            return self.filtered_out
        return None

    def short_id(self, issue: Issue) -> str:
        return self.clustering.short_ids.get(issue.issue_id, issue.issue_id)

    def detail(self, issue: Issue) -> IssueDetail:
        """`report.issue_detail` with this snapshot's short id and cluster."""
        return issue_detail(issue, self.short_id(issue), self.group_of.get(issue.issue_id))


# Check ids are 16 hex digits; anything that could leave the directory or
# name a temporary file is refused before it reaches the file system.
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SUFFIX = ".json"
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
    an id can never be reused by another object while remembered.
    """

    def __init__(self, limit: int = 200_000) -> None:
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


def snapshot_dir(root: Path) -> Path:
    """Where snapshots of `root` persist: `snapshots/` in its state directory."""
    from signalint.config import state_dir

    return state_dir(root) / "snapshots"


def live_snapshot_dir(root: Path) -> Path:
    """Where snapshots of ingested batches (kind "lsp") persist: `snapshots/live/`.

    Apart from the checks, with bounds of their own, so an editor sending a
    batch per keystroke cannot evict the checks an agent still refers to.
    """
    return snapshot_dir(root) / "live"


def _warn(message: str) -> None:
    sys.stderr.write(f"signalint: warning: {message}\n")


def group_ids(issues: Sequence[Issue]) -> list[str]:
    """The cluster id of every group of 2+ issues sharing a rule (as `Snapshot.groups`).

    Computed without building clusters: one pass over the issues, a few
    milliseconds for 12,000 of them. Severity and the systemic flag follow
    the rules of `signalint.cluster`.
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


def encode_snapshot(snap: Snapshot, memo: RowMemo | None = None) -> bytes:
    """The on-disk form of `snap` (compact JSON, UTF-8).

    Engine outcomes are stored without their issue tuples: a snapshot's
    issues are `result.issues`, and nothing reads an outcome's own list
    after the check. The cluster ids of every group are stored so a
    reader can find a cluster id without decoding the issues.
    """
    result = snap.result
    rows = (memo or RowMemo()).rows(result.issues)
    outcomes = {
        name: [o.status, o.message, o.duration_ms, o.files_checked, o.cache_hits,
               o.cache_misses, o.coverage_gap, _encode_failure(o.failure)]
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
    text = _ENCODER.encode(head)[:-1] + ',"issues":[' + ",".join(rows) + "]}"
    return text.encode("utf-8")


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
                int(misses), gap, _decode_failure(failure[0] if failure else None),
            )
            # Files written before failures were typed have no 8th field.
            for name, (status, message, duration, files, hits, misses, gap, *failure)
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


@dataclass(frozen=True, slots=True)
class Found:
    """What `SnapshotStore.resolve` found for a reference.

    `kind` says what the reference named; `issues` are the matching issues
    (every member for a cluster, possibly several for an ambiguous issue
    prefix, none for a check).
    """

    kind: Literal["check", "cluster", "issue"]
    snapshot: Snapshot
    cluster_id: str | None = None
    issues: tuple[Issue, ...] = ()


class SnapshotStore:
    """Check id -> snapshot, bounded by count and age, optionally on disk.

    `get` returns None for an id that is unknown, expired (older than `ttl_s`
    by `clock`, measured from `put`) or evicted (only the newest `max_count`
    are kept). Putting an id that is already stored replaces it and makes it
    the newest.

    With a `directory`, every snapshot is also written there (one file per
    check, renamed into place) and `get` falls back to it, so other
    processes' checks resolve too; the same bounds apply to the directory,
    by file modification time (set to `clock()` when written).
    `background=True` writes on one worker thread so a check's answer does
    not wait for the write (the thread finishes pending writes before the
    interpreter exits; `flush` waits for them). Write failures and
    unreadable files are warnings on stderr, never exceptions.
    In-memory state is meant for one asyncio thread: no awaits inside.
    """

    def __init__(
        self,
        max_count: int = DEFAULT_MAX_COUNT,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], float] = time.time,
        *,
        directory: Path | None = None,
        background: bool = False,
        warn: Callable[[str], None] = _warn,
    ) -> None:
        if max_count < 1 or ttl_s <= 0:
            raise ValueError("max_count must be >= 1 and ttl_s > 0")
        self.max_count = max_count
        self.ttl_s = ttl_s
        self.directory = directory
        self._clock = clock
        self._warn = warn
        self._items: OrderedDict[str, tuple[float, Snapshot]] = OrderedDict()
        self._background = background
        self._writer: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._lock = threading.Lock()  # guards _pending across the writer thread
        self._warned: set[str] = set()
        self._memo = RowMemo()  # used by one writer at a time (the worker, or put)
        # Snapshots decoded from other processes' files, by check id, with
        # the file's mtime: reused only while that very file is still live.
        self._loaded: dict[str, tuple[float, Snapshot]] = {}

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
        stored_at = self._clock()
        self._items.pop(snapshot.check_id, None)
        self._items[snapshot.check_id] = (stored_at, snapshot)
        self._prune()
        if self.directory is None or not _SAFE_ID.fullmatch(snapshot.check_id):
            return
        if not self._background:
            self._write(snapshot, stored_at)
            return
        if self._writer is None:
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshots")
        future = self._writer.submit(self._write, snapshot, stored_at)
        with self._lock:
            self._pending = [f for f in self._pending if not f.done()] + [future]

    def flush(self) -> None:
        """Wait until every background write has finished (or failed with a warning)."""
        with self._lock:
            pending, self._pending = self._pending, []
        for future in pending:
            future.result()

    def get(self, check_id: str) -> Snapshot | None:
        self._prune()
        entry = self._items.get(check_id)
        if entry is not None:
            return entry[1]
        if self.directory is None or not _SAFE_ID.fullmatch(check_id):
            return None
        for mtime, path in self._files():
            if path.name == f"{check_id}{_SUFFIX}":
                return self._read(path, mtime)
        return None

    def newest(self, kinds: Sequence[SnapshotKind] = CHECK_KINDS) -> Iterator[Snapshot]:
        """Retained snapshots of one of `kinds`, newest first, in memory and on disk.

        Lazy: a file's kind is read from its head, and a file is decoded
        only when the caller asks for the snapshot it holds.
        """
        for stored_at, source in self._sources(kinds):
            if isinstance(source, Snapshot):
                yield source
            elif _kind_of(source) in kinds:
                found = self._read(source, stored_at)
                if found is not None:
                    yield found

    def latest(self, kinds: Sequence[SnapshotKind] = CHECK_KINDS) -> Snapshot | None:
        """The newest retained snapshot of one of `kinds`, or None (see `newest`)."""
        return next(self.newest(kinds), None)

    def __len__(self) -> int:
        self._prune()
        if self.directory is None:
            return len(self._items)
        names = {path.name[: -len(_SUFFIX)] for _, path in self._files()}
        return len(names | set(self._items))

    def resolve(self, reference: str) -> Found | None:
        """The newest retained thing `reference` names: a check, cluster or issue id.

        A check id wins; otherwise snapshots are searched newest first for a
        cluster id (exact) and then an issue id (full, or a prefix as
        printed in summaries, at least `MIN_REFERENCE` characters). None
        when nothing retained matches.
        Case-insensitive; surrounding whitespace is ignored.
        """
        key = reference.strip()
        if not _SAFE_ID.fullmatch(key) or len(key) < MIN_REFERENCE:
            return None
        snap = self.get(key) or self.get(key.lower())
        if snap is not None:
            return Found("check", snap)
        key = key.lower()
        for snap in self._newest_first(key):
            if key in {item.cluster_id for item in snap.groups}:
                members = find_references(snap, cluster_id=key)
                return Found("cluster", snap, key, tuple(members))
            matches = find_references(snap, issue_id=key)
            if matches:
                return Found("issue", snap, None, tuple(matches))
        return None

    def _newest_first(self, needle: str) -> Iterator[Snapshot]:
        """Retained snapshots of any kind, newest first, that may contain
        `needle`: a file without its text cannot match (ids are stored
        verbatim), so it is not decoded."""
        encoded = needle.encode("ascii")
        for stored_at, source in self._sources(None):
            if isinstance(source, Snapshot):
                yield source
                continue
            data = self._read_bytes(source)
            if data is None or encoded not in data:
                continue
            snap = self._decode(source, data)
            if snap is not None:
                self._remember(source.name[: -len(_SUFFIX)], stored_at, snap)
                yield snap

    def _sources(self, kinds: Sequence[SnapshotKind] | None) -> list[tuple[float, Snapshot | Path]]:
        """Each retained check once, newest first: its snapshot when this
        store holds it decoded (of one of `kinds`; None: any), else its file."""
        self._prune()
        entries: list[tuple[float, Snapshot | Path]] = [
            (stored_at, snap)
            for stored_at, snap in self._items.values()
            if kinds is None or snap.kind in kinds
        ]
        if self.directory is not None:
            for mtime, path in self._files():
                check_id = path.name[: -len(_SUFFIX)]
                if check_id in self._items:
                    continue
                cached = self._loaded.get(check_id)
                if cached is not None and cached[0] == mtime:
                    if kinds is None or cached[1].kind in kinds:
                        entries.append((mtime, cached[1]))
                else:
                    entries.append((mtime, path))
        entries.sort(key=lambda entry: entry[0], reverse=True)
        return entries

    # --- files -----------------------------------------------------------

    def _files(self) -> list[tuple[float, Path]]:
        """(mtime, path) of live snapshot files, newest first; prunes the rest."""
        assert self.directory is not None
        try:
            names = os.listdir(self.directory)
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._warn_once(f"cannot read snapshot directory {self.directory}: {exc.strerror}")
            return []
        cutoff = self._clock() - self.ttl_s
        live: list[tuple[float, Path]] = []
        for name in names:
            if not name.endswith(_SUFFIX):
                continue
            path = self.directory / name
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue  # removed by another process meanwhile
            if mtime <= cutoff:
                _unlink(path)  # expired, or a writer's leftover after a kill
            elif not name.startswith("."):
                live.append((mtime, path))
        live.sort(key=lambda entry: entry[0], reverse=True)
        for _, path in live[self.max_count :]:
            _unlink(path)
        return live[: self.max_count]

    def _write(self, snap: Snapshot, stored_at: float) -> None:
        assert self.directory is not None
        try:
            # Written whole, then renamed: a reader in another process sees
            # the old state or the complete file.
            data = encode_snapshot(snap, self._memo)
            write_atomic(self.directory / f"{snap.check_id}{_SUFFIX}", data, mtime=stored_at)
            self._files()  # apply the bounds to the directory
        except OSError as exc:
            self._warn_once(
                f"could not save check {snap.check_id} in {self.directory} "
                f"({exc.strerror or exc}); its ids resolve only in this process"
            )

    def _read_bytes(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None  # expired or evicted by another process meanwhile
        except OSError as exc:
            self._warn_once(f"skipping unreadable snapshot {path}: {exc.strerror}")
            return None

    def _decode(self, path: Path, data: bytes) -> Snapshot | None:
        try:
            return decode_snapshot(data)
        except ValueError as exc:
            self._warn_once(f"skipping unreadable snapshot {path}: {exc}")
            return None

    def _read(self, path: Path, mtime: float) -> Snapshot | None:
        check_id = path.name[: -len(_SUFFIX)]
        cached = self._loaded.get(check_id)
        if cached is not None and cached[0] == mtime:
            return cached[1]  # the same file as last time: decoding is the costly part
        data = self._read_bytes(path)
        snap = None if data is None else self._decode(path, data)
        if snap is not None:
            self._remember(check_id, mtime, snap)
        return snap

    def _remember(self, check_id: str, mtime: float, snap: Snapshot) -> None:
        self._loaded[check_id] = (mtime, snap)
        while len(self._loaded) > _LOADED_LIMIT:
            self._loaded.pop(next(iter(self._loaded)))

    def _warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self._warn(message)


_KIND = re.compile(rb'"kind":"([a-z]+)"')


def _kind_of(path: Path) -> str | None:
    """The kind in a snapshot file's head (written before the issues), or None."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    found = _KIND.search(head)
    return found.group(1).decode("ascii") if found else None


def _unlink(path: Path) -> None:
    # Already gone (another process pruned it) or not ours to remove: fine.
    with contextlib.suppress(OSError):
        path.unlink()


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
        filtered_out=snap.reported_filtered_out,
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


def list_issues(
    snap: Snapshot,
    *,
    cursor: str | None = None,
    limit: int = 100,
    file: str | None = None,
    rule: str | None = None,
    severity: str | None = None,
    engine: str | None = None,
) -> IssuePage:
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
    answer: IssuePage = {
        "checkId": snap.check_id,
        "total": len(matches),
        "issues": [snap.detail(issue) for issue in page],
    }
    if offset + limit < len(matches):
        answer["nextCursor"] = _encode_cursor(offset + limit, key)
    return answer

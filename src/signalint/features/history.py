"""Session history: replayed loop state, check metrics and stats over `session.jsonl`.

The file itself is a `storage.session_log.SessionLog`.

Every MCP check appends one `check` record to `<state dir>/session.jsonl`
(see `loops.LoopTracker.record_for`), plus its metrics. The record carries
everything loop tracking reads, so replaying the log rebuilds exactly the
state the live process had (D15).

The replay reads only a bounded tail of the current file (the `.1` backup
is for `stats`), so `Session` also writes a `state` record (the tracker's
whole state) after each rotation and every `replay_lines // 4` checks;
replay starts from the last one, so the tail always holds enough to
reproduce the live state. Lines that are malformed or truncated by a crash
are skipped and counted.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from signalint import ids
from signalint.cache.remote import REMOTE_COUNTS
from signalint.features.loops import STATE_VERSION, CheckKind, LoopTracker, Warnings
from signalint.files import locked
from signalint.kept.session_log import (
    MAX_BYTES,
    REPLAY_LINES,
    SessionLog,
    compact_json,
    parse_lines,
)
from signalint.model import CheckResult, Issue
from signalint.payloads import LoopStatus
from signalint.pipeline.report import issue_detail

LOG_NAME = "session.jsonl"
# The warm engines' counters of a check's metrics, summed by `stats`.
WARM_COUNTS = ("warmAnswers", "warmFallbacks", "warmRestarts", "daemonFallbacks")
LOCK_NAME = "session.lock"

__all__ = [
    "LOG_NAME",
    "CheckKind",
    "LoopTracker",
    "Metrics",
    "Session",
    "Warnings",
    "payload_bytes",
    "stats",
]
_log = logging.getLogger(__name__)


class Session:
    """The server's session memory: the log plus the tracker replayed from it.

    `record_check` observes a check, appends its record (with `metrics`, if
    given) and returns the active warnings. A failing disk never fails a
    check: the error is logged and the in-memory state still advances.

    Several processes may share one log (two agent hosts, or a client that
    starts a server per call). Under an advisory lock on `session.lock`,
    each process first applies the checks others appended since it last
    looked, then appends its own with the next sequence number; so every
    live process, and any later replay, holds the state of one global
    sequence of checks (D15).
    """

    def __init__(
        self,
        state_dir: Path,
        *,
        max_bytes: int = MAX_BYTES,
        replay_lines: int = REPLAY_LINES,
    ) -> None:
        self.log = SessionLog(state_dir / LOG_NAME, max_bytes, replay_lines)
        self.lock_path = state_dir / LOCK_NAME
        self.checkpoint_every = max(1, replay_lines // 4)
        self.malformed_skipped = 0
        self._load()

    def _load(self) -> None:
        """Replay the tail of the log from scratch."""
        mark = _position(self.log.path)
        try:
            records, malformed = self.log.tail()
        except OSError as exc:
            _log.warning("cannot read session history %s: %s", self.log.path, exc)
            records, malformed = [], 0
        self.malformed_skipped += malformed
        self.tracker = LoopTracker.replay(records)
        self._since_checkpoint = 0
        for record in reversed(records):
            if record.get("type") == "state" and record.get("v") == STATE_VERSION:
                break
            self._since_checkpoint += record.get("type") == "check"
        else:
            # No current checkpoint (a fresh log, or one written by an older
            # version): write one with the next check, so later replays start
            # from this state rather than from a tail that will slide.
            if self._since_checkpoint:
                self._since_checkpoint = self.checkpoint_every
        self._mark = mark

    def _sync(self) -> None:
        """Apply the check records other processes appended since our last look."""
        now = _position(self.log.path)
        if now == self._mark:
            return
        if now is None or self._mark is None or now[0] != self._mark[0] or now[1] < self._mark[1]:
            self._load()  # created, rotated or replaced by another process
            return
        try:
            with self.log.path.open("rb") as fh:
                fh.seek(self._mark[1])
                data = fh.read(now[1] - self._mark[1])
        except OSError as exc:
            _log.warning("cannot read session history %s: %s", self.log.path, exc)
            return
        complete = data.rfind(b"\n") + 1  # a line still being written waits
        records, malformed = parse_lines(data[:complete].split(b"\n"))
        self.malformed_skipped += malformed
        for record in records:
            if record.get("type") == "state":  # another process's checkpoint
                self._since_checkpoint = 0
            if record.get("type") != "check":
                continue
            try:
                if int(record["seq"]) > self.tracker.seq:
                    self.tracker.apply(record)
                    self._since_checkpoint += 1
            except (KeyError, TypeError, ValueError):
                continue
        self._mark = (now[0], self._mark[1] + complete)

    def record_check(
        self,
        result: CheckResult,
        *,
        kind: CheckKind,
        targets: Sequence[str],
        metrics: dict[str, Any] | None = None,
        found: Sequence[tuple[str, str, str, str]] | None = None,
    ) -> Warnings:
        """Record one check (`found`: `loops.signatures(result.issues)`, if known)."""
        with locked(self.lock_path, required=False):
            self._sync()
            record = self.tracker.record_for(result, kind, targets, found)
            warnings = self.tracker.apply(record)
            if warnings.loop_warning is not None:
                record["loopWarning"] = warnings.loop_warning["signature"]
            if metrics is not None:
                record["metrics"] = metrics
            self._since_checkpoint += 1
            try:
                rotated = self.log.append(record)
                if rotated or self._since_checkpoint >= self.checkpoint_every:
                    self.log.append(self.tracker.to_state())
                    self._since_checkpoint = 0
            except OSError as exc:
                _log.warning("cannot append to session history %s: %s", self.log.path, exc)
            self._mark = _position(self.log.path)
        return warnings

    def status(self) -> LoopStatus:
        """The current loop status, including checks other processes recorded."""
        with locked(self.lock_path, required=False):
            self._sync()
        return self.tracker.status()


def _position(path: Path) -> tuple[int, int] | None:
    """(inode, size) of the log, or None when it does not exist."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size


def payload_bytes(
    result: CheckResult,
    payload: Mapping[str, object],
    sizes: MutableMapping[tuple[str, str], int] | None = None,
) -> tuple[int, int]:
    """Minified UTF-8 sizes: every normalized issue detail vs the check payload.

    `details_bytes(result.issues, sizes)` and `payload_size(payload)`.
    """
    return details_bytes(result.issues, sizes), payload_size(payload)


def details_bytes(
    issues: Sequence[Issue], sizes: MutableMapping[tuple[str, str], int] | None = None
) -> int:
    """The size of the JSON array of every issue's detail, minified UTF-8.

    Summed from per-detail sizes; `sizes` remembers them by (issue id, short
    id), so a server re-checking a mostly unchanged project (it passes its
    Context's) serializes only the new issues.
    """
    sizes = {} if sizes is None else sizes
    short = ids.shorten(i.issue_id for i in issues)
    total = 0
    for issue in issues:
        key = (issue.issue_id, short[issue.issue_id])
        size = sizes.get(key)
        if size is None:
            size = len(compact_json(issue_detail(issue, key[1])).encode("utf-8"))
            if len(sizes) >= 200_000:
                sizes.clear()
            sizes[key] = size
        total += size
    return 2 + total + max(0, len(issues) - 1)  # "[", "]" and the commas


def payload_size(payload: Mapping[str, object]) -> int:
    """The size of `payload` as minified UTF-8 JSON."""
    return len(compact_json(payload).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class Metrics:
    """What a check record measures, as `stats` reads it: `remote` is what
    the shared result store did (`remoteCache`), when one is set;
    `warm_answers` and `fallbacks` count the check's engines answered by a
    warm worker and by the cold path after a worker failed (their outcomes'
    `served`); `restarts` the warm workers replaced during the check;
    `warm_failures` each engine whose worker fell back to its cold run,
    how often, and the last reason (`warmFailures`)."""

    latency_ms: float | None
    cache_hits: int = 0
    cache_misses: int = 0
    payload_before: int = 0
    payload_after: int = 0
    remote: Mapping[str, int] | None = None
    warm_answers: int = 0
    fallbacks: int = 0
    restarts: int = 0
    daemon_fallback: bool = False
    warm_failures: tuple[tuple[str, int, str], ...] = ()

    def record(self) -> dict[str, Any]:
        """The `metrics` object of a check record."""
        latency_ms = self.latency_ms
        metrics: dict[str, Any] = {
            "latencyMs": None if latency_ms is None else round(latency_ms, 3),
            "cacheHits": self.cache_hits,
            "cacheMisses": self.cache_misses,
            "payloadBytesBefore": self.payload_before,
            "payloadBytesAfter": self.payload_after,
            "warmAnswers": self.warm_answers,
            "warmFallbacks": self.fallbacks,
            "warmRestarts": self.restarts,
            # 1 when the project's daemon failed and the check ran in-process, cold.
            "daemonFallbacks": int(self.daemon_fallback),
        }
        if self.remote is not None:
            metrics["remoteCache"] = dict(self.remote)
        if self.warm_failures:
            metrics["warmFailures"] = {
                engine: {"fallbacks": n, "reason": why} for engine, n, why in self.warm_failures
            }
        return metrics


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 1) if values else None


def _add_failures(into: dict[str, dict[str, Any]], recorded: object) -> None:
    """A check record's `warmFailures` added to `into` (per engine: the
    fallbacks summed, the later record's reason kept)."""
    if not isinstance(recorded, dict):
        return
    for engine, entry in recorded.items():
        if not isinstance(entry, dict):
            continue
        total = into.setdefault(str(engine), {"fallbacks": 0, "lastReason": ""})
        total["fallbacks"] += int(_number(entry.get("fallbacks")) or 0)
        if isinstance(entry.get("reason"), str):
            total["lastReason"] = entry["reason"]


def stats(state_dir: Path) -> dict[str, Any]:
    """Aggregate the retained check records of `session.jsonl` and `.1`.

    A check id present in both files counts once (the later record wins).
    `state` records are bookkeeping, not checks; a `check` record without a
    string checkId counts as malformed. Percentages and averages are
    rounded to one decimal and are None when there is nothing to average.
    """
    records, malformed = SessionLog(state_dir / LOG_NAME).read()
    checks: dict[str, dict[str, Any]] = {}
    for record in records:
        if record.get("type") != "check":
            continue
        if not isinstance(record.get("checkId"), str):
            malformed += 1
            continue
        checks[record["checkId"]] = record
    reductions: list[float] = []
    latencies: list[float] = []
    hits = misses = 0
    warm = dict.fromkeys(WARM_COUNTS, 0)
    failures: dict[str, dict[str, Any]] = {}
    remote: dict[str, int] | None = None
    for record in checks.values():
        metrics = record.get("metrics")
        if not isinstance(metrics, dict):
            continue
        before, after = (
            _number(metrics.get("payloadBytesBefore")),
            _number(metrics.get("payloadBytesAfter")),
        )
        if before and after is not None:
            reductions.append((before - after) / before * 100)
        latency = _number(metrics.get("latencyMs"))
        if latency is not None:
            latencies.append(latency)
        hits += int(_number(metrics.get("cacheHits")) or 0)
        misses += int(_number(metrics.get("cacheMisses")) or 0)
        for name in WARM_COUNTS:
            warm[name] += int(_number(metrics.get(name)) or 0)
        _add_failures(failures, metrics.get("warmFailures"))
        counts = metrics.get("remoteCache")
        if isinstance(counts, dict):
            remote = remote or dict.fromkeys(REMOTE_COUNTS, 0)
            for name in REMOTE_COUNTS:
                remote[name] += int(_number(counts.get(name)) or 0)
    lookups = hits + misses
    return {
        "checks": len(checks),
        "payloadSamples": len(reductions),
        "averagePayloadReductionPercent": _mean(reductions),
        "cacheHits": hits,
        "cacheMisses": misses,
        "cacheHitRatePercent": round(hits / lookups * 100, 1) if lookups else None,
        "latencySamples": len(latencies),
        "averageLatencyMs": _mean(latencies),
        "maxLatencyMs": round(max(latencies), 1) if latencies else None,
        "loopWarningsTriggered": len(
            {r["loopWarning"] for r in checks.values() if isinstance(r.get("loopWarning"), str)}
        ),
        "malformedLinesSkipped": malformed,
        # Summed over the checks: engines answered warm, by the cold path
        # after a worker failed, and workers restarted (`Metrics`).
        **warm,
        # Per engine whose warm worker fell back: the fallbacks, the last reason.
        "warmFailures": failures,
        # Summed over the checks that had a shared store; None: none had.
        "remoteCache": remote,
    }

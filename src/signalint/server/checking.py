"""One MCP check, start to finish: refusals, targets, engines with progress,
then snapshot, history and the schema 1.4 payload.

Every check result is retained as a snapshot (so its ids stay usable),
observed by the loop tracker (its warnings join the payload only when
active) and recorded in the session log with its metrics.

Cancellation is not caught anywhere here: `asyncio.CancelledError` travels
through `run_check` into `process.run`, which kills the engines' process
groups, and no answer is produced, so a cancelled check never reads clean.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from signalint.check import CheckRun, run_check
from signalint.cluster import cluster
from signalint.config import CONFIG_FILE, Config, ConfigError, config_source
from signalint.history import metrics_record, payload_bytes
from signalint.model import Scope
from signalint.project import PathRefused, has_js_ts_markers, safe_relative
from signalint.report import check_payload, compact_keys
from signalint.server.errors import (
    ToolRefusal,
    classify_failure,
    field_refusal,
    refusal,
    sanitize,
)
from signalint.server.state import ServerState
from signalint.snapshots import Snapshot, SnapshotKind

# (progress, total, message) -> None; a no-op when the client sent no token.
SendProgress = Callable[[float, float | None, str | None], Awaitable[None]]
ALLOW_UNINITIALIZED: Final = "SIGNALINT_ALLOW_UNINITIALIZED"


@dataclass(frozen=True, slots=True, repr=False)
class CheckAnswer:
    """A finished check: its snapshot, the full-key payload and the wire payload."""

    snapshot: Snapshot
    full: dict[str, Any]
    wire: dict[str, Any]

    def __repr__(self) -> str:
        return f"CheckAnswer({self.snapshot!r})"


def early_refusal(state: ServerState) -> ToolRefusal | None:
    """The reference's "Early refusals": no JS/TS markers, or no config."""
    root = str(state.root)
    if not has_js_ts_markers(state.root):
        return refusal(
            "project_markers_missing",
            "The project root has no package.json, tsconfig.json, jsconfig.json or "
            "top-level JS/TS file; start signalint-mcp in the project root or set "
            "SIGNALINT_PROJECT_ROOT.",
            projectRoot=root,
        )
    try:
        initialized = config_source(state.root) is not None
    except ConfigError as exc:
        return refusal("invalid_config", sanitize(str(exc), state.root), projectRoot=root)
    if not initialized and os.environ.get(ALLOW_UNINITIALIZED, "") != "1":
        return refusal(
            "project_not_initialized",
            f"Run 'signalint init' in {root} before checking it "
            f"(it writes {CONFIG_FILE}), or set {ALLOW_UNINITIALIZED}=1.",
            projectRoot=root,
        )
    return None


def targets_of(state: ServerState, field: str, paths: Sequence[str]) -> tuple[str, ...]:
    """Validated, de-duplicated project-relative targets; refusals name the index."""
    targets: list[str] = []
    for index, path in enumerate(paths):
        try:
            targets.append(safe_relative(state.root, path))
        except PathRefused as exc:
            raise field_refusal(
                f"{field}[{index}]", f"path refused: {exc.reason}", "path_refused"
            ) from exc
    return tuple(dict.fromkeys(targets))


class _Relay:
    """Turns the runner's synchronous (engine, stage) callbacks into ordered,
    monotonic progress notifications sent by one pump task."""

    def __init__(self, send: SendProgress, engines: Sequence[str]) -> None:
        self.send = send
        self.total = float(2 * len(engines) + 1)
        self.step = 0.0
        self.queue: asyncio.Queue[tuple[float, str] | None] = asyncio.Queue()

    def __call__(self, engine: str, stage: str) -> None:
        self.step += 1
        verb = "started" if stage == "start" else "finished"
        self.queue.put_nowait((self.step, f"{engine} {verb}"))

    async def pump(self) -> None:
        while (item := await self.queue.get()) is not None:
            await self.send(item[0], self.total, item[1])


async def _run_engines(
    state: ServerState, config: Config, scope: Scope, send: SendProgress
) -> CheckRun:
    relay = _Relay(send, config.enabled_engines())
    await send(0, relay.total, "walking project files")
    pump = asyncio.ensure_future(relay.pump())
    try:
        run = await run_check(state.root, config, scope, progress=relay, context=state.context)
    except BaseException:
        pump.cancel()
        raise
    relay.queue.put_nowait(None)
    await pump
    await send(relay.total, relay.total, "summarizing diagnostics")
    return run


def _sanitize_engines(state: ServerState, payload: dict[str, Any]) -> None:
    for entry in payload["engines"].values():
        if "message" in entry:
            entry["message"] = sanitize(entry["message"], state.root)


async def run(
    state: ServerState,
    paths: Sequence[str],
    *,
    field: str,
    kind: SnapshotKind,
    send: SendProgress,
) -> CheckAnswer:
    """Check `paths` (validated here) and record the result; raises ToolRefusal."""
    early = early_refusal(state)
    if early is not None:
        raise early
    try:
        config = state.config()
    except ConfigError as exc:
        raise refusal("invalid_config", sanitize(str(exc), state.root)) from exc
    scope = Scope(targets_of(state, field, paths))
    started = time.monotonic()
    try:
        check_run = await _run_engines(state, config, scope, send)
    except Exception as exc:  # thrown, not settled: classify (reference "Errors")
        import traceback

        traceback.print_exc()  # the unsanitized detail, for the person at the terminal
        raise classify_failure(exc, state.root) from exc
    latency_ms = (time.monotonic() - started) * 1000

    result = check_run.result
    clustering = cluster(result.issues)
    filtered = None if scope.whole_project and kind == "project" else check_run.filtered_out
    snapshot = Snapshot(result, clustering, scope.targets, kind, check_run.filtered_out)
    state.snapshots.put(snapshot)
    # Metrics measure the payload without warnings: they are known only once
    # the tracker has seen this check, and the record must carry the metrics.
    plain = check_payload(result, clustering, filtered_out=filtered, compact=state.compact)
    before, after = payload_bytes(result, plain)
    outcomes = result.outcomes.values()
    metrics = metrics_record(
        latency_ms=latency_ms,
        cache_hits=sum(o.cache_hits for o in outcomes),
        cache_misses=sum(o.cache_misses for o in outcomes),
        payload_before=before,
        payload_after=after,
    )
    warnings = state.history.record_check(result, kind=kind, targets=scope.targets, metrics=metrics)
    extras = {
        "loopWarning": warnings.loop_warning,
        "fileRuleChurnWarning": warnings.churn_warning,
    }
    full = check_payload(result, clustering, filtered_out=filtered, extras=extras)
    _sanitize_engines(state, full)
    wire = compact_keys(full) if state.compact else full
    return CheckAnswer(snapshot, full, wire)

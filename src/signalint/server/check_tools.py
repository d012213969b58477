"""One MCP check: the server's refusals and progress around the check service.

The check itself (targets, engines, clustering, snapshot, session history)
is `signalint.service.check_service.check`, shared with the CLI; here are only what the
server adds: the reference's early refusals, the argument-indexed path
refusal, progress notifications, the classification of a thrown failure,
and sanitized engine messages in the payload. The selections are the
CLI's, in camelCase (`selection`): `packages`, `changed`, `newFromRev`,
`newFromMergeBase`, checked by the same service.

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
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Final

from signalint.daemon import client
from signalint.payloads import CheckPayload
from signalint.pipeline.changes import GitError
from signalint.pipeline.report import compact_keys
from signalint.pipeline.request import CheckKind, Since
from signalint.pipeline.ripple import Ripple
from signalint.pipeline.snapshot import Snapshot
from signalint.pipeline.workspaces import WorkspaceError
from signalint.project.markers import MARKERS_HINT, project_languages
from signalint.project.paths import PathRefused
from signalint.server.refusals import (
    Advice,
    ToolRefusal,
    classify_failure,
    field_refusal,
    refusal,
    sanitize,
)
from signalint.server.state import ServerState
from signalint.server.words import tool_words
from signalint.service import check_service as service
from signalint.settings.config import (
    CONFIG_FILE,
    DOT_CONFIG_FILE,
    PACKAGE_KEY,
    ConfigError,
    config_source,
)

# (progress, total, message) -> None; a no-op when the client sent no token.
SendProgress = Callable[[float, float | None, str | None], Awaitable[None]]
ALLOW_UNINITIALIZED: Final = "SIGNALINT_ALLOW_UNINITIALIZED"


@dataclass(frozen=True, slots=True, repr=False)
class CheckAnswer:
    """A finished check: its snapshot, the full-key payload and the wire payload."""

    snapshot: Snapshot
    full: CheckPayload
    wire: Mapping[str, Any]
    # The edit's dependents, retained as their own check (`service.Checked`).
    dependents: Snapshot | None = None
    # What the edit changed in the files that depend on the checked ones.
    ripple: Ripple = field(default_factory=Ripple)

    def __repr__(self) -> str:
        return f"CheckAnswer({self.snapshot!r})"


@dataclass(frozen=True, slots=True)
class Selection:
    """What a check tool was asked to check besides its paths: workspace
    `packages`, the files `changed` against HEAD, and only what is new
    `since` a revision."""

    packages: tuple[str, ...] = ()
    changed: bool = False
    since: Since | None = None


def selection(args: Mapping[str, Any], paths_field: str) -> Selection:
    """The selections in a tool's validated arguments; refuses two scopes, or
    newFromRev with newFromMergeBase, naming both."""
    scopes = [name for name in (paths_field, "packages", "changed") if args.get(name)]
    if len(scopes) > 1:
        raise field_refusal(scopes[1], f"{' and '.join(scopes)} cannot be combined: give one scope")
    rev, branch = args.get("newFromRev"), args.get("newFromMergeBase")
    if rev is not None and branch is not None:
        raise field_refusal(
            "newFromMergeBase",
            "newFromRev and newFromMergeBase cannot be combined: give one revision",
        )
    since = None
    if rev is not None or branch is not None:
        since = Since(rev, branch, names=("newFromRev", "newFromMergeBase"))
    return Selection(tuple(args.get("packages", ())), bool(args.get("changed")), since)


def early_refusal(state: ServerState) -> ToolRefusal | None:
    """The reference's "Early refusals": no project markers, or no config.

    A Python project is a project as much as a JS/TS one.
    """
    root = str(state.root)
    if not project_languages(state.root):
        return refusal(
            "project_markers_missing",
            f"The project root has no JS/TS or Python project markers ({MARKERS_HINT}); "
            "start signalint-mcp in the project root or set SIGNALINT_PROJECT_ROOT.",
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
            f'(it writes {CONFIG_FILE}, or {DOT_CONFIG_FILE} or a "{PACKAGE_KEY}" key in '
            f"package.json when the project's linters would lint that file), "
            f"or set {ALLOW_UNINITIALIZED}=1.",
            projectRoot=root,
        )
    return None


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


def _progress(send: SendProgress) -> service.ProgressScope:
    """Progress notifications for one check: walking, each engine, summarizing."""

    @asynccontextmanager
    async def relayed(engines: Sequence[str]) -> AsyncIterator[_Relay]:
        relay = _Relay(send, engines)
        await send(0, relay.total, "walking project files")
        pump = asyncio.ensure_future(relay.pump())
        try:
            yield relay
        except BaseException:
            pump.cancel()
            raise
        relay.queue.put_nowait(None)
        await pump
        await send(relay.total, relay.total, "summarizing diagnostics")

    return relayed


def _path_refusal(field: str, exc: PathRefused) -> ToolRefusal:
    """The refusal naming the argument element at fault (`files[2]`)."""
    where = field if exc.index is None else f"{field}[{exc.index}]"
    return field_refusal(where, f"path refused: {exc.reason}", "path_refused")


def _sanitize_engines(state: ServerState, payload: CheckPayload) -> None:
    for entry in payload["engines"].values():
        if "message" in entry:
            entry["message"] = sanitize(entry["message"], state.root)
    found = payload.get("baseline")
    fallback = found.get("fallback") if found is not None else None
    if found is not None and isinstance(fallback, list):
        found["fallback"] = [
            {**item, "reason": sanitize(str(item["reason"]), state.root)} for item in fallback
        ]


async def _changed(state: ServerState, config: Any) -> list[str]:
    """The files changed against HEAD, or a refusal saying there are none."""
    try:
        changed = await service.changed_paths(state.root, config)
    except GitError as exc:
        raise refusal("git_error", sanitize(str(exc), state.root), field="changed") from exc
    if not changed:
        raise refusal(
            "nothing_changed",
            "No file changed against HEAD (staged, unstaged or untracked): nothing to check.",
            field="changed",
            advice=Advice("Call check_project without changed to check the whole project."),
        )
    return changed


async def run(
    state: ServerState,
    paths: Sequence[str],
    *,
    field: str,
    kind: CheckKind,
    send: SendProgress,
    select: Selection | None = None,
) -> CheckAnswer:
    """Check `paths` (validated here), or what `select` chooses, and record
    the result; raises ToolRefusal."""
    early = early_refusal(state)
    if early is not None:
        raise early
    try:
        config = state.config()
    except ConfigError as exc:
        raise refusal("invalid_config", sanitize(str(exc), state.root)) from exc
    select = select or Selection()
    changed = await _changed(state, config) if select.changed else None
    try:
        request = service.CheckRequest(
            state.root,
            config,
            paths,
            locate=service.from_root(state.root, config),
            kind=kind,
            packages=select.packages,
            changed=changed,
            since=select.since,
            progress=_progress(send),
            compact=state.compact,
        )
        # Through the project's daemon and its one warm pool, started on
        # demand (`daemon.client.check`); in-process with SIGNALINT_DAEMON=0.
        checked = await client.check(
            request,
            service.Services(state.context, state.snapshots, state.history, tool_words),
            kind="mcp",
            start=True,
        )
    except PathRefused as exc:
        raise _path_refusal(field, exc) from exc
    except GitError as exc:  # newFromRev / newFromMergeBase: a bad revision, no repository
        where = select.since.option if select.since is not None else None
        raise refusal("git_error", sanitize(str(exc), state.root), field=where) from exc
    except WorkspaceError as exc:
        message = sanitize(str(exc), state.root)
        if select.packages:  # the names, or a workspace that cannot be planned for them
            raise field_refusal("packages", message) from exc
        # monorepoMode strict: the workspace cannot be planned
        raise refusal("invalid_config", message) from exc
    except Exception as exc:  # thrown, not settled: classify (reference "Errors")
        import traceback

        traceback.print_exc()  # the unsanitized detail, for the person at the terminal
        raise classify_failure(exc, state.root) from exc
    full = checked.payload(words=tool_words)
    _sanitize_engines(state, full)
    wire = compact_keys(full) if state.compact else full
    return CheckAnswer(checked.snapshot, full, wire, checked.dependents, checked.ripple)

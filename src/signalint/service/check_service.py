"""The one check service: every front end checks a project through `check`.

The CLI's `check` and `watch`, the MCP server's check tools (and hooks
later) all call `check`, which validates the targets, runs the engines with
progress, clusters, keeps the snapshot, records the session history when
asked, and returns one `Checked`. Front ends differ only in the
`CheckRequest` they build from their arguments (`signalint.pipeline.request`: how a
user path is located, where progress goes), the `Services` they keep (which
store keeps the snapshot, whether history is recorded) and in how they
render the answer.
The selections are the same everywhere: paths, workspace `packages`, the
files `changed` against HEAD (`changed_paths`), and only what is new
since a revision (`since`, `signalint.service.baseline`).

Targets. A user path becomes a project-relative target through a `Locate`
function (`signalint.pipeline.targets`, re-exported here): `from_cwd` (the CLI:
relative to the working directory as in git, ignored paths refused naming
the config file) or `from_root` (the MCP tools and watch's re-checks:
relative to the project root; the MCP check tools pass the config so
ignored paths are refused in the same words). A refusal is one `PathRefused` carrying the
index of the path in the caller's list, so the CLI prints its message and
the server names the argument (`files[2]`).

Cancellation is not caught here: it travels through the pipeline
(`check_entry.check`) into `process.run`, which kills the engines' process groups, and no `Checked`
is produced, so a cancelled check never reads clean.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from signalint.cache.context import Context
from signalint.kept.snapshot_store import SnapshotStore
from signalint.model import CheckResult
from signalint.payloads import CheckPayload, CheckWarnings
from signalint.pipeline import check_entry, runtime
from signalint.pipeline.check_run import CheckRun
from signalint.pipeline.cluster import Clustering
from signalint.pipeline.report import Additions, check_payload
from signalint.pipeline.request import CheckRequest, ProgressScope, Since, no_progress
from signalint.pipeline.ripple import Ripple
from signalint.pipeline.snapshot import Snapshot
from signalint.pipeline.targets import Locate, from_cwd, from_root, targets_of
from signalint.pipeline.workspaces import WorkspaceError
from signalint.settings.config import Config
from signalint.steps import Words

if TYPE_CHECKING:
    from signalint.features.history import Session
    from signalint.features.loops import Warnings
    from signalint.service.baseline import OnlyNew


@dataclass(frozen=True, slots=True, repr=False)
class Checked:
    """One finished check, ready for any front end to render.

    `snapshot` holds the result, its clustering, the targets, the kind and
    the raw filtered-out count; `run` is the pipeline's answer (files
    walked included); `latency_ms` measures validation to clustering;
    `warnings` are the loop and churn warnings of the session history
    (None when the front end records no history). `only_new` is set by a
    check asked for what is new since a revision: the snapshot keeps every
    issue, the payload only the new ones.
    """

    run: CheckRun
    snapshot: Snapshot
    latency_ms: float
    warnings: Warnings | None = None
    only_new: OnlyNew | None = None
    # The errors the check's edit broke or moved in other files of its
    # programs (`CheckRun.ripple`: `Ripple.now`), retained as a check of
    # their own so they can be listed; None when there are none.
    dependents: Snapshot | None = None
    # The warm workers replaced during the check (for the session history).
    restarts: int = 0
    # Each engine whose warm worker failed and fell back to its cold run
    # during the check: (engine, fallbacks, the last failure's reason).
    warm_failures: tuple[tuple[str, int, str], ...] = ()
    # Who answered, when it was not who was asked: the project's daemon
    # could not, and the check ran in this process (`daemon.client.check`).
    daemon_note: str | None = None

    def __repr__(self) -> str:
        return f"Checked({self.snapshot!r})"

    @property
    def result(self) -> CheckResult:
        return self.snapshot.result

    @property
    def ripple(self) -> Ripple:
        """What the edit changed in the files that depend on it (`ripple`)."""
        return self.run.ripple

    @property
    def clustering(self) -> Clustering:
        return self.snapshot.clustering

    @property
    def targets(self) -> tuple[str, ...]:
        return self.snapshot.targets

    @property
    def filtered_out(self) -> int | None:
        """The filtered-out count every answer reports (`Snapshot.reported_filtered_out`)."""
        return self.snapshot.reported_filtered_out

    def payload(self, *, words: Words, warnings: bool = True) -> CheckPayload:
        """The schema 1.4 check payload with full keys (`report.check_payload`).

        Every front end's check answer is this: the MCP tools' and the CLI's
        `--format json`. A workspace check adds `workspace`, its per-package
        summary (`package_summary.summarize`), as does a check whose workspace
        planning fell back to the root (the warning). A check of what is new
        since a revision lists only the new issues and adds `baseline`.

        `words` is the front end's wording of `nextStep` (`signalint.steps`);
        `warnings=False` leaves out the loop and churn warnings. Compact keys
        are a renaming of this (`report.compact_keys`).
        """
        extras: CheckWarnings | None = None
        if warnings and self.warnings is not None:
            extras = {
                "loopWarning": self.warnings.loop_warning,
                "fileRuleChurnWarning": self.warnings.churn_warning,
            }
        only = self.only_new
        result = self.result if only is None else only.result
        from signalint.service.package_summary import summarize

        added = Additions(
            filtered_out=self.filtered_out,
            warnings=extras,
            workspace=summarize(self.run, result),
            baseline=None if only is None else only.block,
        )
        payload = check_payload(
            result,
            self.clustering if only is None else only.clustering,
            added=added,
            words=words,
        )
        if self.daemon_note is not None:  # said where every answer has room for it
            said = payload.get("message")
            payload["message"] = (
                self.daemon_note if said is None else f"{said} ({self.daemon_note})"
            )
        return payload


def engine_problems(result: CheckResult) -> list[str]:
    """One line per engine that did not run ok and says why, for a terminal's stderr."""
    return [
        f"signalint: {name} {outcome.status}: {outcome.message}"
        for name, outcome in result.outcomes.items()
        if outcome.status != "ok" and outcome.message
    ]


@dataclass(frozen=True, slots=True)
class Services:
    """The process's memory a check uses, beside the request.

    `context` is the caller's process memory (`run_check`: a server or a
    watch session keeps one for its lifetime; a new one when None).
    `store` keeps the snapshot so its ids resolve later (D19); None keeps
    nothing (watch). With `history` the check is recorded in the session
    log with its metrics, measured on the payload without warnings in the
    request's `compact` keys (what the wire carries), and the answer
    carries the loop and churn warnings; `words` (required with `history`)
    is the front end's wording of `nextStep` in that payload.
    """

    context: Context | None = None
    store: SnapshotStore | None = None
    history: Session | None = None
    words: Words | None = None


async def check(request: CheckRequest, services: Services = Services()) -> Checked:
    """Check what `request` asks (`request.CheckRequest`) of the project at
    its root (canonical) with its config.

    Workspaces (`config.monorepo_mode`, `signalint.pipeline.workspaces`): in a
    planned workspace per-package engines check each package's own
    program. `packages` names workspace packages to check with everything
    they need (instead of `paths`; they plan the workspace strictly, whatever
    the mode); an unknown name raises `WorkspaceError`.
    `changed` (project-relative paths, e.g. from `signalint.pipeline.changes`)
    checks those files (instead of `paths`) plus the programs of the
    whole-program engines that contain them: in a workspace the packages
    holding them and their dependents, otherwise the selected program.
    In strict mode a workspace that cannot be planned raises
    `WorkspaceError`; in auto mode the check falls back to the root and
    the answer's run carries the warning. `since` narrows the answer to
    the issues new since a revision (`baseline.only_new`); the revision is
    checked before any engine runs (raises `GitError`).

    `paths` are user paths, validated by the request's `locate`
    (`targets_of`: raises `PathRefused` with the index of the refused one;
    none means the whole project). `kind` is what the snapshot records:
    "project" for a project check (with or without paths: a CLI check of
    paths is a project check of those paths), "files" for a file check.

    The filtered-out count (diagnostics dropped for lying outside the
    targets, e.g. a whole-program engine's reports on other files) is
    reported by every front end alike, see `Snapshot.reported_filtered_out`.
    """
    checked = await compute(request, services.context)
    return keep(checked, request, services)


async def compute(request: CheckRequest, context: Context | None = None) -> Checked:
    """The part of `check` that runs engines: what `request` asks, answered
    with `context`'s memory and warm workers (a new `Context` when None),
    nothing stored and nothing recorded. The project's daemon serves this
    for its clients (`daemon.client.check`), which then `keep` the answer."""
    runtime.before_check()
    started = time.monotonic()
    context = context or Context()
    restarts = context.warm.counts.restarts if context.warm is not None else 0
    fell_back = context.warm.failures.fallbacks_by_engine() if context.warm is not None else {}
    answered = await check_entry.check(request, context)  # the one call into the pipeline
    failed: tuple[tuple[str, int, str], ...] = ()
    if context.warm is not None:
        restarts = context.warm.counts.restarts - restarts  # during this check
        failed = _failed_during(context, fell_back)
    run = answered.run
    targets = answered.selected.scope.targets
    snapshot = Snapshot(run.result, answered.clustering, targets, request.kind, run.filtered_out)
    # Validation to clustering: the check at a revision is not part of it.
    latency_ms = (time.monotonic() - started - answered.compared_s) * 1000
    dependents = answered.dependents
    only: OnlyNew | None = None
    if request.since is not None and answered.compared is not None:
        from signalint.service.baseline import only_new

        assert answered.revision is not None  # `resolve` names the revision of every `since`
        only = only_new(answered.compared, request.since, answered.revision)
    return Checked(
        run,
        snapshot,
        latency_ms,
        only_new=only,
        dependents=dependents,
        restarts=restarts,
        warm_failures=failed,
    )


def _failed_during(context: Context, before: dict[str, int]) -> tuple[tuple[str, int, str], ...]:
    """The engines whose warm worker fell back to the cold run since the
    pool's fallbacks were `before`, with the last reason (`Checked.warm_failures`)."""
    assert context.warm is not None
    failures = context.warm.failures
    now = failures.fallbacks_by_engine()
    return tuple(
        (engine, n - before.get(engine, 0), failures.engines[engine].last_reason)
        for engine, n in sorted(now.items())
        if n > before.get(engine, 0)
    )


def keep(checked: Checked, request: CheckRequest, services: Services) -> Checked:
    """What `check` does with a computed answer in the asking process: the
    snapshot (and the dependents') kept in `services.store`, the check
    recorded in `services.history` with its warnings."""
    if services.store is not None:
        services.store.put(checked.snapshot)
        if checked.dependents is not None:
            services.store.put(checked.dependents)
    if services.history is None:
        return checked
    if services.words is None:
        raise ValueError("words: a check recorded in history needs the front end's words")
    context = services.context or Context()
    warnings = _record(services.history, checked, request.compact, services.words, context)
    return dataclasses.replace(checked, warnings=warnings)


async def changed_paths(root: Path, config: Config) -> list[str]:
    """The files changed against HEAD (`changes.changed_since`: staged,
    unstaged, untracked) that the configuration does not ignore (a tracked
    build output is not checked). Raises `GitError`."""
    import pathspec

    from signalint.pipeline.changes import changed_since
    from signalint.settings.config import state_dir

    ignored = pathspec.GitIgnoreSpec.from_lines(config.ignore)
    changed = await changed_since(root, "HEAD", state=state_dir(root))
    return [p for p in changed if not ignored.match_file(p)]


def _record(
    history: Session, checked: Checked, compact: bool, words: Words, context: Context
) -> Warnings:
    from signalint.features.history import Metrics, details_bytes, payload_size

    snapshot = checked.snapshot
    from signalint.features.loops import signatures

    result = snapshot.result
    # Metrics measure the payload without warnings: the warnings are known
    # only once the tracker has seen this check, and the record carries them.
    plain = check_payload(
        result,
        snapshot.clustering,
        added=Additions(filtered_out=snapshot.reported_filtered_out),
        compact=compact,
        words=words,
    )
    issues = result.issues
    before = context.derived(
        issues, "details_bytes", lambda: details_bytes(issues, context.detail_sizes)
    )
    after = payload_size(plain)
    outcomes = result.outcomes.values()
    metrics = Metrics(
        latency_ms=checked.latency_ms,
        cache_hits=sum(o.cache_hits for o in outcomes),
        cache_misses=sum(o.cache_misses for o in outcomes),
        payload_before=before,
        payload_after=after,
        remote=result.remote_cache,
        warm_answers=sum(o.served == "warm" for o in outcomes),
        fallbacks=sum(o.served == "fallback" for o in outcomes),
        restarts=checked.restarts,
        daemon_fallback=checked.daemon_note is not None,
        warm_failures=checked.warm_failures,
    ).record()
    found = context.derived(issues, "signatures", lambda: signatures(issues))
    kind = snapshot.kind
    assert kind != "lsp", "only checks are recorded in the session history"
    return history.record_check(
        result, kind=kind, targets=snapshot.targets, metrics=metrics, found=found
    )


__all__ = [
    "CheckRequest",
    "Checked",
    "Locate",
    "ProgressScope",
    "Services",
    "Since",
    "WorkspaceError",
    "changed_paths",
    "check",
    "compute",
    "engine_problems",
    "from_cwd",
    "from_root",
    "keep",
    "no_progress",
    "targets_of",
]

"""`signalint watch`: check once, then re-check files as they change.

stdout carries the results, one line per event, flushed after each batch so
a pipe reader sees them at once: the initial summary, then per batch
`+ <severity> file:line:col rule summary` for introduced issues,
`- resolved file:line:col rule summary` for resolved ones and
`N introduced, M resolved, total T (status)`. Progress, engine failures and
the `watching ...` line go to stderr.

Ctrl-C (SIGINT), SIGTERM or SIGHUP sets the stop event and cancels a
running check, which kills the engines' process groups (signalint.process),
then exits 130 (143 for SIGTERM, 129 for SIGHUP) after printing `stopped` on
stderr. Its loop's handlers stand in for the console script's
(`cli.stop_signals`) while it watches.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncGenerator, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from watchfiles import Change, awatch

from signalint.cache.context import Context
from signalint.cli.progress import progress_line
from signalint.cli.project_args import open_project
from signalint.daemon import client
from signalint.features.delta import LIST_LIMIT
from signalint.model import CheckResult
from signalint.payloads import IssueEntry
from signalint.pipeline.check_run import CheckRun
from signalint.pipeline.runtime import long_lived
from signalint.project.paths import PathRefused
from signalint.service import check_service as service
from signalint.service.watching import (
    Batch,
    Update,
    WatchState,
    classify,
    program_groups,
    project_relative,
)
from signalint.settings.config import Config, ConfigError, load_config, state_dir
from signalint.wording import count

DEBOUNCE_MS = 200  # the longest a batch keeps gathering changes
STEP_MS = 50  # a batch closes once this long passes without a new change
# How often an idle watcher returns control; its first return also proves
# that the file-system watches are in place before we say "watching".
READY_MS = 300

T = TypeVar("T")


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")


def _summary(result: CheckResult) -> str:
    engines = ", ".join(f"{name} {o.status}" for name, o in result.outcomes.items())
    issues = count(len(result.issues), "issue")
    return f"{result.status}: {issues} (engines: {engines or 'none enabled'})"


def _report_engines(result: CheckResult) -> None:
    for line in service.engine_problems(result):
        click.echo(line, err=True)


def _location(entry: IssueEntry) -> str:
    return f"{entry['file']}:{entry['line']}:{entry['col']} {entry['rule']} {entry['summary']}"


def _print_updates(updates: Sequence[Update], state: CheckResult) -> None:
    introduced = [entry for update in updates for entry in update.introduced]
    resolved = [entry for update in updates for entry in update.resolved]
    n_introduced = sum(update.introduced_count for update in updates)
    n_resolved = sum(update.resolved_count for update in updates)
    unobserved = sum(update.unobserved for update in updates)
    for entry in introduced[:LIST_LIMIT]:
        _out(f"+ {entry['severity']} {_location(entry)}")
    if n_introduced > LIST_LIMIT:
        _out(f"+ ... {n_introduced - LIST_LIMIT} more introduced, not listed")
    for entry in resolved[:LIST_LIMIT]:
        _out(f"- resolved {_location(entry)}")
    if n_resolved > LIST_LIMIT:
        _out(f"- ... {n_resolved - LIST_LIMIT} more resolved, not listed")
    line = f"{n_introduced} introduced, {n_resolved} resolved"
    line += f", total {len(state.issues)} ({state.status})"
    if unobserved:
        line += f"; {unobserved} kept unconfirmed (their engine did not run ok)"
    _out(line)


class _Session:
    """One watch: the stop event, the running check (cancelled on a signal)."""

    def __init__(
        self, root: Path, config: Config, targets: tuple[str, ...], *, warm: bool = True
    ) -> None:
        self.root = root
        self.config = config
        self.targets = targets
        self.stop = asyncio.Event()
        self.exit_code = 0
        self._running: asyncio.Task[Any] | None = None
        # Memory kept across the session's re-checks; the warm engines are
        # the project's daemon's (`daemon.client.check`, started on demand).
        self.warm = warm
        self.context = Context()
        long_lived()

    def on_signal(self, exit_code: int) -> None:
        self.exit_code = self.exit_code or exit_code
        self.stop.set()
        if self._running is not None:
            self._running.cancel()

    async def stoppable(self, work: Coroutine[Any, Any, T]) -> T | None:
        """`work`'s result, or None when a signal cancelled it."""
        self._running = task = asyncio.ensure_future(work)
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # we were cancelled ourselves, not just the check
            return None
        finally:
            self._running = None

    async def check(self, targets: Sequence[str]) -> CheckRun | None:
        """The check of `targets`, or None when a signal stopped it.

        Through the check service like every front end. The targets were
        validated already (the command's paths by `open_project`, changed
        files by the walk); the service checks them again against the root,
        so a file that vanished meanwhile is refused. Watch keeps no
        snapshots (its re-checks would crowd out the checks whose ids were
        printed) and records no history.
        """
        locate = service.from_root(self.root)
        checked = await self.stoppable(
            client.check(
                service.CheckRequest(
                    self.root, self.config, targets, locate=locate, progress=progress_line
                ),
                service.Services(self.context),
                kind="watch",
                start=self.warm,
                use_daemon=self.warm,
            )
        )
        return None if checked is None else checked.run

    async def absorb(self, state: WatchState, batch: Batch) -> bool:
        """Re-check for `batch` and print what changed; False when stopped."""
        full = bool(batch.config_changed)
        if full:
            names = ", ".join(batch.config_changed)
            click.echo(f"config changed ({names}): re-checking everything", err=True)
            try:
                self.config = load_config(self.root)
            except ConfigError as exc:
                click.echo(f"signalint: {exc}; keeping the previous configuration", err=True)
                return True
            groups = [self.targets]
        else:
            existing = [f for f in batch.checked if (self.root / f).exists()]
            groups = program_groups(self.root, self.config, existing)
        updates = [state.absorb(None, (), batch.deleted, full=False)] if batch.deleted else []
        for group in groups:
            try:
                run = await self.check(group)
            except PathRefused:
                continue  # a file vanished meanwhile; its deletion arrives in the next batch
            if run is None:
                return False
            _report_engines(run.result)
            updates.append(state.absorb(run, group, (), full=full))
        _print_updates(updates, state.result)
        sys.stdout.flush()
        return True

    def changes(self) -> AsyncGenerator[set[tuple[Change, str]], None]:
        """Debounced batches of relevant changes, until the stop event is set."""
        skipped = [state_dir(self.root)]
        return awatch(
            self.root,
            watch_filter=lambda _, path: project_relative(self.root, path, skipped) is not None,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=self.stop,
            rust_timeout=READY_MS,
            yield_on_timeout=True,
        )

    async def run(self) -> int:
        changes = self.changes()
        # Watch from the start, so edits made during the first check are seen.
        first = asyncio.ensure_future(anext(changes))
        try:
            initial = await self.check(self.targets)
            if initial is None:
                return self.exit_code
            state = WatchState(initial, self.targets)
            _out(_summary(initial.result))
            sys.stdout.flush()
            _report_engines(initial.result)
            pending = await first
            click.echo(f"watching {self.root} (Ctrl-C to stop)", err=True)
            while not self.stop.is_set():
                rels = {
                    rel
                    for _, path in pending
                    if (rel := project_relative(self.root, path)) is not None
                }
                batch = classify(self.root, self.config, self.targets, state.files, rels)
                if batch and not await self.absorb(state, batch):
                    break
                pending = await anext(changes)
        except StopAsyncIteration:
            pass  # the stop event ended the watcher
        finally:
            self.stop.set()  # the watcher thread notices within one step and returns
            await asyncio.gather(first, return_exceptions=True)
            await changes.aclose()
        return self.exit_code


async def _watch(root: Path, config: Config, targets: tuple[str, ...], *, warm: bool = True) -> int:
    session = _Session(root, config, targets, warm=warm)
    loop = asyncio.get_running_loop()
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for signum in stops:
        loop.add_signal_handler(signum, session.on_signal, 128 + signum)
    try:
        return await session.run()
    finally:
        for signum in stops:
            loop.remove_signal_handler(signum)
        if session.warm:  # a daemon started for this watch ends with it
            await asyncio.to_thread(client.leave, root, "watch", 2.0)


@click.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--no-daemon",
    is_flag=True,
    help="Keep no engine warm: every re-check starts its engines cold "
    "(SIGNALINT_DAEMON=0 does so always).",
)
def watch(paths: Sequence[str], no_daemon: bool) -> int:
    """Check the project (or PATHS inside it), then re-check files as you edit.

    Prints a one-line summary of the first check, then, after each burst of
    saves, the issues introduced (+) and resolved (-) since the previous
    state and the new total. Only changed files are re-checked (TypeScript
    still builds its whole program, but only those files' results are
    taken); a change to a config file (signalint.config.json, tsconfig,
    .oxlintrc, biome.json, eslint.config.*, .gitignore) re-checks
    everything. Stop with Ctrl-C; no engine process is left behind.

    The engines are kept warm by the project's daemon (started if none
    runs), whose one pool every front end of the project shares;
    `--no-daemon` or SIGNALINT_DAEMON=0 checks in this process, cold.
    """
    root, config, targets = open_project(paths)
    try:
        code = asyncio.run(_watch(root, config, targets, warm=not no_daemon))
    except BrokenPipeError:
        # The reader went away (`signalint watch | head`): nothing left to tell it.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # e.g. the system's limit on watched directories
        raise click.ClickException(f"cannot watch {root}: {exc}") from exc
    if code:
        click.echo("stopped", err=True)
    return code

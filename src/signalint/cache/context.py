"""The memory of one process: what a CLI command or a server remembers between checks.

Everything here is a memo of something the files or the database already
say, so a fresh `Context` is always correct, only slower: a long-lived
server keeps one for its lifetime (unchanged files are neither re-read nor
re-decoded), a CLI command makes one per run, `watch` one per session.
Nothing in Signalint keeps module-level memo state; it lives here.

- what the result stores hold (`storage.memory.StoreMemory`: one local
  store per state directory, decoded entries, program records, engine
  versions), the shared stores it reaches (`storage.remote.RemoteTier`, one
  per `remoteCache` setting: a store that failed stays off for the
  process; its module loads with the first, so a project without one
  never loads it), and the view of them one check uses (`store`);
- directory listings of earlier walks, per project;
- the last merged and sorted issue list (identical input, identical output),
  and values derived from it alone (its clustering, loop signatures, sizes);
- issues whole-program engines made before (`model.IssueMemo`);
- background writes still running (a CLI process waits for them at exit);
- the kept-warm engine workers (`warm.pool.WarmPool`), in a process that
  checks more than once (the MCP server, the daemon); None elsewhere.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from signalint.cache.check_store import CheckStore
from signalint.cache.entries import NO_ANCHORS, Anchors
from signalint.cache.memory import StoreMemory
from signalint.model import Issue, IssueMemo
from signalint.project.walk import WalkMemo
from signalint.settings.config import RemoteSettings

if TYPE_CHECKING:  # a CLI command keeps no workers: the pool is not imported there
    from signalint.cache.remote import RemoteTier
    from signalint.warm.pool import WarmPool

T = TypeVar("T")


class Context:
    """One process's (or one server's) memos; see the module docstring."""

    def __init__(self, stores: StoreMemory | None = None, warm: WarmPool | None = None) -> None:
        self.stores = stores or StoreMemory()
        self.warm = warm
        self._walks: dict[Path, WalkMemo] = {}
        self._last_merge: tuple[tuple[Issue, ...], tuple[tuple[Issue, ...], str]] | None = None
        self._derived: tuple[tuple[Issue, ...], dict[str, object]] | None = None
        # Serialized sizes of issue details, by (issue id, short id).
        self.detail_sizes: dict[tuple[str, str], int] = {}
        self.issue_memo = IssueMemo()
        self._pending: set[asyncio.Future[None]] = set()
        self._remotes: dict[RemoteSettings, RemoteTier | str] = {}

    def store(
        self,
        state: Path,
        max_rows: int,
        remote: RemoteSettings | None = None,
        anchors: Anchors = NO_ANCHORS,
        packs: str | None = "",
    ) -> CheckStore:
        """A check's view of the result stores of a state directory
        (`storage.check_store`), with the shared store `remote` names behind
        it (and the packs it reads and keeps there, `packs`); its writes
        behind run in `in_background`."""
        local = self.stores.local(state, max_rows)
        tier = None if remote is None else self.remote(remote)
        return CheckStore(local, self.stores, self.in_background, tier, anchors, packs)

    def remote(self, settings: RemoteSettings) -> RemoteTier | None:
        """The process's tier for a shared store, opened once (None when it
        cannot be: the reason was warned once)."""
        if settings not in self._remotes:
            # Loaded by the first shared store: a project without one never loads it.
            from signalint.cache.remote import open_remote

            self._remotes[settings] = open_remote(settings, os.environ)
        found = self._remotes[settings]
        return None if isinstance(found, str) else found

    def merged(
        self,
        kept: tuple[Issue, ...],
        merge: Callable[[tuple[Issue, ...]], tuple[tuple[Issue, ...], str]],
    ) -> tuple[tuple[Issue, ...], str]:
        """`merge(kept)`, reused when `kept` holds the very same issue objects
        as last time (an unchanged project re-checked from the cache): the
        result of a pure function of immutable values cannot differ."""
        last = self._last_merge
        same = last is not None and len(last[0]) == len(kept)
        if last is not None and same and all(a is b for a, b in zip(last[0], kept, strict=True)):
            return last[1]
        # Neither the last merge nor what was derived from it can be asked
        # for again (their key is a tuple no later check passes): forgotten
        # before the merge, not after, so they do not add to its peak.
        self._last_merge = self._derived = None
        result = merge(kept)
        self._last_merge = (kept, result)
        return result

    def derived(self, issues: tuple[Issue, ...], name: str, make: Callable[[], T]) -> T:
        """`make()`, a value computed from `issues` alone (their clustering,
        say), reused while the check's issues are the very same tuple as the
        previous check's (`merged` returns the same tuple for an unchanged
        project)."""
        if self._derived is None or self._derived[0] is not issues:
            self._derived = (issues, {})
        values = self._derived[1]
        if name not in values:
            values[name] = make()
        return values[name]  # type: ignore[return-value]

    def walk_memo(self, root: Path) -> WalkMemo:
        """Directory listings of this project's earlier walks (`project.WalkMemo`)."""
        return self._walks.setdefault(root, WalkMemo())

    def background(self) -> list[asyncio.Future[None]]:
        """The writes started by `in_background` that are still running."""
        return list(self._pending)

    def remote_tiers(self) -> list[RemoteTier]:
        """The shared stores this process opened."""
        return [tier for tier in self._remotes.values() if not isinstance(tier, str)]

    def in_background(self, work: Callable[[], None]) -> None:
        """Start `work` in a worker thread without waiting for it.

        Used for writes off the answer's path; `asyncio.run` waits for
        worker threads before a CLI process exits.
        """
        # Submitted to the executor now, not from a task's first step:
        # `asyncio.run` cancels tasks that are still pending when the main
        # coroutine returns (a task that had not started would drop its
        # write), but it waits for the default executor's threads.
        future = asyncio.get_running_loop().run_in_executor(None, work)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)

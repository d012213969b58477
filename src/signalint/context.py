"""The memory of one process: what a CLI command or a server remembers between checks.

Everything here is a memo of something the files or the database already
say, so a fresh `Context` is always correct, only slower: a long-lived
server keeps one for its lifetime (unchanged files are neither re-read nor
re-decoded), a CLI command makes one per run, `watch` one per session.
Nothing in Signalint keeps module-level memo state; it lives here.

- result caches, one per state directory (each holds its file-digest memo);
- issues already decoded, by content-addressed cache key (bounded LRU);
- the last program record per key of each whole-program engine;
- engine versions per executable state;
- directory listings of earlier walks, per project;
- the last merged and sorted issue list (identical input, identical output),
  and values derived from it alone (its clustering, loop signatures, sizes);
- issues whole-program engines made before (`model.IssueMemo`);
- background writes still running (a CLI process waits for them at exit).
"""

from __future__ import annotations

import asyncio
import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

from signalint import process
from signalint.engines.base import Provision
from signalint.engines.resolve import (
    Resolved,
    executable_key,
    package_version,
    parse_version,
    version_command,
)
from signalint.issue_codec import load_issues
from signalint.model import Issue, IssueMemo
from signalint.project.walk import WalkMemo
from signalint.storage.results import ResultCache

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

# The per-file cache entry of a candidate the engine does not check (not
# JSON, so it can never be mistaken for an issue list).
NOT_CHECKED = b"-"


class Lru(Generic[K, V]):
    """A bounded mapping that forgets the least recently used entry first."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __getitem__(self, key: K) -> V:
        return self._entries[key]

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)


def decode_entry(blob: bytes) -> tuple[Issue, ...] | None:
    """A per-file entry: its issues, or None for a file the engine does not check."""
    return None if blob == NOT_CHECKED else tuple(load_issues(blob))


class Context:
    """One process's (or one server's) memos; see the module docstring."""

    # Programs: one per whole-program engine, or one per package in a
    # workspace (a repository with a few hundred packages stays remembered).
    def __init__(self, decoded_capacity: int = 100_000, programs_capacity: int = 512) -> None:
        self._caches: dict[tuple[Path, int], ResultCache] = {}
        # Issues by cache key: None is "the engine does not check this file".
        self.decoded: Lru[str, tuple[Issue, ...] | None] = Lru(decoded_capacity)
        # Program records by key, typed loosely: the program cache owns their shape.
        self.programs: Lru[str, object] = Lru(programs_capacity)
        self._versions: dict[str, str] = {}
        self._walks: dict[Path, WalkMemo] = {}
        self._last_merge: tuple[tuple[Issue, ...], tuple[tuple[Issue, ...], str]] | None = None
        self._derived: tuple[tuple[Issue, ...], dict[str, object]] | None = None
        # Serialized sizes of issue details, by (issue id, short id).
        self.detail_sizes: dict[tuple[str, str], int] = {}
        self.issue_memo = IssueMemo()
        self._pending: set[asyncio.Future[None]] = set()

    def cache(self, state: Path, max_rows: int) -> ResultCache:
        """The result cache of a state directory (one object per directory)."""
        key = (state, max_rows)
        if key not in self._caches:
            self._caches[key] = ResultCache(state, max_rows=max_rows)
        return self._caches[key]

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

    def lookup(
        self, cache: ResultCache, keys: Sequence[str]
    ) -> dict[str, tuple[Issue, ...] | None]:
        """Per-file entries found, by key: issues, or None for "not checked".

        Keys are content addresses, so a remembered entry stays valid
        whatever happens to the database.
        """
        found = {k: self.decoded[k] for k in keys if k in self.decoded}
        stored = cache.get_many([k for k in keys if k not in found])
        for key, blob in stored.items():
            found[key] = decode_entry(blob)
            self.decoded.put(key, found[key])
        return found

    async def engine_version(
        self, cache: ResultCache, resolved: Resolved, provision: Provision, timeout_s: float
    ) -> str:
        """The engine's version ("unknown" when it cannot be told).

        Keyed by `resolve.executable_key`, remembered here and in the state
        directory. The package's own metadata (npm manifest, pip dist-info)
        names its version: reading it saves starting the engine just to ask.
        """
        assert resolved.path is not None
        exe_key = executable_key(resolved.path)
        if exe_key is not None and exe_key in self._versions:
            return self._versions[exe_key]
        known = exe_key and cache.version_for(exe_key)
        known = known or package_version(os.path.realpath(resolved.path), provision)
        if known is None:
            result = await process.run(version_command(resolved.path, timeout_s))
            found = parse_version(result.stdout) if result.exit_code == 0 else None
            known = found or "unknown"
            if found and exe_key:
                cache.remember_version(exe_key, known)
        if exe_key is not None and known != "unknown":
            self._versions[exe_key] = known
        return known

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

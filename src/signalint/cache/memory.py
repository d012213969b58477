"""What one process remembers of its result stores.

A memo of what the stores hold, so a fresh `StoreMemory` is always correct,
only slower: a long-lived server keeps one for its lifetime (unchanged
files are neither re-read nor re-decoded), a CLI command one per run
(`context.Context` holds it).

- one local store (`ResultCache`) per state directory, each with its own
  file-digest memo;
- per-file entries already decoded, by key (bounded, least recently used
  forgotten first): keys are content addresses, so a remembered entry stays
  valid whatever happens to the database;
- the last `ProgramRecord` per program key (bounded likewise), and the
  stamp its stored row got when this process last wrote or read it
  (`stored`: while the row still carries it, nobody has written it since,
  and a stale remembered record need not be followed by the stored one);
- engine versions per executable state (`resolve.executable_key`).

Each is bounded (`DECODED`, `PROGRAMS`, `STAMPS`, `VERSIONS`; the local
stores: one per state directory a process checks, each with at most
`results.SEEN_FILES` file digests): docs/architecture.md, "Memory".
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from pathlib import Path
from typing import Generic, TypeVar

from signalint.cache.entries import ProgramRecord
from signalint.cache.local_store import ResultCache
from signalint.model import Issue

# The bounds (docs/architecture.md, "Memory"): per-file entries decoded,
# program records, stamps of stored program rows, engine versions.
DECODED = 100_000
PROGRAMS = 512
STAMPS = 4096
VERSIONS = 256

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """A bounded mapping that forgets the least recently used entry first
    (safe to use from several threads: records are remembered behind the
    answer, `CheckStore.keep`)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __getitem__(self, key: K) -> V:
        return self._entries[key]

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)


class StoreMemory:
    """One process's memos of its result stores; see the module docstring."""

    # Programs: one per whole-program engine, or one per package in a
    # workspace (a repository with a few hundred packages stays remembered).
    def __init__(self, decoded_capacity: int = DECODED, programs_capacity: int = PROGRAMS) -> None:
        self._local: dict[tuple[Path, int], ResultCache] = {}
        # Issues by key: None is "the engine does not check this file".
        self.decoded: Lru[str, tuple[Issue, ...] | None] = Lru(decoded_capacity)
        self.programs: Lru[str, ProgramRecord] = Lru(programs_capacity)
        # (store path, program key) -> the stamp its row got when this process
        # last wrote or read it.
        self.stored: dict[tuple[str, str], int] = {}
        # Program key -> set once its record, being made behind an answer, is
        # remembered (or dropped): a check reading that key waits for it.
        self.making: dict[str, threading.Event] = {}
        self.versions: dict[str, str] = {}

    def version(self, exe_key: str, version: str) -> None:
        """Remember an engine's `version` for its executable state `exe_key`."""
        if len(self.versions) >= VERSIONS and exe_key not in self.versions:
            self.versions.clear()
        self.versions[exe_key] = version

    def saw(self, store: str, key: str, stamp: int | None) -> None:
        """This process wrote or read the row of program `key` in the store at
        path `store`, leaving it `stamp` (None: unknown)."""
        if stamp is None:
            self.stored.pop((store, key), None)
            return
        if len(self.stored) >= STAMPS and (store, key) not in self.stored:
            self.stored.clear()  # unknown stamps only cost a read of the record
        self.stored[(store, key)] = stamp

    def made(self, key: str, timeout_s: float = 10.0) -> None:
        """Wait until no record of `key` is being made behind an answer."""
        pending = self.making.get(key)
        if pending is not None:
            pending.wait(timeout_s)

    def local(self, state: Path, max_rows: int) -> ResultCache:
        """The local store of a state directory (one object per directory)."""
        key = (state, max_rows)
        if key not in self._local:
            self._local[key] = ResultCache(state, max_rows=max_rows)
        return self._local[key]


__all__ = ["Lru", "StoreMemory"]

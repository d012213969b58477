"""Retained check snapshots on disk: lookup by check id, and the newest first (D19).

Every check (MCP server, CLI) keeps its snapshot for `ttl_s` seconds, at
most `max_count` of them, so a later request can name it by its `checkId`.
Snapshots persist in `<state dir>/snapshots/`, one file per check, so an
id from one process (a CLI check, a hook, an MCP server started per call)
resolves in any other. Several processes share that directory without
locks: files are written whole and renamed into place, a file that
vanishes under a reader is simply absent, and an unreadable file is
skipped with a warning, never a crash.

A snapshot file is JSON named `<check id>.snapshot`, a suffix no linter or
formatter claims: a project's `biome check .` without VCS integration walks
the state directory and formats every `.json` file in it. The `.json` files
of earlier releases are not read; they are removed once expired."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from signalint import answers
from signalint.files import write_atomic
from signalint.kept.snapshot_codec import RowMemo, decode_snapshot, snapshot_chunks
from signalint.model import Issue
from signalint.pipeline.snapshot import CHECK_KINDS, Snapshot, SnapshotKind, find_references

DEFAULT_MAX_COUNT = 50
DEFAULT_TTL_S = 1800.0
# Decoded snapshots from other processes kept per store (each can be MBs).
_LOADED_LIMIT = 4
# This process's own snapshots kept decoded once their files are written
# (the newest; the others are read back from their files): bounds the
# memory of a long session to a few checks, not `max_count`.
KEEP_DECODED = 4
# A shorter reference would match issues of any check by chance.
MIN_REFERENCE = 4

# Check ids are 16 hex digits; anything that could leave the directory or
# name a temporary file is refused before it reaches the file system.
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SUFFIX = ".snapshot"
# What releases before `_SUFFIX` wrote: removed once expired, never read.
_LEGACY_SUFFIX = ".json"


def snapshot_dir(root: Path) -> Path:
    """Where snapshots of `root` persist: `snapshots/` in its state directory."""
    from signalint.settings.config import state_dir

    return state_dir(root) / "snapshots"


def live_snapshot_dir(root: Path) -> Path:
    """Where snapshots of ingested batches (kind "lsp") persist: `snapshots/live/`.

    Apart from the checks, with bounds of their own, so an editor sending a
    batch per keystroke cannot evict the checks an agent still refers to.
    """
    return snapshot_dir(root) / "live"


def _warn(message: str) -> None:
    sys.stderr.write(f"signalint: warning: {message}\n")


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
        # Check ids whose file the writer has written (guarded by `_lock`).
        self._written: set[str] = set()

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
        self._release()
        if self.directory is None or not _SAFE_ID.fullmatch(snapshot.check_id):
            return
        # An answer kept for replay names this check: it needs this file.
        answers.retain(str(self.directory / f"{snapshot.check_id}{_SUFFIX}"), self.ttl_s)
        if not self._background:
            self._write(snapshot, stored_at)
            return
        if self._writer is None:
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshots")
        future = self._writer.submit(self._write, snapshot, stored_at)
        with self._lock:
            self._pending = [f for f in self._pending if not f.done()] + [future]

    def writing(self) -> list[Future[None]]:
        """The background writes still running."""
        with self._lock:
            return [future for future in self._pending if not future.done()]

    def _release(self) -> None:
        """Keep in memory only the newest `KEEP_DECODED` snapshots, and the
        older ones whose file is not written (yet, or at all): the others
        are read back from their files when asked for, as another
        process's are."""
        if self.directory is None or len(self._items) <= KEEP_DECODED:
            return
        with self._lock:
            older = list(self._items)[:-KEEP_DECODED]
            released = [check_id for check_id in older if check_id in self._written]
            self._written.difference_update(released)
            self._written.intersection_update(self._items)
        for check_id in released:
            del self._items[check_id]

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
            legacy = name.endswith(_LEGACY_SUFFIX)
            if not (legacy or name.endswith(_SUFFIX)):
                continue
            path = self.directory / name
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue  # removed by another process meanwhile
            if mtime <= cutoff:
                _unlink(path)  # expired, or a writer's leftover after a kill
            elif not (legacy or name.startswith(".")):
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
            data = snapshot_chunks(snap, self._memo)  # written piece by piece
            write_atomic(self.directory / f"{snap.check_id}{_SUFFIX}", data, mtime=stored_at)
            with self._lock:
                self._written.add(snap.check_id)
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

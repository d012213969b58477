"""SQLite result cache: `<state dir>/cache.sqlite` (docs/architecture.md, "State on disk"; D1, D2).

Engine results by content-addressed key, plus memos of file digests and engine
versions. Each operation uses its own short connection (the CLI, the server and
hooks share one file; a long-lived connection would pin WAL snapshots). WAL and
a busy timeout let readers and a writer proceed together. No cache problem
reaches a caller: a corrupt or unreadable database is moved aside (with its
-wal/-shm, so a stale WAL is never replayed into the new file) and rebuilt with
a warning; anything unrecoverable disables the cache with one warning.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final, TypeVar

from signalint import answers
from signalint.project.content import RACY_WINDOW_NS, StatId
from signalint.project.content import hash_file as _hash_file
from signalint.project.content import stat_id as _stat_id

SCHEMA_VERSION: Final = 2
BUSY_TIMEOUT_MS: Final = 10_000
# Young files remembered before the old among them are forgotten.
_YOUNG_KEPT: Final = 256
LOCK_TRIES: Final = 20  # retries of a lock error the busy handler did not wait for
CHUNK: Final = 900  # stays below SQLite's historical 999 bound on host parameters

_SCHEMA: Final = (
    "CREATE TABLE results (key TEXT PRIMARY KEY, value BLOB NOT NULL, used INTEGER NOT NULL)",
    "CREATE INDEX results_used ON results (used)",
    "CREATE TABLE file_digests (path TEXT PRIMARY KEY, stat TEXT, digest TEXT) WITHOUT ROWID",
    "CREATE TABLE versions (exe TEXT PRIMARY KEY, version TEXT)",
)
# Error codes meaning "this file is not a usable database" (vs. a busy lock or
# a read-only directory, which moving the file aside would not fix).
_BROKEN: Final = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CANTOPEN})
_LOCKED: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})

T = TypeVar("T")
Row = tuple[str, str, str]  # a file_digests row: absolute path, stat key, digest
_wall_ns = time.time_ns  # module attribute so tests and benches can age files


def _stderr_warning(message: str) -> None:
    print(f"signalint: warning: {message}", file=sys.stderr)


def _code(exc: sqlite3.Error) -> int:
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code, without extended bits


def _chunks(items: Sequence[str], size: int = CHUNK) -> Iterator[tuple[Sequence[str], str]]:
    for start in range(0, len(items), size):
        chunk = items[start : start + size]
        yield chunk, ",".join("?" * len(chunk))


def _scalar(conn: sqlite3.Connection, sql: str, params: Sequence[str] = ()) -> Any:
    row = conn.execute(sql, params).fetchone()
    return None if row is None else row[0]


def _write(conn: sqlite3.Connection, sql: str, rows: Iterable[Sequence[object]]) -> None:
    # IMMEDIATE takes the write lock up front, where the busy handler can wait for it.
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(sql, rows)
    conn.execute("COMMIT")


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


# Files whose digest a store remembers in memory (past it, forgotten whole).
SEEN_FILES = 500_000


class ResultCache:
    """The cache of one state dir. No method raises for a cache problem."""

    def __init__(
        self, state_dir: Path, *, max_rows: int = 200_000, warn: Callable[[str], None] | None = None
    ) -> None:
        self._path = state_dir / "cache.sqlite"
        self._max_rows = max_rows
        self._warn = warn or _stderr_warning
        self._enabled = True
        self._warned_locked = False
        self._last_stamp = 0
        self._seen: dict[str, tuple[StatId, str]] = {}  # absolute path -> (stat, digest)
        # Files read while their stat was too young to trust: absolute path ->
        # the later of its mtime and ctime then (`settled_digests`).
        self._young: dict[str, int] = {}
        # One open connection per thread, kept for the process: opening one
        # costs the pragmas, and closing the last one checkpoints the WAL.
        self._local = threading.local()
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self._disable(f"cannot create cache directory {state_dir}: {exc}")

    @property
    def path(self) -> Path:
        return self._path

    @property
    def enabled(self) -> bool:
        return self._enabled

    def get_many(self, keys: Sequence[str], group: str = "") -> dict[str, bytes]:
        """The stored values of those `keys` that are present; marks them recently
        used (`group` is for tiers that read batches whole: not this one)."""
        return self.get_stamped(keys)[0]

    def get_stamped(self, keys: Sequence[str]) -> tuple[dict[str, bytes], int | None]:
        """`get_many`, with the recency stamp the rows found now carry (None
        when the touch was not written): as for `put_stamped`."""
        unique = list(dict.fromkeys(keys))

        def op(conn: sqlite3.Connection) -> tuple[dict[str, bytes], int | None]:
            hits: dict[str, bytes] = {}
            for chunk, marks in _chunks(unique):
                sql = f"SELECT key, value FROM results WHERE key IN ({marks})"
                hits.update(conn.execute(sql, chunk))
            if not hits:
                return hits, None
            stamp = self._stamp()
            try:
                conn.execute("BEGIN IMMEDIATE")
                for chunk, marks in _chunks(list(hits), CHUNK - 1):
                    sql = f"UPDATE results SET used = ? WHERE key IN ({marks})"
                    conn.execute(sql, (stamp, *chunk))
                conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                # The recency touch is best effort: a writer holding the lock
                # past the busy timeout must not turn these hits into misses.
                if _code(exc) not in _LOCKED:
                    raise
                return hits, None
            return hits, stamp

        none: tuple[dict[str, bytes], int | None] = ({}, None)
        return self._run(op, none) if unique else none

    def put_many(self, items: Mapping[str, bytes]) -> None:
        """Upsert `items`, then evict the least recently used rows beyond max_rows."""
        self.put_stamped(items)

    def put_stamped(self, items: Mapping[str, bytes]) -> int | None:
        """`put_many`, answering the recency stamp the rows now carry (None
        when nothing was written): while `stamps` answers it, no one has read
        or written them since."""

        def op(conn: sqlite3.Connection) -> int:
            stamp = self._stamp()
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "INSERT INTO results (key, value, used) VALUES (?, ?, ?) ON CONFLICT (key)"
                " DO UPDATE SET value = excluded.value, used = excluded.used",
                ((key, bytes(value), stamp) for key, value in items.items()),
            )
            excess = _scalar(conn, "SELECT count(*) FROM results") - self._max_rows
            if excess > 0:
                sql = "SELECT rowid FROM results ORDER BY used, rowid LIMIT ?"
                conn.execute(f"DELETE FROM results WHERE rowid IN ({sql})", (excess,))
            conn.execute("COMMIT")
            return stamp

        return self._run(op, None) if items else None

    def stamps(self, keys: Sequence[str]) -> dict[str, int]:
        """The recency stamp of each stored key (`put_many`, `get_many` set it)."""
        unique = list(dict.fromkeys(keys))

        def op(conn: sqlite3.Connection) -> dict[str, int]:
            found: dict[str, int] = {}
            for chunk, marks in _chunks(unique):
                sql = f"SELECT key, used FROM results WHERE key IN ({marks})"
                found.update(conn.execute(sql, chunk))
            return found

        return self._run(op, {}) if unique else {}

    def clear(self) -> int:
        """Delete every result, digest and version row; the number of results removed."""

        def op(conn: sqlite3.Connection) -> int:
            conn.execute("BEGIN IMMEDIATE")
            removed: int = _scalar(conn, "SELECT count(*) FROM results")
            for table in ("results", "file_digests", "versions"):
                conn.execute(f"DELETE FROM {table}")
            conn.execute("COMMIT")
            return removed

        self._seen.clear()
        self._young.clear()
        return self._run(op, 0)

    def has_results(self) -> bool:
        """Whether any result is stored (cheap, unlike counting)."""
        sql = "SELECT 1 FROM results LIMIT 1"
        return self._run(lambda conn: _scalar(conn, sql), None) is not None

    def row_count(self) -> int:
        return int(self._run(lambda conn: _scalar(conn, "SELECT count(*) FROM results"), 0))

    def version_for(self, exe_key: str) -> str | None:
        sql = "SELECT version FROM versions WHERE exe = ?"
        found = self._run(lambda conn: _scalar(conn, sql, (exe_key,)), None)
        return None if found is None else str(found)

    def remember_version(self, exe_key: str, version: str) -> None:
        sql = "INSERT OR REPLACE INTO versions (exe, version) VALUES (?, ?)"
        self._run(lambda conn: _write(conn, sql, [(exe_key, version)]), None)

    def digests(self, root: Path, rel_paths: Sequence[str]) -> dict[str, str]:
        """sha256 hex of each file's content, keyed by the given relative path.

        Missing, unreadable and non-regular files are omitted. Memo rows are
        keyed by absolute path, so two roots may share one state dir.
        """
        found = self._digests(root, rel_paths, None)
        assert found is not None  # only a settled read gives up
        return found

    def absolute_digests(self, paths: Sequence[str]) -> dict[str, str]:
        """As `digests`, for absolute paths."""
        found = self.digests(Path("/"), [p.lstrip("/") for p in paths])
        return {"/" + p: d for p, d in found.items()}

    def settled_digests(
        self, root: Path, rel_paths: Sequence[str], since_ns: int
    ) -> dict[str, str] | None:
        """`digests` of every one of `rel_paths`, or None when one is
        unreadable or was modified at or after `since_ns` (`project.settle`).

        A file this process read with a stat that late answers None before
        anything is statted: a change moves ctime forward, never back, so it
        is that late still (a check's program record is made right after an
        edit, and dropped so, on every post-edit check)."""
        if self._young:
            base = str(root)
            prefix = base if base.endswith("/") else base + "/"
            late = {full for full, when in self._young.items() if when >= since_ns}
            if late and any(prefix + rel in late for rel in rel_paths):
                return None
        return self._digests(root, rel_paths, since_ns)

    def _digests(
        self, root: Path, rel_paths: Sequence[str], since_ns: int | None
    ) -> dict[str, str] | None:
        if not rel_paths:
            return {}
        base = str(root)
        prefix = base if base.endswith("/") else base + "/"
        # The hot path (every check; mostly unchanged files) avoids pathlib and
        # per-file SQL, and stats through map(): a Python loop with try/except
        # costs as much again. A vanished file makes it redo one at a time.
        fulls = [prefix + rel for rel in rel_paths]
        try:
            stats: list[os.stat_result | None] = list(map(os.stat, fulls))
        except OSError:
            stats = [_stat_or_none(full) for full in fulls]
        answers.noted(fulls, stats)
        # This process's view first (a server asks about the same files on every
        # check); then the table for what it has not seen; then file reads.
        settled_before = _wall_ns() - RACY_WINDOW_NS
        result: dict[str, str] = {}
        todo: list[tuple[str, str, StatId]] = []
        for rel, full, st in zip(rel_paths, fulls, stats, strict=True):
            if since_ns is not None and (
                st is None
                or not stat.S_ISREG(st.st_mode)
                or max(st.st_mtime_ns, st.st_ctime_ns) >= since_ns
            ):
                return None
            if st is not None and stat.S_ISREG(st.st_mode):
                ident = _stat_id(st)  # a tuple: cheaper to build and compare than text
                known = self._seen.get(full)
                if known is not None and known[0] == ident:
                    result[rel] = known[1]
                else:
                    todo.append((rel, full, ident))
        if not todo:
            return result
        stored: dict[str, Row] = self._run(
            lambda conn: _load_digests(conn, prefix, [t[1] for t in todo]), {}
        )
        fresh: list[Row] = []
        for rel, full, ident in todo:
            key = f"{ident[0]}:{ident[1]}:{ident[2]}:{ident[3]}"
            row = stored.get(full)
            if row is None or row[1] != key:
                hashed = _hash_file(full)
                if hashed is None:
                    if since_ns is not None:
                        return None
                    continue
                if hashed[1] != ident and since_ns is not None:
                    return None  # edited between the stat and the read: not as it was
                result[rel] = hashed[0]
                if hashed[1] != ident or max(ident[1], ident[2]) >= settled_before:
                    self._note_young(full, hashed[1], ident)
                    continue  # changed while read, or too recent to trust its stat key
                row = (full, key, hashed[0])
                fresh.append(row)
            result[rel] = row[2]
            if len(self._seen) >= SEEN_FILES:
                self._seen.clear()  # only a memo: the table still has every row
            self._seen[full] = (ident, row[2])
        if fresh:
            sql = "INSERT OR REPLACE INTO file_digests (path, stat, digest) VALUES (?, ?, ?)"
            self._run(lambda conn: _write(conn, sql, fresh), None)
        return result

    def _note_young(self, full: str, *idents: StatId) -> None:
        """Remember that `full` was read with a stat too young to trust (the
        later of its stats); forgets what is older than the racy window."""
        self._young[full] = max(max(i[1], i[2]) for i in idents)
        if len(self._young) > _YOUNG_KEPT:
            old = _wall_ns() - 2 * RACY_WINDOW_NS
            for path, when in list(self._young.items()):
                if when < old:
                    self._young.pop(path, None)

    def _stamp(self) -> int:
        # Strictly increasing within a process, so a touch always outranks the put before it.
        self._last_stamp = max(time.time_ns(), self._last_stamp + 1)
        return self._last_stamp

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")  # persistent; re-asserting it is a no-op
            conn.execute("PRAGMA synchronous = NORMAL")
            if _scalar(conn, "PRAGMA user_version") != SCHEMA_VERSION:
                conn.execute("BEGIN IMMEDIATE")
                # Re-read under the write lock: a concurrent process may have just built it.
                if _scalar(conn, "PRAGMA user_version") != SCHEMA_VERSION:
                    for table in ("results", "file_digests", "versions"):
                        conn.execute(f"DROP TABLE IF EXISTS {table}")
                    for statement in (*_SCHEMA, f"PRAGMA user_version = {SCHEMA_VERSION}"):
                        conn.execute(statement)
                conn.execute("COMMIT")
        except BaseException:
            conn.close()  # closing rolls back an open transaction
            raise
        return conn

    def _run(self, op: Callable[[sqlite3.Connection], T], default: T) -> T:
        """Run `op` on a fresh connection; recover, retry or degrade to `default`."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        rebuilt = False
        for attempt in range(LOCK_TRIES):
            if not self._enabled:
                return default
            inode = self._inode()
            try:
                conn = self._connection(inode)
                try:
                    return op(conn)
                except BaseException:
                    self._drop_connection()  # closing rolls back what op left open
                    raise
            except sqlite3.Error as exc:
                code = _code(exc)
                if code in _LOCKED:
                    if time.monotonic() > deadline:
                        break  # the busy handler has already waited its full timeout
                    time.sleep(min(0.005 * 2**attempt, 0.2))
                elif code in _BROKEN and not rebuilt and self._recover(inode, exc):
                    rebuilt = True
                else:
                    self._disable(f"cache disabled: {self._path}: {exc}")
        if self._enabled and not self._warned_locked:  # contention passes: stay enabled
            self._warned_locked = True
            self._warn(f"cache {self._path} stayed locked; treating this lookup as a miss")
        return default

    def _connection(self, inode: int | None) -> sqlite3.Connection:
        """This thread's connection, reopened when the file was replaced or removed
        (an open connection to an unlinked file would write where nobody reads)."""
        held: tuple[sqlite3.Connection, int | None, int] | None = getattr(self._local, "held", None)
        if held is not None and held[2] != os.getpid():
            held = self._local.held = None  # a forked child never uses its parent's connection
        if (
            held is not None
            and held[1] == inode is not None
            # another process may have rebuilt the file for another schema
            and _scalar(held[0], "PRAGMA user_version") == SCHEMA_VERSION
        ):
            return held[0]
        self._drop_connection()
        conn = self._connect()
        self._local.held = (conn, self._inode(), os.getpid())
        return conn

    def close(self) -> None:
        """Close this thread's connection (the next operation opens a new one)."""
        self._drop_connection()

    def _drop_connection(self) -> None:
        held = getattr(self._local, "held", None)
        self._local.held = None
        if held is not None and held[2] == os.getpid():
            held[0].close()

    def _inode(self) -> int | None:
        st = _stat_or_none(str(self._path))
        return None if st is None else st.st_ino

    def _recover(self, inode: int | None, exc: sqlite3.Error) -> bool:
        """Make a retry worthwhile; False if impossible. No file: the state dir may
        have been deleted under a running server. A different inode: another
        process already replaced the broken file, which must not be moved."""
        aside = self._path.with_name(f"{self._path.name}.corrupt-{datetime.now():%Y%m%dT%H%M%S%f}")
        try:
            if inode is None:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                return True
            if self._inode() != inode:
                return True
            for suffix in ("", "-wal", "-shm"):
                source = self._path.with_name(self._path.name + suffix)
                if suffix == "" or source.exists():
                    source.rename(aside.with_name(aside.name + suffix))
        except OSError:
            return False
        self._warn(f"cache database {self._path} was unreadable ({exc}); moved it to {aside}")
        return True

    def _disable(self, message: str) -> None:
        if self._enabled:
            self._enabled = False
            self._warn(message)


def _load_digests(conn: sqlite3.Connection, prefix: str, fulls: list[str]) -> dict[str, Row]:
    """Memo rows for `fulls`: path -> (path, stat key, digest). For many paths one
    range scan of the root's span of the primary key (a sequential read, as the
    table is WITHOUT ROWID) beats binding thousands of IN parameters."""
    sql = "SELECT path, stat, digest FROM file_digests WHERE "
    if len(fulls) > CHUNK:
        rows = conn.execute(sql + "path >= ? AND path < ?", (prefix, prefix[:-1] + "0"))
    else:
        rows = conn.execute(sql + f"path IN ({','.join('?' * len(fulls))})", fulls)
    return {row[0]: row for row in rows}

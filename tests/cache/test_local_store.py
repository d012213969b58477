"""The SQLite result cache: round trips, LRU, recovery, digests, concurrency."""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
import multiprocessing.synchronize
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from signalint.cache import local_store as cache
from signalint.cache.local_store import ResultCache
from signalint.project import content


class Warnings(list[str]):
    """Collects warnings passed to the cache."""


@pytest.fixture
def warnings() -> Warnings:
    return Warnings()


@pytest.fixture
def store(tmp_path: Path, warnings: Warnings) -> ResultCache:
    return ResultCache(tmp_path / "state", warn=warnings.append)


@pytest.fixture
def settled_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend the files written by the test are old enough to be memoized."""
    real = cache._wall_ns
    monkeypatch.setattr(cache, "_wall_ns", lambda: real() + 10 * content.RACY_WINDOW_NS)


@pytest.fixture
def hash_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every path whose content the cache reads."""
    calls: list[str] = []
    real = content.hash_file

    def spy(path: str) -> tuple[str, content.StatId] | None:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(cache, "_hash_file", spy)
    yield calls


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_values_round_trip_and_only_hits_are_returned(
    store: ResultCache, warnings: Warnings
) -> None:
    store.put_many({"a": b"alpha", "b": b"", "c": bytes(range(256))})
    assert store.get_many(["a", "b", "c", "missing", "a"]) == {
        "a": b"alpha",
        "b": b"",
        "c": bytes(range(256)),
    }
    store.put_many({"a": b"replaced"})
    assert store.get_many(["a"]) == {"a": b"replaced"}
    assert store.row_count() == 3
    assert store.path == store.path.parent / "cache.sqlite"
    assert store.enabled and warnings == []


def test_lookups_beyond_the_parameter_limit_are_chunked(store: ResultCache) -> None:
    items = {f"key{i:05d}": str(i).encode() for i in range(2500)}
    store.put_many(items)
    assert store.get_many([*items, "absent"]) == items


def test_eviction_drops_the_least_recently_used_rows(tmp_path: Path) -> None:
    store = ResultCache(tmp_path, max_rows=3)
    for key in ("a", "b", "c"):
        store.put_many({key: key.encode()})
    store.get_many(["a"])  # a is now more recent than b and c
    store.put_many({"d": b"d"})
    assert sorted(store.get_many(["a", "b", "c", "d"])) == ["a", "c", "d"]
    store.put_many({f"bulk{i}": b"" for i in range(10)})
    assert store.row_count() == 3


def test_a_database_with_another_schema_version_is_rebuilt(store: ResultCache) -> None:
    store.put_many({"a": b"1"})
    with sqlite3.connect(store.path) as conn:
        conn.execute(f"PRAGMA user_version = {cache.SCHEMA_VERSION + 1}")
    conn.close()
    assert store.get_many(["a"]) == {}
    store.put_many({"b": b"2"})
    assert store.get_many(["a", "b"]) == {"b": b"2"}
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (cache.SCHEMA_VERSION,)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()


def assert_moved_aside(store: ResultCache, warnings: Warnings, original: bytes) -> None:
    asides = list(store.path.parent.glob("cache.sqlite.corrupt-*"))
    assert len(asides) == 1
    assert asides[0].read_bytes() == original
    assert len(warnings) == 1
    assert str(store.path) in warnings[0] and str(asides[0]) in warnings[0]
    assert store.enabled
    store.put_many({"fresh": b"ok"})
    assert store.get_many(["fresh"]) == {"fresh": b"ok"}


def test_a_garbage_file_is_moved_aside_and_rebuilt(store: ResultCache, warnings: Warnings) -> None:
    garbage = os.urandom(8192)
    write(store.path, garbage)
    assert store.get_many(["a"]) == {}
    assert_moved_aside(store, warnings, garbage)


def test_a_truncated_database_is_moved_aside_and_rebuilt(
    store: ResultCache, warnings: Warnings
) -> None:
    keys = [f"k{i:04d}" for i in range(2000)]
    store.put_many({key: os.urandom(1000) for key in keys})
    # Closed first: an open connection would keep serving the pages from its
    # write-ahead log, whatever happened to the main file (data still right).
    store.close()
    with open(store.path, "r+b") as handle:
        handle.truncate(store.path.stat().st_size // 2)
    truncated = store.path.read_bytes()
    assert store.get_many(keys) == {}
    assert_moved_aside(store, warnings, truncated)


def test_an_unopenable_path_is_moved_aside_and_rebuilt(
    store: ResultCache, warnings: Warnings
) -> None:
    write(store.path / "stray", b"")  # a directory where the database should be
    store.put_many({"a": b"1"})
    assert store.get_many(["a"]) == {"a": b"1"}
    assert len(warnings) == 1 and "cache.sqlite.corrupt-" in warnings[0]
    assert store.enabled


def test_a_held_write_lock_degrades_writes_but_keeps_hits(
    store: ResultCache, warnings: Warnings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Shortened before the first connection: the busy timeout is a pragma of the
    # connection, which the store keeps open across operations.
    monkeypatch.setattr(cache, "BUSY_TIMEOUT_MS", 50)
    store.put_many({"a": b"1"})
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        store.put_many({"b": b"2"})  # gives up after the (shortened) busy timeout
        store.put_many({"c": b"3"})
        assert store.get_many(["a", "b"]) == {"a": b"1"}  # WAL readers are not blocked
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.enabled
    assert len(warnings) == 1 and "locked" in warnings[0]
    store.put_many({"b": b"2"})
    assert store.get_many(["a", "b"]) == {"a": b"1", "b": b"2"}


def test_the_default_warning_goes_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ResultCache(tmp_path)
    write(store.path, b"not a database at all" * 100)
    assert store.row_count() == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("signalint: warning: ") and "cache.sqlite" in captured.err


def test_an_unusable_state_dir_disables_the_cache_with_one_warning(
    tmp_path: Path, warnings: Warnings
) -> None:
    # A path below a regular file can never be created, even by root.
    write(tmp_path / "afile", b"")
    store = ResultCache(tmp_path / "afile" / "state", warn=warnings.append)
    assert not store.enabled
    store.put_many({"a": b"1"})
    assert store.get_many(["a"]) == {}
    assert store.row_count() == 0 and store.clear() == 0
    store.remember_version("tsc", "7.0.2")
    assert store.version_for("tsc") is None
    # Digests still work, they just are not memoized.
    write(tmp_path / "project" / "a.ts", b"x")
    assert list(store.digests(tmp_path / "project", ["a.ts"])) == ["a.ts"]
    assert len(warnings) == 1 and "afile" in warnings[0]


def test_a_deleted_state_dir_is_recreated(store: ResultCache, warnings: Warnings) -> None:
    store.put_many({"a": b"1"})
    shutil.rmtree(store.path.parent)
    assert store.get_many(["a"]) == {}
    store.put_many({"b": b"2"})
    assert store.get_many(["b"]) == {"b": b"2"}
    assert store.enabled and warnings == []


def test_versions_persist_and_clear_removes_everything(tmp_path: Path) -> None:
    store = ResultCache(tmp_path)
    store.remember_version("tsc:/x/tsc:123", "7.0.2")
    store.put_many({"a": b"1", "b": b"2"})
    assert ResultCache(tmp_path).version_for("tsc:/x/tsc:123") == "7.0.2"
    assert store.version_for("other") is None
    assert store.clear() == 2
    assert store.row_count() == 0
    assert store.version_for("tsc:/x/tsc:123") is None


def test_digests_hash_content_and_omit_missing_and_non_files(
    store: ResultCache, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    write(root / "src" / "a.ts", b"hello")
    write(root / "b.ts", b"hello")
    (root / "dir.ts").mkdir()
    found = store.digests(root, ["src/a.ts", "b.ts", "gone.ts", "dir.ts"])
    expected = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    assert found == {"src/a.ts": expected, "b.ts": expected}
    assert store.digests(root, []) == {}


@pytest.mark.usefixtures("settled_clock")
def test_two_roots_sharing_a_state_dir_keep_their_own_digests(
    store: ResultCache, tmp_path: Path
) -> None:
    write(tmp_path / "one" / "a.ts", b"one")
    write(tmp_path / "two" / "a.ts", b"two")
    first = store.digests(tmp_path / "one", ["a.ts"])
    second = ResultCache(store.path.parent).digests(tmp_path / "two", ["a.ts"])
    assert first != second
    assert store.digests(tmp_path / "one", ["a.ts"]) == first


@pytest.mark.usefixtures("settled_clock")
def test_unchanged_files_are_not_read_again(
    store: ResultCache, tmpfs_path: Path, hash_calls: list[str]
) -> None:
    root = tmpfs_path / "project"
    rels = [f"src/f{i}.ts" for i in range(1000)]
    for rel in rels:
        write(root / rel, rel.encode())
    first = store.digests(root, rels)
    assert len(hash_calls) == 1000
    hash_calls.clear()
    assert store.digests(root, rels) == first  # this process's memo
    fresh_process = ResultCache(store.path.parent)
    assert fresh_process.digests(root, rels) == first  # the table, one range scan
    assert fresh_process.digests(root, rels[:5]) == {rel: first[rel] for rel in rels[:5]}
    assert ResultCache(store.path.parent).digests(root, rels[:5]) == {
        rel: first[rel] for rel in rels[:5]
    }  # the table, one IN query
    assert hash_calls == []


@pytest.mark.usefixtures("settled_clock")
def test_a_same_size_edit_changes_the_stat_key_and_the_digest(
    store: ResultCache, tmp_path: Path, hash_calls: list[str]
) -> None:
    path = write(tmp_path / "a.ts", b"aaaa")
    before = store.digests(tmp_path, ["a.ts"])
    mtime = path.stat().st_mtime_ns
    path.write_bytes(b"bbbb")
    os.utime(path, ns=(mtime + 1_000_000, mtime + 1_000_000))
    after = store.digests(tmp_path, ["a.ts"])
    assert before != after
    assert len(hash_calls) == 2


def test_a_just_written_file_is_not_memoized(
    store: ResultCache, tmp_path: Path, hash_calls: list[str]
) -> None:
    # Written within the racy window: a second same-size write in the same
    # timestamp tick would keep the stat key, so the memo must not be trusted.
    path = write(tmp_path / "a.ts", b"aaaa")
    before = store.digests(tmp_path, ["a.ts"])
    path.write_bytes(b"bbbb")
    assert store.digests(tmp_path, ["a.ts"]) != before
    assert len(hash_calls) == 2


def test_a_settled_read_refuses_a_file_edited_between_its_stat_and_its_read(
    store: ResultCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A program record is made after the answer: if the file is edited after
    # the stat said "settled" but before it is read, the digest is the new
    # content's, and pairing it with the old run's issues would be stale.
    path = write(tmp_path / "a.ts", b"aaaa")
    old = path.stat().st_mtime_ns - 10_000_000_000
    os.utime(path, ns=(old, old))
    real = content.hash_file

    def edited_first(full: str) -> tuple[str, content.StatId] | None:
        Path(full).write_bytes(b"bbbb")
        return real(full)

    monkeypatch.setattr(cache, "_hash_file", edited_first)
    since = path.stat().st_ctime_ns + 1
    assert store.settled_digests(tmp_path, ["a.ts"], since) is None


def hammer(
    state_dir: str,
    worker: int,
    barrier: multiprocessing.synchronize.Barrier,
    results: multiprocessing.queues.Queue[tuple[int, list[str], list[str]]],
) -> None:
    """One process of the concurrency test: 200 writes and reads."""
    warnings: list[str] = []
    store = ResultCache(Path(state_dir), warn=warnings.append)
    barrier.wait()
    errors = []
    for i in range(200):
        key = f"w{worker}-{i}"
        store.put_many({key: key.encode(), "shared": str(worker).encode()})
        got = store.get_many([key, f"w{(worker + 1) % 4}-{i}", "shared"])
        if got.get(key) != key.encode() or "shared" not in got:
            errors.append(f"{key}: {got}")
    results.put((worker, warnings, errors))


@pytest.mark.real  # four new interpreters contending for one database: seconds
def test_concurrent_processes_share_one_database(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(4)
    results = context.Queue()
    state = tmp_path / "state"
    workers = [
        context.Process(target=hammer, args=(str(state), n, barrier, results)) for n in range(4)
    ]
    for process in workers:
        process.start()
    reports = [results.get(timeout=120) for _ in workers]
    for process in workers:
        process.join(timeout=60)
        assert process.exitcode == 0
    for _worker, warnings, errors in reports:
        assert warnings == [] and errors == []
    store = ResultCache(state)
    assert store.row_count() == 4 * 200 + 1
    keys = [f"w{n}-{i}" for n in range(4) for i in range(200)]
    assert store.get_many(keys) == {key: key.encode() for key in keys}


def test_a_process_keeps_one_connection_and_reopens_after_the_file_is_replaced(
    store: ResultCache,
) -> None:
    store.put_many({"a": b"1"})
    first = store._connection(store._inode())
    assert store._connection(store._inode()) is first
    store.path.rename(store.path.with_name("moved.sqlite"))  # as `cache clear` or a user might
    assert store.get_many(["a"]) == {}  # a new, empty database, not the moved file
    assert store._connection(store._inode()) is not first


def test_a_settled_read_of_a_file_read_young_answers_without_a_stat(
    store: ResultCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A post-edit check reads the edited file young; the program record made
    # after its answer is dropped, and is now known to be without statting
    # every input again. A later `since` than the young read still reads.
    write(tmp_path / "b.ts", b"bbbb")
    path = write(tmp_path / "a.ts", b"aaaa")
    store.digests(tmp_path, ["a.ts", "b.ts"])
    young = max(path.stat().st_mtime_ns, path.stat().st_ctime_ns)
    stats: list[str] = []
    real = os.stat

    def counted(full: str, **options: bool) -> os.stat_result:
        stats.append(full)
        return real(full, **options)

    monkeypatch.setattr(os, "stat", counted)  # the module `cache` calls
    assert store.settled_digests(tmp_path, ["b.ts", "a.ts"], young) is None
    assert stats == []
    found = store.settled_digests(tmp_path, ["a.ts", "b.ts"], young + 1)
    assert found is not None and set(found) == {"a.ts", "b.ts"}
    assert [Path(s).name for s in stats if s.endswith(".ts")] == ["a.ts", "b.ts"]

"""The remote result tier on real stores: sealed values, packs, read-only, faults.

A shared directory (`fs://`) runs in the quick tier; Redis (Debian's
redis-server on a free loopback port) and moto's S3-compatible server are
real services, in the real tier.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from signalint.cache.remote import RemoteTier, open_remote, signing_key
from signalint.cache.remote_url import store_options, url_label
from signalint.cache.sealed import Rejected, Seal, pack, unpack
from signalint.settings.config import RemoteSettings
from tests.services import redis_server, s3_server, webdav_server

KEY = b"k" * 32
ENV = {"SIGNALINT_REMOTE_CACHE_KEY": KEY.decode()}
# A read budget no loaded machine misses, for readers of a shared directory
# whose test is not about the budget (the default, 200 ms, can pass while
# another process holds both cores: a miss, and a flaky count).
ROOMY_MS = 10_000


def tier(url: str, warnings: list[str], **settings: object) -> RemoteTier:
    opened = open_remote(RemoteSettings(url, **settings), ENV, warnings.append)  # type: ignore[arg-type]
    assert isinstance(opened, RemoteTier), opened
    return opened


def stored_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


# Sealing.


def test_a_value_opens_only_under_its_own_name_and_unchanged() -> None:
    seal = Seal(KEY)
    sealed = seal.close("entry/a", b"issues")
    assert seal.open("entry/a", sealed) == b"issues"
    for name, value in [
        ("entry/b", sealed),  # copied under another key
        ("entry/a", sealed[:-1]),  # cut short
        ("entry/a", sealed[:-1] + b"X"),  # changed
        ("entry/a", sealed[:10]),  # cut into the signature
        ("entry/a", b"issues"),  # never sealed
    ]:
        with pytest.raises(Rejected):
            seal.open(name, value)
    with pytest.raises(Rejected):
        Seal(b"o" * 32).open("entry/a", sealed)  # another key


def test_a_pack_holds_its_entries_and_a_cut_one_is_rejected() -> None:
    items = {"a": b"1", "b": b"", "c": b"\x00\xff" * 10}
    assert unpack(pack(items)) == items
    with pytest.raises(Rejected):
        unpack(pack(items)[:-3])


def test_the_signing_key_comes_from_the_environment_and_is_long_enough() -> None:
    assert signing_key(ENV) == KEY
    with pytest.raises(ValueError, match="is not set"):
        signing_key({})
    with pytest.raises(ValueError, match="5 bytes; at least 32"):
        signing_key({"SIGNALINT_REMOTE_CACHE_KEY": "short"})


def test_store_urls_name_the_store_and_bad_ones_say_what_is_accepted() -> None:
    assert store_options("redis://:pw@cache.internal:6380/2") == (
        "redis",
        {"endpoint": "redis://cache.internal:6380", "db": "2", "password": "pw"},
    )
    assert store_options("s3://bucket/ci?region=eu-west-1") == (
        "s3",
        {"region": "eu-west-1", "bucket": "bucket", "root": "/ci"},
    )
    assert store_options("fs:///srv/cache") == ("fs", {"root": "/srv/cache"})
    assert url_label("redis://user:secret@host:1/0?x=1") == "redis://host:1/0"
    with pytest.raises(ValueError, match="accepted: redis://, rediss://"):
        store_options("ftp://host/x")
    with pytest.raises(ValueError, match="absolute directory"):
        store_options("fs://relative/dir")
    with pytest.raises(ValueError, match="database number"):
        store_options("redis://host/zero")


# A shared directory: the tier's behaviour on a real store.


def test_entries_written_by_one_machine_are_read_by_another(tmp_path: Path) -> None:
    url = f"fs://{tmp_path / 'shared'}"
    warnings: list[str] = []
    # Time enough for a write on a loaded machine (one went past the default).
    writer = tier(url, warnings, timeout_ms=ROOMY_MS)
    writer.put_many({"k1": b"one", "k2": b"two"})
    writer.flush()
    reader = tier(url, warnings, timeout_ms=ROOMY_MS)
    assert reader.get_many(["k1", "k2", "k3"]) == {"k1": b"one", "k2": b"two"}
    assert (reader.counts.hits, reader.counts.misses, reader.counts.round_trips) == (2, 1, 1)
    assert warnings == []
    assert writer.counts.writes == 2


def test_a_group_is_read_in_one_round_trip_from_its_pack(tmp_path: Path) -> None:
    url = f"fs://{tmp_path / 'shared'}"
    warnings: list[str] = []
    writer = tier(url, warnings, timeout_ms=ROOMY_MS)
    entries = {f"key{i}": f"value {i}".encode() for i in range(200)}
    writer.put_many(entries)
    writer.put_pack("eslint 9", entries)
    writer.flush()
    reader = tier(url, warnings, timeout_ms=ROOMY_MS)
    assert reader.get_many(list(entries), "eslint 9") == entries
    assert reader.counts.round_trips == 1
    # One entry the pack lacks: the pack, then that entry alone.
    writer.put_many({"new": b"edited"})
    writer.flush()
    again = tier(url, warnings, timeout_ms=ROOMY_MS)
    assert again.get_many([*entries, "new"], "eslint 9") == {**entries, "new": b"edited"}
    assert again.counts.round_trips == 2
    # A group nobody packed: one round trip, all misses.
    assert again.get_many(list(entries), "another engine") == {}
    assert again.counts.round_trips == 3


def test_tampered_values_are_rejected_never_served(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    warnings: list[str] = []
    writer = tier(f"fs://{shared}", warnings)
    writer.put_many({"k1": b"one", "k2": b"two"})
    writer.put_pack("g", {"k1": b"one", "k2": b"two"})
    writer.flush()
    files = stored_files(shared)
    assert len(files) == 3
    for path in files:
        data = path.read_bytes()
        path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    reader = tier(f"fs://{shared}", warnings, timeout_ms=ROOMY_MS)
    assert reader.get_many(["k1", "k2"], "g") == {}
    assert reader.counts.rejected == 3  # the pack and both entries
    forged = tier(f"fs://{shared}", warnings)
    forged._seal = Seal(b"x" * 32)  # a writer without the key
    forged.put_many({"k1": b"forged"})
    forged.flush()
    honest = tier(f"fs://{shared}", warnings, timeout_ms=ROOMY_MS)
    assert honest.get_many(["k1"]) == {}
    assert honest.counts.rejected == 1
    assert warnings == []


def test_read_only_reads_and_writes_nothing(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    warnings: list[str] = []
    writer = tier(f"fs://{shared}", warnings)
    writer.put_many({"k": b"v"})
    writer.flush()
    before = stored_files(shared)
    reader = tier(f"fs://{shared}", warnings, read_only=True, timeout_ms=ROOMY_MS)
    assert reader.get_many(["k"]) == {"k": b"v"}
    reader.put_many({"other": b"x"})
    reader.put_pack("g", {"other": b"x"})
    reader.flush()
    assert stored_files(shared) == before
    assert reader.counts.writes == 0
    assert reader.probe() is None  # a read-only probe only reads


def test_without_a_key_there_is_no_remote_tier_and_it_says_why(tmp_path: Path) -> None:
    warnings: list[str] = []
    settings = RemoteSettings(f"fs://{tmp_path}")
    assert open_remote(settings, {}, warnings.append) == (
        "SIGNALINT_REMOTE_CACHE_KEY is not set (the key that signs shared results)"
    )
    assert warnings == [
        f"remote cache fs://{tmp_path} is off: SIGNALINT_REMOTE_CACHE_KEY is not set "
        "(the key that signs shared results)"
    ]


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers (a hung store)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def test_a_hung_store_costs_one_budget_and_one_warning_then_is_left_alone(
    silent_server: int,
) -> None:
    warnings: list[str] = []
    hung = tier(f"redis://127.0.0.1:{silent_server}", warnings, timeout_ms=150)
    assert hung.get_many(["k1"]) == {}
    assert hung.get_many(["k2"]) == {}  # not asked again
    hung.put_many({"k": b"v"})  # nor written to
    assert hung.off_reason == "no answer within 150 ms"
    assert warnings == [
        f"remote cache redis://127.0.0.1:{silent_server} is unavailable "
        "(no answer within 150 ms); going on with the local cache only"
    ]
    assert (hung.counts.errors, hung.counts.writes) == (1, 0)


# Real services.


@pytest.mark.real
def test_redis_round_trip_packs_and_a_stopped_server(tmp_path: Path) -> None:
    warnings: list[str] = []
    with redis_server(tmp_path) as redis:
        writer = tier(redis.url, warnings, namespace="team-a")
        entries = {f"key{i}": bytes([i]) * 100 for i in range(50)}
        writer.put_many(entries)
        writer.put_pack("tsc", entries)
        writer.flush()
        stored = redis.stored_keys()
        assert len(stored) == 51 and all(b"team-a/" in k for k in stored)
        reader = tier(redis.url, warnings, namespace="team-a")
        assert reader.get_many(list(entries), "tsc") == entries
        assert reader.counts.round_trips == 1
        other = tier(redis.url, warnings, namespace="team-b")
        assert other.get_many(list(entries), "tsc") == {}
        assert reader.probe() is None
        redis.stop()
        assert reader.get_many(["key1"]) == {}
        assert reader.get_many(["key2"]) == {}
    assert len(warnings) == 1 and "is unavailable" in warnings[0], warnings


@pytest.mark.real
@pytest.mark.parametrize("store", ["s3", "webdav"])
def test_s3_and_webdav_stores_round_trip(tmp_path: Path, store: str) -> None:
    warnings: list[str] = []
    server = s3_server("signalint-test") if store == "s3" else webdav_server(tmp_path)
    with server as url:
        writer = tier(url, warnings)
        writer.put_many({"k": b"value"})
        writer.put_pack("g", {"k": b"value"})
        writer.flush()
        reader = tier(url, warnings)
        assert reader.get_many(["k"], "g") == {"k": b"value"}
        assert reader.probe() is None
    assert warnings == []


def test_a_check_reads_each_batch_in_one_round_trip_and_packs_entries_with_marks(
    tmpfs_path: Path,
) -> None:
    from signalint.cache.check_store import CheckStore, Writes
    from signalint.cache.local_store import ResultCache
    from signalint.cache.memory import StoreMemory
    from tests.factories import issue

    # 4,000 stored files: in memory, or writing and removing them times the disk.
    tmp_path = tmpfs_path
    url = f"fs://{tmp_path / 'shared'}"
    warnings: list[str] = []
    keys = [f"entry{i}" for i in range(2000)]
    marks = [f"mark{i}" for i in range(2000)]
    # Machine A, nothing shared yet: two batches (entries, then marks for
    # the misses), one round trip each, however many keys.
    first = CheckStore(
        ResultCache(tmp_path / "a"), StoreMemory(), remote=tier(url, warnings, timeout_ms=ROOMY_MS)
    )
    assert first.entries(keys, group="g") == {} and first.marks(marks, group="g") == {}
    assert first.remote is not None and first.remote.counts.round_trips == 2
    found = Writes()
    found.entries.update({k: (issue(),) if i % 2 else None for i, k in enumerate(keys)})
    found.marks.update({m: i % 2 == 1 for i, m in enumerate(marks)})
    first.keep([found])
    first.remote.flush()  # as at exit: while batches keep finishing
    # Machine B: the group's pack holds both, one round trip each.
    second = CheckStore(
        ResultCache(tmp_path / "b"), StoreMemory(), remote=tier(url, warnings, timeout_ms=ROOMY_MS)
    )
    assert second.entries(keys, group="g") == found.entries
    assert second.marks(marks, group="g") == found.marks
    assert second.remote is not None and second.remote.counts.round_trips == 2
    assert second.remote_counts() == second.remote.counts
    assert warnings == []


def test_a_check_of_some_paths_keeps_no_pack_and_a_shard_keeps_its_own(tmp_path: Path) -> None:
    from signalint.cache.check_store import CheckStore, Writes
    from signalint.cache.local_store import ResultCache
    from signalint.cache.memory import StoreMemory

    url = f"fs://{tmp_path / 'shared'}"
    warnings: list[str] = []
    everything: dict[str, None] = {f"e{i}": None for i in range(10)}

    def machine(name: str, packs: str | None) -> CheckStore:
        remote = tier(url, warnings, timeout_ms=ROOMY_MS)
        return CheckStore(ResultCache(tmp_path / name), StoreMemory(), remote=remote, packs=packs)

    def kept(store: CheckStore, entries: dict[str, None]) -> None:
        store.keep([Writes(entries=dict(entries))])
        assert store.remote is not None
        store.remote.flush()  # as at exit

    whole = machine("whole", "")
    whole.entries(list(everything), group="g")
    kept(whole, dict(everything))
    # A check of one path reads the whole project's pack, keeps none.
    some = machine("some", None)
    assert some.entries(["e1"], group="g") == {"e1": None}
    kept(some, {"e1": None})
    shard = machine("shard", "shard 1/2")
    assert shard.entries(["e1", "e2"], group="g") == {}  # no pack of its own yet
    kept(shard, {"e1": None, "e2": None})
    fresh = machine("fresh", "")
    assert fresh.entries(list(everything), group="g") == everything
    assert fresh.remote is not None and fresh.remote.counts.round_trips == 1
    again = machine("again", "shard 1/2")
    assert again.entries(["e1", "e2"], group="g") == {"e1": None, "e2": None}
    assert again.remote is not None and again.remote.counts.round_trips == 1
    assert warnings == []


def test_a_leaving_process_waits_for_writes_until_its_deadline_then_drops_them(
    tmp_path: Path,
) -> None:
    import os

    # A short deadline first; longer ones only where the machine is too
    # loaded for the write that can finish to finish within it.
    for attempt, deadline_s in enumerate((0.3, 2.0, 8.0)):
        url = f"fs://{tmp_path / f'shared{attempt}'}"
        warnings: list[str] = []
        writer = tier(url, warnings)
        entries = tmp_path / f"shared{attempt}" / "signalint" / "entry"
        entries.mkdir(parents=True)
        # A write that never finishes: opening a FIFO to write blocks until
        # someone reads it.
        stuck = entries / "stuck"
        os.mkfifo(stuck)
        try:
            writer.put_many({"done": b"one"})
            writer.put_many({"stuck": b"two"})
            dropped = writer.abandon(deadline_s)
            if dropped == 1 or attempt == 2:
                assert dropped == 1
                # Dropped without a warning, and the store stays on: it did nothing wrong.
                assert warnings == [] and writer.off_reason is None
                reader = tier(url, warnings, timeout_ms=ROOMY_MS)
                assert reader.get_many(["done"]) == {"done": b"one"}
                return
        finally:
            held = os.open(stuck, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer thread go
            os.close(held)


@pytest.mark.real
def test_processes_that_used_the_store_exit_cleanly(tmp_path: Path) -> None:
    """The store client must not call back into a finalizing interpreter: a
    process that read and wrote, then exited, used to abort (exit 134) about
    one time in fifteen on a loaded machine (less on a quiet one, so this
    test catches a regression often, not always). Forty processes, none may."""
    import subprocess
    import sys

    script = tmp_path / "use_store.py"
    with redis_server(tmp_path) as redis:
        script.write_text(
            "from signalint.settings.config import RemoteSettings\n"
            "from signalint.cache.remote import RemoteTier\n"
            f"tier = RemoteTier(RemoteSettings({redis.url!r}), b'k' * 32)\n"
            "keys = [f'{i:064x}' for i in range(300)]\n"
            "tier.get_many(keys, 'g')\n"
            "tier.get_many(keys[:10])\n"
            "tier.put_many({k: b'v' * 100 for k in keys})\n"
            "tier.put_pack('g', {k: b'v' for k in keys})\n"
        )
        codes = [subprocess.run([sys.executable, str(script)]).returncode for _ in range(40)]
    assert codes == [0] * 40

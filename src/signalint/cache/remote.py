"""The remote result tier: engine results shared across machines (a `tier.ResultTier`).

Results are content-addressed (D1, D2) and their keys and values hold no
absolute path, so a project checked out anywhere, on any machine, can reuse
what another checkout found. This tier keeps them in a shared store reached
through OpenDAL (the `opendal` package, the extra `signalint[remote]`):
Redis, S3, GCS, the GitHub Actions cache, a shared directory, WebDAV.

Trust: every value is sealed with `SIGNALINT_REMOTE_CACHE_KEY`
(`sealed.Seal`: HMAC-SHA256 over its name and content); a value that does
not open is a miss, counted as rejected, never served. `readOnly` reads
and never writes (for runs whose code is not trusted, such as pull requests
from forks).

Round trips: a check reads one engine's entries as one batch, and each
batch names a group (the engine, its version and options). A writer also
keeps a pack per group: every entry of its last check of that group in one
value. A read takes the group's pack (one round trip) and asks for what it
lacks one entry each, all at once (a second round trip); a group nobody
packed yet has nothing to ask for, and at most `MAX_SINGLE_READS` are
asked one by one (the rest are misses: their engine runs).

Faults never fail a check or change a result: every batch of reads has a
time budget (`timeoutMs`); a store that fails or is slow is reported once
on stderr and left alone for the rest of the process (local only). Writes
run behind the answer on the tier's own threads, in small batches,
bounded in size; before the first write a store that has not answered a
read yet is asked one (a store that is down costs one read budget, not
more). At exit writes are waited for while batches keep finishing, at most
`FLUSH_S` seconds, and given up when none finished for `STALL_S`; a
process that must leave sooner (the MCP server) waits until its own
deadline and drops the rest (`abandon`).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import dataclasses
import functools
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from signalint.cache.entries import digest
from signalint.cache.remote_url import store_options, url_label
from signalint.cache.sealed import MIN_KEY_BYTES, Rejected, Seal, pack, unpack
from signalint.settings.config import RemoteSettings
from signalint.wording import count

T = TypeVar("T")

KEY_ENV: Final = "SIGNALINT_REMOTE_CACHE_KEY"
FLUSH_S: Final = 60.0
# Entries one batch asks for one by one (what its group's pack lacks).
MAX_SINGLE_READS: Final = 512
# A flush gives up when no batch of writes finished for this long (or the
# read budget, if longer): the store answered a read, so it is not down.
STALL_S: Final = 2.0
# Values one writer writes in a row (a flush waits while batches finish), and
# the threads that read and write side by side.
WRITE_BATCH: Final = 64
READERS: Final = 32
WRITERS: Final = 8
# Sealed bytes waiting to be written; past this, new writes are dropped.
MAX_PENDING_BYTES: Final = 256 * 1024 * 1024


@dataclass(slots=True)
class RemoteCounts:
    """What the remote tier did: per key hits and misses, entries written,
    values rejected (did not verify), store errors, and read round trips."""

    hits: int = 0
    misses: int = 0
    writes: int = 0
    rejected: int = 0
    errors: int = 0
    round_trips: int = 0

    def since(self, before: RemoteCounts) -> RemoteCounts:
        return RemoteCounts(
            *(getattr(self, f.name) - getattr(before, f.name) for f in dataclasses.fields(self))
        )

    def copy(self) -> RemoteCounts:
        return dataclasses.replace(self)

    def as_json(self) -> dict[str, int]:
        """The counters as the check answer's `remoteCache` names them."""
        return {_json_name(f.name): getattr(self, f.name) for f in dataclasses.fields(self)}


def _json_name(field: str) -> str:
    head, *rest = field.split("_")
    return head + "".join(word.capitalize() for word in rest)


# The keys of a check answer's `remoteCache`, in order.
REMOTE_COUNTS: Final = tuple(_json_name(f.name) for f in dataclasses.fields(RemoteCounts))


def signing_key(env: Mapping[str, str]) -> bytes:
    """The signing key from `SIGNALINT_REMOTE_CACHE_KEY`; ValueError saying
    why there is none (unset, or shorter than 32 bytes)."""
    raw = env.get(KEY_ENV, "")
    if not raw:
        raise ValueError(f"{KEY_ENV} is not set (the key that signs shared results)")
    key = raw.encode()
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"{KEY_ENV} has {len(key)} bytes; at least {MIN_KEY_BYTES} are required")
    return key


def _warn(message: str) -> None:
    print(f"signalint: {message}", file=sys.stderr, flush=True)


def open_remote(
    settings: RemoteSettings, env: Mapping[str, str], warn: Callable[[str], None] = _warn
) -> RemoteTier | str:
    """The remote tier `settings` name, or why there is none (also warned)."""
    label = url_label(settings.url)
    try:
        return RemoteTier(settings, signing_key(env), warn)
    except ImportError:
        reason = "the opendal package is not installed (pip install 'signalint[remote]')"
    except Exception as exc:  # a bad key, or a store OpenDAL cannot open
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    warn(f"remote cache {label} is off: {reason}")
    return reason


class _Workers:
    """Daemon threads that run the store client's blocking calls.

    The synchronous client releases the GIL while it waits, so a batch of
    reads runs side by side; nothing calls back into Python from the
    client's own threads (its asynchronous form did, and a call landing
    while the interpreter finalized aborted the process). Daemon threads
    never hold up an exit: a call stuck on a hung store is abandoned.
    """

    def __init__(self, name: str, count: int) -> None:
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]]
        self._queue = queue.SimpleQueue()
        for n in range(count):
            thread = threading.Thread(target=self._work, name=f"{name}-{n}", daemon=True)
            thread.start()

    def submit(self, call: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._queue.put((call, future))
        return future

    def _work(self) -> None:
        while True:
            call, future = self._queue.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:  # handed to the waiting side
                future.set_exception(exc)


class RemoteTier:
    """Results in a shared store, sealed; see the module docstring."""

    def __init__(
        self,
        settings: RemoteSettings,
        secret: bytes,
        warn: Callable[[str], None] = _warn,
    ) -> None:
        import opendal  # the optional extra: only a configured remote cache needs it

        self.settings = settings
        self.label = url_label(settings.url)
        self.counts = RemoteCounts()
        # Entries handed to the writers and not lost: refused by the backlog
        # bound, cancelled or failed ones are taken back (`CheckStore`
        # reports these as a check's writes, never one that did not happen).
        self.accepted = 0
        self.off_reason: str | None = None
        # Per group, the keys of the pack read in this process.
        self.packed: dict[str, frozenset[str]] = {}
        self._seal = Seal(secret)
        self._warn = warn
        self._timeout_s = settings.timeout_ms / 1000
        self._not_found: type[Exception] = opendal.exceptions.NotFound
        scheme, options = store_options(settings.url)
        options["root"] = options.get("root", "/").rstrip("/") + f"/{settings.namespace}/"
        # A temporary failure is tried again, briefly (two writers creating
        # one WebDAV collection at once: one of them is refused); the read
        # budget still bounds what a check waits.
        retry = opendal.layers.RetryLayer(max_times=2, min_delay=0.01, max_delay=0.1)
        self._store = opendal.Operator(scheme, **options).layer(retry)
        # Reads and writes apart: writes behind never delay the next read.
        self._readers = _Workers("signalint-remote-read", READERS)
        self._writers = _Workers("signalint-remote-write", WRITERS)
        atexit.register(self.flush)
        self._pending: set[concurrent.futures.Future[int]] = set()
        self._pending_bytes = 0
        self._alive = False  # a read answered in this process
        self._lock = threading.Lock()

    @property
    def writable(self) -> bool:
        return self.off_reason is None and not self.settings.read_only

    # Reading.

    def get_many(self, keys: Sequence[str], group: str = "") -> dict[str, bytes]:
        """The verified values of `keys` the store holds, within the time budget."""
        if self.off_reason is not None or not keys:
            return {}
        deadline = time.monotonic() + self._timeout_s
        try:
            found, rejected, trips, packed = self._read(keys, group, deadline)
        except TimeoutError:
            self._fail(f"no answer within {self.settings.timeout_ms} ms")
            return {}
        except Exception as exc:  # any store failure is a miss, never a failed check
            self._fail(_describe(exc))
            return {}
        if packed is not None:
            self.packed[group] = packed
        self._alive = True
        counts = self.counts
        counts.round_trips += trips
        counts.rejected += rejected
        counts.hits += len(found)
        counts.misses += len(keys) - len(found)
        return found

    def _read(
        self, keys: Sequence[str], group: str, deadline: float
    ) -> tuple[dict[str, bytes], int, int, frozenset[str] | None]:
        found: dict[str, bytes] = {}
        rejected = trips = 0
        packed: frozenset[str] | None = None
        if group:
            name = _pack_name(group)
            trips += 1
            (blob,) = self._gather([name], deadline)
            if blob is None:
                return found, rejected, trips, packed  # nobody kept this group
            try:
                entries = unpack(self._seal.open(name, blob))
            except Rejected:
                rejected += 1
                entries = {}
            packed = frozenset(entries)
            found = {k: entries[k] for k in keys if k in entries}
        # Beyond a pack, a few entries are asked one by one; many would not
        # fit the budget, and running their engine costs less than losing
        # the store for the rest of the process.
        rest = [k for k in keys if k not in found][:MAX_SINGLE_READS]
        if rest:
            trips += 1
            names = [_entry_name(k) for k in rest]
            blobs = self._gather(names, deadline)
            for key, name, blob in zip(rest, names, blobs, strict=True):
                if blob is None:
                    continue
                try:
                    found[key] = self._seal.open(name, blob)
                except Rejected:
                    rejected += 1
        return found, rejected, trips, packed

    def _gather(self, names: Sequence[str], deadline: float) -> list[bytes | None]:
        """Read `names` side by side; TimeoutError past `deadline`."""
        futures = [self._readers.submit(functools.partial(self._get, n)) for n in names]
        left = deadline - time.monotonic()
        _, late = concurrent.futures.wait(futures, timeout=max(left, 0))
        if late:
            for future in late:
                future.cancel()
            raise TimeoutError
        return [future.result() for future in futures]

    def _get(self, name: str) -> bytes | None:
        try:
            return bytes(self._store.read(name))
        except self._not_found:
            return None

    # Writing (behind the answer).

    def since(self, before: RemoteCounts, accepted_before: int) -> RemoteCounts:
        """What this tier did since `before` (its counts then) and
        `accepted_before` (its accepted entries then). The writes are the
        entries its writers took and have not lost: those still being
        written behind the answer count, ones refused or failed never do
        (program records, sent behind the answer, count once sent: a write
        is never counted before the writers took it)."""
        counts = self.counts.since(before)
        counts.writes = self.accepted - accepted_before
        return counts

    def put_many(self, items: Mapping[str, bytes], group: str = "") -> None:
        """Keep entries, each under its own name (written behind)."""
        if items and self.writable:
            sealed = {_entry_name(k): v for k, v in items.items()}
            self._write({n: self._seal.close(n, v) for n, v in sealed.items()}, entries=True)

    def put_pack(self, group: str, items: Mapping[str, bytes]) -> None:
        """Keep every entry of a group's batch as its pack (written behind)."""
        if items and self.writable:
            name = _pack_name(group)
            self._write({name: self._seal.close(name, pack(items))}, entries=False)

    def _write(self, values: dict[str, bytes], entries: bool) -> None:
        """Write sealed values behind, in small batches (so a flush sees
        progress); `entries`: they count as written entries (not a pack).

        A store that has not answered a read in this process is asked one
        first, within the read budget: one that is down costs that budget,
        not a stalled flush."""
        if not self._alive:
            self.get_many([_PROBE])
            if self.off_reason is not None:
                return
        names = list(values)
        for start in range(0, len(names), WRITE_BATCH):
            batch = {n: values[n] for n in names[start : start + WRITE_BATCH]}
            self._submit(batch, len(batch) if entries else 0)

    def _submit(self, values: dict[str, bytes], entries: int) -> None:
        size = sum(map(len, values.values()))
        with self._lock:
            if self._pending_bytes + size > MAX_PENDING_BYTES:
                return  # bounded: a store this far behind loses the newest writes
            self._pending_bytes += size
            self.accepted += entries
        future = self._writers.submit(functools.partial(self._put, values, entries))
        with self._lock:
            self._pending.add(future)

        def done(finished: concurrent.futures.Future[int]) -> None:
            with self._lock:
                self._pending.discard(finished)
                self._pending_bytes -= size
                lost = finished.cancelled() or finished.exception() is not None
                if lost:
                    self.accepted -= entries
            if finished.cancelled():
                return
            failure = finished.exception()
            if failure is not None:
                self._fail(_describe(failure))
            else:
                self.counts.writes += finished.result()

        future.add_done_callback(done)

    def _put(self, values: dict[str, bytes], entries: int) -> int:
        for name, value in values.items():
            self._store.write(name, value)
        return entries

    def flush(self, deadline_s: float = FLUSH_S) -> None:
        """Wait for the writes still running while the store makes progress:
        at most `deadline_s` in all, and never `STALL_S` (or the read budget,
        if longer) without one finishing; the rest are dropped."""
        pending, reason = self._wait(deadline_s)
        if pending:
            self._fail(f"{reason}; {count(pending, 'batch')} of writes dropped")

    def abandon(self, deadline_s: float) -> int:
        """Wait at most `deadline_s` for the writes still running and drop
        the rest, for a process that is leaving now (the MCP server); how
        many batches were dropped. The store stays on (no warning): it did
        nothing wrong."""
        pending, _ = self._wait(deadline_s)
        return pending

    def _wait(self, deadline_s: float) -> tuple[int, str]:
        """Wait as `flush` says; the batches not finished (cancelled when
        not started) and why."""
        end = time.monotonic() + deadline_s
        while True:
            with self._lock:
                pending = set(self._pending)
            if not pending:
                return 0, ""
            left = end - time.monotonic()
            if left <= 0:
                reason = f"not finished within {deadline_s:g} s"
                break
            wait = min(max(self._timeout_s, STALL_S), left)
            done, _ = concurrent.futures.wait(
                pending, timeout=wait, return_when=concurrent.futures.FIRST_COMPLETED
            )
            if not done:
                reason = f"no write finished within {wait:g} s"
                break
        for future in pending:
            future.cancel()
        return len(pending), reason

    def probe(self) -> str | None:
        """A signed round trip through the store (`doctor`): what went wrong, or None.

        A read-only tier only reads (a key nobody wrote): it never writes.
        """
        key = digest("probe", os.urandom(16).hex())
        if not self.settings.read_only:
            self.put_many({key: b"probe"})
            self.flush(max(FLUSH_S, 5 * self._timeout_s))
        found = self.get_many([key])
        if self.off_reason is not None:
            return self.off_reason
        if self.settings.read_only:
            return None
        if found.get(key) != b"probe":
            return "a value written was not read back"
        delete = functools.partial(self._store.delete, _entry_name(key))
        with contextlib.suppress(Exception):  # leaving the probe behind is harmless
            self._writers.submit(delete).result(self._timeout_s)
        return None

    def _fail(self, reason: str) -> None:
        self.counts.errors += 1
        if self.off_reason is None:
            self.off_reason = reason
            self._warn(
                f"remote cache {self.label} is unavailable ({reason}); "
                "going on with the local cache only"
            )


_PROBE: Final = digest("liveness probe")


def _entry_name(key: str) -> str:
    return f"entry/{key}"


def _pack_name(group: str) -> str:
    return f"pack/{digest('pack', group)}"


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


__all__ = [
    "FLUSH_S",
    "KEY_ENV",
    "REMOTE_COUNTS",
    "RemoteCounts",
    "RemoteSettings",
    "RemoteTier",
    "open_remote",
    "signing_key",
]

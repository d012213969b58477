"""What one check reads from and keeps in the result stores (D1, D2).

The plan (`check_plan.plan`) makes one `CheckStore` per check when the check
may reuse results, and hands it down to the engines' cached runs
(`file_cache`, `program_cache`): each asks it once what it may reuse
(`lookup_files`; `program_key` and `lookup_program`), a value that holds
the keys and what they hold, and returns what to keep, which the runner
gives `keep` once. They never touch a database, a codec or the process's
memos themselves; this is the one place that does.

Results go through `results`, a `tier.ResultTier`: the local SQLite store,
with the remote tier behind it when one is configured (`remote`). Every
read is one batch and a store that fails answers a miss. Engines' own
values (`Program.remember`), file digests and engine versions stay in the
local store (they describe this machine's files and executables). After a
check, each group of per-file entries it read whole (one engine's batch) is
also kept as the remote tier's pack when it changed since this state
directory last sent it (`remote.RemoteTier.put_pack`). Program records are
written against `anchors`, so they hold no absolute path.
Values already decoded and records already loaded are remembered in the
process's `StoreMemory`. Writes that are off the answer's path run behind
(`later`).
"""

from __future__ import annotations

import asyncio
import json
import posixpath
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from signalint.cache.entries import (
    CHECKED,
    KEY_VERSION,
    NO_ANCHORS,
    NOT_CHECKED,
    PLATFORM,
    Anchors,
    ProgramRecord,
    RecordDraft,
    decode_entry,
    digest,
    encode_entry,
)
from signalint.cache.local_store import ResultCache
from signalint.cache.memory import StoreMemory
from signalint.cache.tier import ResultTier, Tiers
from signalint.engines.base import Engine, ProgramKey
from signalint.engines.runner import Job
from signalint.model import Issue
from signalint.project import settle

if TYPE_CHECKING:
    from signalint.cache.remote import RemoteCounts, RemoteTier

Later = Callable[[Callable[[], None]], None]
# A group's pack: its per-file entries, and its membership marks as stored.
_Pack = tuple[dict[str, tuple[Issue, ...] | None], dict[str, bytes]]


@dataclass(slots=True)
class Writes:
    """What a check's engine runs give the store to keep (`CheckStore.keep`):
    per-file entries (None: the engine does not check that file), membership
    marks, program records, and engines' own values (`Program.remember`)."""

    entries: dict[str, tuple[Issue, ...] | None] = field(default_factory=dict)
    marks: dict[str, bool] = field(default_factory=dict)
    records: dict[str, RecordDraft] = field(default_factory=dict)
    values: dict[str, bytes] = field(default_factory=dict)

    def add(self, other: Writes) -> None:
        self.entries.update(other.entries)
        self.marks.update(other.marks)
        self.records.update(other.records)
        self.values.update(other.values)


@dataclass(frozen=True, slots=True)
class FileLookup:
    """What the stores hold for a file-local engine's files (`lookup_files`):
    each readable file's content key, the entries found by key, and for the
    files without one, their membership keys and the marks found."""

    keys: dict[str, str]
    found: dict[str, tuple[Issue, ...] | None]
    marks: dict[str, str]
    verdicts: dict[str, bool]


@dataclass(frozen=True, slots=True)
class ProgramOf:
    """A whole-program engine's program as the engine names it
    (`WholeProgram.program_key`), before the store keys its record."""

    engine: str
    key: ProgramKey


@dataclass(frozen=True, slots=True)
class ProgramLookup:
    """What the stores hold for a program (`lookup_program`): its record
    key, its record when one is fresh (D2), the newest record of its inputs'
    previous content, and the inputs whose content changed since then."""

    key: str | None = None
    fresh: ProgramRecord | None = None
    stale: ProgramRecord | None = None
    changed: frozenset[str] = frozenset()


def now(work: Callable[[], None]) -> None:
    """A `Later` that does the work at once."""
    work()


class _Configs:
    """Config files (with content hashes) per engine and directory, memoized.

    Every adapter looks configs up from the file's directory upward, so the
    answer depends on the directory only.
    """

    def __init__(self, store: CheckStore, root: Path) -> None:
        self.store, self.root = store, root
        self._memo: dict[tuple[str, str], str] = {}

    def fingerprint(self, engine: Engine, rel_path: str) -> str:
        key = (engine.name, posixpath.dirname(rel_path))
        if key not in self._memo:
            files = engine.config_files(self.root, rel_path)
            digests = self.store.digests(self.root, files)
            self._memo[key] = digest(*(f"{f}={digests.get(f, '-')}" for f in files))
        return self._memo[key]


class CheckStore:
    """One check's view of the result stores; see the module docstring."""

    def __init__(
        self,
        local: ResultCache,
        memory: StoreMemory,
        later: Later = now,
        remote: RemoteTier | None = None,
        anchors: Anchors = NO_ANCHORS,
        packs: str | None = "",
    ) -> None:
        self.local = local
        # Which packs this check reads and keeps: "" the whole project's, a
        # name for a fixed part of it (a CI shard), None for a check of some
        # paths only (it reads the whole project's and keeps none: its
        # batches are partial).
        self._pack_scope = packs
        self.memory = memory
        self.later = later
        self.remote = remote
        self.anchors = anchors
        self.results: ResultTier = local if remote is None else Tiers([local, remote])
        self._remote_before = None if remote is None else remote.counts.copy()
        self._accepted_before = 0 if remote is None else remote.accepted
        # Per group, the keys of the batch read whole (`entries`), the
        # membership keys asked (`marks`), and every mark known in this check.
        self._groups: dict[str, list[str]] = {}
        self._mark_groups: dict[str, list[str]] = {}
        self._marks: dict[str, bool] = {}

    # What the stores know of this machine.

    @property
    def empty(self) -> bool:
        """Whether every lookup would miss: no remote tier, and no result
        in the local store yet."""
        return self.remote is None and not self.local.has_results()

    def detached(self) -> CheckStore:
        """A view with its own local store object, for digests in a worker
        thread (a store object's memo is not shared across threads)."""
        return CheckStore(ResultCache(self.local.path.parent), StoreMemory(), self.later)

    def remote_counts(self) -> RemoteCounts | None:
        """What the remote tier did since this view was made (None without one)."""
        if self.remote is None or self._remote_before is None:
            return None
        return self.remote.since(self._remote_before, self._accepted_before)

    def digests(self, root: Path, rel_paths: Sequence[str]) -> dict[str, str]:
        """sha256 hex of each readable file's content, by the given relative path."""
        return self.local.digests(root, rel_paths)

    def absolute_digests(self, paths: Sequence[str]) -> dict[str, str]:
        """As `digests`, for absolute paths."""
        return self.local.absolute_digests(paths)

    def version_for(self, exe_key: str) -> str | None:
        """An executable's version as remembered (this process, then the state directory)."""
        found = self.memory.versions.get(exe_key)
        if found is None:
            found = self.local.version_for(exe_key)
            if found is None:
                return None
            self.memory.version(exe_key, found)
        return found

    def remember_version(self, exe_key: str, version: str, *, asked: bool) -> None:
        """Remember an executable's version; `asked` (the engine was started to
        tell it) also keeps it in the state directory."""
        self.memory.version(exe_key, version)
        if asked:
            self.local.remember_version(exe_key, version)

    # Per-file entries and membership marks (file-local engines).

    def file_keys(
        self, engine: Engine, root: Path, files: Sequence[str], base: str
    ) -> dict[str, str]:
        """The key of each readable file among `files`: `base` (engine,
        version, options), its path, its content and the content of every
        config file the engine reads for it (`Engine.config_files`)."""
        contents = self.digests(root, files)
        configs = _Configs(self, root)
        return {
            f: digest(base, f, contents[f], configs.fingerprint(engine, f))
            for f in files
            if f in contents
        }

    def membership_keys(
        self, engine: Engine, root: Path, files: Sequence[str], base: str
    ) -> dict[str, str]:
        """Content-independent keys recording whether the engine checks a path.

        Whether ESLint or Biome checks a file depends on its path and their
        configuration (globs, ignores, languages), never on its content: an
        edit to a file they do not check (a README) does not start them, and
        an edited file Biome is known to check needs no selection run.
        """
        configs = _Configs(self, root)
        return {f: digest(base, "member", f, configs.fingerprint(engine, f)) for f in files}

    def entries(self, keys: Sequence[str], group: str = "") -> dict[str, tuple[Issue, ...] | None]:
        """The per-file entries found, by key: issues, or None for "not checked".

        `group` names a batch read whole (one engine's files, see
        `storage.tier`); its keys are remembered for the pack `keep` sends.
        """
        group = self._scoped(group)
        if group:
            self._groups[group] = list(keys)
        decoded = self.memory.decoded
        found = {k: decoded[k] for k in keys if k in decoded}
        stored = self.results.get_many([k for k in keys if k not in found], group)
        for key, blob in stored.items():
            try:
                entry = decode_entry(blob)
            except (ValueError, KeyError, TypeError):
                continue  # signed but unreadable (another encoding): a miss
            found[key] = entry
            decoded.put(key, entry)
        return found

    def marks(self, keys: Sequence[str], group: str = "") -> dict[str, bool]:
        """Membership marks found, by key: whether the engine checks that path.

        `group` is the one its entries were read under: the group's pack
        also carries the marks this check knew (`keep`).
        """
        group = self._scoped(group)
        if group:
            self._mark_groups[group] = list(keys)
        found = self.results.get_many(keys, group)
        marks = {k: v == CHECKED for k, v in found.items() if v in (CHECKED, NOT_CHECKED)}
        self._marks.update(marks)
        return marks

    def lookup_files(
        self, engine: Engine, root: Path, files: Sequence[str], base: str
    ) -> FileLookup:
        """Everything the stores hold for `files` under `base`, in one
        lookup: their entries, and for the misses, their membership marks."""
        keys = self.file_keys(engine, root, files, base)
        found = self.entries(list(keys.values()), group=base)
        misses = [f for f in files if keys.get(f) not in found]
        if not misses:
            return FileLookup(keys, found, {}, {})
        marks = self.membership_keys(engine, root, misses, base)
        verdicts = self.marks(list(marks.values()), group=base)
        return FileLookup(keys, found, marks, verdicts)

    def keys_after_run(
        self, engine: Engine, root: Path, files: Sequence[str], base: str, marks: bool
    ) -> tuple[dict[str, str], dict[str, str] | None]:
        """The content keys of `files` (and with `marks`, their membership
        keys) from a detached view: run in a worker thread after a run that
        no lookup preceded."""
        detached = self.detached()
        keys = detached.file_keys(engine, root, files, base)
        return keys, detached.membership_keys(engine, root, files, base) if marks else None

    # Program records (whole-program engines).

    def program_key(self, program: ProgramOf, job: Job) -> str:
        """The record key of `engine`'s program as `job` runs it: its version
        and options, `key` (config files by content, other text), the
        program's directory against the anchors, and the links out of the
        root the walk met (an engine whose own walk follows one reads it)."""
        key = program.key
        configs = self.digests(job.root, list(key.configs))
        return digest(
            KEY_VERSION,
            PLATFORM,
            "program",
            program.engine,
            # The program's directory, against the check's root (`Anchors`): two
            # checkouts of one project share records, two programs never do.
            self.anchors.portable(str(job.root)),
            job.version,
            json.dumps(job.options, sort_keys=True),
            key.extra,
            *(f"{c}={configs.get(c, '-')}" for c in key.configs),
            # A record made before a link appeared must not answer for the
            # program now (its cold run is withheld).
            *(f"link={rel}" for rel in sorted(job.edge().links)),
        )

    async def lookup_program(
        self,
        program: str | ProgramOf,
        job: Job,
        candidates: Sequence[str],
        threaded: bool = False,
    ) -> ProgramLookup:
        """The record of `program` (its record key, or the engine's name for
        it: keyed here) as `job` runs it, and whether it is fresh: every
        input hashes as recorded, no candidate file (project-relative, of
        the walk) is new, and no input now resolves outside the root. The
        first record's inputs are hashed in a worker thread when `threaded`
        (a warm answer is then on its way); a fresh record is remembered."""
        key = program if isinstance(program, str) else self.program_key(program, job)
        root, edge = job.root, job.edge()
        prefix = f"{root}/"
        known = set(candidates)  # walked: inside the root
        digests: dict[str, str] = {}  # the inputs' content now, hashed once for every record
        stale: ProgramRecord | None = None
        changed: frozenset[str] = frozenset()
        for record in self.records(key):
            outside = [f for f in candidates if prefix + f not in record.inputs]
            wanted = [p for p in record.inputs if p not in digests]
            if threaded:
                digests.update(await asyncio.to_thread(self.local.absolute_digests, wanted))
                threaded = False
            else:
                digests.update(self.local.absolute_digests(wanted))
            now_digests = {p: digests[p] for p in record.inputs if p in digests}
            if (
                outside != record.outside
                or now_digests != record.inputs
                or edge.hidden_inputs(record.inputs, known)
            ):
                changed |= {f for f, d in record.inputs.items() if now_digests.get(f) != d}
                # The newest record (the first is the one this process
                # remembers): the stored one may be older.
                if stale is None:
                    stale = record
                continue
            # Proven fresh: remembered.
            record.loaded = False
            self.memory.programs.put(key, record)
            return ProgramLookup(key, record, stale, changed)
        return ProgramLookup(key, None, stale, changed)

    def load_records(self, keys: Sequence[str]) -> None:
        """Read the records of several programs in one batch (a workspace's
        packages), remembered as loaded in this check."""
        programs = self.memory.programs
        for key in keys:
            self.memory.made(key)
        missing = [k for k in keys if programs.get(k) is None]
        for key, blob in self.results.get_many(missing).items():
            record = ProgramRecord.read(blob, self.anchors)
            if record is not None:
                record.loaded = True
                programs.put(key, record)

    def records(self, key: str) -> Iterator[ProgramRecord]:
        """The remembered record, then the stored one (read only if the first is stale)."""
        self.memory.made(key)
        remembered = self.memory.programs.get(key)
        if remembered is not None:
            loaded, remembered.loaded = remembered.loaded, False
            yield remembered
            if loaded:
                return  # it came from the store in this check: nothing newer there
            if self.results is self.local:
                seen = self.memory.stored.get((str(self.local.path), key))
                if seen is not None and self.local.stamps([key]).get(key) == seen:
                    return  # the stored row is one this process wrote or read
        if self.results is self.local:
            found, stamp = self.local.get_stamped([key])
            self.memory.saw(str(self.local.path), key, stamp)
            blob = found.get(key)
        else:
            blob = self.results.get_many([key]).get(key)
        record = None if blob is None else ProgramRecord.read(blob, self.anchors)
        if record is not None:
            yield record

    # Raw values (an engine's own memory, `engines.base.Memory`).

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        return self.local.get_many(keys)

    # Writing.

    def keep(self, writes: Iterable[Writes]) -> RemoteCounts | None:
        """Keep what a check's runs found, in one batch per kind; what the
        remote tier did for the check (`remote_counts`).

        Entries and marks are written now, in one call: the next check
        needs them and they are small. A program record is made from its
        draft (its inputs hashed; dropped if one is unreadable or was
        touched since its run started), remembered in this process, and
        written, with engines' own values, behind the answer: a stat of
        every input and serializing thousands of issues are off the
        answer's path. (With a remote tier the record is made now, so the
        answer counts what it hands that tier.) A check that reads the
        key while its record is being made waits for it (`StoreMemory.made`).
        """
        batch = Writes()
        for one in writes:
            batch.add(one)
        items = {key: encode_entry(found) for key, found in batch.entries.items()}
        items.update({k: CHECKED if v else NOT_CHECKED for k, v in batch.marks.items()})
        self.results.put_many(items)
        for key, found in batch.entries.items():
            self.memory.decoded.put(key, found)
        self._marks.update(batch.marks)
        drafts = batch.records
        behind = self.results is self.local  # no remote tier
        records = {} if behind else self._records(drafts)
        values = batch.values
        packs = self._packs()
        making = {key: threading.Event() for key in drafts} if behind else {}
        self.memory.making.update(making)
        if drafts or values or packs:

            def write() -> None:
                anchors = self.anchors
                try:
                    made = self._records(drafts) if behind else records
                finally:
                    for key, event in making.items():
                        event.set()
                        if self.memory.making.get(key) is event:
                            del self.memory.making[key]
                dumped = {k: r.dump(anchors) for k, r in made.items()}
                if behind:
                    stamp = self.local.put_stamped(dumped)
                    for key in dumped:
                        self.memory.saw(str(self.local.path), key, stamp)
                else:
                    self.results.put_many(dumped)
                self.local.put_many(values)
                # Each group's pack, unless this state directory sent the same one.
                remote = self.remote
                for group, (entries, marks) in packs.items():
                    if remote is None or not entries:
                        continue
                    marker = digest("pack-sent", remote.label, remote.settings.namespace, group)
                    sent = digest(*sorted(entries), "marks", *sorted(marks)).encode()
                    if self.local.get_many([marker]).get(marker) == sent:
                        continue
                    if remote.packed.get(group) != frozenset(entries).union(marks):
                        items = {k: encode_entry(v) for k, v in entries.items()}
                        remote.put_pack(group, {**items, **marks})  # read as it is
                    self.local.put_many({marker: sent})

            self.later(write)
        if self.remote is None or self._remote_before is None:
            return None
        return self.remote.since(self._remote_before, self._accepted_before)

    def _scoped(self, group: str) -> str:
        return f"{group}\x1f{self._pack_scope}" if group and self._pack_scope else group

    def _packs(self) -> dict[str, _Pack]:
        """Per group read whole in this check: its entries and marks now known."""
        if self.remote is None or not self.remote.writable or self._pack_scope is None:
            return {}
        decoded, known = self.memory.decoded, self._marks
        packs: dict[str, _Pack] = {}
        for group, keys in self._groups.items():
            asked = self._mark_groups.get(group, ())
            marks = {k: CHECKED if known[k] else NOT_CHECKED for k in asked if k in known}
            packs[group] = ({k: decoded[k] for k in keys if k in decoded}, marks)
        return packs

    def _records(self, drafts: dict[str, RecordDraft]) -> dict[str, ProgramRecord]:
        """The records of the drafts that can be made, remembered in this process."""
        records: dict[str, ProgramRecord] = {}
        for key, draft in drafts.items():
            record = self._record(draft)
            if record is not None:
                records[key] = record
                self.memory.programs.put(key, record)
        return records

    def _record(self, draft: RecordDraft) -> ProgramRecord | None:
        # Every input as it is now, none touched since the run started.
        since = draft.started_ns - settle.SETTLE_NS
        found = self.local.settled_digests(Path("/"), [p[1:] for p in draft.inputs], since)
        if found is None:
            return None
        inputs = {"/" + p: d for p, d in found.items()}
        return ProgramRecord(inputs, draft.outside, draft.checked, draft.issues)


__all__ = ["CheckStore", "FileLookup", "Later", "ProgramLookup", "ProgramOf", "Writes", "now"]

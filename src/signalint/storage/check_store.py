"""What one check reads from and keeps in the result stores (D1, D2).

The runner (`check.plan`) makes one `CheckStore` per check when the check
may reuse results, and hands it to the engines' cached runs
(`file_cache`, `program_cache`): they compute keys, ask it for what those
keys hold and give it what to keep. They never touch a database, a codec
or the process's memos themselves; this is the one place that does.

Results go through `results`, a `tier.ResultTier` (the local SQLite store,
or tiers stacked in front of farther stores): every read is one batch, a
store that fails answers a miss. File digests and engine versions are the
local store's (they describe this machine's files and executables).
Values already decoded and records already loaded are remembered in the
process's `StoreMemory`. Writes that are off the answer's path run behind
(`later`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from signalint.engines.base import Engine
from signalint.model import Issue
from signalint.project.settle import touched_since
from signalint.storage.entries import (
    CHECKED,
    NOT_CHECKED,
    ProgramRecord,
    RecordDraft,
    decode_entry,
    digest,
    encode_entry,
)
from signalint.storage.memory import StoreMemory
from signalint.storage.results import ResultCache
from signalint.storage.tier import ResultTier

Later = Callable[[Callable[[], None]], None]


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
        results: ResultTier | None = None,
    ) -> None:
        self.local = local
        self.memory = memory
        self.later = later
        self.results: ResultTier = results if results is not None else local

    # What the stores know of this machine.

    @property
    def empty(self) -> bool:
        """Whether the local store holds no result yet (every lookup would miss)."""
        return not self.local.has_results()

    def detached(self) -> CheckStore:
        """A view with its own local store object, for digests in a worker
        thread (a store object's memo is not shared across threads)."""
        return CheckStore(ResultCache(self.local.path.parent), StoreMemory(), self.later)

    def digests(self, root: Path, rel_paths: Sequence[str]) -> dict[str, str]:
        """sha256 hex of each readable file's content, by the given relative path."""
        return self.local.digests(root, rel_paths)

    def absolute_digests(self, paths: Sequence[str]) -> dict[str, str]:
        """As `digests`, for absolute paths."""
        found = self.local.digests(Path("/"), [p.lstrip("/") for p in paths])
        return {"/" + p: d for p, d in found.items()}

    def version_for(self, exe_key: str) -> str | None:
        """An executable's version as remembered (this process, then the state directory)."""
        versions = self.memory.versions
        if exe_key not in versions:
            stored = self.local.version_for(exe_key)
            if stored is None:
                return None
            versions[exe_key] = stored
        return versions[exe_key]

    def remember_version(self, exe_key: str, version: str, *, asked: bool) -> None:
        """Remember an executable's version; `asked` (the engine was started to
        tell it) also keeps it in the state directory."""
        self.memory.versions[exe_key] = version
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

    def entries(self, keys: Sequence[str]) -> dict[str, tuple[Issue, ...] | None]:
        """The per-file entries found, by key: issues, or None for "not checked"."""
        decoded = self.memory.decoded
        found = {k: decoded[k] for k in keys if k in decoded}
        stored = self.results.get_many([k for k in keys if k not in found])
        for key, blob in stored.items():
            found[key] = decode_entry(blob)
            decoded.put(key, found[key])
        return found

    def marks(self, keys: Sequence[str]) -> dict[str, bool]:
        """Membership marks found, by key: whether the engine checks that path."""
        found = self.results.get_many(keys)
        return {k: v == CHECKED for k, v in found.items() if v in (CHECKED, NOT_CHECKED)}

    # Program records (whole-program engines).

    def load_records(self, keys: Sequence[str]) -> None:
        """Read the records of several programs in one batch (a workspace's
        packages), remembered as loaded in this check."""
        programs = self.memory.programs
        missing = [k for k in keys if programs.get(k) is None]
        for key, blob in self.results.get_many(missing).items():
            record = ProgramRecord.load(blob)
            record.loaded = True
            programs.put(key, record)

    def records(self, key: str) -> Iterator[ProgramRecord]:
        """The remembered record, then the stored one (read only if the first is stale)."""
        remembered = self.memory.programs.get(key)
        if remembered is not None:
            loaded, remembered.loaded = remembered.loaded, False
            yield remembered
            if loaded:
                return  # it came from the store in this check: nothing newer there
        blob = self.results.get_many([key]).get(key)
        if blob is not None:
            yield ProgramRecord.load(blob)

    def confirm(self, key: str, record: ProgramRecord) -> None:
        """`record` was proven fresh: remember it."""
        record.loaded = False
        self.memory.programs.put(key, record)

    # Raw values (an engine's own memory, `engines.base.Memory`).

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        return self.results.get_many(keys)

    # Writing.

    def keep(self, writes: Iterable[Writes]) -> None:
        """Keep what a check's runs found, in one batch per kind.

        Entries and marks are written now, in one call: the next check
        needs them and they are small. A program record is made from its
        draft now (its inputs hashed; dropped if one is unreadable or was
        touched since its run started), remembered in this process, and
        written behind the answer with engines' own values (serializing
        thousands of issues is off the answer's path).
        """
        batch = Writes()
        for one in writes:
            batch.add(one)
        items = {key: encode_entry(found) for key, found in batch.entries.items()}
        items.update({k: CHECKED if v else NOT_CHECKED for k, v in batch.marks.items()})
        self.results.put_many(items)
        for key, found in batch.entries.items():
            self.memory.decoded.put(key, found)
        records: dict[str, ProgramRecord] = {}
        for key, draft in batch.records.items():
            record = self._record(draft)
            if record is not None:
                records[key] = record
                self.memory.programs.put(key, record)
        values = batch.values
        if records or values:

            def write() -> None:
                behind = {key: record.dump() for key, record in records.items()}
                self.results.put_many({**values, **behind})

            self.later(write)

    def _record(self, draft: RecordDraft) -> ProgramRecord | None:
        listed = list(draft.inputs)
        inputs = self.absolute_digests(listed)
        if len(inputs) != len(listed) or touched_since(listed, draft.started_ns):
            return None
        return ProgramRecord(inputs, draft.outside, draft.checked, draft.issues)


__all__ = ["CheckStore", "Later", "Writes", "now"]

"""The live buffer (D8) and the live view: what each source last said about each file.

LSP `publishDiagnostics` semantics: a batch replaces its source's set for
every file it names, and names a file with no diagnostic to clear it.
Sources are kept apart: a language server's report never replaces another
source's, even at the same place. A set is keyed by its source, the name its
issues carry, and also remembers every name its batch was sent with (an
LSP `source` beside a `serverName`, or a report's tool beside the source it
was relabelled to), so it can be cleared by any of them. The buffer holds at most `capacity`
diagnostics; when a batch would overflow it, the least recently reported
(source, file) sets are evicted whole and the answer says which, never
silently. A batch larger than the whole buffer is refused before anything
changes.

The live view merges the retained checks (not batches) with the buffer,
file by file: a file's check issues come from the newest check that covered
it, and the newer information wins. A live set older than that check is
superseded (left out and counted); a newer one is shown beside the check's
issues. Where two
sources report the same problem at the same place (same file, line and
column, and the same rule or the same message), it appears once, naming
both sources (`also_reported_by`, as D20 does for engines).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from signalint import ids
from signalint.ingest import Batch
from signalint.model import Issue, Scope, Severity

if TYPE_CHECKING:
    from signalint.pipeline.snapshot import Snapshot

DEFAULT_CAPACITY: Final = 10_000


@dataclass(frozen=True, slots=True)
class FileSet:
    """What one source last said about one file, and when (wall-clock seconds).

    `names` are the names its batch was sent with, `source` among them.
    """

    source: str
    file: str
    issues: tuple[Issue, ...]
    at: float
    names: frozenset[str] = frozenset()

    def named(self, names: Iterable[str]) -> bool:
        """Whether every one of `names` is a name this set was sent with."""
        return all(name == self.source or name in self.names for name in names)


@dataclass(frozen=True, slots=True)
class Cleared:
    """What `LiveBuffer.clear` removed: (source, file) sets and the diagnostics in them."""

    sets: int
    issues: int


@dataclass(frozen=True, slots=True)
class Applied:
    """What one batch did: files it replaced or cleared, and the sets evicted for room."""

    source: str
    replaced: tuple[str, ...]
    cleared: tuple[str, ...]
    evicted: tuple[FileSet, ...]
    size: int
    capacity: int

    @property
    def evicted_entries(self) -> int:
        return sum(len(s.issues) for s in self.evicted)


class CapacityError(ValueError):
    """A batch that does not fit in the whole buffer (nothing was changed)."""


class LiveBuffer:
    """(source, file) -> `FileSet`, bounded by the number of diagnostics held.

    For one thread at a time (the server's event loop). Iteration order is
    report order: the least recently reported set first.
    """

    def __init__(
        self, capacity: int = DEFAULT_CAPACITY, clock: Callable[[], float] = time.time
    ) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.capacity = capacity
        self._clock = clock
        self._sets: OrderedDict[tuple[str, str], FileSet] = OrderedDict()
        self._size = 0
        # Issues made for earlier batches (`ingest.lsp.parse`'s memo).
        self.memo: dict[tuple[object, ...], Issue] = {}

    def __len__(self) -> int:
        return self._size

    def apply(self, batch: Batch, aliases: Iterable[str] = ()) -> Applied:
        """Replace `batch.source`'s set of every file the batch names (module docstring).

        `aliases` are the other names the batch was sent with; `clear` by
        any of them finds its sets.

        Raises `CapacityError`, changing nothing, when the batch alone holds
        more diagnostics than the buffer can.
        """
        if len(batch.issues) > self.capacity:
            raise CapacityError(
                f"the batch has {len(batch.issues)} diagnostics and the live buffer holds at "
                f"most {self.capacity} (live.maxEntries in signalint.config.json)"
            )
        now = self._clock()
        names = frozenset((batch.source, *aliases))
        by_file: dict[str, list[Issue]] = {file: [] for file in batch.files}
        for issue in batch.issues:
            by_file.setdefault(issue.file, []).append(issue)
        replaced: list[str] = []
        cleared: list[str] = []
        for file, found in by_file.items():
            key = (batch.source, file)
            old = self._sets.pop(key, None)
            if old is not None:
                self._size -= len(old.issues)
            if found:
                unique = tuple({issue.issue_id: issue for issue in found}.values())
                self._sets[key] = FileSet(batch.source, file, unique, now, names)
                self._size += len(unique)
                replaced.append(file)
            else:
                cleared.append(file)
        evicted: list[FileSet] = []
        fresh = {(batch.source, file) for file in by_file}
        while self._size > self.capacity:
            key = next(k for k in self._sets if k not in fresh)
            gone = self._sets.pop(key)
            self._size -= len(gone.issues)
            evicted.append(gone)
        return Applied(
            batch.source, tuple(replaced), tuple(cleared), tuple(evicted), self._size, self.capacity
        )

    def clear(self, names: Iterable[str] = (), files: Iterable[str] | None = None) -> Cleared:
        """Remove the sets sent with every one of `names` (any set when none) for `files`.

        `files` None means every file. A set answers to its source and to
        each name its batch was sent with (`apply`'s `aliases`).
        """
        wanted = None if files is None else set(files)
        given = tuple(names)
        sets = removed = 0
        for key, held in list(self._sets.items()):
            if held.named(given) and (wanted is None or key[1] in wanted):
                del self._sets[key]
                sets += 1
                removed += len(held.issues)
        self._size -= removed
        return Cleared(sets, removed)

    def sets(self, files: Iterable[str] | None = None) -> list[FileSet]:
        """The sets held, for `files` when given (exact paths), in report order."""
        if files is None:
            return list(self._sets.values())
        wanted = set(files)
        return [s for s in self._sets.values() if s.file in wanted]

    def sources(self) -> list[str]:
        return sorted({key[0] for key in self._sets})

    def names(self) -> list[str]:
        """Every name a held set answers to (its source and its batch's other names)."""
        return sorted({name for held in self._sets.values() for name in held.names})


# --------------------------------------------------------------- the view


@dataclass(frozen=True, slots=True)
class View:
    """The merged live view (module docstring), filtered.

    `issues` are sorted by `Issue.sort_key`; `check_ids` are the checks
    merged in, newest first; `superseded` counts live
    diagnostics left out because a newer check covered their file;
    `merged` counts reports folded into another source's identical one.
    """

    issues: tuple[Issue, ...]
    check_ids: tuple[str, ...]
    sources: tuple[str, ...]
    superseded: int = 0
    merged: int = 0
    files_superseded: tuple[str, ...] = field(default=())


def _rule_key(rule: str) -> str:
    # tsc says TS2322 where typescript-language-server says 2322.
    lowered = rule.lower()
    return lowered[2:] if lowered.startswith("ts") and lowered[2:].isdigit() else lowered


def _merge_sources(issues: Sequence[Issue]) -> tuple[list[Issue], int]:
    """Fold reports of the same problem at the same place by different sources."""
    groups: dict[tuple[str, int, int], list[Issue]] = {}
    for issue in issues:
        groups.setdefault((issue.file, issue.line, issue.col), []).append(issue)
    out: list[Issue] = []
    folded = 0
    for members in groups.values():
        if len(members) == 1:
            out.append(members[0])
            continue
        primaries: list[tuple[Issue, list[str], Severity]] = []
        for issue in members:
            for index, (primary, others, severity) in enumerate(primaries):
                same = _rule_key(issue.rule) == _rule_key(primary.rule) or ids.normalize_message(
                    issue.message
                ) == ids.normalize_message(primary.message)
                taken = issue.engine == primary.engine or issue.engine in others
                if same and not taken:
                    others.append(issue.engine)
                    others.extend(issue.also_reported_by)
                    worst: Severity = "error" if "error" in (severity, issue.severity) else severity
                    primaries[index] = (primary, others, worst)
                    folded += 1
                    break
            else:
                primaries.append((issue, list(issue.also_reported_by), issue.severity))
        for primary, others, severity in primaries:
            if others == list(primary.also_reported_by) and severity == primary.severity:
                out.append(primary)
            else:
                names = tuple(sorted(set(others) - {primary.engine}))
                out.append(primary.merged(severity, names))
    return out, folded


# One retained check as the view reads it: id, time (wall clock), scope, issues.
Layer = tuple[str, float, Scope, Sequence[Issue]]


def view(
    buffer: LiveBuffer,
    checks: Sequence[Layer] = (),
    *,
    files: Sequence[str] | None = None,
    severity: str | None = None,
) -> View:
    """The live view of `buffer` merged with `checks` (newest first).

    Each file's check issues come from the newest of `checks` that covered
    it (a file check of a.ts after a project check speaks for a.ts; the
    project check still speaks for the rest). `files` keeps the issues of
    those files (or directories) only; `severity` those of that severity.
    """

    def wanted(file: str) -> bool:
        if files is None:
            return True
        return any(p in (".", "") or file == p or file.startswith(p + "/") for p in files)

    owners: dict[str, int | None] = {}

    def owner(file: str) -> int | None:
        if file not in owners:
            owners[file] = next((n for n, c in enumerate(checks) if c[2].contains(file)), None)
        return owners[file]

    issues: list[Issue] = []
    for index, (_, _, _, check_issues) in enumerate(checks):
        issues.extend(i for i in check_issues if wanted(i.file) and owner(i.file) == index)
    superseded = 0
    stale_files: set[str] = set()
    live_sets = []
    for live_set in buffer.sets():
        if not wanted(live_set.file):
            continue
        covering = owner(live_set.file)
        if covering is not None and live_set.at < checks[covering][1]:
            superseded += len(live_set.issues)
            stale_files.add(live_set.file)
        else:
            live_sets.append(live_set)
            issues.extend(live_set.issues)
    merged, folded = _merge_sources(issues)
    if severity is not None:
        merged = [i for i in merged if i.severity == severity]
    merged.sort(key=Issue.sort_key)
    return View(
        tuple(merged),
        tuple(c[0] for c in checks),
        tuple(sorted({s.source for s in live_sets})),
        superseded,
        folded,
        tuple(sorted(stale_files)),
    )


def batch_snapshot(batch: Batch, root: str, clock: Callable[[], float] = time.time) -> Snapshot:
    """The retained snapshot of one batch (kind "lsp"; its id is the batch's checkId).

    Its targets are the files the batch named and its one engine outcome is
    the source, covering those files: so a comparison sees a file
    the batch did not name as unobserved, never resolved (D7). A batch that
    names no file (a clean report from a tool that lists no clean files)
    still counts as one observation by its source, so it reads clean, not
    "nothing checked": the tool did run.
    """
    from signalint.model import CheckResult, EngineOutcome
    from signalint.pipeline.cluster import cluster
    from signalint.pipeline.snapshot import Snapshot

    issues = tuple(sorted({i.issue_id: i for i in batch.issues}.values(), key=Issue.sort_key))
    outcome = EngineOutcome(batch.source, "ok", issues, files_checked=max(1, len(batch.files)))
    result = CheckResult(
        check_id=ids.new_check_id(),
        fingerprint=ids.fingerprint(i.issue_id for i in issues),
        project_root=root,
        outcomes={batch.source: outcome},
        issues=issues,
        created_at=clock(),
        files_in_scope=len(batch.files),
        whole_project=False,
    )
    return Snapshot(result, cluster(issues), batch.files, "lsp")

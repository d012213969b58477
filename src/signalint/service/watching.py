"""Watch-mode logic: which changes matter, and the evolving state of issues.

`signalint watch` keeps one *state*: the issues of the last full check, with
each re-checked file's issues replaced by the re-check's. Here: what a batch
of file-system changes means (`classify`), and folding a re-check into the
state while saying what it introduced and resolved (`WatchState.absorb`).
Printing and watching the file system belong to `signalint.cli.watch`.

Coverage follows D7: an engine that did not run ok keeps its previous issues
(not known to be resolved); only a deleted file's issues resolve unchecked.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import posixpath
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from signalint import ids
from signalint.engines.base import EngineConfigError, SelectsProgram
from signalint.engines.registry import ENGINES
from signalint.features.delta import compare
from signalint.model import CheckResult, EngineOutcome, Issue, Scope
from signalint.payloads import IssueEntry
from signalint.pipeline.check_run import CheckRun
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import issue_entry
from signalint.pipeline.snapshot import Snapshot
from signalint.project.ignores import ALWAYS_SKIPPED
from signalint.project.paths import PathRefused
from signalint.project.walk import walk
from signalint.settings.config import Config

# Files whose change can alter what any file's check says: they trigger a
# full re-check instead of a per-file one. Matched against the base name:
# ours, git's ignore rules, and every engine's (`EngineSpec.watch_patterns`).
CONFIG_PATTERNS = tuple(
    dict.fromkeys(
        (
            "signalint.config.json",
            ".signalint.json",
            "package.json",  # may hold our settings (its "signalint" key)
            "pyproject.toml",
            ".gitignore",
            *(p for engine in ENGINES.values() for p in engine.spec.watch_patterns),
        )
    )
)


def is_config_file(rel_path: str) -> bool:
    """Whether a change to this project-relative file calls for a full re-check."""
    name = posixpath.basename(rel_path)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in CONFIG_PATTERNS)


def project_relative(root: Path, path: str, skipped: Sequence[Path] = ()) -> str | None:
    """`path` relative to `root` (POSIX), or None when it can never matter.

    None for paths outside the root, inside node_modules/.git/.signalint at
    any depth, or inside one of `skipped` (e.g. a state directory moved by
    SIGNALINT_STATE_DIR, whose writes must not trigger re-checks).
    """
    full = os.path.abspath(path)
    if any(full == str(other) or full.startswith(str(other) + os.sep) for other in skipped):
        return None
    rel = os.path.relpath(full, root).replace(os.sep, "/")
    parts = rel.split("/")
    if rel == "." or parts[0] == ".." or ALWAYS_SKIPPED.intersection(parts):
        return None
    return rel


@dataclass(frozen=True, slots=True)
class Batch:
    """What one debounced set of changes asks for.

    `config_changed` lists changed config files (non-empty: re-check fully);
    `checked` are existing files to re-check; `deleted` are files of the
    state that no longer exist.
    """

    checked: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    config_changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.checked or self.deleted or self.config_changed)


def classify(
    root: Path,
    config: Config,
    targets: Sequence[str],
    known_files: Iterable[str],
    changed: Iterable[str],
) -> Batch:
    """Turn changed project-relative paths into a `Batch`.

    A path that exists is judged by what the walk of its directory would
    include (so .gitignore and config `ignore` rules apply), limited to the
    watched `targets` and to files some enabled engine reads; a directory is
    expanded the same way. A path that is gone deletes every known file at or
    under it. The kind of change reported is not trusted: editors save by
    writing a temporary file and renaming it, so only the end state counts.
    """
    scope = Scope(tuple(targets))
    known = set(known_files)
    config_changed: set[str] = set()
    explicit: set[str] = set()  # files named as targets: checked whatever the ignores say
    candidates: set[str] = set()
    expand: set[str] = set()  # directories that appeared: their files are new to us
    deleted: set[str] = set()
    for rel in changed:
        full = root / rel
        if full.is_dir():
            if scope.contains(rel) or any(t.startswith(rel + "/") for t in targets):
                expand.add(rel)
        elif is_config_file(rel):
            config_changed.add(rel)  # created, edited or removed: all change the verdicts
        elif not full.exists():
            deleted.update(f for f in known if f == rel or f.startswith(rel + "/"))
        elif rel in targets:
            explicit.add(rel)
        elif scope.contains(rel):
            candidates.add(rel)
    # Ask the walk itself, so ignore rules are applied exactly as a check would.
    walk_dirs = expand | {posixpath.dirname(f) or "." for f in candidates}
    included: set[str] = set()
    for directory in walk_dirs:
        try:
            included.update(walk(root, config.ignore, [directory]))
        except PathRefused:  # the directory vanished in the meantime
            continue
    wanted = explicit | (candidates & included)
    wanted |= {
        f for f in included if scope.contains(f) and any(f.startswith(d + "/") for d in expand)
    }
    engines = [ENGINES[name] for name in config.enabled_engines]
    return Batch(
        checked=tuple(sorted(f for f in wanted if any(e.relevant(f) for e in engines))),
        deleted=tuple(sorted(deleted)),
        config_changed=tuple(sorted(config_changed)),
    )


def program_groups(root: Path, config: Config, files: Sequence[str]) -> list[tuple[str, ...]]:
    """`files` split by the program each one selects, per enabled engine.

    A check's first target picks the single program a whole-program engine
    checks (tsc: the nearest tsconfig), so files under different programs
    are re-checked separately; otherwise a file outside the chosen program
    would lose its type errors as "resolved".
    """
    selecting = [
        engine
        for name in config.enabled_engines
        if isinstance(engine := ENGINES[name], SelectsProgram)
    ]
    groups: dict[tuple[str, ...], list[str]] = {}
    for file in files:
        key: list[str] = []
        for engine in selecting:
            try:
                key.append(engine.program_for(root, file))
            except EngineConfigError:  # the engine reports it as its outcome
                key.append("")
        groups.setdefault(tuple(key), []).append(file)
    return [tuple(group) for group in groups.values()]


@dataclass(frozen=True, slots=True)
class Update:
    """What absorbing one check changed; entries are shaped like `delta.compare`'s.

    `introduced` includes newly observed issues (news to a person watching).
    Lists may be cut at `delta.LIST_LIMIT`; the counts are the totals.
    `unobserved` counts previous issues kept because their engine failed.
    """

    introduced: list[IssueEntry] = field(default_factory=list)
    resolved: list[IssueEntry] = field(default_factory=list)
    introduced_count: int = 0
    resolved_count: int = 0
    unobserved: int = 0


def _entry(issue: Issue) -> IssueEntry:
    return issue_entry(issue, issue.issue_id)


def _result(root: str, outcomes: dict[str, EngineOutcome], issues: Iterable[Issue]) -> CheckResult:
    unique = {issue.issue_id: issue for issue in issues}
    return CheckResult(
        check_id=ids.new_check_id(),
        fingerprint=ids.fingerprint(unique),
        project_root=root,
        outcomes=outcomes,
        issues=tuple(sorted(unique.values(), key=Issue.sort_key)),
        created_at=time.time(),
    )


class WatchState:
    """The current issues of a watched project (see the module docstring).

    `result.status` is the status of the state: `error` while the latest run
    of some engine failed. `files` are the files that currently have issues.
    """

    def __init__(self, run: CheckRun, targets: Sequence[str]) -> None:
        self.targets = tuple(targets)
        self.result = run.result

    @property
    def files(self) -> set[str]:
        return {issue.file for issue in self.result.issues}

    def absorb(
        self, run: CheckRun | None, checked: Sequence[str], deleted: Sequence[str], *, full: bool
    ) -> Update:
        """Fold `run` (a check of `checked`, or of every target when `full`) into the state.

        Issues of `deleted` files are resolved; within the checked scope an
        engine that ran ok replaces its issues, any other keeps them. A full
        run also drops engines it did not run (disabled in the new config).
        """
        old = self.result
        scope = Scope(self.targets if full else tuple(checked))
        gone = set(deleted)
        new_outcomes = dict(run.result.outcomes) if run is not None else {}
        outcomes = (
            new_outcomes
            if full
            else {
                **old.outcomes,
                **{n: _fold(old.outcomes.get(n), o) for n, o in new_outcomes.items()},
            }
        )

        def replaced(issue: Issue) -> bool:
            if run is None or not scope.contains(issue.file):
                return False
            outcome = new_outcomes.get(issue.engine)
            if outcome is None:  # only a full run can lack an engine: it was disabled
                return full
            return outcome.status == "ok"

        kept = [i for i in old.issues if i.file not in gone and not replaced(i)]
        fresh = list(run.result.issues) if run is not None else []
        self.result = _result(old.project_root, outcomes, [*kept, *fresh])

        gone_entries = [_entry(i) for i in old.issues if i.file in gone]
        if run is None:
            return Update(resolved=gone_entries, resolved_count=len(gone_entries))
        seen = [i for i in old.issues if scope.contains(i.file) and i.file not in gone]
        before = _result(old.project_root, old.outcomes, seen)
        delta = compare(_snapshot(before, scope), _snapshot(run.result, scope))
        counts = delta["counts"]
        newly = delta["newlyObserved"]
        assert isinstance(newly, list)  # listed, not summarized: compare() was not asked to
        return Update(
            introduced=[*delta["introduced"], *newly],
            resolved=[*gone_entries, *delta["resolved"]],
            introduced_count=counts["introduced"] + counts["newlyObserved"],
            resolved_count=len(gone_entries) + counts["resolved"],
            unobserved=counts["unobserved"],
        )


def _fold(old: EngineOutcome | None, new: EngineOutcome) -> EngineOutcome:
    """The state's outcome after a file-scoped run of one engine.

    That run covered only the changed files (often none an engine checks,
    e.g. a CSS edit for Oxlint); the state still covers what the engine
    checked before, so its coverage (D17) is kept.
    """
    if old is None or old.status != "ok" or new.status != "ok":
        return new
    return dataclasses.replace(new, files_checked=max(old.files_checked, new.files_checked))


def _snapshot(result: CheckResult, scope: Scope) -> Snapshot:
    return Snapshot(result, cluster(result.issues), scope.targets, "files")

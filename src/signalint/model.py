"""The normalized diagnostic model shared by every part of Signalint.

Engines produce `Issue` values; the pipeline wraps each engine's run in an
`EngineOutcome`; a whole check is a `CheckResult`. Everything here is frozen
and engine-agnostic: nothing downstream of an adapter sees engine output.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from signalint import ids

Severity = Literal["error", "warning"]
OutcomeStatus = Literal["ok", "error", "disabled"]
Served = Literal["cold", "warm", "fallback"]
CheckStatus = Literal["clean", "issues_found", "error"]
FailureKind = Literal[
    "timeout", "output_limit", "crashed", "bad_output", "config_error", "missing", "incomplete"
]
FAILURE_KINDS: tuple[FailureKind, ...] = get_args(FailureKind)

SUMMARY_LIMIT = 120


@dataclass(frozen=True, slots=True)
class Scope:
    """What a check covers: project-relative targets, and whether it is a file check.

    `targets` are already validated by `project.paths.safe_relative`. Issues outside
    the targets are filtered out and counted (whole-program engines report
    on their whole program).
    """

    targets: tuple[str, ...] = (".",)
    _prefixes: tuple[str, ...] = field(init=False, default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_prefixes", tuple(t.rstrip("/") + "/" for t in self.targets))

    @property
    def whole_project(self) -> bool:
        return "." in self.targets

    def contains(self, rel_path: str) -> bool:
        if self.whole_project:
            return True
        return rel_path in self.targets or rel_path.startswith(self._prefixes)


@dataclass(frozen=True, slots=True)
class Issue:
    """One diagnostic, normalized.

    `file` is a project-relative POSIX path; `line`/`col` are 1-based (values
    below 1, which some engines give for whole-file diagnostics, are clamped to
    1 rather than dropped). `message` is the engine's full message, unshortened
    (D5); `summary` is the one-line form. `issue_id` is derived, never passed
    (it does not cover `also_reported_by`).
    """

    engine: str
    file: str
    line: int
    col: int
    rule: str
    severity: Severity
    message: str
    fixable: bool = False
    end_line: int | None = None
    end_col: int | None = None
    docs_url: str | None = None
    help: str | None = None
    # Other engines that reported the same problem at the same place (D20):
    # the issue is one problem, counted once, naming every engine that saw it.
    also_reported_by: tuple[str, ...] = ()
    issue_id: str = field(init=False, default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "line", max(1, int(self.line)))
        object.__setattr__(self, "col", max(1, int(self.col)))
        if self.end_line is not None:
            object.__setattr__(self, "end_line", max(self.line, int(self.end_line)))
        if self.end_col is not None:
            object.__setattr__(self, "end_col", max(1, int(self.end_col)))
        object.__setattr__(
            self,
            "issue_id",
            ids.issue_id(self.engine, self.file, self.rule, self.line, self.col, self.message),
        )

    @classmethod
    def restore(cls, issue_id: str, **fields: Any) -> Issue:
        """Rebuild a stored issue whose id was computed when it was first made.

        Skips validation and hashing: only for values this module produced
        (the result cache), where thousands of issues are restored per check.
        """
        issue = object.__new__(cls)
        for name in _OPTIONAL_DEFAULTS:
            object.__setattr__(issue, name, fields.pop(name, _OPTIONAL_DEFAULTS[name]))
        for name, value in fields.items():
            object.__setattr__(issue, name, value)
        object.__setattr__(issue, "issue_id", issue_id)
        return issue

    def merged(
        self, severity: Severity, also_reported_by: tuple[str, ...], *, fixable: bool = False
    ) -> Issue:
        """This issue as the primary of a cross-engine merge (D20); `fixable`
        when any of the merged reports is.

        Same id (it covers none of those fields), so nothing is re-hashed.
        """
        issue = object.__new__(Issue)
        for name in Issue.__slots__:
            object.__setattr__(issue, name, getattr(self, name))
        object.__setattr__(issue, "severity", severity)
        object.__setattr__(issue, "also_reported_by", also_reported_by)
        object.__setattr__(issue, "fixable", self.fixable or fixable)
        return issue

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled as its field values, so that an unpickler reading answers
        # one after another reuses the equal issues of the last one
        # (`UnpickledIssues`).
        return _unpickled_issue, _issue_fields(self)

    @property
    def summary(self) -> str:
        """The message on one line, at most 120 characters."""
        return ids.summarize(self.message, SUMMARY_LIMIT)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line, self.col, self.rule, self.issue_id)


# An issue's field values in slot order, at C speed (a check's answer
# pickles thousands of issues: `Issue.__reduce__`).
_issue_fields: Callable[[Issue], tuple[Any, ...]] = operator.attrgetter(*Issue.__slots__)


@dataclass(frozen=True, slots=True)
class Reported:
    """What an engine reported at one place, as a plain issue is made of
    it (no end position, docs or fix): the key of `IssueMemo`."""

    engine: str
    file: str
    line: int
    col: int
    rule: str
    severity: Severity
    message: str


class IssueMemo:
    """Issues already made, by their constructor arguments (bounded).

    Whole-program engines re-report their whole program on every run; in a
    long-lived process most diagnostics are the ones they reported last
    time, so the (immutable) issues are reused instead of re-hashed. A
    process's `Context` owns one; adapters receive it in their context.
    """

    def __init__(self, capacity: int = 200_000) -> None:
        self.capacity = capacity
        self._made: dict[Reported, Issue] = {}

    def issue(self, reported: Reported) -> Issue:
        """The issue `reported` makes, the same object as last time."""
        found = self._made.get(reported)
        if found is None:
            if len(self._made) >= self.capacity:
                self._made.clear()  # only a memo
            found = self._made[reported] = Issue(
                engine=reported.engine,
                file=reported.file,
                line=reported.line,
                col=reported.col,
                rule=reported.rule,
                severity=reported.severity,
                message=reported.message,
            )
        return found


class UnpickledIssues:
    """Equal issues across values unpickled one after another, made one.

    A front end the daemon answers unpickles a whole check per answer
    (`daemon.values`); most of its issues equal the last answer's, which
    the front end still holds (its retained snapshots, its published
    diagnostics). Inside `reading()`, an issue equal to one of the last
    reading's (or to one already read in this one) is that object, so
    consecutive answers share their unchanged issues as an in-process
    check's do (`IssueMemo`). Bound: the issues of the last reading, held
    until the next one ends. Meant for one thread.
    """

    def __init__(self) -> None:
        self._last: dict[tuple[Any, ...], Issue] = {}

    @contextmanager
    def reading(self) -> Iterator[None]:
        now: dict[tuple[Any, ...], Issue] = {}
        _reading.memos = (now, self._last)
        try:
            yield
        finally:
            _reading.memos = None
            self._last = now


class _Reading(threading.local):
    memos: tuple[dict[tuple[Any, ...], Issue], dict[tuple[Any, ...], Issue]] | None = None


_reading = _Reading()


def _unpickled_issue(*values: Any) -> Issue:
    """An issue from its pickled field values (`Issue.__reduce__`): the equal
    one of the reading under way or the last, when `UnpickledIssues.reading`."""
    memos = _reading.memos
    if memos is not None:
        now, last = memos
        found = now.get(values)
        if found is None:
            found = last.get(values)
            if found is not None:
                now[values] = found
        if found is not None:
            return found
    issue = object.__new__(Issue)
    for name, value in zip(Issue.__slots__, values, strict=True):
        object.__setattr__(issue, name, value)
    if memos is not None:
        memos[0][values] = issue
    return issue


_OPTIONAL_DEFAULTS: dict[str, Any] = {
    "fixable": False,
    "end_line": None,
    "end_col": None,
    "docs_url": None,
    "help": None,
    "also_reported_by": (),
}


@dataclass(frozen=True, slots=True)
class Failure:
    """Why an engine did not run ok, as data: its kind and what fixes it.

    `kind` is one of:

    - `timeout`: it ran past its deadline and was killed;
    - `output_limit`: it printed more than the output limit and was stopped;
    - `crashed`: it could not be started, was killed by a signal, or exited
      with a code it does not use for findings;
    - `bad_output`: it exited normally but its output could not be read;
    - `config_error`: the engine cannot be run as configured for this check
      (e.g. no TypeScript configuration where the first target selects one);
    - `missing`: it is enabled but not installed (outcome `disabled`);
    - `incomplete`: it ran but did not check a part it was expected to check
      (the outcome's `coverage_gap` names it, e.g. a referenced project).

    `fix` is the setting or command that fixes it when there is one
    (`timeoutsMs.tsc (milliseconds) in signalint.config.json`,
    `signalint engines install ruff`), else None: the outcome's message
    says what happened. Consumers branch on `kind`, never on the message.
    """

    kind: FailureKind
    fix: str | None = None


@dataclass(frozen=True, slots=True, repr=False)
class EngineOutcome:
    """What one engine contributed to a check.

    `status` is `ok` (it ran, or had nothing to check), `disabled` (enabled in
    config but not resolvable: `message` says how to install it) or `error`
    (it ran and failed: `message` says how, with a short excerpt).

    `files_checked` counts the files inside the check's scope that the engine
    really covered (cached or run). `coverage_gap` names a part the engine was
    expected to check but did not (e.g. a referenced TypeScript project tsc
    skipped); an outcome with a gap is never `ok` (D17): its producer sets
    `status` to `error` and keeps the issues it did find.

    `failure` types a failed run (`Failure`: kind and fix); it is set on
    every `disabled` outcome and on every `error` outcome except one whose
    only problem is its `coverage_gap`.
    """

    engine: str
    status: OutcomeStatus
    issues: tuple[Issue, ...] = ()
    message: str | None = None
    duration_ms: float = 0.0
    files_checked: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    coverage_gap: str | None = None
    failure: Failure | None = None
    # Which path answered the engine's run: "cold" (its process), "warm" (a
    # kept-warm worker), "fallback" (a worker failed; cold answered); None
    # when nothing ran (every result came from the cache).
    served: Served | None = None
    # A whole-program run's issue ids that its program's previous run (the
    # record it replaces) did not have; None when there was none to compare
    # with. A check of some files reports those outside its scope as the
    # edit's dependents (`check.CheckRun.dependents`).
    introduced: frozenset[str] | None = None
    # The previous run's issues this run no longer reports (known exactly
    # when `introduced` is): what an edit repaired, or moved, elsewhere.
    gone: tuple[Issue, ...] = ()
    # A whole-program engine kept warm answered for the check's files alone
    # (`program_cache.ProgramRequest.files_only`): its issues in other files
    # are neither known nor counted.
    scoped: bool = False

    def __repr__(self) -> str:
        # Short on purpose: asyncio formats the result of a finished main task
        # when asyncio.run restores the SIGINT handler, and a full repr of
        # thousands of issues costs a noticeable part of a check.
        return f"EngineOutcome({self.engine}, {self.status}, {len(self.issues)} issues)"


def served_all(kinds: Iterable[Served | None]) -> Served | None:
    """How several runs of an engine were answered, all told: "fallback"
    if a warm worker failed and cold answered any, else "warm" if a worker
    answered any, else "cold"; None when none ran."""
    seen = set(kinds)
    order: tuple[Served, ...] = ("fallback", "warm", "cold")
    return next((kind for kind in order if kind in seen), None)


@dataclass(frozen=True, slots=True, repr=False)
class CheckResult:
    """A completed check: every issue (uncapped) plus per-engine outcomes.

    `issues` is deduplicated by `issue_id` and sorted; caps and clustering are
    applied only when a report is rendered, so nothing is lost here (D6).
    `files_in_scope` is how many files the walk found in the check's scope
    after ignore rules (None when the producer does not know).

    Coverage (D17): an engine *covered* something when it was not disabled
    and checked at least one file. A check where no engine covered anything
    is `error` with code `nothing_checked`; a check where some engine covered
    nothing while others did is `error` with a `coverage_warning`. Neither is
    ever `clean`. One exception, for checks of chosen paths only
    (`whole_project` False): an engine that ran `ok` and found no file of
    those paths that it checks (Oxlint on a stylesheet) lost nothing, so it
    is not uncovered; a disabled or failed engine always is. On a whole
    project, an enabled engine that checked no file is always a warning.
    """

    check_id: str
    fingerprint: str
    project_root: str
    outcomes: dict[str, EngineOutcome]
    issues: tuple[Issue, ...]
    created_at: float
    files_in_scope: int | None = None
    whole_project: bool = True
    # What the shared result store did for this check (`storage.remote`):
    # hits, misses, writes, rejected, errors, roundTrips; None without one.
    remote_cache: Mapping[str, int] | None = None

    def __repr__(self) -> str:
        return f"CheckResult({self.check_id}, {len(self.issues)} issues)"

    @property
    def status(self) -> CheckStatus:
        failed = any(o.status == "error" for o in self.outcomes.values())
        # No engine at all also covers nothing.
        if failed or self.uncovered_engines or not self.covered_engines:
            return "error"
        return "issues_found" if self.issues else "clean"

    @property
    def any_engine_ok(self) -> bool:
        return any(o.status == "ok" for o in self.outcomes.values())

    @property
    def covered_engines(self) -> tuple[str, ...]:
        """Engines that checked at least one file (sorted)."""
        return tuple(sorted(n for n, o in self.outcomes.items() if covered(o)))

    @property
    def uncovered_engines(self) -> tuple[str, ...]:
        """Enabled engines that checked no file they should have (class docstring)."""
        return tuple(
            sorted(
                name
                for name, o in self.outcomes.items()
                if not covered(o) and (self.whole_project or not _nothing_for_it(o))
            )
        )

    @property
    def code(self) -> str | None:
        return None if self.covered_engines else "nothing_checked"

    @property
    def scoped_engines(self) -> tuple[str, ...]:
        """The whole-program engines that checked the requested files alone
        (`EngineOutcome.scoped`), sorted."""
        return tuple(sorted(name for name, o in self.outcomes.items() if o.scoped))

    @property
    def coverage_warning(self) -> str | None:
        """Names the engines that checked nothing when others did; else None."""
        missing = self.uncovered_engines
        if not missing or not self.covered_engines:
            return None
        reasons = "; ".join(uncovered_reason(self.outcomes[name]) for name in missing)
        checked = ", ".join(self.covered_engines)
        return (
            f"Incomplete coverage: {reasons}. "
            f"The results come only from {checked}; this is not a clean check."
        )


def covered(outcome: EngineOutcome) -> bool:
    """Whether `outcome`'s engine really checked at least one file (D17)."""
    return outcome.status != "disabled" and outcome.files_checked > 0


def _nothing_for_it(outcome: EngineOutcome) -> bool:
    """An engine that ran fine and simply had no file of the scope to check."""
    return outcome.status == "ok" and outcome.coverage_gap is None


def uncovered_reason(outcome: EngineOutcome) -> str:
    """Why an engine covered nothing, as a clause naming the engine."""
    if outcome.status == "disabled":
        return f"{outcome.engine} is disabled and checked no file"
    if outcome.status == "error":
        return f"{outcome.engine} failed and checked no file"
    return f"{outcome.engine} checked no file (no file in the scope is one it checks)"

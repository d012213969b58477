"""Coverage-aware deltas between two retained snapshots (D7).

Issues are matched as `matching` matches them (each at most once: the same
id; else the same file, rule, severity and normalized message, nearest line
first; else the same message template), so an issue that moved is
*persisting*, not resolved + introduced.

What is left over is classified by coverage, never assumed:
- a baseline leftover is `resolved` only when the current check observed it:
  its file is inside the current targets and its engine ran `ok` in the
  current check; otherwise it is `unobserved` (with the reason);
- a current leftover is `introduced` only when the baseline observed that
  file with that engine; otherwise it is `newlyObserved` (the baseline could
  not have seen it, so nothing says the edit introduced it).

Introduced and resolved issues are listed: they are what an edit changed.
Unobserved and newly observed issues are only summarized (counts per file,
engine and reason): after a one-file edit checked against a project
baseline they are the rest of the project, and listing the baseline's (or
the current) check with a file or engine filter shows them.

`errorsIntroduced` and `errorsResolved` count errors only, and `netDelta`
is their difference (the reference's definition: warnings are listed but
never move it); `counts` has the totals of every kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from signalint.model import CheckResult, Issue
from signalint.payloads import (
    Delta,
    DeltaCounts,
    IssueEntry,
    UnobservedEntry,
    UnobservedSummary,
    laid_out,
)
from signalint.pipeline.matching import pair_off
from signalint.pipeline.report import issue_entry
from signalint.pipeline.ripple import Ripple
from signalint.pipeline.snapshot import Snapshot
from signalint.steps import Step, Words
from signalint.wording import count, them, they

LIST_LIMIT = 50
# Files named in an unobserved/newlyObserved summary; the rest are counted.
SUMMARY_FILES = 20
_SUMMARY_ORDER = tuple(UnobservedSummary.__annotations__)


def _engine_ok(result: CheckResult, engine: str) -> bool:
    outcome = result.outcomes.get(engine)
    return outcome is not None and outcome.status == "ok"


def _not_observed_reason(snap: Snapshot, issue: Issue) -> str | None:
    """Why `snap` could not have seen `issue`, or None when it could."""
    if not snap.scope.contains(issue.file):
        return "outside_scope"
    outcome = snap.result.outcomes.get(issue.engine)
    if outcome is None:
        return "engine_not_run"
    if outcome.status != "ok":
        return f"engine_{outcome.status}"
    return None


def _entry(snap: Snapshot, issue: Issue) -> IssueEntry:
    """The issue as `snap` names it (its short id there)."""
    return issue_entry(issue, snap.short_id(issue))


def _tally(values: Iterable[str]) -> dict[str, int]:
    """Counts per value, largest first (ties by value)."""
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _summary(issues: list[tuple[Issue, str]]) -> UnobservedSummary:
    """`{byFile, moreFiles?, byEngine, byReason}` for issues a check did not observe."""
    by_file = _tally(issue.file for issue, _ in issues)
    summary: UnobservedSummary = {
        "byFile": dict(list(by_file.items())[:SUMMARY_FILES]),
        "byEngine": _tally(issue.engine for issue, _ in issues),
        "byReason": _tally(reason for _, reason in issues),
    }
    if len(by_file) > SUMMARY_FILES:
        summary["moreFiles"] = len(by_file) - SUMMARY_FILES
    return laid_out(summary, _SUMMARY_ORDER)


def _covers(baseline: Snapshot, current: Snapshot) -> bool:
    """Whether `current` looked everywhere, with every engine, that `baseline` did."""
    outcomes = current.result.outcomes
    if not outcomes or any(o.status != "ok" for o in outcomes.values()):
        return False
    if any(
        o.status == "ok" and not _engine_ok(current.result, name)
        for name, o in baseline.result.outcomes.items()
    ):
        return False
    return all(current.scope.contains(target) for target in baseline.targets)


def _entries(snap: Snapshot, issues: list[tuple[Issue, str]]) -> list[UnobservedEntry]:
    return [{**_entry(snap, issue), "reason": reason} for issue, reason in issues[:LIST_LIMIT]]


def _listing(check_id: str, issues: list[tuple[Issue, str]], words: Words) -> str:
    """How to list `issues`: the checkId and one example filter."""
    files = _tally(issue.file for issue, _ in issues)
    if all(reason == "outside_scope" for _, reason in issues):
        example = ("file", next(iter(files)))
    else:
        example = ("engine", next(iter(_tally(issue.engine for issue, _ in issues))))
    return f"list {them(len(issues))} {words(Step('list', check_id, example))}"


@dataclass(frozen=True, slots=True)
class _Sides:
    """The issues of two checks sorted by who could see them: introduced
    and resolved where both looked, unobserved (a baseline issue the
    current check did not look for) and newly observed (a current issue
    where the baseline did not look), each with its reason; how many
    persist, and whether the current check covers the baseline's."""

    introduced: list[Issue]
    resolved: list[Issue]
    unobserved: list[tuple[Issue, str]]
    newly: list[tuple[Issue, str]]
    persisting: int
    complete: bool

    def counts(self) -> DeltaCounts:
        return {
            "introduced": len(self.introduced),
            "resolved": len(self.resolved),
            "unobserved": len(self.unobserved),
            "newlyObserved": len(self.newly),
            "persisting": self.persisting,
        }


def _sides(baseline: Snapshot, current: Snapshot, ripple: Ripple | None) -> _Sides:
    """Pair off the two checks' issues and sort the rest by coverage (`ripple`:
    the current check's, its files observed too)."""
    old = dict(baseline.by_id)
    new = dict(current.by_id)
    if ripple is not None:
        new.update((i.issue_id, i) for i in ripple.present)
    persisting = pair_off(old, new)
    # Gone from the current check: resolved only where the current check looked.
    resolved, unobserved = _split_by_coverage(old.values(), current, ripple)
    # New in the current check: introduced only where the baseline looked.
    introduced, newly = _split_by_coverage(new.values(), baseline)
    if ripple is not None:
        persisting += _stand_in(ripple, baseline, introduced, resolved, newly)
    complete = not unobserved and _covers(baseline, current)
    return _Sides(introduced, resolved, unobserved, newly, persisting, complete)


def _next_step(
    sides: _Sides, baseline: Snapshot, current: Snapshot, words: Words, elsewhere: int = 0
) -> str:
    # The word "clean" appears only in the last line, reached only with
    # complete coverage, nothing introduced and no issue left (D7), in the
    # checked files or, `elsewhere`, in the other files the edit changed.
    # `introduced` counts those in the checked files (a ripple's are said
    # by `_elsewhere_step`).
    introduced = sum(1 for i in sides.introduced if not _outside(current, i))
    unobserved, newly, complete = sides.unobserved, sides.newly, sides.complete
    parts: list[str] = []
    if introduced:
        parts.append(
            f"{count(introduced, 'issue', 'was introduced')} since the baseline: fix "
            f"{them(introduced)} first ({words(Step('detail', current.check_id))})."
        )
    if unobserved:
        parts.append(
            f"{count(len(unobserved), 'baseline issue', 'was')} not observed (outside the "
            "checked files, or engine not ok), so not known to be resolved; "
            f"{_listing(baseline.check_id, unobserved, words)}. Confirm with "
            f"{words(Step('check'))}, every "
            "engine working."
        )
    elif not complete:
        parts.append(
            "Coverage is incomplete (narrower scope, or an engine failed or is disabled), "
            "so this delta cannot confirm that nothing remains."
        )
    if newly:
        parts.append(
            f"{count(len(newly), 'current issue')} where the baseline did not look; "
            f"{they(len(newly))} may predate the edit ({_listing(current.check_id, newly, words)})."
        )
    if parts:
        return " ".join(parts)
    if sides.introduced:
        return f"{count(len(sides.resolved), 'issue')} resolved."
    if current.result.issues or elsewhere:
        return (
            f"Nothing introduced; {len(sides.resolved)} resolved, "
            f"{len(current.result.issues) + elsewhere} still present."
        )
    return "Clean: nothing introduced, and the current check found no issues with full coverage."


def _split_by_coverage(
    issues: Iterable[Issue], other: Snapshot, elsewhere: Ripple | None = None
) -> tuple[list[Issue], list[tuple[Issue, str]]]:
    """Issues `other` observed (in its scope, or in the files of its ripple
    `elsewhere`), and the others with the reason it did not."""
    observed: list[Issue] = []
    unobserved: list[tuple[Issue, str]] = []
    for issue in sorted(issues, key=Issue.sort_key):
        seen = elsewhere is not None and elsewhere.observes(issue)
        reason = None if seen else _not_observed_reason(other, issue)
        if reason is None:
            observed.append(issue)
        else:
            unobserved.append((issue, reason))
    return observed, unobserved


def compare(
    baseline: Snapshot,
    current: Snapshot,
    *,
    summarize: bool = False,
    words: Words | None = None,
    elsewhere: Elsewhere | None = None,
) -> Delta:
    """The delta from `baseline` to `current` (see the module docstring).

    Returns `{baselineCheckId, currentCheckId, introduced, resolved,
    unobserved, newlyObserved, counts, errorsIntroduced, errorsResolved,
    netDelta, coverageComplete, truncated, nextStep}`. `introduced` and
    `resolved` list at most 50 entries each (`counts` has the totals,
    `truncated` says a list was cut); entries are `{issueId (short id of the
    snapshot the issue comes from), file, line, col, engine, rule, severity,
    summary}`. With `summarize` (the MCP answers), `unobserved` and
    `newlyObserved` are summaries `{byFile (the 20 files with most issues),
    moreFiles?, byEngine, byReason}` and `nextStep` says how to list them;
    without it (watch mode, where both checks share one scope), they are
    lists like the others (at most 50, `truncated` covers them), each entry
    with its `reason`. Reasons are `outside_scope`, `engine_error`,
    `engine_disabled` and `engine_not_run`. `counts` also
    has `persisting`. `coverageComplete` is true only when every current
    engine ran ok, every engine ok in the baseline is ok now, the current
    targets include the baseline's, and no baseline issue is unobserved;
    `nextStep` says "Clean" only then, with nothing introduced and no issue
    left. `words` is the front end's wording of the steps in `nextStep`
    (`signalint.steps`); without it (watch mode shows no advice) `nextStep`
    is empty.

    `elsewhere` is the current check's ripple (`ripple.Ripple`: what its
    edit changed in the files that depend on the checked ones) with the
    check retaining those errors: the files it touched count as observed
    by the current check, with the issues the whole-program engines report
    there now, so what the edit broke or repaired there is introduced or
    resolved. Where the baseline did not look at such a file, the
    programs' previous runs stand in for it (a broken error is introduced,
    a repaired one resolved, a moved one persisting). Those issues are
    listed first, at most `elsewhere.listed` of them (the rest counted,
    `truncated`, and `nextStep` says how to list them).
    """
    ripple = None if elsewhere is None else elsewhere.ripple
    sides = _sides(baseline, current, ripple)
    introduced, resolved = sides.introduced, sides.resolved
    unobserved, newly = sides.unobserved, sides.newly
    errors_introduced = sum(1 for i in introduced if i.severity == "error")
    errors_resolved = sum(1 for i in resolved if i.severity == "error")
    shown = LIST_LIMIT if elsewhere is None else elsewhere.listed
    listed_introduced = _listed(introduced, current, shown)
    listed_resolved = _listed(resolved, current, shown)
    step = ""
    if words is not None:
        still = 0 if ripple is None else len(ripple.now)
        step = _next_step(sides, baseline, current, words, still)
        if elsewhere is not None:
            step = _elsewhere_step(introduced, resolved, current, elsewhere, words) + step
    return {
        "baselineCheckId": baseline.check_id,
        "currentCheckId": current.check_id,
        "introduced": [_entry(current, i) for i in listed_introduced],
        "resolved": [_entry(baseline, i) for i in listed_resolved],
        "unobserved": _summary(unobserved) if summarize else _entries(baseline, unobserved),
        "newlyObserved": _summary(newly) if summarize else _entries(current, newly),
        "counts": sides.counts(),
        "errorsIntroduced": errors_introduced,
        "errorsResolved": errors_resolved,
        "netDelta": errors_introduced - errors_resolved,
        "coverageComplete": sides.complete,
        "truncated": len(listed_introduced) < len(introduced)
        or len(listed_resolved) < len(resolved)
        or (not summarize and any(len(listed) > LIST_LIMIT for listed in (unobserved, newly))),
        "nextStep": step,
    }


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A check's ripple for `compare`: what its edit changed in other files
    (`ripple`), the check retaining those errors (`check_id`; "" when none
    is), and how many of them a delta lists (`listed`)."""

    ripple: Ripple
    check_id: str = ""
    listed: int = LIST_LIMIT


def _outside(current: Snapshot, issue: Issue) -> bool:
    return not current.scope.contains(issue.file)


def _listed(issues: list[Issue], current: Snapshot, elsewhere: int) -> list[Issue]:
    """What a delta lists of `issues`: those outside `current`'s scope (a
    ripple's) first, at most `elsewhere` of them, then the others; at most
    `LIST_LIMIT` in all."""
    outside = [i for i in issues if _outside(current, i)]
    inside = [i for i in issues if not _outside(current, i)]
    return (outside[:elsewhere] + inside)[:LIST_LIMIT]


def _stand_in(
    ripple: Ripple,
    baseline: Snapshot,
    introduced: list[Issue],
    resolved: list[Issue],
    newly: list[tuple[Issue, str]],
) -> int:
    """Where `baseline` did not look at a file of `ripple`, its programs'
    previous runs stand in: a broken error is introduced, a repaired one
    resolved, a moved one persisting (`compare`). Changes the lists in
    place; returns how many persist."""
    broken = {i.issue_id for i in ripple.broken}
    moved_now = {n.issue_id for _, n in ripple.moved}
    persisting = 0
    kept: list[tuple[Issue, str]] = []
    for issue, reason in newly:
        if issue.issue_id in broken:
            introduced.append(issue)
        elif issue.issue_id in moved_now:
            persisting += 1
        else:
            kept.append((issue, reason))
    newly[:] = kept
    resolved.extend(i for i in ripple.repaired if _not_observed_reason(baseline, i) is not None)
    introduced.sort(key=Issue.sort_key)
    resolved.sort(key=Issue.sort_key)
    return persisting


def _elsewhere_step(
    introduced: list[Issue],
    resolved: list[Issue],
    current: Snapshot,
    elsewhere: Elsewhere,
    words: Words,
) -> str:
    """The first words of a delta's `nextStep` about other files: what the
    edit introduced there (fix first, how to list them), what it resolved,
    and the errors it only moved."""
    parts: list[str] = []
    broken = [i for i in introduced if _outside(current, i)]
    if broken:
        files = len({i.file for i in broken})
        text = (
            f"{count(len(broken), 'issue', 'was')} introduced in "
            f"{count(files, 'other file')}: fix {them(len(broken))} first"
        )
        if elsewhere.check_id:
            text += f" (list {them(len(broken))} {words(Step('list', elsewhere.check_id))})"
        parts.append(text + ".")
    repaired = sum(1 for i in resolved if _outside(current, i))
    if repaired:
        parts.append(f"{count(repaired, 'issue')} resolved in other files.")
    moved = len(elsewhere.ripple.moved)
    if moved:
        parts.append(
            f"{count(moved, 'error')} in other files only moved (still there, elsewhere in "
            f"the file): not fixed."
        )
    return "".join(part + " " for part in parts)

"""Coverage-aware deltas between two retained snapshots (D7).

Matching, in order (each issue is matched at most once):
1. the same full issue id;
2. the same file, rule, severity and normalized message, pairing by nearest
   line (an issue that moved is *persisting*, not resolved + introduced);
3. the same file, rule, severity and message template (quoted names
   replaced), again by nearest line, so a renamed identifier still matches.

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

from collections.abc import Callable, Hashable, Iterable

from signalint import ids
from signalint.model import CheckResult, Issue
from signalint.payloads import (
    Delta,
    DeltaCounts,
    IssueEntry,
    UnobservedEntry,
    UnobservedSummary,
    laid_out,
)
from signalint.report import issue_entry
from signalint.snapshot import Snapshot
from signalint.steps import Step, Words
from signalint.wording import count, them, they

LIST_LIMIT = 50
# Files named in an unobserved/newlyObserved summary; the rest are counted.
SUMMARY_FILES = 20
# Above this many candidate pairs in one group, pair in line order instead
# of by global nearest distance (keeps a pathological file linear-ish).
_PAIR_BUDGET = 40_000

Pair = tuple[Issue, Issue]
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


def _pair_group(old: list[Issue], new: list[Issue]) -> list[Pair]:
    """Pair issues of one matching group, nearest line first, deterministically."""
    if len(old) * len(new) > _PAIR_BUDGET:
        old_sorted = sorted(old, key=Issue.sort_key)
        new_sorted = sorted(new, key=Issue.sort_key)
        return list(zip(old_sorted, new_sorted, strict=False))
    candidates = sorted(
        ((abs(o.line - n.line), o.sort_key(), n.sort_key(), o, n) for o in old for n in new),
        key=lambda item: (item[0], item[1], item[2]),
    )
    used_old: set[str] = set()
    used_new: set[str] = set()
    pairs: list[Pair] = []
    for _, _, _, o, n in candidates:
        if o.issue_id in used_old or n.issue_id in used_new:
            continue
        used_old.add(o.issue_id)
        used_new.add(n.issue_id)
        pairs.append((o, n))
    return pairs


def _match_by(
    old: dict[str, Issue], new: dict[str, Issue], key: Callable[[Issue], Hashable]
) -> int:
    """Pair leftovers sharing `key`; remove the pairs from both dicts; count them."""
    groups: dict[Hashable, tuple[list[Issue], list[Issue]]] = {}
    for issue in old.values():
        groups.setdefault(key(issue), ([], []))[0].append(issue)
    for issue in new.values():
        if (k := key(issue)) in groups:
            groups[k][1].append(issue)
    matched = 0
    for old_group, new_group in groups.values():
        if not new_group:
            continue
        for o, n in _pair_group(old_group, new_group):
            del old[o.issue_id]
            del new[n.issue_id]
            matched += 1
    return matched


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


def _next_step(
    counts: DeltaCounts,
    complete: bool,
    baseline: Snapshot,
    current: Snapshot,
    unobserved: list[tuple[Issue, str]],
    newly: list[tuple[Issue, str]],
    words: Words,
) -> str:
    # The word "clean" appears only in the last line, reached only with
    # complete coverage, nothing introduced and no issue left (D7).
    parts: list[str] = []
    introduced = counts["introduced"]
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
    if current.result.issues:
        return (
            f"Nothing introduced; {counts['resolved']} resolved, "
            f"{len(current.result.issues)} still present."
        )
    return "Clean: nothing introduced, and the current check found no issues with full coverage."


def _split_by_coverage(
    issues: Iterable[Issue], other: Snapshot
) -> tuple[list[Issue], list[tuple[Issue, str]]]:
    """Issues `other` observed, and the others with the reason it did not."""
    observed: list[Issue] = []
    unobserved: list[tuple[Issue, str]] = []
    for issue in sorted(issues, key=Issue.sort_key):
        reason = _not_observed_reason(other, issue)
        if reason is None:
            observed.append(issue)
        else:
            unobserved.append((issue, reason))
    return observed, unobserved


def _pair_off(old: dict[str, Issue], new: dict[str, Issue]) -> int:
    """Remove every matched pair from both dicts (module docstring, steps 1-3)."""
    persisting = 0
    for issue_id in [i for i in old if i in new]:
        del old[issue_id]
        del new[issue_id]
        persisting += 1
    persisting += _match_by(
        old, new, lambda i: (i.file, i.rule, i.severity, ids.normalize_message(i.message))
    )
    persisting += _match_by(
        old, new, lambda i: (i.file, i.rule, i.severity, ids.message_template(i.message))
    )
    return persisting


def persisting(old: Iterable[Issue], new: Iterable[Issue]) -> frozenset[str]:
    """Ids of the `new` issues that match one of `old` as a delta matches them."""
    before = {i.issue_id: i for i in old}
    after = {i.issue_id: i for i in new}
    ids_after = set(after)
    _pair_off(before, after)
    return frozenset(ids_after - set(after))


def compare(
    baseline: Snapshot, current: Snapshot, *, summarize: bool = False, words: Words | None = None
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
    """
    old = dict(baseline.by_id)
    new = dict(current.by_id)
    persisting = _pair_off(old, new)

    # Gone from the current check: resolved only where the current check looked.
    resolved, unobserved = _split_by_coverage(old.values(), current)
    # New in the current check: introduced only where the baseline looked.
    introduced, newly = _split_by_coverage(new.values(), baseline)

    counts: DeltaCounts = {
        "introduced": len(introduced),
        "resolved": len(resolved),
        "unobserved": len(unobserved),
        "newlyObserved": len(newly),
        "persisting": persisting,
    }
    complete = not unobserved and _covers(baseline, current)
    errors_introduced = sum(1 for i in introduced if i.severity == "error")
    errors_resolved = sum(1 for i in resolved if i.severity == "error")
    return {
        "baselineCheckId": baseline.check_id,
        "currentCheckId": current.check_id,
        "introduced": [_entry(current, i) for i in introduced[:LIST_LIMIT]],
        "resolved": [_entry(baseline, i) for i in resolved[:LIST_LIMIT]],
        "unobserved": _summary(unobserved) if summarize else _entries(baseline, unobserved),
        "newlyObserved": _summary(newly) if summarize else _entries(current, newly),
        "counts": counts,
        "errorsIntroduced": errors_introduced,
        "errorsResolved": errors_resolved,
        "netDelta": errors_introduced - errors_resolved,
        "coverageComplete": complete,
        "truncated": any(
            len(listed) > LIST_LIMIT
            for listed in (introduced, resolved, *(() if summarize else (unobserved, newly)))
        ),
        "nextStep": ""
        if words is None
        else _next_step(counts, complete, baseline, current, unobserved, newly, words),
    }

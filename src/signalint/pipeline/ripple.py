"""What an edit changed in the files that depend on it: its ripple.

A check of some files runs each whole-program engine over its whole
program. With the program's previous run at hand (its stored record:
`EngineOutcome.introduced` and `gone`), the errors that changed in files
outside the check's scope are what the edit did to its dependents:

- `broken`: errors present now that the previous run did not have;
- `repaired`: errors the previous run had that are gone now;
- `moved`: the same error (file, rule, severity and message, or its
  template, as a delta pairs them: `matching.moved`) at another place, as
  (before, now) pairs: neither broken nor repaired, and not "no change".

`present` holds every issue the whole-program engines report now in the
files the ripple touched (their coverage: a delta against a baseline
compares them with what the baseline had there). Only errors ripple:
warnings elsewhere do not make an edit's verdict.

Without a previous run (a first check, `--no-cache`, a cache hit: nothing
changed since) or with a worker that answered for the check's files alone
(`EngineOutcome.scoped`), nothing is known and the ripple is empty; the
engines that could tell are in `engines`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from signalint.model import Issue
from signalint.payloads import DependentsBlock, laid_out
from signalint.pipeline.matching import moved
from signalint.pipeline.snapshot import Snapshot
from signalint.steps import Step, Words
from signalint.wording import count, them

Moved = tuple[Issue, Issue]
_BLOCK_ORDER = tuple(DependentsBlock.__annotations__)


@dataclass(frozen=True, slots=True)
class Ripple:
    """An edit's changes outside the check's scope (module docstring)."""

    broken: tuple[Issue, ...] = ()
    repaired: tuple[Issue, ...] = ()
    moved: tuple[Moved, ...] = ()
    present: tuple[Issue, ...] = ()
    engines: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.broken or self.repaired or self.moved)

    @property
    def now(self) -> tuple[Issue, ...]:
        """The errors to fix: the broken ones and the moved ones where they are now."""
        return tuple(sorted((*self.broken, *(n for _, n in self.moved)), key=Issue.sort_key))

    @property
    def files(self) -> frozenset[str]:
        """Every file the ripple touched."""
        touched = [*self.broken, *self.repaired, *(i for pair in self.moved for i in pair)]
        return frozenset(i.file for i in touched)

    @property
    def broken_files(self) -> list[str]:
        """The files holding errors to fix (`now`), most errors first, then by name."""
        return _by_count(self.now)

    @property
    def repaired_files(self) -> list[str]:
        return _by_count(self.repaired)

    def observes(self, issue: Issue) -> bool:
        """Whether the current check saw `issue`'s file with `issue`'s engine."""
        return issue.engine in self.engines and issue.file in self.files


def _by_count(issues: Iterable[Issue]) -> list[str]:
    counts: dict[str, int] = {}
    for issue in issues:
        counts[issue.file] = counts.get(issue.file, 0) + 1
    return sorted(counts, key=lambda f: (-counts[f], f))


def ripple(
    introduced: Iterable[Issue],
    gone: Iterable[Issue],
    elsewhere: Iterable[Issue],
    engines: Iterable[str],
) -> Ripple:
    """The ripple of the out-of-scope issues whole-program engines reported:
    `introduced` (new since their previous runs), `gone` (their previous
    runs' issues no longer reported) and `elsewhere` (every issue they
    report outside the scope now); `engines` are those that could tell."""
    new = sorted(
        {i.issue_id: i for i in introduced if i.severity == "error"}.values(), key=Issue.sort_key
    )
    old = sorted(
        {i.issue_id: i for i in gone if i.severity == "error"}.values(), key=Issue.sort_key
    )
    pairs = sorted(moved(old, new), key=lambda pair: pair[1].sort_key())
    paired = {i.issue_id for pair in pairs for i in pair}
    broken = tuple(i for i in new if i.issue_id not in paired)
    repaired = tuple(i for i in old if i.issue_id not in paired)
    result = Ripple(broken, repaired, tuple(pairs), engines=frozenset(engines))
    files = result.files
    if not files:
        return result
    present = tuple(
        sorted({i.issue_id: i for i in elsewhere if i.file in files}.values(), key=Issue.sort_key)
    )
    return dataclasses.replace(result, present=present)


# Files a sentence names; the rest are counted.
NAMED_FILES: Final = 3


def _named(files: list[str]) -> str:
    shown = ", ".join(files[:NAMED_FILES])
    rest = len(files) - NAMED_FILES
    return shown + (f" and {rest} more" if rest > 0 else "")


def told(ripple: Ripple, check_id: str, words: Words | None) -> str:
    """What `ripple` did, in sentences, the files holding errors to fix
    named first: the broken ones (with the step that lists them in the
    check `check_id` retaining them, given `words`), the moved ones (still
    there: not fixed), then the repaired ones. "" for an empty ripple."""
    parts: list[str] = []
    now = ripple.now
    if ripple.broken:
        files = _by_count(ripple.broken)
        parts.append(
            f"The edit broke {count(len(ripple.broken), 'error')} in "
            f"{count(len(files), 'other file')} ({_named(files)})"
        )
    if ripple.moved:
        files = _by_count(n for _, n in ripple.moved)
        lead = "It" if parts else "The edit"
        parts.append(
            f"{lead} moved {count(len(ripple.moved), 'error')} in {_named(files)} "
            "(still there, at another place: not fixed)"
        )
    text = ". ".join(parts)
    if now:
        step = words(Step("list", check_id)) if words is not None and check_id else ""
        text += f": fix {them(len(now))} first" + (
            f"; list {them(len(now))} {step}" if step else ""
        )
        text += "."
    if ripple.repaired:
        files = _by_count(ripple.repaired)
        lead = "It" if now else "The edit"
        text += (" " if text else "") + (
            f"{lead} repaired {count(len(ripple.repaired), 'error')} in "
            f"{count(len(files), 'other file')} ({_named(files)})."
        )
    return text


def block(ripple: Ripple, kept: Snapshot | None, shown: int, words: Words) -> DependentsBlock:
    """The `dependents` detail of a check answer: the errors the edit broke or
    moved in other files (`total`, `broken`, `moved`, in `fileCount`
    files, the first `shown` of them by their short ids in `kept`, the
    check retaining them all, and the step that lists them when more are
    left out) and the count of errors it `repaired`."""
    now = ripple.now
    check_id = "" if kept is None else kept.check_id
    found: DependentsBlock = {
        "total": len(now),
        "broken": len(ripple.broken),
        "moved": len(ripple.moved),
        "repaired": len(ripple.repaired),
        "fileCount": len(ripple.broken_files),
        "issues": [
            {
                "issueId": issue.issue_id if kept is None else kept.short_id(issue),
                "file": issue.file,
                "line": issue.line,
                "col": issue.col,
                "engine": issue.engine,
                "rule": issue.rule,
                "summary": issue.summary,
            }
            for issue in now[:shown]
        ],
    }
    if check_id:
        found["checkId"] = check_id
    rest = len(now) - shown
    if rest > 0 and check_id:
        found["nextStep"] = (
            f"{count(rest, 'more error')}; list {them(rest)} {words(Step('list', check_id))}."
        )
    return laid_out(found, _BLOCK_ORDER)


__all__ = ["NAMED_FILES", "Moved", "Ripple", "block", "ripple", "told"]

"""One problem, one issue (D20): merge what two engines report about the same thing.

Two issues from *different* engines are the same problem when they are in
the same file, start on the same line, and their rules are one rule (share
a key of `engines.equivalents.rule_keys`). Columns are not required to
match, because the engines anchor some rules on different nodes of the same
statement (verified on the pinned engines: for `if (f = 3)` ESLint's
`no-cond-assign` points at column 5 and Oxlint's at column 7; for a
redeclared `var y` Oxlint's `no-unused-vars` points at the first
declaration and ESLint's at the last one).

Because a line can hold several instances of one rule (`const a = 1, b = 2`
has two unused variables), candidates are paired conservatively, in order:

1. the same start column;
2. the same non-empty set of quoted names in the messages (`'y'`, `` `k` ``),
   when exactly one candidate has it;
3. the only remaining issue of its engine on that line and rule with the only
   remaining candidate, unless their messages quote different names.

Anything not paired stays its own issue: nothing is ever dropped. The
primary issue is the one from the engine earliest in
`equivalents.PRECEDENCE` (ESLint, then Biome, then Oxlint); it keeps its
own location, message, rule, docs and id, takes the most severe severity of
the engines that reported it, and lists the others in `also_reported_by`.
"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Final

from signalint.engines.equivalents import rank, rule_keys
from signalint.model import Issue

_QUOTED: Final = re.compile(r"'([^'\s]{1,80})'|\"([^\"\s]{1,80})\"|`([^`\s]{1,80})`")


def _names(message: str) -> frozenset[str]:
    return frozenset(next(g for g in m.groups() if g) for m in _QUOTED.finditer(message))


class _Primary:
    __slots__ = ("engines", "issue", "names", "severity")

    def __init__(self, issue: Issue) -> None:
        self.issue = issue
        self.engines: list[str] = []
        self.severity = issue.severity
        self.names = _names(issue.message)

    def absorb(self, other: Issue) -> None:
        self.engines.append(other.engine)
        if other.severity == "error":
            self.severity = "error"

    def result(self) -> Issue:
        if not self.engines:
            return self.issue
        return dataclasses.replace(
            self.issue,
            severity=self.severity,
            also_reported_by=tuple(sorted(set(self.engines))),
        )


Slot = tuple[str, int, str]  # file, line, rule key


def merge_reports(issues: Iterable[Issue]) -> list[Issue]:
    """`issues` (distinct ids) with cross-engine duplicates merged (module docstring).

    Returns every issue that is not merged into another, unchanged, plus the
    primaries of merged groups with `also_reported_by` set; order is not
    significant (callers sort).
    """
    by_engine: dict[str, list[Issue]] = defaultdict(list)
    for issue in issues:
        by_engine[issue.engine].append(issue)
    primaries: list[_Primary] = []
    slots: dict[Slot, list[_Primary]] = defaultdict(list)
    for engine in sorted(by_engine, key=lambda name: (rank(name), name)):
        pending: list[tuple[Issue, tuple[Slot, ...]]] = []
        for issue in sorted(by_engine[engine], key=Issue.sort_key):
            keys = rule_keys(engine, issue.rule)
            pending.append((issue, tuple((issue.file, issue.line, key) for key in keys)))
        unpaired = _pair(engine, pending, slots)
        for issue, own in unpaired:
            primary = _Primary(issue)
            primaries.append(primary)
            for slot in own:
                slots[slot].append(primary)
    return [p.result() for p in primaries]


def _candidates(
    engine: str, own: tuple[Slot, ...], slots: dict[Slot, list[_Primary]]
) -> list[_Primary]:
    found: list[_Primary] = []
    for slot in own:
        for primary in slots.get(slot, ()):
            taken = primary.issue.engine == engine or engine in primary.engines
            if not taken and primary not in found:
                found.append(primary)
    return found


def _pair(
    engine: str,
    pending: list[tuple[Issue, tuple[Slot, ...]]],
    slots: dict[Slot, list[_Primary]],
) -> list[tuple[Issue, tuple[Slot, ...]]]:
    """Attach what pairs to existing primaries; return the rest."""
    rest = [(issue, own) for issue, own in pending if own]
    unkeyed = [(issue, own) for issue, own in pending if not own]

    def attach(rule: str) -> None:
        nonlocal rest
        left: list[tuple[Issue, tuple[Slot, ...]]] = []
        for issue, own in rest:
            options = _candidates(engine, own, slots)
            chosen: _Primary | None = None
            if rule == "column":
                chosen = next((p for p in options if p.issue.col == issue.col), None)
            elif rule == "names":
                names = _names(issue.message)
                same = [p for p in options if names and p.names == names]
                chosen = same[0] if len(same) == 1 else None
            else:  # the only one left on both sides
                siblings = [o for _, o in rest if set(o) & set(own)]
                if len(options) == 1 and len(siblings) == 1:
                    names = _names(issue.message)
                    other = options[0].names
                    if not (names and other and names != other):
                        chosen = options[0]
            if chosen is None:
                left.append((issue, own))
            else:
                chosen.absorb(issue)
        rest = left

    for rule in ("column", "names", "single"):
        attach(rule)
    return unkeyed + rest

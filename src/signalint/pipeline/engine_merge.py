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
2. the same quoted names in the messages (`'y'`, `` `k` ``; one message may
   quote more, as Oxlint's "... should start with a '_'"), when exactly one
   candidate agrees;
3. the only remaining issue of its engine on that line and rule with the only
   remaining candidate, unless their messages quote different names.

Anything not paired stays its own issue: nothing is ever dropped. The
primary issue is the one from the engine earliest in
`equivalents.PRECEDENCE` (ESLint, then Biome, then Oxlint); it keeps its
own location, message, rule, docs and id, takes the most severe severity of
the engines that reported it, and lists the others in `also_reported_by`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Final

from signalint.engines.equivalents import rank, rule_keys
from signalint.model import Issue

_QUOTED: Final = re.compile(r"'([^'\s]{1,80})'|\"([^\"\s]{1,80})\"|`([^`\s]{1,80})`")


def _names(message: str) -> frozenset[str]:
    return frozenset(next(g for g in m.groups() if g) for m in _QUOTED.finditer(message))


def _agree(ours: frozenset[str], theirs: frozenset[str]) -> bool:
    """Both quote names, and one message's names include the other's."""
    return bool(ours and theirs) and (ours <= theirs or theirs <= ours)


class _Primary:
    __slots__ = ("_names", "engines", "fixable", "issue", "severity")

    def __init__(self, issue: Issue) -> None:
        self.issue = issue
        self.engines: list[str] = []
        self.severity = issue.severity
        self.fixable = issue.fixable
        self._names: frozenset[str] | None = None

    @property
    def names(self) -> frozenset[str]:
        if self._names is None:
            self._names = _names(self.issue.message)
        return self._names

    def absorb(self, other: Issue) -> None:
        self.engines.append(other.engine)
        if other.severity == "error":
            self.severity = "error"
        # One engine's safe fix fixes the problem (a suggested fix runs them all).
        self.fixable = self.fixable or other.fixable

    def result(self) -> Issue:
        if not self.engines:
            return self.issue
        return self.issue.merged(
            self.severity, tuple(sorted(set(self.engines))), fixable=self.fixable
        )


Slot = tuple[str, int, str]  # file, line, rule key
Pending = tuple[Issue, tuple[Slot, ...]]


def merge_reports(issues: Iterable[Issue]) -> list[Issue]:
    """`issues` (distinct ids) with cross-engine duplicates merged (module docstring).

    Returns every issue that is not merged into another, unchanged, plus the
    primaries of merged groups with `also_reported_by` set; order is not
    significant (callers sort).
    """
    out: list[Issue] = []
    keyed: dict[str, list[Pending]] = defaultdict(list)
    keys_of: dict[tuple[str, str], tuple[str, ...]] = {}
    for issue in issues:
        known = (issue.engine, issue.rule)
        keys = keys_of.get(known)
        if keys is None:
            keys = keys_of[known] = rule_keys(*known)
        if keys:
            keyed[issue.engine].append((issue, tuple((issue.file, issue.line, k) for k in keys)))
        else:
            out.append(issue)  # no equivalent in another engine: never merged
    if len(keyed) < 2:
        return out + [issue for pending in keyed.values() for issue, _ in pending]
    primaries: list[_Primary] = []
    slots: dict[Slot, list[_Primary]] = defaultdict(list)
    for engine in sorted(keyed, key=lambda name: (rank(name), name)):
        pending = sorted(keyed[engine], key=lambda item: item[0].sort_key())
        for issue, own in _pair(engine, pending, slots):
            primary = _Primary(issue)
            primaries.append(primary)
            for slot in own:
                slots[slot].append(primary)
    return out + [p.result() for p in primaries]


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


def _pair(engine: str, pending: list[Pending], slots: dict[Slot, list[_Primary]]) -> list[Pending]:
    """Attach what pairs to existing primaries; return the rest."""
    rest = [item for item in pending if any(slot in slots for slot in item[1])]
    alone = [item for item in pending if not any(slot in slots for slot in item[1])]

    def attach(rule: str) -> None:
        nonlocal rest
        # Which pending issues share a slot: the "single" rule needs the
        # group's size, and a scan of all pending issues per issue would be
        # quadratic on large projects.
        by_slot: dict[Slot, set[int]] = defaultdict(set)
        for index, (_, own) in enumerate(rest if rule == "single" else ()):
            for slot in own:
                by_slot[slot].add(index)
        left: list[Pending] = []
        for issue, own in rest:
            options = _candidates(engine, own, slots)
            chosen: _Primary | None = None
            if not options:
                pass
            elif rule == "column":
                chosen = next((p for p in options if p.issue.col == issue.col), None)
            elif rule == "names":
                names = _names(issue.message)
                same = [p for p in options if _agree(names, p.names)]
                chosen = same[0] if len(same) == 1 else None
            elif len(options) == 1:  # "single": the only one left on both sides
                siblings = set().union(*(by_slot[slot] for slot in own))
                names = _names(issue.message)
                other = options[0].names
                conflict = bool(names and other) and not _agree(names, other)
                if len(siblings) == 1 and not conflict:
                    chosen = options[0]
            if chosen is None:
                left.append((issue, own))
            else:
                chosen.absorb(issue)
        rest = left

    for rule in ("column", "names", "single"):
        if rest:
            attach(rule)
    return alone + rest

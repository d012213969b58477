"""Which issue of one report is which of another: matching across checks.

Matching, in order (each issue is matched at most once):
1. the same full issue id;
2. the same file, rule, severity and normalized message, pairing by nearest
   line (an issue that moved is *persisting*, not resolved + introduced);
3. the same file, rule, severity and message template (quoted names
   replaced), again by nearest line, so a renamed identifier still matches.

A delta (`delta.compare`) classifies what is left over by coverage; an
edit's ripple (`ripple.ripple`) pairs the errors it broke and repaired
elsewhere into the ones that moved; a baseline (`service/baseline.py`) keeps the
issues with no counterpart at the revision.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from signalint import ids
from signalint.model import Issue

# Above this many candidate pairs in one group, pair in line order instead
# of by global nearest distance (keeps a pathological file linear-ish).
_PAIR_BUDGET = 40_000

Pair = tuple[Issue, Issue]


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
    old: dict[str, Issue],
    new: dict[str, Issue],
    key: Callable[[Issue], Hashable],
    found: list[Pair] | None = None,
) -> int:
    """Pair leftovers sharing `key`; remove the pairs from both dicts (adding
    them to `found` when given); count them."""
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
            if found is not None:
                found.append((o, n))
    return matched


def pair_off(old: dict[str, Issue], new: dict[str, Issue], found: list[Pair] | None = None) -> int:
    """Remove every matched pair from both dicts (module docstring, steps 1-3);
    `found` collects the pairs of steps 2-3 (the issues that moved)."""
    persisting = 0
    for issue_id in [i for i in old if i in new]:
        del old[issue_id]
        del new[issue_id]
        persisting += 1
    persisting += _match_by(
        old, new, lambda i: (i.file, i.rule, i.severity, ids.normalize_message(i.message)), found
    )
    persisting += _match_by(
        old, new, lambda i: (i.file, i.rule, i.severity, ids.message_template(i.message)), found
    )
    return persisting


def moved(old: Iterable[Issue], new: Iterable[Issue]) -> list[Pair]:
    """The (old, new) pairs of issues that moved: gone from `old`, present in
    `new` under another id, matched as the module docstring matches them (steps 2-3)."""
    found: list[Pair] = []
    pair_off({i.issue_id: i for i in old}, {i.issue_id: i for i in new}, found)
    return found


def persisting(old: Iterable[Issue], new: Iterable[Issue]) -> frozenset[str]:
    """Ids of the `new` issues that match one of `old` as a delta matches them."""
    before = {i.issue_id: i for i in old}
    after = {i.issue_id: i for i in new}
    ids_after = set(after)
    pair_off(before, after)
    return frozenset(ids_after - set(after))

"""Loop and churn detection over the sequence of observed checks (D15).

`LoopTracker` is a pure function of the `check` records it is given: the
live server and a replay of `session.jsonl` call the same `apply` on the
same records, so both end in exactly the same state.

Both detectors count appearances separated by an *observed* absence. An
issue is absent only when a check looked where it was: its file inside the
check's targets and every engine that reported it `ok`. A check whose scope
or engines did not cover the file says nothing about it, whatever its kind
(project or files).

Oscillation (per signature = rule + `ids.message_template`, any file): it
*reappears* when it is found again after disappearing everywhere it was
known. It is looping while it has reappeared at least twice and is still
present; a check that shows it resolved ends the loop (a later comeback
starts it again, with the higher count).

Churn (per file + rule, any message or line): `checkCount` is the number of
separate appearances of the pair (the first one plus each comeback after an
observed absence). It churns while it has appeared three or more times and
is still present. An issue that stays in its file, untouched, through any
number of checks appears once and never churns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from signalint import ids
from signalint.model import CheckResult, Issue, Scope
from signalint.payloads import ChurnEntry, LoopEntry, LoopStatus

LOOP_THRESHOLD = 2
CHURN_THRESHOLD = 3
MAX_TRACKED = 10_000  # per kind of counter; keeps state records bounded
STATUS_LIMIT = 50
# Version 1 states counted consecutive presence for churn; they are not read.
STATE_VERSION = 2

CheckKind = Literal["project", "files"]


class Warnings(NamedTuple):
    """The warnings active for one check; None when inactive (omit, never null)."""

    loop_warning: LoopEntry | None
    churn_warning: ChurnEntry | None


@dataclass
class _Signature:
    files: dict[str, list[str]]  # file -> engines, where it is last known present
    reappearances: int = 0
    last_seq: int = 0

    @property
    def looping(self) -> bool:
        return self.reappearances >= LOOP_THRESHOLD and bool(self.files)


@dataclass
class _Pair:
    engines: list[str]  # the engines that reported it when last seen
    appearances: int = 1
    present: bool = True
    last_seq: int = 0

    @property
    def churning(self) -> bool:
        return self.present and self.appearances >= CHURN_THRESHOLD


def _covered(scope: Scope, engines: dict[str, str], file: str, found_by: Iterable[str]) -> bool:
    return scope.contains(file) and all(engines.get(e) == "ok" for e in found_by)


def _display(key: tuple[str, str]) -> str:
    return f"{key[0]}:{key[1]}"


def _loop_hint(count: int) -> str:
    return f"This issue was fixed and reappeared {count} times; consider a different approach."


def _churn_hint(file: str, rule: str, count: int) -> str:
    return (
        f"{rule} in {file} went away and came back {count - 1} times; the agent may be "
        "stuck on this file, not just on one exact issue."
    )


class _Applied(NamedTuple):
    """The last applied record's identity and the entries it touched."""

    seq: int
    found: object
    targets: tuple[str, ...]
    engines: dict[str, str]
    signatures: list[_Signature]
    pairs: list[_Pair]
    warnings: Warnings


def signatures(issues: Iterable[Issue]) -> list[tuple[str, str, str, str]]:
    """The sorted distinct (rule, message template, file, engine) of `issues`:
    what the loop tracker observes of a check."""
    return sorted({(i.rule, ids.message_template(i.message), i.file, i.engine) for i in issues})


@dataclass
class LoopTracker:
    """Oscillation and churn state, a pure function of the observed records."""

    seq: int = 0
    signatures: dict[tuple[str, str], _Signature] = field(default_factory=dict)
    pairs: dict[tuple[str, str], _Pair] = field(default_factory=dict)
    # What the last `apply` did, so applying the same record again is cheap.
    _repeat: _Applied | None = field(default=None, repr=False, compare=False)
    # One list per distinct engine list: every entry that names the same
    # engines holds the same list (a few distinct lists for tens of
    # thousands of entries; docs/architecture.md, "Memory"). Never mutated.
    _lists: dict[tuple[str, ...], list[str]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def _shared(self, engines: list[str]) -> list[str]:
        return self._lists.setdefault(tuple(engines), engines)

    def record_for(
        self,
        result: CheckResult,
        kind: CheckKind,
        targets: Sequence[str],
        found: Sequence[tuple[str, str, str, str]] | None = None,
    ) -> dict[str, Any]:
        """The `check` record for `result`: all that `apply` (and replay) reads.

        `found` is `signatures(result.issues)` when the caller already has it.
        """
        if found is None:
            found = signatures(result.issues)
        return {
            "type": "check",
            "v": 1,
            "seq": self.seq + 1,
            "checkId": result.check_id,
            "at": result.created_at,
            "kind": kind,
            "targets": list(targets),
            "engines": {name: o.status for name, o in sorted(result.outcomes.items())},
            "issues": len(result.issues),
            # Kept as given (JSON writes tuples as arrays): an unchanged
            # project's re-check passes the very same list (see `apply`).
            "found": found,
        }

    def observe(self, result: CheckResult, kind: CheckKind, targets: Sequence[str]) -> Warnings:
        return self.apply(self.record_for(result, kind, targets))

    def apply(self, record: dict[str, Any]) -> Warnings:
        """Advance the state by one `check` record; the warnings it triggers."""
        # Read the whole record before changing anything: a record that does
        # not fit raises here and leaves the state untouched (replay skips it).
        seq = int(record["seq"])
        if record["kind"] not in ("project", "files"):
            raise ValueError(f"unknown check kind {record['kind']!r}")
        scope = Scope(tuple(str(t) for t in record["targets"]))
        engines: dict[str, str] = dict(record["engines"])
        repeat = self._repeat
        if (
            repeat is not None
            and repeat.seq == self.seq
            and repeat.found is record["found"]
            and repeat.targets == scope.targets
            and repeat.engines == engines
        ):
            # The very record applied last, again, with nothing in between:
            # every entry it touched is touched the same way, and nothing
            # else changes (`_bound` has nothing left to drop), so only the
            # sequence numbers move and the warnings are the same.
            self.seq = seq
            for sig in repeat.signatures:
                sig.last_seq = seq
            for pair in repeat.pairs:
                pair.last_seq = seq
            self._repeat = repeat._replace(seq=seq)
            return repeat.warnings
        present: dict[tuple[str, str], dict[str, list[str]]] = {}
        pairs_now: dict[tuple[str, str], set[str]] = {}
        for rule, template, file, engine in record["found"]:
            present.setdefault((rule, template), {}).setdefault(file, []).append(engine)
            pairs_now.setdefault((file, rule), set()).add(engine)
        for where in present.values():
            for file, by in where.items():
                where[file] = self._shared(by)
        self.seq = seq

        for key, sig in self.signatures.items():
            kept = {f: e for f, e in sig.files.items() if not _covered(scope, engines, f, e)}
            if key in present:
                if not sig.files:
                    sig.reappearances += 1
                kept.update(present[key])
                sig.last_seq = seq
            sig.files = kept
        for key, where in present.items():
            self.signatures.setdefault(key, _Signature(files=dict(where), last_seq=seq))
        _bound(self.signatures, lambda s: bool(s.files) or s.reappearances > 0)

        for key, pair in self.pairs.items():
            if key not in pairs_now and pair.present:
                pair.present = not _covered(scope, engines, key[0], pair.engines)
        for key, found_by in pairs_now.items():
            engines_now = self._shared(sorted(found_by))
            pair = self.pairs.setdefault(key, _Pair(engines_now, 0, False))
            if not pair.present:
                pair.appearances += 1
            pair.engines, pair.present, pair.last_seq = engines_now, True, seq
        _bound(self.pairs, lambda p: p.last_seq == seq)

        loop = [k for k in present if self.signatures[k].looping]
        churn = [k for k in pairs_now if self.pairs[k].churning]
        loop.sort(key=lambda k: (-self.signatures[k].reappearances, k))
        churn.sort(key=lambda k: (-self.pairs[k].appearances, k))
        warnings = Warnings(
            self._loop_entry(loop[0], hint=True) if loop else None,
            self._churn_entry(churn[0], hint=True) if churn else None,
        )
        self._repeat = _Applied(
            seq,
            record["found"],
            scope.targets,
            engines,
            [self.signatures[k] for k in present if k in self.signatures],
            [self.pairs[k] for k in pairs_now if k in self.pairs],
            warnings,
        )
        return warnings

    def _loop_entry(self, key: tuple[str, str], *, hint: bool = False) -> LoopEntry:
        sig = self.signatures[key]
        entry: LoopEntry = {
            "signature": _display(key),
            "occurrences": sig.reappearances,
            "files": sorted(sig.files)[:5],
        }
        if hint:
            entry["hint"] = _loop_hint(sig.reappearances)
        return entry

    def _churn_entry(self, key: tuple[str, str], *, hint: bool = False) -> ChurnEntry:
        count = self.pairs[key].appearances
        entry: ChurnEntry = {"file": key[0], "rule": key[1], "checkCount": count}
        if hint:
            entry["hint"] = _churn_hint(key[0], key[1], count)
        return entry

    def status(self) -> LoopStatus:
        """The loop status answer: what is looping or churning *now*.

        Lists hold at most 50 entries; `loopingSignatureCount` and
        `fileRuleChurnCount` (the totals) appear only when a list was cut.
        """
        loops = sorted(
            (k for k, s in self.signatures.items() if s.looping),
            key=lambda k: (-self.signatures[k].reappearances, k),
        )
        churns = sorted(
            (k for k, p in self.pairs.items() if p.churning),
            key=lambda k: (-self.pairs[k].appearances, k),
        )
        status: LoopStatus = {
            "looping": bool(loops),
            "signatures": [self._loop_entry(k) for k in loops[:STATUS_LIMIT]],
            "fileChurning": bool(churns),
            "fileRuleChurns": [self._churn_entry(k) for k in churns[:STATUS_LIMIT]],
            "checksObserved": self.seq,
        }
        # The totals only add something when a list was cut.
        if len(loops) > STATUS_LIMIT:
            status["loopingSignatureCount"] = len(loops)
        if len(churns) > STATUS_LIMIT:
            status["fileRuleChurnCount"] = len(churns)
        return status

    def to_state(self) -> dict[str, Any]:
        """A `state` record: the whole tracker, JSON-ready and canonical."""
        return {
            "type": "state",
            "v": STATE_VERSION,
            "seq": self.seq,
            "signatures": [
                [k[0], k[1], s.reappearances, s.last_seq, sorted(s.files.items())]
                for k, s in sorted(self.signatures.items())
            ],
            "pairs": [
                [k[0], k[1], p.appearances, p.present, p.last_seq, p.engines]
                for k, p in sorted(self.pairs.items())
            ],
        }

    @classmethod
    def from_state(cls, record: dict[str, Any]) -> LoopTracker:
        """The tracker a `state` record describes; ValueError for another
        version (replay then rebuilds from the check records instead)."""
        if record.get("v") != STATE_VERSION:
            raise ValueError(f"state record version {record.get('v')!r}")
        tracker = cls(seq=int(record["seq"]))
        for rule, template, reappearances, last_seq, files in record["signatures"]:
            tracker.signatures[(rule, template)] = _Signature(
                {f: tracker._shared(list(e)) for f, e in files}, int(reappearances), int(last_seq)
            )
        for file, rule, appearances, present, last_seq, engines in record["pairs"]:
            tracker.pairs[(file, rule)] = _Pair(
                tracker._shared(list(engines)), int(appearances), bool(present), int(last_seq)
            )
        return tracker

    @classmethod
    def replay(cls, records: Sequence[dict[str, Any]]) -> LoopTracker:
        """The state after `records`: from the last valid `state` record, then
        every later `check` record. Records that do not fit are skipped."""
        tracker, start = cls(), 0
        for index in range(len(records) - 1, -1, -1):
            if records[index].get("type") == "state":
                try:
                    tracker, start = cls.from_state(records[index]), index + 1
                    break
                except (KeyError, TypeError, ValueError):
                    continue
        for record in records[start:]:
            try:
                if record.get("type") != "check" or int(record["seq"]) <= tracker.seq:
                    continue
                tracker.apply(record)
            except (KeyError, TypeError, ValueError):
                continue
        return tracker


def _bound(items: dict[Any, Any], keep: Any) -> None:
    """Drop the least recently seen entries beyond MAX_TRACKED that `keep`
    does not protect (deterministic, so replay drops the same ones)."""
    excess = len(items) - MAX_TRACKED
    if excess <= 0:
        return
    victims = sorted((v.last_seq, k) for k, v in items.items() if not keep(v))
    for _, key in victims[:excess]:
        del items[key]

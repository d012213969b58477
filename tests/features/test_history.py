"""Session log, loop/churn detection and exact replay (D15)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from signalint.features.history import LOG_NAME, LoopTracker, Session
from signalint.features.loops import CheckKind, signatures
from signalint.kept.session_log import SessionLog
from signalint.model import CheckResult, Issue, OutcomeStatus
from tests.factories import issue, result


def test_log_rotates_to_dot_1_before_exceeding_max_bytes(tmp_path: Path) -> None:
    log = SessionLog(tmp_path / LOG_NAME, max_bytes=100)
    rotations = [log.append({"type": "x", "n": n, "pad": "p" * 20}) for n in range(5)]
    assert rotations == [False, False, True, False, True]
    assert log.backup.name == "session.jsonl.1" and log.backup.exists()
    assert log.path.stat().st_size <= 100
    records, malformed = log.read()
    assert [r["n"] for r in records] == [2, 3, 4] and malformed == 0


def test_one_oversized_record_is_still_written(tmp_path: Path) -> None:
    log = SessionLog(tmp_path / LOG_NAME, max_bytes=10)
    log.append({"big": "x" * 50})
    assert log.read() == ([{"big": "x" * 50}], 0)


def test_malformed_and_truncated_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / LOG_NAME
    path.write_bytes(b'{"n":1}\nnot json\n[1,2]\n\xff\xfe\n\n{"n":2}\n{"n":3,"trunc')
    log = SessionLog(path)
    assert log.read() == ([{"n": 1}, {"n": 2}], 4)
    # the next record goes on its own line, not glued to the truncated one
    log.append({"n": 4})
    assert log.read() == ([{"n": 1}, {"n": 2}, {"n": 4}], 4)


def test_tail_reads_only_the_last_lines_of_the_current_file(tmp_path: Path) -> None:
    log = SessionLog(tmp_path / LOG_NAME, replay_lines=3)
    for n in range(6):
        log.append({"n": n})
    assert log.tail() == ([{"n": 3}, {"n": 4}, {"n": 5}], 0)


def check(
    issues: list[Issue], n: int, engines: dict[str, OutcomeStatus] | None = None
) -> CheckResult:
    return result(issues, check_id=f"c{n}", engines=engines)


def test_oscillation_warns_after_two_reappearances() -> None:
    tracker = LoopTracker()
    present = [issue(message="'a' is declared but never used.")]
    elsewhere = [issue(file="src/z.ts", message="'b' is declared but never used.")]
    sequence = [present, [], elsewhere, [], present]
    warnings = [tracker.observe(check(s, n), "project", ["."]) for n, s in enumerate(sequence)]
    assert [w.loop_warning is not None for w in warnings] == [False, False, False, False, True]
    warning = warnings[-1].loop_warning
    assert warning is not None
    assert warning["signature"] == "no-unused-vars:'…' is declared but never used."
    assert warning["occurrences"] == 2 and warning["files"] == ["src/a.ts"]
    assert "reappeared 2 times" in warning["hint"]
    status = tracker.status()
    assert status["looping"] is True and status["signatures"][0]["occurrences"] == 2


def test_a_resolved_signature_stops_looping_until_it_comes_back() -> None:
    tracker = LoopTracker()
    present = [issue()]
    for n, issues in enumerate([present, [], present, [], present]):
        tracker.observe(check(issues, n), "project", ["."])
    assert tracker.status()["looping"] is True
    # the fix holds in the following checks: no warning, and nothing is looping
    for n in (5, 6):
        assert tracker.observe(check([], n), "project", ["."]).loop_warning is None
        assert tracker.status()["looping"] is False
        assert tracker.status()["signatures"] == []
    # a third comeback is a loop again, with the higher count
    warning = tracker.observe(check(present, 7), "project", ["."]).loop_warning
    assert warning is not None and warning["occurrences"] == 3


def test_a_loop_ends_only_where_a_check_looked() -> None:
    tracker = LoopTracker()
    present = [issue()]
    for n, issues in enumerate([present, [], present, [], present]):
        tracker.observe(check(issues, n), "project", ["."])
    tracker.observe(check([], 5), "files", ["src/other.ts"])
    tracker.observe(check([], 6, {"oxlint": "error"}), "project", ["."])
    assert tracker.status()["looping"] is True
    tracker.observe(check([], 7), "files", ["src/a.ts"])
    assert tracker.status()["looping"] is False


def test_absence_that_the_check_did_not_observe_is_not_a_disappearance() -> None:
    tracker = LoopTracker()
    present = [issue()]
    tracker.observe(check(present, 0), "project", ["."])
    tracker.observe(check([], 1), "files", ["src/other.ts"])  # did not look at src/a.ts
    tracker.observe(check([], 2, {"oxlint": "error"}), "project", ["."])  # engine failed
    tracker.observe(check(present, 3), "project", ["."])
    tracker.observe(check([], 4, {"oxlint": "disabled"}), "project", ["."])
    assert tracker.status()["signatures"] == []
    assert tracker.to_state()["signatures"][0][2] == 0  # no reappearance counted


def test_a_signature_in_two_files_disappears_only_when_both_were_checked() -> None:
    tracker = LoopTracker()
    both = [issue(file="src/a.ts"), issue(file="src/b.ts")]
    for n, (issues, targets) in enumerate(
        [(both, ["."]), ([], ["src/a.ts"]), (both, ["."]), ([], ["."]), (both, ["."])]
    ):
        tracker.observe(check(issues, n), "files" if targets != ["."] else "project", targets)
    # the files check on a.ts alone left b.ts unobserved: only one real reappearance
    assert tracker.to_state()["signatures"][0][2] == 1


def test_an_untouched_issue_never_churns_however_often_its_file_is_checked() -> None:
    tracker = LoopTracker()
    untouched = [issue(file="src/b.ts", rule="no-console", severity="warning")]
    for n in range(8):
        kind: CheckKind = "files" if n % 3 else "project"
        targets = ["src/b.ts"] if kind == "files" else ["."]
        assert tracker.observe(check(untouched, n), kind, targets).churn_warning is None
    assert tracker.status()["fileChurning"] is False


def test_file_rule_churn_counts_comebacks_across_checks_that_covered_the_file() -> None:
    tracker = LoopTracker()
    rule_in_a = [issue(line=1)]
    moved = [issue(line=40, message="'y' changed message")]
    steps: list[tuple[list[Issue], CheckKind, list[str]]] = [
        (rule_in_a, "files", ["src/a.ts"]),  # appears (1)
        ([], "files", ["src/b.ts"]),  # did not look at a.ts: says nothing
        ([], "project", ["."]),  # gone, seen by a project check
        (moved, "files", ["src/a.ts"]),  # back, other line and message (2)
        (moved, "files", ["src/a.ts"]),  # still there: not a new appearance
        ([], "files", ["src"]),  # gone
        (rule_in_a, "files", ["src"]),  # back (3): churning
    ]
    warnings = [
        tracker.observe(check(issues, n), kind, targets).churn_warning
        for n, (issues, kind, targets) in enumerate(steps)
    ]
    assert [w is not None for w in warnings] == [False] * 6 + [True]
    assert warnings[-1] == {
        "file": "src/a.ts",
        "rule": "no-unused-vars",
        "checkCount": 3,
        "hint": "no-unused-vars in src/a.ts went away and came back 2 times; the agent may "
        "be stuck on this file, not just on one exact issue.",
    }
    # still present in the next check: still churning, still warned
    assert tracker.observe(check(rule_in_a, 7), "project", ["."]).churn_warning is not None
    assert tracker.status()["fileRuleChurns"] == [
        {"file": "src/a.ts", "rule": "no-unused-vars", "checkCount": 3}
    ]
    # resolved in a check that covered it: no longer churning
    tracker.observe(check([], 8), "files", ["src/a.ts"])
    assert tracker.status()["fileChurning"] is False


def test_an_absence_seen_by_a_failed_engine_is_not_a_comeback() -> None:
    tracker = LoopTracker()
    sequence: list[tuple[list[Issue], dict[str, OutcomeStatus]]] = [
        ([issue()], {"oxlint": "ok"}),
        ([], {"oxlint": "error"}),
        ([issue()], {"oxlint": "ok"}),
        ([], {"oxlint": "disabled"}),
        ([issue()], {"oxlint": "ok"}),
    ]
    for n, (issues, engines) in enumerate(sequence):
        warning = tracker.observe(check(issues, n, engines), "files", ["src/a.ts"]).churn_warning
        assert warning is None
    assert tracker.to_state()["pairs"][0][2] == 1  # one appearance, never gone


def test_empty_status_has_the_reference_shape() -> None:
    status = LoopTracker().status()
    assert {k: status[k] for k in ("looping", "signatures", "fileChurning", "fileRuleChurns")} == {
        "looping": False,
        "signatures": [],
        "fileChurning": False,
        "fileRuleChurns": [],
    }


def test_session_records_checks_and_a_restart_replays_the_same_state(tmp_path: Path) -> None:
    live = Session(tmp_path)
    sequence = [[issue()], [], [issue()], [], [issue()]]
    for n, issues in enumerate(sequence):
        live.record_check(check(issues, n), kind="project", targets=["."])
    records = [json.loads(line) for line in (tmp_path / LOG_NAME).read_text().splitlines()]
    assert [r["checkId"] for r in records] == [f"c{n}" for n in range(5)]
    assert records[-1]["loopWarning"].startswith("no-unused-vars:")
    restarted = Session(tmp_path)
    assert restarted.status() == live.status() and restarted.status()["looping"]


@pytest.mark.parametrize("max_bytes", [2_000, 10 * 1024 * 1024])
def test_replay_from_a_short_tail_uses_the_checkpoints(tmp_path: Path, max_bytes: int) -> None:
    live = Session(tmp_path, max_bytes=max_bytes, replay_lines=8)
    for n in range(60):
        issues = [issue(line=n % 3 + 1)] if n % 2 else []
        live.record_check(check(issues, n), kind="files", targets=["src"])
    assert live.status()["signatures"][0]["occurrences"] == 29
    assert (tmp_path / (LOG_NAME + ".1")).exists() == (max_bytes == 2_000)
    restarted = Session(tmp_path, max_bytes=max_bytes, replay_lines=8)
    assert restarted.tracker.to_state() == live.tracker.to_state()


def test_a_fixed_loop_stays_fixed_after_a_restart(tmp_path: Path) -> None:
    live = Session(tmp_path)
    for n, issues in enumerate([[issue()], [], [issue()], [], [issue()], []]):
        live.record_check(check(issues, n), kind="files", targets=["src/a.ts"])
    assert live.status()["looping"] is False
    restarted = Session(tmp_path)
    assert restarted.status() == live.status()
    assert restarted.tracker.to_state() == live.tracker.to_state()


def test_processes_sharing_a_log_hold_the_state_of_one_sequence(tmp_path: Path) -> None:
    first, second = Session(tmp_path), Session(tmp_path)
    single = LoopTracker()
    sequence = [[issue()], [], [issue()], [], [issue()]]
    for n, issues in enumerate(sequence):
        session = first if n % 2 else second
        got = session.record_check(check(issues, n), kind="files", targets=["src/a.ts"])
        assert got == single.observe(check(issues, n), "files", ["src/a.ts"])
    assert first.status() == second.status() == single.status()
    assert first.status()["looping"] is True and first.status()["checksObserved"] == 5
    records = [json.loads(line) for line in (tmp_path / LOG_NAME).read_text().splitlines()]
    assert [r["seq"] for r in records if r["type"] == "check"] == [1, 2, 3, 4, 5]
    assert Session(tmp_path).tracker.to_state() == first.tracker.to_state()


def test_a_log_rotated_by_another_process_is_replayed(tmp_path: Path) -> None:
    first = Session(tmp_path, max_bytes=700)
    second = Session(tmp_path, max_bytes=700)
    for n in range(12):
        issues = [issue(line=n % 3 + 1)] if n % 2 else []
        session = first if n % 3 else second
        session.record_check(check(issues, n), kind="files", targets=["src"])
    assert (tmp_path / (LOG_NAME + ".1")).exists()
    assert first.status() == second.status()
    assert first.tracker.to_state() == second.tracker.to_state()
    assert first.status()["checksObserved"] == 12


def test_a_disk_error_never_fails_the_check(tmp_path: Path) -> None:
    blocked = tmp_path / "state"
    blocked.write_text("a file where the state directory should be")
    session = Session(blocked)
    warnings = session.record_check(check([issue()], 0), kind="project", targets=["."])
    assert warnings.loop_warning is None and session.status()["checksObserved"] == 1


# D15: arbitrary sequences of checks replay to exactly the live state.
FILES = ("src/a.ts", "src/b.ts", "lib/c.ts")
TARGETS = ((".",), ("src",), ("src/a.ts",), ("lib/c.ts", "src/b.ts"))
ISSUES = [
    issue(file=f, rule=r, message=m, engine=e, line=ln)
    for f in FILES
    for r, m in (("r1", "'a' is bad"), ("r1", "'b' is bad"), ("r2", "other"))
    for e in ("oxlint", "tsc")
    for ln in (1, 7)
]
check_strategy = st.tuples(
    st.sampled_from(TARGETS),
    st.sampled_from(["ok", "ok", "ok", "error", "disabled"]),
    st.sampled_from(["ok", "ok", "error"]),
    st.lists(st.sampled_from(ISSUES), max_size=8, unique_by=lambda i: i.issue_id),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(check_strategy, min_size=1, max_size=25),
    st.sampled_from([(10 * 1024 * 1024, 5000), (10 * 1024 * 1024, 6), (1_500, 6)]),
)
def test_replayed_state_equals_the_live_state(
    checks: list[tuple[tuple[str, ...], str, str, list[Issue]]], bounds: tuple[int, int]
) -> None:
    max_bytes, replay_lines = bounds
    with tempfile.TemporaryDirectory() as directory:
        state = Path(directory)
        live = Session(state, max_bytes=max_bytes, replay_lines=replay_lines)
        single = LoopTracker()  # the same checks, never written anywhere
        for n, (targets, oxlint, tsc, found) in enumerate(checks):
            engines: dict[str, Any] = {"oxlint": oxlint, "tsc": tsc}
            visible = [
                i
                for i in found
                if engines[i.engine] == "ok"
                and any(t == "." or i.file.startswith(t) for t in targets)
            ]
            kind: CheckKind = "project" if targets == (".",) else "files"
            live.record_check(check(visible, n, engines), kind=kind, targets=targets)
            single.observe(check(visible, n, engines), kind, targets)
        replayed = Session(state, max_bytes=max_bytes, replay_lines=replay_lines)
        assert replayed.tracker.to_state() == single.to_state()
        assert replayed.status() == live.status()
        assert replayed.tracker.to_state() == live.tracker.to_state()


def test_payload_bytes_before_is_the_exact_size_of_all_details() -> None:
    import json

    from signalint import ids as id_helpers
    from signalint.features.history import payload_bytes
    from signalint.model import CheckResult, Issue
    from signalint.pipeline.report import issue_detail

    issues = tuple(
        Issue("tsc", f"src/ü{i % 3}.ts", i, 2, "TS2322", "error", f"Type 'é{i}' is wrong")
        for i in range(1, 40)
    )
    result = CheckResult("c1", "f1", "/root", {}, issues, 0.0)
    short = id_helpers.shorten(i.issue_id for i in issues)
    details = [issue_detail(i, short[i.issue_id]) for i in issues]
    exact = len(json.dumps(details, separators=(",", ":"), ensure_ascii=False).encode())
    for _ in range(2):  # computed, then from the per-detail memo
        assert payload_bytes(result, {"a": 1})[0] == exact


def test_a_log_from_an_older_version_is_replayed_from_its_checks(tmp_path: Path) -> None:
    old = Session(tmp_path)
    for n, issues in enumerate([[issue()], [], [issue()]]):
        old.record_check(check(issues, n), kind="files", targets=["src/a.ts"])
    # an old-format checkpoint after them: ignored, the checks replay instead
    old.log.append({"type": "state", "v": 1, "seq": 3, "signatures": [], "pairs": []})
    upgraded = Session(tmp_path)
    assert upgraded.tracker.to_state() == old.tracker.to_state()
    upgraded.record_check(check([], 3), kind="files", targets=["src/a.ts"])
    records = [json.loads(line) for line in (tmp_path / LOG_NAME).read_text().splitlines()]
    assert records[-1]["type"] == "state" and records[-1]["v"] == 2  # checkpointed at once
    assert Session(tmp_path).tracker.to_state() == upgraded.tracker.to_state()


def test_applying_the_same_record_again_changes_state_exactly_as_a_fresh_copy_would() -> None:
    present = [
        issue(message="'a' is declared but never used."),
        issue(file="src/b.ts", rule="TS2322", message="Type 'x' is not assignable."),
    ]
    elsewhere = [issue(file="src/z.ts", message="'b' is declared but never used.")]
    # Enough comebacks for both warnings, then the same check three times.
    sequence = [present, [], elsewhere, [], present]
    fast, full = LoopTracker(), LoopTracker()
    for n, issues in enumerate(sequence):
        fast.observe(check(issues, n), "project", ["."])
        full.observe(check(issues, n), "project", ["."])
    last = check(present, 9)
    found = signatures(last.issues)
    for _ in range(3):
        same = fast.apply(fast.record_for(last, "project", ["."], found))  # one list object
        copy = full.apply(
            full.record_for(last, "project", ["."], [(a, b, c, d) for a, b, c, d in found])
        )
        assert same == copy and same.loop_warning is not None
        assert fast.to_state() == full.to_state()
    # Something else in between: the next repeat takes the full path and still agrees.
    fast.observe(check(elsewhere, 10), "files", ["src/z.ts"])
    full.observe(check(elsewhere, 10), "files", ["src/z.ts"])
    assert fast.apply(fast.record_for(last, "project", ["."], found)) == full.apply(
        full.record_for(last, "project", ["."], [(a, b, c, d) for a, b, c, d in found])
    )
    assert fast.to_state() == full.to_state()


def test_a_long_found_list_is_written_once_per_list_and_reads_back_the_same(
    tmp_path: Path,
) -> None:
    log = SessionLog(tmp_path / LOG_NAME)
    found = [("rule", f"message {n}", f"src/f{n}.ts", "tsc") for n in range(100)]
    first = {"type": "check", "seq": 1, "found": found, "kind": "project"}
    second = {"type": "check", "seq": 2, "found": found, "kind": "project"}
    log.append(first)
    log.append(second)
    records, malformed = log.read()
    assert malformed == 0
    assert [r["seq"] for r in records] == [1, 2]
    assert all(r["found"] == [list(f) for f in found] for r in records)
    assert records[1]["kind"] == "project"


def test_entries_naming_the_same_engines_share_one_list_also_after_a_state_record() -> None:
    """The tracker's engine lists are shared (docs/architecture.md, "Memory"):
    a check of thousands of issues holds a few lists, not one per entry."""
    tracker = LoopTracker()
    found = [issue(file=f"src/f{n}.ts", rule=f"r{n % 3}", message=f"m{n}") for n in range(30)]
    tracker.observe(check(found, 0), "project", ["."])
    tracker.observe(check(found[:10], 1), "project", ["."])
    tracker.observe(check(found, 2), "project", ["."])

    def distinct(t: LoopTracker) -> int:
        lists = [p.engines for p in t.pairs.values()]
        lists += [e for s in t.signatures.values() for e in s.files.values()]
        assert len(lists) >= 60
        return len({id(x) for x in lists})

    assert distinct(tracker) == 1
    again = LoopTracker.from_state(json.loads(json.dumps(tracker.to_state())))
    assert again == tracker and again.to_state() == tracker.to_state()
    assert distinct(again) == 1

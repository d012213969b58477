"""Coverage-aware deltas (D7): matching, classification, counts, advice."""

from __future__ import annotations

import pytest

from signalint.features.delta import LIST_LIMIT, SUMMARY_FILES, compare
from signalint.model import OutcomeStatus
from signalint.payloads import UnobservedEntry, UnobservedSummary
from signalint.server.words import tool_words
from tests.factories import issue, snapshot


def listed(entries: UnobservedSummary | list[UnobservedEntry]) -> list[UnobservedEntry]:
    """The unobserved (or newly observed) issues of a delta made without `summarize`."""
    assert isinstance(entries, list)
    return entries


def summarized(entries: UnobservedSummary | list[UnobservedEntry]) -> UnobservedSummary:
    """The summary a delta made with `summarize` gives instead of a list."""
    assert isinstance(entries, dict)
    return entries


def test_identical_checks_persist_everything_and_can_say_clean_only_when_empty() -> None:
    issues = [issue(line=1), issue(file="src/b.ts")]
    result = compare(
        snapshot(issues, check_id="b"), snapshot(issues, check_id="c"), words=tool_words
    )
    assert result["baselineCheckId"] == "b" and result["currentCheckId"] == "c"
    assert result["counts"]["persisting"] == 2
    assert result["introduced"] == result["resolved"] == result["unobserved"] == []
    assert result["coverageComplete"] is True
    assert "Clean" not in result["nextStep"] and "still present" in result["nextStep"]


def test_exact_id_match_wins_over_a_nearer_semantic_match() -> None:
    same = issue(line=10, col=3)
    decoy = issue(line=10, col=9)
    result = compare(snapshot([same]), snapshot([decoy, same]), words=tool_words)
    assert result["counts"]["persisting"] == 1
    assert [entry["col"] for entry in result["introduced"]] == [9]


def test_a_moved_issue_is_persisting_not_resolved_and_introduced() -> None:
    result = compare(snapshot([issue(line=10)]), snapshot([issue(line=14)]), words=tool_words)
    assert result["counts"]["persisting"] == 1
    assert result["introduced"] == [] and result["resolved"] == []
    assert result["netDelta"] == 0


def test_semantic_matching_pairs_each_baseline_issue_with_the_nearest_line() -> None:
    baseline = snapshot([issue(line=10), issue(line=50)])
    result = compare(baseline, snapshot([issue(line=52)]), words=tool_words)
    assert result["counts"]["persisting"] == 1
    assert [e["line"] for e in result["resolved"]] == [10]
    flipped = compare(snapshot([issue(line=52)]), baseline, words=tool_words)
    assert [e["line"] for e in flipped["introduced"]] == [10]


def test_a_severity_change_of_the_same_diagnostic_is_persisting() -> None:
    # issue ids do not cover severity: a reconfigured rule is the same diagnostic
    result = compare(
        snapshot([issue(line=4)]), snapshot([issue(line=4, severity="warning")]), words=tool_words
    )
    assert result["counts"]["persisting"] == 1


def test_renamed_identifier_matches_by_message_template() -> None:
    old = issue(line=3, message="'count' is declared but never used.")
    new = issue(line=3, message="'total' is declared but never used.")
    assert compare(snapshot([old]), snapshot([new]), words=tool_words)["counts"]["persisting"] == 1


def test_different_severity_or_rule_does_not_match() -> None:
    baseline = snapshot([issue(line=1), issue(line=5, rule="eqeqeq", message="Use ===")])
    current = snapshot([issue(line=2, severity="warning"), issue(line=5, message="Use ===")])
    result = compare(baseline, current, words=tool_words)
    assert result["counts"]["persisting"] == 0
    assert result["counts"]["introduced"] == 2 and result["counts"]["resolved"] == 2


def test_baseline_issue_outside_the_new_scope_is_unobserved_not_resolved() -> None:
    baseline = snapshot([issue(file="src/a.ts"), issue(file="src/b.ts", line=7)], check_id="b")
    current = snapshot([], check_id="c", targets=("src/a.ts",))
    result = compare(baseline, current, words=tool_words)
    assert [e["file"] for e in result["resolved"]] == ["src/a.ts"]
    assert [(e["file"], e["reason"]) for e in listed(result["unobserved"])] == [
        ("src/b.ts", "outside_scope")
    ]
    assert result["errorsResolved"] == 1
    assert result["coverageComplete"] is False
    assert "clean" not in result["nextStep"].lower()


def test_engine_error_in_the_current_check_means_unobserved() -> None:
    baseline = snapshot([issue(engine="eslint", rule="eqeqeq")], engines={"eslint": "ok"})
    cases: list[tuple[OutcomeStatus, str]] = [
        ("error", "engine_error"),
        ("disabled", "engine_disabled"),
    ]
    for status, reason in cases:
        current = snapshot([], engines={"eslint": status})
        result = compare(baseline, current, words=tool_words)
        assert result["resolved"] == [] and result["errorsResolved"] == 0
        assert listed(result["unobserved"])[0]["reason"] == reason
        assert result["coverageComplete"] is False
        assert "clean" not in result["nextStep"].lower()
    absent = compare(baseline, snapshot([], engines={"oxlint": "ok"}), words=tool_words)
    assert listed(absent["unobserved"])[0]["reason"] == "engine_not_run"


def test_empty_current_with_a_failed_engine_never_says_clean() -> None:
    baseline = snapshot([], engines={"oxlint": "ok", "tsc": "ok"})
    current = snapshot([], engines={"oxlint": "ok", "tsc": "error"})
    result = compare(baseline, current, words=tool_words)
    assert result["coverageComplete"] is False
    assert "clean" not in result["nextStep"].lower()


def test_a_narrower_current_scope_is_incomplete_even_without_baseline_issues() -> None:
    result = compare(snapshot([]), snapshot([], targets=("src",)), words=tool_words)
    assert result["coverageComplete"] is False
    wider = compare(snapshot([], targets=("src/a.ts",)), snapshot([]), words=tool_words)
    assert wider["coverageComplete"] is True and wider["nextStep"].startswith("Clean")


def test_issue_where_the_baseline_did_not_look_is_newly_observed_not_introduced() -> None:
    baseline = snapshot([], targets=("src/a.ts",))
    current = snapshot([issue(file="src/b.ts"), issue(file="src/a.ts")])
    result = compare(baseline, current, words=tool_words)
    assert [e["file"] for e in result["introduced"]] == ["src/a.ts"]
    assert [(e["file"], e["reason"]) for e in listed(result["newlyObserved"])] == [
        ("src/b.ts", "outside_scope")
    ]
    assert result["errorsIntroduced"] == 1


def test_counts_cover_every_kind_and_net_delta_only_errors() -> None:
    baseline = snapshot(
        [
            issue(line=1),
            issue(line=2, rule="a", message="A"),
            issue(line=3, rule="w", severity="warning", message="W"),
        ]
    )
    current = snapshot(
        [
            issue(line=1),
            issue(line=9, rule="b", message="B", severity="warning"),
            issue(line=11, rule="c", message="C", severity="warning"),
        ]
    )
    result = compare(baseline, current, words=tool_words)
    assert result["counts"] == {
        "introduced": 2,
        "resolved": 2,
        "unobserved": 0,
        "newlyObserved": 0,
        "persisting": 1,
    }
    assert result["errorsIntroduced"] == 0 and result["errorsResolved"] == 1
    assert result["netDelta"] == -1
    assert "Clean" not in result["nextStep"]


def test_introduced_issues_lead_the_advice_and_lists_are_bounded() -> None:
    current = snapshot([issue(line=n, rule=f"r{n}", message=f"m{n}") for n in range(1, 61)])
    result = compare(snapshot([]), current, words=tool_words)
    assert result["counts"]["introduced"] == 60 and len(result["introduced"]) == LIST_LIMIT
    assert result["truncated"] is True and result["errorsIntroduced"] == 60
    assert result["nextStep"].startswith("60 issues were introduced")
    entry = result["introduced"][0]
    assert set(entry) == {"issueId", "file", "line", "col", "engine", "rule", "severity", "summary"}


def test_summarized_delta_counts_unobserved_issues_per_file_engine_and_reason() -> None:
    # A project baseline with issues in 30 other files, then a check of one file.
    others = [
        issue(file=f"src/f{n:02}.ts", line=k + 1, rule=f"r{k}", message=f"m{k}", engine=engine)
        for n in range(30)
        for k, engine in enumerate(("tsc", "eslint", "eslint") if n < 3 else ("eslint",))
    ]
    edited = issue(file="src/a.ts", rule="no-console", message="Console.", engine="eslint")
    baseline = snapshot([*others, edited], check_id="base", engines={"tsc": "ok", "eslint": "ok"})
    current = snapshot(
        [], check_id="cur", targets=("src/a.ts",), engines={"tsc": "ok", "eslint": "ok"}
    )
    result = compare(baseline, current, summarize=True, words=tool_words)
    assert [e["file"] for e in result["resolved"]] == ["src/a.ts"]
    assert result["counts"]["unobserved"] == len(others) == 36
    summary = summarized(result["unobserved"])
    assert list(summary["byFile"].items())[:4] == [
        ("src/f00.ts", 3), ("src/f01.ts", 3), ("src/f02.ts", 3), ("src/f03.ts", 1)
    ]  # fmt: skip
    assert len(summary["byFile"]) == SUMMARY_FILES and summary["moreFiles"] == 10
    assert summary["byEngine"] == {"eslint": 33, "tsc": 3}
    assert summary["byReason"] == {"outside_scope": 36}
    assert result["newlyObserved"] == {"byFile": {}, "byEngine": {}, "byReason": {}}
    assert 'list_issues (checkId "base", filter e.g. file "src/f00.ts")' in result["nextStep"]
    assert result["truncated"] is False


def test_summarized_delta_suggests_an_engine_filter_when_an_engine_failed() -> None:
    baseline = snapshot(
        [issue(engine="tsc", rule="TS2322")], check_id="base", engines={"tsc": "ok"}
    )
    current = snapshot([], engines={"tsc": "error"})
    result = compare(baseline, current, summarize=True, words=tool_words)
    assert summarized(result["unobserved"])["byReason"] == {"engine_error": 1}
    assert 'filter e.g. engine "tsc"' in result["nextStep"]


@pytest.mark.parametrize("n", [1, 2])
def test_the_advice_agrees_with_its_counts(n: int) -> None:
    # n issues introduced in the checked file, n baseline issues elsewhere.
    engines: dict[str, OutcomeStatus] = {"tsc": "ok"}
    elsewhere = [issue(file="src/b.ts", line=k + 1, rule=f"b{k}", engine="tsc") for k in range(n)]
    baseline = snapshot(elsewhere, check_id="base", engines=engines)
    introduced = [issue(file="src/a.ts", line=k + 1, rule=f"a{k}", engine="tsc") for k in range(n)]
    current = snapshot(introduced, check_id="cur", targets=("src/a.ts",), engines=engines)
    step = compare(baseline, current, summarize=True, words=tool_words)["nextStep"]
    if n == 1:
        assert step.startswith("1 issue was introduced since the baseline: fix it first")
        assert "1 baseline issue was not observed" in step and "list it with list_issues" in step
    else:
        assert step.startswith("2 issues were introduced since the baseline: fix them first")
        assert "2 baseline issues were not observed" in step and "list them with" in step
    newly = compare(current, baseline, summarize=True, words=tool_words)[
        "nextStep"
    ]  # the other way round
    pronoun = "it" if n == 1 else "they"
    assert f"where the baseline did not look; {pronoun} may predate the edit" in newly

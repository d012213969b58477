"""Clustering: the priority ladder, systemic boundary, caps and orderings."""

from __future__ import annotations

import random
from typing import Any

import pytest

from signalint import ids
from signalint.model import Issue
from signalint.pipeline.cluster import cluster, issue_priority


def make(rule: str = "r", file: str = "a.ts", line: int = 1, **fields: Any) -> Issue:
    values: dict[str, Any] = {
        "engine": "oxlint",
        "file": file,
        "line": line,
        "col": 1,
        "rule": rule,
        "severity": "error",
        "message": f"{rule} at {file}:{line}",
    }
    values.update(fields)
    return Issue(**values)


def spread(rule: str, count: int, files: int, **fields: Any) -> list[Issue]:
    """`count` issues of `rule` spread round-robin over `files` files."""
    return [make(rule, file=f"f{i % files}.ts", line=i + 1, **fields) for i in range(count)]


def only_cluster(issues: list[Issue]) -> Any:
    result = cluster(issues)
    assert len(result.clusters) == 1
    return result.clusters[0]


# -- the ladder ------------------------------------------------------------


def test_systemic_error_group_is_priority_1_even_when_all_fixable() -> None:
    assert only_cluster(spread("e", 4, 3)).priority == 1
    assert only_cluster(spread("e", 4, 3, fixable=True)).priority == 1


def test_local_error_group_not_all_fixable_is_priority_2() -> None:
    issues = [make("e", line=1, fixable=True), make("e", line=2)]
    assert only_cluster(issues).priority == 2


def test_local_all_fixable_error_group_is_priority_3() -> None:
    assert only_cluster(spread("e", 2, 1, fixable=True)).priority == 3


def test_local_warning_group_not_all_fixable_is_priority_4() -> None:
    assert only_cluster(spread("w", 3, 2, severity="warning")).priority == 4


def test_systemic_warning_group_is_priority_5() -> None:
    found = only_cluster(spread("w", 4, 3, severity="warning"))
    assert found.systemic and found.priority == 5


def test_all_fixable_local_warning_group_is_priority_5() -> None:
    found = only_cluster(spread("w", 2, 2, severity="warning", fixable=True))
    assert not found.systemic and found.priority == 5


def test_one_error_makes_an_error_group_across_engines_and_severities() -> None:
    issues = [
        make("shared", file="a.ts", severity="warning"),
        make("shared", file="b.ts", engine="biome", severity="error"),
    ]
    found = only_cluster(issues)
    assert found.severity == "error" and found.priority == 2
    assert found.rule_ids == ("shared",)


@pytest.mark.parametrize(
    ("severity", "fixable", "expected"),
    [("error", False, 2), ("error", True, 3), ("warning", False, 4), ("warning", True, 5)],
)
def test_individual_priority(severity: str, fixable: bool, expected: int) -> None:
    assert issue_priority(make(severity=severity, fixable=fixable)) == expected


# -- systemic boundary -----------------------------------------------------


@pytest.mark.parametrize(
    ("count", "files", "systemic"),
    [(3, 3, False), (4, 2, False), (4, 3, True), (5, 5, True)],
)
def test_systemic_needs_more_than_3_issues_across_more_than_2_files(
    count: int, files: int, systemic: bool
) -> None:
    found = only_cluster(spread("e", count, files))
    assert found.systemic is systemic
    assert found.file_count == files and found.issue_count == count
    assert found.priority == (1 if systemic else 2)


# -- summaries, samples, actions ------------------------------------------


def test_root_cause_summary_counts_issues_and_files() -> None:
    assert only_cluster(spread("TS2322", 21, 11)).summary == "21 TS2322 issues across 11 files"
    assert only_cluster(spread("no-var", 2, 1)).summary == "2 no-var issues across 1 file"


def test_two_issue_cluster_has_no_samples() -> None:
    assert only_cluster(spread("e", 2, 2)).sample_ids == ()


def test_larger_cluster_has_two_distinct_short_samples_from_its_first_issues() -> None:
    issues = spread("e", 5, 3)
    result = cluster(issues)
    ordered = sorted(issues, key=Issue.sort_key)
    expected = tuple(result.short_ids[i.issue_id] for i in ordered[:2])
    assert result.clusters[0].sample_ids == expected
    assert len(set(expected)) == 2 and all(len(s) == 12 for s in expected)


def test_suggested_action_only_when_every_issue_is_fixable() -> None:
    assert only_cluster(spread("e", 3, 1)).suggested_action is None
    mixed = [make("e", line=1, fixable=True), make("e", line=2)]
    assert only_cluster(mixed).suggested_action is None
    action = only_cluster(spread("e", 3, 1, fixable=True)).suggested_action
    assert action is not None and "oxlint --fix" in action


def test_suggested_action_without_a_known_fix_command_stays_generic() -> None:
    action = only_cluster(spread("x", 2, 1, engine="external-lsp", fixable=True)).suggested_action
    assert action is not None and "--fix" not in action


def test_cluster_ids_come_from_rule_severity_and_scope() -> None:
    found = only_cluster(spread("e", 4, 3))
    assert found.cluster_id == ids.cluster_id("e", "error", True)
    result = cluster(spread("e", 4, 3))
    assert set(result.cluster_of.values()) == {found.cluster_id}
    assert len(result.cluster_of) == 4


# -- ranking and caps -----------------------------------------------------


def test_clusters_sort_by_priority_then_count_then_rule_then_first_issue() -> None:
    issues = (
        spread("warn", 2, 1, severity="warning")  # priority 4
        + spread("b-small", 2, 1)  # priority 2, 2 issues
        + spread("a-small", 2, 1)  # priority 2, same count: rule name decides
        + spread("big", 3, 1)  # priority 2, 3 issues first
        + spread("sys", 4, 4)  # priority 1
    )
    order = [c.rule for c in cluster(issues).clusters]
    assert order == ["sys", "big", "a-small", "b-small", "warn"]


def test_more_than_ten_groups_demote_the_overflow_to_flat_records() -> None:
    issues: list[Issue] = []
    for index in range(12):
        issues += [make(f"rule{index:02d}", file=f"g{index}.ts", line=n) for n in (1, 2)]
    issues.append(make("single", file="z.ts", severity="warning"))
    result = cluster(issues)
    assert [c.rule for c in result.clusters] == [f"rule{i:02d}" for i in range(10)]
    demoted = {r.issue.rule for r in result.flat if r.issue.rule != "single"}
    assert demoted == {"rule10", "rule11"}
    assert len(result.flat) == 5 and result.omitted == 0 and not result.truncated
    assert all(r.priority == 2 for r in result.flat if r.issue.rule != "single")
    assert all(r.issue.issue_id not in result.cluster_of for r in result.flat)
    assert result.total == 25


def test_demoted_systemic_group_records_keep_individual_priorities() -> None:
    issues = [make(f"p{i:02d}", file=f"f{i}.ts", line=n) for i in range(10) for n in (1, 2)]
    issues += spread("late", 4, 4, severity="warning")  # systemic warning: priority 5
    result = cluster(issues, max_clusters=10)
    assert "late" not in {c.rule for c in result.clusters}
    assert {r.priority for r in result.flat} == {4}


def test_flat_list_is_capped_at_100_with_an_omitted_count() -> None:
    issues = [make(f"single{i:03d}", file=f"f{i:03d}.ts") for i in range(150)]
    result = cluster(issues)
    assert result.clusters == ()
    assert len(result.flat) == 100 and result.omitted == 50 and result.truncated
    assert [r.issue.file for r in result.flat] == [f"f{i:03d}.ts" for i in range(100)]
    assert len(result.short_ids) == 150


def test_exactly_100_flat_records_are_not_truncated() -> None:
    result = cluster([make(f"s{i}", file=f"f{i}.ts") for i in range(100)])
    assert len(result.flat) == 100 and result.omitted == 0 and not result.truncated


def test_flat_records_sort_by_priority_file_line_col_then_id() -> None:
    issues = [
        make("w1", file="a.ts", severity="warning"),
        make("e1", file="b.ts", line=5, col=3),
        make("e2", file="b.ts", line=5, col=2),
        make("e3", file="b.ts", line=2, col=9),
        make("e4", file="a.ts", line=9),
        make("fx", file="a.ts", fixable=True),
        make("same1", file="c.ts", line=1, col=1, message="one"),
        make("same2", file="c.ts", line=1, col=1, message="two"),
    ]
    records = cluster(issues).flat
    keys = [(r.priority, r.issue.file, r.issue.line, r.issue.col) for r in records]
    assert keys == sorted(keys)
    assert [r.issue.rule for r in records][:4] == ["e4", "e3", "e2", "e1"]
    tied = [r.issue.issue_id for r in records if r.issue.file == "c.ts"]
    assert tied == sorted(tied)


def test_result_does_not_depend_on_input_order() -> None:
    issues = spread("a", 5, 3) + spread("b", 2, 1) + [make("c"), make("d", severity="warning")]
    shuffled = list(issues)
    random.Random(7).shuffle(shuffled)
    assert cluster(issues) == cluster(shuffled)


def test_duplicate_issue_ids_count_once() -> None:
    twin = make("e", file="a.ts")
    result = cluster([twin, make("e", file="a.ts")])
    assert result.total == 1 and result.clusters == () and len(result.flat) == 1


# -- short ids -------------------------------------------------------------


def test_shorten_extends_prefixes_only_for_colliding_ids() -> None:
    shared = "a" * 12
    first, second, other = shared + "0" * 52, shared + "1" * 52, "b" * 64
    short = ids.shorten([first, second, other])
    assert short[first] == shared + "0" and short[second] == shared + "1"
    assert short[other] == "b" * 12


def test_short_ids_are_extended_over_all_issues_of_the_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Real ids are sha256; force a shared 14-character prefix so that the
    # collision happens between a cluster sample and a flat record.
    crafted = {
        "one": "c0ffee0c0ffee0" + "1" * 50,
        "two": "c0ffee0c0ffee0" + "2" * 50,
        "three": "d" * 64,
        "solo": "e" * 64,
    }
    monkeypatch.setattr(ids, "issue_id", lambda *parts: crafted[str(parts[-1])])
    issues = [
        make("grp", file="a.ts", line=1, message="one"),
        make("grp", file="b.ts", line=1, message="three"),
        make("grp", file="c.ts", line=1, message="solo"),
        make("single", file="z.ts", message="two"),
    ]
    result = cluster(issues)
    assert result.short_ids[crafted["one"]] == "c0ffee0c0ffee01"
    assert result.clusters[0].sample_ids == ("c0ffee0c0ffee01", "d" * 12)
    assert [r.short_id for r in result.flat] == ["c0ffee0c0ffee02"]

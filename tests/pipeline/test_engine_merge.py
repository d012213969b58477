"""Cross-engine merging (D20): one problem at one place is one issue."""

from __future__ import annotations

from typing import Any

from signalint.engines.equivalents import rule_keys
from signalint.model import Issue
from signalint.pipeline.engine_merge import merge_reports

# Oxlint's no-unused-vars message as the pinned engine prints it: it quotes
# '_' besides the variable.
OXLINT_UNUSED = (
    "Variable '{}' is declared but never used. Unused variables should start with a '_'."
)


def diag(engine: str, rule: str, line: int = 1, col: int = 7, **fields: Any) -> Issue:
    values: dict[str, Any] = {
        "engine": engine,
        "file": "src/a.ts",
        "line": line,
        "col": col,
        "rule": rule,
        "severity": "warning",
        "message": f"{rule} at {line}:{col}",
    }
    values.update(fields)
    return Issue(**values)


def merged(*issues: Issue) -> list[tuple[str, str, int, int, tuple[str, ...]]]:
    out = merge_reports(issues)
    return sorted((i.engine, i.rule, i.line, i.col, i.also_reported_by) for i in out)


def test_oxlint_and_eslint_on_one_unused_variable_are_one_issue_led_by_eslint() -> None:
    found = merged(
        diag(
            "oxlint", "eslint(no-unused-vars)", message="Variable 'x' is declared but never used."
        ),
        diag("eslint", "no-unused-vars", message="'x' is assigned a value but never used."),
    )
    assert found == [("eslint", "no-unused-vars", 1, 7, ("oxlint",))]


def test_typescript_eslint_extension_rules_are_the_core_rule() -> None:
    found = merged(
        diag("oxlint", "eslint(no-unused-vars)"),
        diag("eslint", "@typescript-eslint/no-unused-vars"),
    )
    assert found == [("eslint", "@typescript-eslint/no-unused-vars", 1, 7, ("oxlint",))]


def test_plugin_rules_merge_by_plugin_and_name() -> None:
    assert rule_keys("oxlint", "react(jsx-key)") == rule_keys("eslint", "react/jsx-key")
    assert rule_keys("oxlint", "import(no-cycle)") == rule_keys("eslint", "import-x/no-cycle")
    assert rule_keys("oxlint", "typescript(no-explicit-any)") == rule_keys(
        "eslint", "@typescript-eslint/no-explicit-any"
    )
    # Different plugins with one rule name are different rules.
    assert rule_keys("oxlint", "jest(no-disabled-tests)") != rule_keys(
        "eslint", "vitest/no-disabled-tests"
    )


def test_biome_rules_merge_only_when_their_source_is_the_same_eslint_rule() -> None:
    found = merged(
        diag("biome", "lint/suspicious/noDebugger", line=3, col=3),
        diag("eslint", "no-debugger", line=3, col=3),
        diag("oxlint", "eslint(no-debugger)", line=3, col=3),
    )
    assert found == [("eslint", "no-debugger", 3, 3, ("biome", "oxlint"))]
    # noAssignInExpressions is only inspired by no-cond-assign: two issues.
    assert (
        len(
            merged(
                diag("biome", "lint/suspicious/noAssignInExpressions", col=5),
                diag("eslint", "no-cond-assign", col=5),
            )
        )
        == 2
    )


def test_two_instances_on_one_line_stay_two_issues_paired_by_column() -> None:
    found = merged(
        diag("oxlint", "eslint(no-unused-vars)", col=7, message="Variable 'a' is unused"),
        diag("oxlint", "eslint(no-unused-vars)", col=14, message="Variable 'b' is unused"),
        diag("eslint", "no-unused-vars", col=14, message="'b' is assigned a value"),
        diag("eslint", "no-unused-vars", col=7, message="'a' is assigned a value"),
    )
    assert found == [
        ("eslint", "no-unused-vars", 1, 7, ("oxlint",)),
        ("eslint", "no-unused-vars", 1, 14, ("oxlint",)),
    ]


def test_different_columns_pair_by_the_quoted_name() -> None:
    # `var y = 1; var y = 2;`: Oxlint points at the first y, ESLint at the
    # second. Messages as the pinned engines print them.
    ox = OXLINT_UNUSED
    es = "'{}' is assigned a value but never used."
    found = merged(
        diag("oxlint", "eslint(no-unused-vars)", line=9, col=5, message=ox.format("y")),
        diag("oxlint", "eslint(no-unused-vars)", line=9, col=30, message=ox.format("z")),
        diag("eslint", "no-unused-vars", line=9, col=16, message=es.format("y")),
        diag("eslint", "no-unused-vars", line=9, col=40, message=es.format("z")),
    )
    assert [(line, col, also) for _, _, line, col, also in found] == [
        (9, 16, ("oxlint",)),
        (9, 40, ("oxlint",)),
    ]


def test_the_only_reports_pair_across_columns_when_their_names_agree() -> None:
    found = merged(
        diag(
            "oxlint",
            "eslint(no-unused-vars)",
            col=5,
            message=OXLINT_UNUSED.format("y"),
        ),
        diag("eslint", "no-unused-vars", col=16, message="'y' is assigned a value but never used."),
    )
    assert found == [("eslint", "no-unused-vars", 1, 16, ("oxlint",))]


def test_the_only_report_of_each_engine_pairs_across_columns() -> None:
    # ESLint anchors `if (f = 3)` at the assignment (col 5), Oxlint at its value (col 7).
    found = merged(
        diag("oxlint", "eslint(no-cond-assign)", line=10, col=7),
        diag("eslint", "no-cond-assign", line=10, col=5),
    )
    assert found == [("eslint", "no-cond-assign", 10, 5, ("oxlint",))]


def test_ambiguous_reports_are_never_merged() -> None:
    # Two ESLint reports and one Oxlint report on one line, at other columns
    # and without names: which problem Oxlint saw is unknown, so all stay.
    found = merged(
        diag("eslint", "no-cond-assign", col=5),
        diag("eslint", "no-cond-assign", col=20),
        diag("oxlint", "eslint(no-cond-assign)", col=12),
    )
    assert [also for *_, also in found] == [(), (), ()]
    # The only report on each side, but naming different things: two problems.
    found = merged(
        diag("eslint", "no-unused-vars", col=5, message="'a' is never used."),
        diag(
            "oxlint",
            "eslint(no-unused-vars)",
            col=20,
            message=OXLINT_UNUSED.format("b"),
        ),
    )
    assert len(found) == 2


def test_different_rules_lines_files_or_one_engine_are_never_merged() -> None:
    base = diag("eslint", "no-unused-vars")
    others = [
        diag("oxlint", "eslint(no-undef)"),
        diag("oxlint", "eslint(no-unused-vars)", line=2),
        diag("oxlint", "eslint(no-unused-vars)", file="src/b.ts"),
        diag("eslint", "@typescript-eslint/no-unused-vars"),
        diag("oxlint", "oxc(no-unused-vars)"),
        diag("tsc", "TS6133"),
    ]
    for other in others:
        assert len(merged(base, other)) == 2, other


def test_the_merged_issue_has_the_most_severe_severity() -> None:
    out = merge_reports(
        [
            diag("eslint", "no-debugger", severity="warning"),
            diag("oxlint", "eslint(no-debugger)", severity="error"),
        ]
    )
    assert [(i.engine, i.severity) for i in out] == [("eslint", "error")]
    # The id stays the primary's own: it does not cover also_reported_by.
    assert out[0].issue_id == diag("eslint", "no-debugger").issue_id

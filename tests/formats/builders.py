"""Hand-built issues and check results for the format writer tests."""

from __future__ import annotations

from typing import Any

from signalint.model import CheckResult, EngineOutcome, Issue


def issue(**fields: Any) -> Issue:
    """An Issue with defaults for every field the test does not care about."""
    values: dict[str, Any] = {
        "engine": "oxlint",
        "file": "src/a.ts",
        "line": 1,
        "col": 1,
        "rule": "no-unused-vars",
        "severity": "warning",
        "message": "'x' is declared but never used.",
    }
    values.update(fields)
    return Issue(**values)


def result(
    issues: list[Issue],
    outcomes: dict[str, EngineOutcome] | None = None,
    root: str = "/work/project",
) -> CheckResult:
    """A CheckResult; by default every engine seen in `issues` ran fine."""
    if outcomes is None:
        outcomes = {i.engine: EngineOutcome(i.engine, "ok", files_checked=1) for i in issues}
        outcomes.setdefault("oxlint", EngineOutcome("oxlint", "ok", files_checked=1))
    return CheckResult(
        check_id="0123456789abcdef",
        fingerprint="fedcba9876543210",
        project_root=root,
        outcomes=outcomes,
        issues=tuple(sorted(issues, key=Issue.sort_key)),
        created_at=0.0,
    )


def mixed_issues() -> list[Issue]:
    """A cluster, singles, end positions, awkward paths and multi-line messages."""
    return [
        issue(file="src/a.ts", line=3, col=5, rule="no-debugger", severity="error"),
        issue(file="src/b.ts", line=7, col=2, rule="no-debugger", severity="error"),
        issue(file="src/c.ts", line=9, col=1, rule="no-debugger", severity="error", fixable=True),
        issue(
            engine="tsc",
            file="src/with space, comma:colon.ts",
            line=12,
            col=14,
            end_line=12,
            end_col=20,
            rule="TS2322",
            severity="error",
            message="Type 'string' is not assignable to type 'number'.\n  Details: 100% wrong",
        ),
        issue(
            engine="biome",
            file="lib/ünïcode.js",
            line=2,
            col=8,
            end_line=4,
            end_col=1,
            rule="lint/style/useConst",
            fixable=True,
            docs_url="https://biomejs.dev/linter/rules/use-const",
            message="This let declares a variable that is only assigned once.",
        ),
    ]

"""GitHub workflow commands: one per issue, escaped per GitHub's rules."""

from __future__ import annotations

from signalint.formats import github
from signalint.model import EngineOutcome
from signalint.pipeline.cluster import cluster

from .builders import issue, mixed_issues, result


def test_escaping_follows_github_rules() -> None:
    assert github.escape_data("100%\r\nnext: a, b") == "100%25%0D%0Anext: a, b"
    assert github.escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"


def test_issue_command_has_position_title_and_escaped_message() -> None:
    found = issue(
        file="src/x, y:z.ts",
        line=4,
        col=2,
        end_line=6,
        end_col=9,
        rule="lint/a:b",
        severity="error",
        message="bad\nworse 50%",
    )
    assert github.issue_command(found) == (
        "::error file=src/x%2C y%3Az.ts,line=4,col=2,endLine=6,endColumn=9,"
        "title=lint/a%3Ab::bad%0Aworse 50%25"
    )


def test_warnings_use_the_warning_command_and_omit_unknown_end_positions() -> None:
    line = github.issue_command(issue(line=3, col=7))
    assert line.startswith("::warning file=src/a.ts,line=3,col=7,title=no-unused-vars::")
    assert "endLine" not in line


def test_every_issue_is_annotated_even_beyond_the_summary_caps() -> None:
    issues = [issue(rule=f"r{i}", file=f"f{i:03d}.ts") for i in range(150)]
    check = result(issues)
    lines = github.render(check, cluster(issues)).splitlines()
    assert len(lines) == 150
    assert all(line.startswith("::warning file=f") for line in lines)


def test_engine_failures_are_annotated_without_a_file() -> None:
    outcomes = {
        "oxlint": EngineOutcome("oxlint", "ok"),
        "tsc": EngineOutcome("tsc", "error", message="tsc: crashed, badly"),
    }
    text = github.render(result(mixed_issues(), outcomes))
    first = text.splitlines()[0]
    assert first == "::error title=signalint%3A tsc error::tsc: crashed, badly"


def test_clean_check_renders_nothing() -> None:
    assert github.render(result([])) == ""

"""The human text format: every issue located under its cluster, ranked; colour on a TTY."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from signalint.formats import text
from signalint.model import EngineOutcome, Issue
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import Additions

from .builders import issue, mixed_issues, result


def _lines(issues: list[Issue], outcomes: dict[str, EngineOutcome] | None = None) -> list[str]:
    return text.render(result(issues, outcomes), cluster(issues), color=False).splitlines()


def _line_of(issue_: Issue) -> str:
    """The line the text format must print for `issue_` (without its id)."""
    engines = ",".join((issue_.engine, *issue_.also_reported_by))
    where = f"{issue_.file}:{issue_.line}:{issue_.col}"
    return f"{where}  {issue_.severity}  {engines}  {issue_.rule}  {issue_.summary}  ["


def _index(lines: list[str], start: str) -> int:
    return next(n for n, line in enumerate(lines) if line.startswith(start))


def test_every_issue_is_listed_with_location_severity_engine_rule_and_message() -> None:
    # 122 of 123 issues of a real check used to appear only as cluster lines;
    # and more than 100 single issues used to be cut off.
    issues = mixed_issues() + [issue(rule=f"s{i}", file=f"f{i:03d}.ts") for i in range(120)]
    lines = _lines(issues)
    for one in issues:
        assert any(line.startswith(_line_of(one)) for line in lines), one


def test_issues_are_grouped_under_their_cluster() -> None:
    issues = mixed_issues()
    lines = _lines(issues)
    (group,) = cluster(issues).clusters
    heading = _index(lines, f"P{group.priority}  3 no-debugger issues across 3 files")
    assert f"[cluster {group.cluster_id}]" in lines[heading]
    members = [line for line in lines[heading + 1 : heading + 5] if "no-debugger" in line]
    assert len(members) == 3


def test_a_type_error_is_listed_before_warning_clusters() -> None:
    # The real-world pattern: eight clusters of warnings and one type error.
    warnings = [
        issue(rule=f"warn-{n}", file=f"src/w{i}.ts", line=n + 1) for n in range(8) for i in range(3)
    ]
    type_error = issue(engine="tsc", file="src/real.ts", rule="TS2322", severity="error")
    lines = _lines([*warnings, type_error])
    first_warning_cluster = _index(lines, "P4  3 warn-")
    assert _index(lines, _line_of(type_error)) < first_warning_cluster
    assert _index(lines, "Errors (1)") < _index(lines, "Warnings (24)")


def test_clusters_are_ordered_by_priority_errors_first() -> None:
    issues = [issue(rule="w", file=f"f{i}.ts") for i in range(5)]
    issues += [issue(rule="local-error", file="a.ts", line=n, severity="error") for n in (1, 2)]
    issues += [issue(rule="systemic", file=f"g{i}.ts", severity="error") for i in range(4)]
    lines = _lines(issues)
    order = [_index(lines, f"{p}  ") for p in ("P1", "P2", "P5")]
    assert order == sorted(order)


def test_a_large_cluster_shows_its_first_issues_and_how_to_see_the_rest() -> None:
    issues = [issue(rule="big", file=f"f{i:02d}.ts") for i in range(text.CLUSTER_LINES + 7)]
    lines = _lines(issues)
    (group,) = cluster(issues).clusters
    shown = [line for line in lines if line.startswith("f") and "  big  " in line]
    assert len(shown) == text.CLUSTER_LINES
    assert f"  … and 7 more (signalint show {group.cluster_id})" in lines


def test_a_cluster_that_fits_is_listed_whole() -> None:
    issues = [issue(rule="fits", file=f"f{i:02d}.ts") for i in range(text.CLUSTER_LINES)]
    output = "\n".join(_lines(issues))
    assert "more (signalint show" not in output
    assert output.count("  fits  ") == text.CLUSTER_LINES


def test_groups_beyond_the_summary_clusters_are_clusters_here_too() -> None:
    # JSON shows 10 clusters and demotes the rest to its flat list; text
    # groups every one, so no issue is lost in a long flat list.
    issues = [
        issue(rule=f"r{n:02d}", file=f"f{i}.ts", line=n + 1) for n in range(12) for i in (1, 2)
    ]
    lines = _lines(issues)
    assert sum(1 for line in lines if "[cluster " in line) == 12


def test_an_issue_several_engines_reported_names_every_engine() -> None:
    shared = issue(rule="no-unused-vars", also_reported_by=("eslint",))
    (line,) = [line for line in _lines([shared]) if line.startswith("src/a.ts:1:1")]
    assert "  oxlint,eslint  no-unused-vars  " in line


def test_an_engine_error_is_one_summary_line_with_its_detail_at_the_end() -> None:
    detail = "tsc exited 3\nerror TS5058: The specified path does not exist.\nsee tsconfig.json"
    outcomes = {
        "oxlint": EngineOutcome("oxlint", "ok", files_checked=3),
        "tsc": EngineOutcome("tsc", "error", message=detail),
    }
    lines = _lines([issue()], outcomes)
    summary = [line for line in lines if line.startswith("  tsc ")]
    assert len(summary) == 1 and "tsc exited 3 (details below)" in summary[0]
    assert "TS5058" not in summary[0]
    details = _index(lines, "Engine errors")
    assert details > _index(lines, "src/a.ts:1:1")
    assert "    error TS5058: The specified path does not exist." in lines[details:]


def test_engines_show_files_checked_gaps_and_coverage_warnings() -> None:
    outcomes = {
        "oxlint": EngineOutcome("oxlint", "ok", files_checked=12),
        "eslint": EngineOutcome("eslint", "ok", files_checked=0),
        "tsc": EngineOutcome(
            "tsc", "error", files_checked=9, coverage_gap="project packages/b was not checked"
        ),
        "biome": EngineOutcome("biome", "disabled", message="run `signalint engines install`"),
    }
    lines = _lines([issue()], outcomes)
    assert "12 files" in _line_starting(lines, "  oxlint ")
    eslint = _line_starting(lines, "  eslint ")
    assert "0 files" in eslint and "coverage warning" in eslint
    tsc = _line_starting(lines, "  tsc ")
    assert "9 files" in tsc and "coverage gap: project packages/b was not checked" in tsc
    assert "coverage warning" not in _line_starting(lines, "  biome ")


def test_no_coverage_warning_when_no_engine_checked_a_file() -> None:
    outcomes = {"oxlint": EngineOutcome("oxlint", "ok"), "tsc": EngineOutcome("tsc", "ok")}
    assert not any("coverage warning" in line for line in _lines([], outcomes))


def _line_starting(lines: list[str], start: str) -> str:
    return lines[_index(lines, start)]


def test_the_footer_names_the_check_id_and_show() -> None:
    output = "\n".join(_lines([issue()]))
    assert "signalint show <id>" in output and "0123456789abcdef" in output
    assert "list_issues" not in output  # CLI output names commands, not MCP tools


def test_filtered_diagnostics_are_counted_with_the_command_that_shows_them() -> None:
    issues = [issue()]
    output = text.render(result(issues), cluster(issues), color=False, added=Additions(3))
    assert "3 diagnostics were filtered out (outside the requested paths)" in output
    assert "`signalint check` without paths" in output


def test_plain_output_has_no_escape_codes_and_colour_output_does() -> None:
    issues = mixed_issues()
    assert "\x1b[" not in text.render(result(issues), cluster(issues), color=False)
    assert "\x1b[" in text.render(result(issues), cluster(issues), color=True)


def test_colour_is_decided_by_the_stream_being_a_terminal() -> None:
    pipe = io.StringIO()  # not a terminal
    issues = mixed_issues()
    assert "\x1b[" not in text.render(result(issues), cluster(issues), stream=pipe)


def test_plain_rendering_does_not_import_rich() -> None:
    code = (
        "import sys\n"
        "from signalint.pipeline.cluster import cluster\n"
        "from signalint.formats import text\n"
        "from tests.formats.builders import mixed_issues, result\n"
        "issues = mixed_issues()\n"
        "text.render(result(issues), cluster(issues), color=False)\n"
        "print('rich' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(("n", "words"), [(1, "1 single issue"), (2, "2 single issues")])
def test_counts_of_one_and_two_read_in_the_singular_and_the_plural(n: int, words: str) -> None:
    issues = [issue(rule=f"r{k}", file=f"f{k}.ts") for k in range(n)]
    output = text.render(result(issues), cluster(issues), color=False, added=Additions(n))
    assert f"  {words}\n" in output
    verb = "was" if n == 1 else "were"
    noun = "diagnostic" if n == 1 else "diagnostics"
    assert f"{n} {noun} {verb} filtered out" in output

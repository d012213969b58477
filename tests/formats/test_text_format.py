"""The human text format: locations for every flat record, colour only on request."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from signalint.cluster import cluster
from signalint.formats import text
from signalint.model import EngineOutcome

from .builders import issue, mixed_issues, result


def test_every_flat_record_appears_as_file_line_col() -> None:
    issues = mixed_issues() + [issue(rule=f"s{i}", file=f"f{i}.ts", line=i + 1) for i in range(5)]
    clustering = cluster(issues)
    output = text.render(result(issues), clustering, color=False)
    assert clustering.flat
    for record in clustering.flat:
        found = record.issue
        expected = f"{found.file}:{found.line}:{found.col}  {found.severity}  {found.rule}  "
        assert expected + found.summary in output.splitlines()


def test_header_clusters_and_engines_are_shown() -> None:
    outcomes = {
        "oxlint": EngineOutcome("oxlint", "ok"),
        "tsc": EngineOutcome("tsc", "error", message="tsc exited 3"),
    }
    issues = [issue(rule="no-debugger", file=f"f{i}.ts", severity="error") for i in range(4)]
    clustering = cluster(issues)
    output = text.render(result(issues, outcomes), clustering, color=False)
    assert output.startswith("signalint: error - 4 issues in 4 files\n")
    assert "tsc error (tsc exited 3)" in output
    (only,) = clustering.clusters
    assert f"P1  4 no-debugger issues across 4 files  [cluster {only.cluster_id}]" in output
    assert f"samples: {', '.join(only.sample_ids)}" in output


def test_omitted_records_point_to_the_complete_listing() -> None:
    issues = [issue(rule=f"s{i}", file=f"f{i:03d}.ts") for i in range(101)]
    output = text.render(result(issues), cluster(issues), color=False)
    assert "1 more issue is not listed here" in output and "--format sarif" in output


def test_plain_output_has_no_escape_codes_and_colour_output_does() -> None:
    issues = mixed_issues()
    assert "\x1b[" not in text.render(result(issues), cluster(issues), color=False)
    assert "\x1b[" in text.render(result(issues), cluster(issues), color=True)


def test_colour_is_decided_by_the_stream_being_a_terminal() -> None:
    class Pipe:
        def isatty(self) -> bool:
            return False

    issues = mixed_issues()
    assert "\x1b[" not in text.render(result(issues), cluster(issues), stream=Pipe())  # type: ignore[arg-type]


def test_plain_rendering_does_not_import_rich() -> None:
    code = (
        "import sys\n"
        "from signalint.cluster import cluster\n"
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

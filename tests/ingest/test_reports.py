"""Report normalizers on recorded output of the real tools (tests/ingest/record_reports.py).

Each recording was produced by running the tool on tests/fixtures/reports/
(golangci-lint's is written from its documented format: it does not
install from the registries used here). Expected positions are 1-based
UTF-16 columns, checked against the fixture's text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from signalint.ingest import MAX_REPORT_BYTES, Batch, ReportError, parse_report

from .conftest import recorded

Row = tuple[str, int, int, str, str]


def rows(batch: Batch) -> list[Row]:
    return [(i.file, i.line, i.col, i.rule, i.severity) for i in batch.issues]


def test_ruff_json_columns_become_utf16_after_an_emoji(reports: Path) -> None:
    batch = parse_report("ruff", recorded("ruff.json", reports), reports / "py")
    assert batch.source == "ruff" and batch.files == ("app.py",)
    assert rows(batch) == [
        ("app.py", 1, 8, "F401", "error"),
        ("app.py", 2, 8, "F401", "error"),
        # `label = "héllo😀";`: the semicolon is code point 21, UTF-16 column 22.
        ("app.py", 6, 22, "E702", "error"),
        ("app.py", 6, 24, "F841", "error"),
    ]
    first = batch.issues[0]
    assert first.fixable and first.help == "Remove unused import: `os`"
    assert first.docs_url == "https://docs.astral.sh/ruff/rules/unused-import"
    assert not batch.issues[3].fixable  # Ruff's fix for F841 is unsafe


def test_sarif_from_ruff_keeps_the_columns_it_declares(reports: Path) -> None:
    batch = parse_report("sarif", recorded("ruff.sarif", reports), reports / "py")
    assert batch.source == "ruff"
    # SARIF columns are UTF-16 unless the run says otherwise; Ruff's SARIF
    # declares no columnKind but counts code points, so after the emoji
    # its columns are one less than the JSON report's (taken as written).
    assert rows(batch) == [
        ("app.py", 1, 8, "F401", "error"),
        ("app.py", 2, 8, "F401", "error"),
        ("app.py", 6, 21, "E702", "error"),
        ("app.py", 6, 23, "F841", "error"),
    ]
    assert batch.issues[0].docs_url == "https://docs.astral.sh/ruff/rules/unused-import"


def test_mypy_json_lines_are_relative_to_where_mypy_ran(reports: Path) -> None:
    text = recorded("mypy.jsonl", reports)
    batch = parse_report("mypy", text, reports, base=reports / "py")
    assert rows(batch) == [
        ("py/app.py", 7, 12, "return-value", "error"),
        ("py/app.py", 10, 13, "arg-type", "error"),
    ]
    assert batch.issues[0].end_col == 24
    assert batch.issues[0].docs_url is not None and "return-value" in batch.issues[0].docs_url


def test_eslint_json_severity_and_positions(reports: Path) -> None:
    batch = parse_report("eslint", recorded("eslint.json", reports), reports / "js")
    assert rows(batch) == [
        ("app.js", 1, 7, "no-unused-vars", "error"),
        ("app.js", 2, 5, "no-cond-assign", "warning"),
        ("app.js", 2, 5, "no-undef", "error"),
        ("app.js", 3, 3, "no-undef", "error"),
        ("app.js", 3, 21, "no-undef", "error"),
    ]


def test_clippy_messages_with_lint_codes_and_docs(reports: Path) -> None:
    batch = parse_report("clippy", recorded("clippy.jsonl", reports), reports / "rust")
    assert rows(batch) == [
        ("src/main.rs", 3, 9, "unused_variables", "warning"),
        ("src/main.rs", 7, 34, "unused_variables", "warning"),
        ("src/main.rs", 4, 8, "clippy::len_zero", "warning"),
        ("src/main.rs", 2, 13, "clippy::useless_vec", "warning"),
        ("src/main.rs", 7, 42, "overflowing_literals", "error"),
    ]
    len_zero = batch.issues[2]
    assert len_zero.docs_url == "https://rust-lang.github.io/rust-clippy/master/index.html#len_zero"
    assert len_zero.help is not None and "is_empty" in len_zero.help


def test_golangci_byte_columns_and_linters(reports: Path) -> None:
    batch = parse_report("golangci", recorded("golangci.json", reports), reports / "go")
    assert batch.source == "golangci-lint"
    assert rows(batch) == [
        ("main.go", 7, 2, "govet", "error"),
        ("main.go", 8, 5, "staticcheck", "error"),
    ]
    clean = parse_report("golangci", '{"Issues": null, "Report": {}}', reports / "go")
    assert clean.issues == ()


@pytest.mark.parametrize(
    ("format_name", "name", "sub"),
    [
        ("ruff", "ruff.json", "py"),
        ("sarif", "ruff.sarif", "py"),
        ("mypy", "mypy.jsonl", "py"),
        ("eslint", "eslint.json", "js"),
        ("clippy", "clippy.jsonl", "rust"),
        ("golangci", "golangci.json", "go"),
    ],
)
def test_a_truncated_report_is_refused_saying_where(
    reports: Path, format_name: str, name: str, sub: str
) -> None:
    text = recorded(name, reports)
    with pytest.raises(ReportError, match=r"not JSON .*complete"):
        parse_report(format_name, text[: len(text) // 2], reports / sub)


def test_a_path_outside_the_project_is_refused(reports: Path) -> None:
    text = recorded("ruff.json", reports)
    with pytest.raises(ReportError, match=r"\[0\]\.filename: path .* outside the project root"):
        parse_report("ruff", text, reports / "js")
    sneaky = json.dumps([{"filename": "../py/app.py", "location": {"row": 1, "column": 1}}])
    with pytest.raises(ReportError, match="escapes the project root"):
        parse_report("ruff", sneaky, reports / "js")


def test_an_unknown_format_and_an_oversized_report_are_refused(reports: Path) -> None:
    with pytest.raises(ReportError, match="unknown format 'pylint'; accepted: ruff, mypy"):
        parse_report("pylint", "[]", reports)
    huge = "[" + " " * MAX_REPORT_BYTES + "]"
    with pytest.raises(ReportError, match=f"at most {MAX_REPORT_BYTES} bytes"):
        parse_report("ruff", huge, reports)


def test_sarif_base_ids_code_point_columns_and_skipped_results(reports: Path) -> None:
    log = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "Semgrep OSS", "rules": [{"id": "r1"}]}},
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"SRC": {"uri": (reports / "py").as_uri() + "/"}},
                "results": [
                    {
                        "ruleIndex": 0,
                        "level": "note",
                        "message": {"text": "after the emoji"},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": "app.py", "uriBaseId": "SRC"},
                                    "region": {"startLine": 6, "startColumn": 21},
                                }
                            }
                        ],
                    },
                    {"ruleId": "r2", "kind": "pass", "message": {"text": "fine"}},
                    {"ruleId": "r3", "message": {"text": "no location"}},
                ],
            }
        ],
    }
    batch = parse_report("sarif", json.dumps(log), reports)
    assert batch.source == "semgrep-oss"
    assert rows(batch) == [("py/app.py", 6, 22, "r1", "warning")]
    with pytest.raises(ReportError, match=r"expected SARIF 2\.1\.0"):
        parse_report("sarif", json.dumps({**log, "version": "2.0.0"}), reports)

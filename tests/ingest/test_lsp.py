"""LSP-shaped diagnostics -> issues: the fields read, positions, and refusals by path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from signalint.ingest import (
    MAX_BATCH,
    MAX_CODE_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_RELATED,
    MAX_URI_CHARS,
    ReportError,
)
from signalint.ingest.lsp_batch import parse, source_label

A: dict[str, Any] = {"file": "a.ts", "message": "m"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.ts").write_text("let x = 1;\r\nlet y = 'é';\n")
    return tmp_path


def test_every_field_an_lsp_diagnostic_carries_is_read(root: Path) -> None:
    batch = parse(
        [
            {
                "file": "a.ts",
                "range": {"start": {"line": 1, "character": 4}, "end": {"line": 0, "character": 0}},
                "severity": "information",
                "code": {"value": "no-y", "target": "https://example.test/no-y"},
                "codeDescription": {"href": "https://example.test/rules/no-y"},
                "source": "eslint",
                "message": "No y.",
                "relatedInformation": [{"location": {}, "message": "declared here"}],
                "tags": [1],
                "data": {"anything": True},
            },
            {"file": "a.ts", "message": "whole file", "source": "tsc"},
        ],
        root,
        label="vscode",
    )
    first, second = batch.issues
    assert (first.engine, first.rule, first.severity) == ("vscode", "no-y", "warning")
    assert (first.line, first.col, first.end_line, first.end_col) == (2, 5, 2, 5)
    assert first.docs_url == "https://example.test/rules/no-y"
    assert first.help == "declared here"
    assert (second.line, second.col, second.rule, second.severity) == (1, 1, "tsc", "warning")


def test_a_carriage_return_is_not_a_column(root: Path) -> None:
    (issue,) = parse(
        [{"file": "a.ts", "range": {"start": {"line": 0, "character": 40}}, "message": "m"}], root
    ).issues
    assert issue.col == 11  # `let x = 1;` is 10 characters; the \r is not counted


@pytest.mark.parametrize(
    ("diagnostic", "field"),
    [
        ({"file": "a.ts", "message": "m", "range": []}, "diagnostics[0].range"),
        ({**A, "range": {"start": {"line": 0}}}, "diagnostics[0].range.start.character"),
        ({**A, "range": {"start": {"line": True, "character": 0}}}, "diagnostics[0].range.start"
         ".line"),
        ({"file": "a.ts", "message": "m", "severity": 0}, "diagnostics[0].severity"),
        ({"file": "a.ts", "message": "m", "severity": "fatal"}, "diagnostics[0].severity"),
        ({"file": "a.ts", "message": "m", "code": 1.5}, "diagnostics[0].code"),
        ({"message": "m"}, "diagnostics[0].file"),
        ({"file": "a.ts"}, "diagnostics[0].message"),
        ({"file": "-rf", "message": "m"}, "diagnostics[0].file"),
        ({"file": "a.ts\x00", "message": "m"}, "diagnostics[0].file"),
        ({"uri": "file://elsewhere/a.ts", "diagnostics": []}, "diagnostics[0].uri"),
    ],
)  # fmt: skip
def test_a_malformed_field_is_refused_by_its_path(
    root: Path, diagnostic: dict[str, Any], field: str
) -> None:
    with pytest.raises(ReportError) as caught:
        parse([diagnostic], root)
    assert caught.value.where == field


def test_publish_params_name_their_file_and_a_batch_is_bounded(root: Path) -> None:
    cleared = parse([{"uri": (root / "gone.ts").as_uri(), "diagnostics": []}], root)
    assert cleared.files == ("gone.ts",) and cleared.issues == ()
    many = [{"message": "m"}] * (MAX_BATCH + 1)
    with pytest.raises(ReportError, match=f"at most {MAX_BATCH}"):
        parse([{"uri": (root / "a.ts").as_uri(), "diagnostics": many}], root)


@pytest.mark.parametrize(
    ("diagnostic", "field", "limit"),
    [
        ({**A, "message": "m" * (MAX_MESSAGE_CHARS + 1)}, "message", MAX_MESSAGE_CHARS),
        ({**A, "code": "c" * (MAX_CODE_CHARS + 1)}, "code", MAX_CODE_CHARS),
        ({**A, "code": {"value": "c" * 201}}, "code.value", MAX_CODE_CHARS),
        ({**A, "code": 10**4000}, "code", MAX_CODE_CHARS),
        ({**A, "source": "s" * (MAX_CODE_CHARS + 1)}, "source", MAX_CODE_CHARS),
        ({**A, "codeDescription": {"href": "h" * (MAX_URI_CHARS + 1)}}, "codeDescription.href",
         MAX_URI_CHARS),
        ({**A, "relatedInformation": [{"message": "r"}] * (MAX_RELATED + 1)}, "relatedInformation",
         MAX_RELATED),
        ({**A, "relatedInformation": [{"message": "r"}, {"message": "r" * 40_000}]},
         "relatedInformation[1].message", MAX_MESSAGE_CHARS),
    ],
)  # fmt: skip
def test_a_field_over_its_bound_is_refused_by_its_path_at_any_depth(
    root: Path, diagnostic: dict[str, Any], field: str, limit: int
) -> None:
    publish = {"uri": (root / "a.ts").as_uri(), "diagnostics": [A, diagnostic]}
    for diagnostics, where in [
        ([A, diagnostic], f"diagnostics[1].{field}"),
        ([publish], f"diagnostics[0].diagnostics[1].{field}"),
    ]:
        with pytest.raises(ReportError) as caught:
            parse(diagnostics, root)
        assert caught.value.where == where
        assert f"{limit} " in caught.value.message
    at_limit = {**A, "message": "m" * MAX_MESSAGE_CHARS, "code": "c" * MAX_CODE_CHARS}
    (issue,) = parse([at_limit], root).issues
    assert len(issue.message) == MAX_MESSAGE_CHARS and issue.rule == "c" * MAX_CODE_CHARS


def test_source_labels_keep_servers_apart() -> None:
    assert source_label("lsp", None) == "external-lsp"
    assert source_label("vscode", None) == "vscode"
    assert source_label("lsp", "typescript-language-server") == "typescript-language-server"
    assert source_label(None, "my server (v2)") == "my-server-v2"

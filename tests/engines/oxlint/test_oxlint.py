from __future__ import annotations

import json

import pytest

from signalint.engines.base import EngineOutputError
from signalint.engines.oxlint.adapter import ENGINE
from signalint.process import ProcessResult
from tests.engines.recordings import context, fixture, recorded, recorded_argv


def test_oxlint_command_asks_for_json_and_ends_options_before_files() -> None:
    ctx = context("oxlint")
    argv = ENGINE.command(ctx, ["src/a.ts", "-weird.js"], None).argv
    assert argv[0] == str(ctx.executable)
    assert argv[argv.index("--format") + 1] == "json"
    assert argv[argv.index("--") + 1 :] == ("src/a.ts", "-weird.js")
    assert ENGINE.command(ctx, ["src/a.ts"], None).cwd == ctx.root
    assert recorded_argv("oxlint")[1:3] == ["--format", "json"]


def test_oxlint_issue_fields_come_from_the_recorded_json() -> None:
    ctx = context("oxlint")
    issues = ENGINE.parse(recorded("oxlint", ctx.root), ctx)
    debugger = next(i for i in issues if i.file == "src/a.ts" and i.line == 1)
    assert debugger.rule == "eslint(no-debugger)"
    assert debugger.severity == "error"
    assert debugger.message == "`debugger` statement is not allowed"
    assert debugger.help == "Remove the debugger statement"
    assert debugger.docs_url == (
        "https://oxc.rs/docs/guide/usage/linter/rules/eslint/no-debugger.html"
    )
    assert debugger.fixable is False
    # Oxlint's column 25 counts UTF-8 bytes; in UTF-16 units "héllo😀" is 3 shorter
    # (é: 2 bytes, 1 unit; 😀: 4 bytes, 2 units). The end comes from offset + length.
    assert (debugger.line, debugger.col, debugger.end_line, debugger.end_col) == (1, 22, 1, 31)
    eqeqeq = next(i for i in issues if i.rule == "eslint(eqeqeq)")
    assert (eqeqeq.file, eqeqeq.line, eqeqeq.col, eqeqeq.end_col) == ("src/a.ts", 2, 7, 9)
    assert eqeqeq.severity == "warning"


def test_oxlint_parse_errors_vue_files_overrides_and_node_modules() -> None:
    ctx = context("oxlint")
    issues = ENGINE.parse(recorded("oxlint", ctx.root), ctx)
    files = {i.file for i in issues}
    assert "node_modules/dep/index.js" not in files
    assert "legacy/old.js" not in files  # the override turns no-debugger off there
    parse = next(i for i in issues if i.file == "src/bad.js")
    assert (parse.rule, parse.severity, parse.line, parse.col) == ("parse", "error", 1, 11)
    assert parse.message == "Unexpected token"
    vue = next(i for i in issues if i.file == "src/Comp.vue")
    assert (vue.line, vue.col, vue.rule) == (3, 1, "eslint(no-debugger)")
    assert len(issues) == 4


def test_oxlint_broken_config_is_an_output_error_naming_the_problem() -> None:
    ctx = context("oxlint-badconfig")
    with pytest.raises(EngineOutputError) as caught:
        ENGINE.parse(recorded("oxlint-badconfig", ctx.root), ctx)
    assert "Rule 'no-nonexistent-rule' not found" in caught.value.message


def test_oxlint_skips_a_notice_printed_before_the_json() -> None:
    ctx = context("oxlint")
    stdout = 'No files found to lint.\n{ "diagnostics": [], "number_of_files": 0 }\n'
    result = ProcessResult(("oxlint",), 1, stdout, "", 0.1)
    assert ENGINE.parse(result, ctx) == []


def test_oxlint_keeps_reported_columns_when_the_file_is_gone() -> None:
    ctx = context("oxlint")
    stdout = (
        '{"diagnostics": [{"message": "m", "code": "eslint(x)", "severity": "warning",'
        ' "filename": "src/gone.js", "labels": [{"span": {"offset": 7, "length": 2,'
        ' "line": 2, "column": 5}}]}]}'
    )
    [issue] = ENGINE.parse(ProcessResult(("oxlint",), 0, stdout, "", 0.1), ctx)
    assert (issue.line, issue.col, issue.end_line) == (2, 5, None)


def test_oxlint_relevance_and_nested_config_files() -> None:
    assert ENGINE.relevant("src/a.ts")
    assert ENGINE.relevant("src/Comp.vue")
    assert not ENGINE.relevant("src/d.json")
    assert not ENGINE.relevant("node_modules/x/a.js")
    assert ENGINE.config_files(fixture("oxlint"), "src/a.ts") == [".oxlintrc.json"]


def test_oxlint_label_flagged_primary_locates_the_issue_and_others_become_notes() -> None:
    ctx = context("oxlint")
    diag = {
        "message": "m",
        "code": "eslint(x)",
        "severity": "error",
        "filename": "src/nowhere.js",
        "help": "fix it",
        "labels": [
            {"label": "first here", "span": {"offset": 0, "length": 1, "line": 1, "column": 1}},
            {
                "label": "the problem",
                "primary": True,
                "span": {"offset": 9, "length": 1, "line": 2, "column": 3},
            },
        ],
    }
    stdout = json.dumps({"diagnostics": [diag]})
    [issue] = ENGINE.parse(ProcessResult(("oxlint",), 1, stdout, "", 0.1), ctx)
    assert (issue.line, issue.col) == (2, 3)
    assert issue.help == "fix it\n1:1: first here"

from __future__ import annotations

import json

import pytest

from signalint.engines.base import EngineOutputError
from signalint.engines.eslint.adapter import ENGINE
from signalint.model import Issue
from signalint.process import ProcessResult
from tests.engines.recordings import context, fixture, recorded, recorded_argv


def issues() -> list[Issue]:
    ctx = context("eslint")
    return ENGINE.parse(recorded("eslint", ctx.root), ctx)


def test_eslint_command_requests_metadata_json_and_silences_ignored_files() -> None:
    ctx = context("eslint")
    argv = ENGINE.command(ctx, ["src/a.js"], None).argv
    assert argv[argv.index("--format") + 1] == "json-with-metadata"
    assert "--no-warn-ignored" in argv
    assert argv[argv.index("--") + 1 :] == ("src/a.js",)
    assert recorded_argv("eslint")[1:4] == ["--format", "json-with-metadata", "--no-warn-ignored"]


def test_eslint_issue_fields_come_from_the_recorded_json() -> None:
    found = {i.rule: i for i in issues()}
    debugger = found["no-debugger"]
    assert (debugger.file, debugger.line, debugger.col, debugger.end_line, debugger.end_col) == (
        "src/a.js",
        1,
        38,
        1,
        47,
    )
    assert debugger.severity == "error"
    assert debugger.message == "Unexpected 'debugger' statement."
    assert debugger.docs_url == "https://eslint.org/docs/latest/rules/no-debugger"
    assert debugger.fixable is False
    eqeqeq = found["eqeqeq"]
    assert (eqeqeq.severity, eqeqeq.fixable) == ("warning", False)  # a suggestion, not a fix
    assert eqeqeq.help == "Suggestion: Use '===' instead of '=='."
    assert found["prefer-const"].fixable is True
    assert found["no-var"].fixable is True


def test_eslint_fatal_parse_errors_and_directive_warnings() -> None:
    found = {i.rule: i for i in issues()}
    parse = found["parse"]
    assert (parse.file, parse.line, parse.col, parse.severity) == ("src/bad.js", 1, 11, "error")
    assert parse.message == "Parsing error: Unexpected token ;"
    directive = found["unused-disable-directive"]
    assert (directive.file, directive.severity, directive.fixable) == (
        "src/directive.js",
        "warning",
        True,
    )
    assert not any(i.file.startswith("ignored/") for i in issues())
    assert len(issues()) == 6


def test_eslint_config_load_failure_reports_eslints_own_error_line() -> None:
    ctx = context("eslint-badconfig")
    with pytest.raises(EngineOutputError) as caught:
        ENGINE.parse(recorded("eslint-badconfig", ctx.root), ctx)
    assert caught.value.message.startswith(
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'eslint-plugin-does-not-exist'"
    )


def test_eslint_plain_json_list_and_node_modules_paths() -> None:
    ctx = context("eslint")
    stdout = (
        f'[{{"filePath": "{ctx.root}/node_modules/x/a.js", "messages": [{{"ruleId": "r",'
        ' "severity": 2, "message": "m", "line": 1, "column": 1}]},'
        f' {{"filePath": "{ctx.root}/src/b.js", "messages": [{{"ruleId": "r", "severity": 1,'
        ' "message": "m"}]}]'
    )
    [issue] = ENGINE.parse(ProcessResult(("eslint",), 1, stdout, "", 0.1), ctx)
    assert (issue.file, issue.line, issue.col, issue.docs_url) == ("src/b.js", 1, 1, None)


def test_eslint_config_files_are_flat_configs_up_the_tree() -> None:
    assert ENGINE.config_files(fixture("eslint"), "src/a.js") == ["eslint.config.js"]
    assert ENGINE.config_files(fixture("eslint-badconfig"), "a.js") == ["eslint.config.mjs"]
    # The flat config decides which files are linted; binaries are never passed.
    assert ENGINE.relevant("src/App.vue") and ENGINE.relevant("src/page.html")
    assert not ENGINE.relevant("img/logo.png") and not ENGINE.relevant("node_modules/a/b.js")


def test_eslint_linted_files_are_the_results_it_printed_messages_or_not() -> None:
    ctx = context("eslint")
    assert ENGINE.linted(recorded("eslint", ctx.root), ctx) == {
        "src/a.js",
        "src/bad.js",
        "src/directive.js",
    }
    stdout = json.dumps(
        {
            "results": [
                {"filePath": f"{ctx.root}/src/page.html", "messages": []},
                {"filePath": f"{ctx.root}/node_modules/x/a.js", "messages": []},
            ],
            "metadata": {},
        }
    )
    assert ENGINE.linted(ProcessResult(("eslint",), 0, stdout, "", 0.1), ctx) == {"src/page.html"}

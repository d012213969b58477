"""The real-world tier's comparison counts with multiplicity (pure, runs in the suite)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from diagnostics import (
    Key,
    compare,
    parse_biome,
    parse_eslint,
    parse_oxlint,
    parse_sarif,
    parse_tsc,
)
from run import trace_commands


def test_a_key_reported_three_times_natively_and_once_by_signalint_is_two_missing() -> None:
    key = Key("src/a.ts", 3, 5, "no-duplicate-enum-values")
    result = compare(Counter({key: 3}), Counter({key: 1}))

    assert (result.native, result.ours) == (3, 1)
    assert result.missing == Counter({key: 2})
    assert result.extra_count == 0


def test_extra_counts_what_signalint_reports_beyond_the_native_run() -> None:
    native = Counter({Key("a.js", 1, 1, "r"): 1})
    ours = Counter({Key("a.js", 1, 1, "r"): 1, Key("a.js", 2, 1, "TS6310"): 2})

    assert compare(native, ours).extra == Counter({Key("a.js", 2, 1, "TS6310"): 2})


def test_tsc_located_and_global_diagnostics_become_keys(tmp_path: Path) -> None:
    stdout = (
        "src/a.ts(2,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
        "  continuation line\n"
        "node_modules/x/index.d.ts(1,1): error TS1005: ';' expected.\n"
        "error TS6310: Referenced project 'x' may not disable emit.\n"
    )
    parsed = parse_tsc(stdout, tmp_path, "tsconfig.json")

    assert parsed.keys == Counter(
        {Key("src/a.ts", 2, 7, "TS2322"): 1, Key("tsconfig.json", 1, 1, "TS6310"): 1}
    )
    assert parsed.outside == 1


def test_eslint_messages_without_a_rule_get_signalints_names(tmp_path: Path) -> None:
    stdout = json.dumps(
        [
            {
                "filePath": str(tmp_path / "docs" / "index.md"),
                "messages": [
                    {"ruleId": None, "fatal": True, "line": 9, "column": 26, "message": "x"},
                    {"ruleId": None, "line": 1, "column": 1, "message": "Unused eslint-disable"},
                    {"ruleId": "curly", "line": 4, "column": 2, "message": "y"},
                ],
            }
        ]
    )
    keys = parse_eslint(stdout, tmp_path).keys

    assert keys == Counter(
        {
            Key("docs/index.md", 9, 26, "parse"): 1,
            Key("docs/index.md", 1, 1, "unused-disable-directive"): 1,
            Key("docs/index.md", 4, 2, "curly"): 1,
        }
    )


def test_an_oxlint_diagnostic_with_several_labels_is_one_key_at_its_primary_label(
    tmp_path: Path,
) -> None:
    (tmp_path / "e.ts").write_text("enum E {\n  A = 1,\n  B = 1,\n}\n")
    label = {"span": {"offset": 11, "length": 5, "line": 2, "column": 3}}
    second = {"span": {"offset": 20, "length": 5, "line": 3, "column": 3}, "primary": True}
    stdout = json.dumps(
        {
            "diagnostics": [
                {
                    "filename": "e.ts",
                    "code": "eslint(no-duplicate-enum-values)",
                    "labels": [label, second],
                }
            ]
        }
    )
    keys = parse_oxlint(stdout, tmp_path).keys

    assert keys == Counter({Key("e.ts", 3, 3, "eslint(no-duplicate-enum-values)"): 1})


def test_three_oxlint_diagnostics_sharing_a_first_label_match_signalint_at_their_other_labels(
    tmp_path: Path,
) -> None:
    # Oxlint's JSON does not say which label is primary: each duplicate enum
    # value is one diagnostic labelled at the first use and at the re-use.
    (tmp_path / "e.ts").write_text("enum E {\n  A = 1,\n  B = 1,\n  C = 1,\n  D = 1,\n}\n")
    rule = "typescript(no-duplicate-enum-values)"
    first = {"span": {"offset": 15, "length": 1, "line": 2, "column": 7}}
    diagnostics = [
        {"filename": "e.ts", "code": rule, "labels": [first, {"span": {"offset": offset}}]}
        for offset in (24, 33, 42)
    ]
    parsed = parse_oxlint(json.dumps({"diagnostics": diagnostics}), tmp_path)
    reused = Counter({Key("e.ts", line, 7, rule): 1 for line in (3, 4, 5)})

    assert parsed.keys == Counter({Key("e.ts", 2, 7, rule): 3})
    assert compare(parsed.keys, reused, parsed.alternatives).missing_count == 0
    collapsed = compare(parsed.keys, Counter({Key("e.ts", 3, 7, rule): 1}), parsed.alternatives)
    assert collapsed.missing_count == 2


def test_biome_code_point_columns_become_utf16_columns(tmp_path: Path) -> None:
    (tmp_path / "a.ts").write_text('const s = "\U0001f600"; debugger;\n')
    stdout = json.dumps(
        {
            "diagnostics": [
                {
                    "category": "lint/suspicious/noDebugger",
                    "location": {"path": "a.ts", "start": {"line": 1, "column": 16}},
                }
            ]
        }
    )
    keys = parse_biome(stdout, tmp_path).keys

    assert keys == Counter({Key("a.ts", 1, 17, "lint/suspicious/noDebugger"): 1})


def test_a_sarif_result_merged_from_two_engines_counts_for_both(tmp_path: Path) -> None:
    result = {
        "ruleId": "no-unused-vars",
        "message": {"text": "unused"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": "src/a%20b.js", "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": 2, "startColumn": 7},
                }
            }
        ],
        "properties": {"alsoReportedBy": ["oxlint"]},
    }
    log = {
        "runs": [
            {
                "tool": {"driver": {"name": "eslint"}},
                "invocations": [{"executionSuccessful": True}],
                "results": [result],
            }
        ]
    }
    runs = parse_sarif(json.dumps(log), tmp_path)

    key = Key("src/a b.js", 2, 7, "no-unused-vars")
    assert runs["eslint"].parsed.keys == Counter({key: 1})
    assert runs["oxlint"].parsed.keys == Counter({key: 1})


def test_trace_commands_joins_execve_calls_split_by_other_processes() -> None:
    lines = [
        '10 execve("/v/bin/signalint", ["/v/bin/signalint", "check"], 0x1 /* 3 vars */) = 0',
        '11 execve("/p/node_modules/.bin/tsc", ["/p/node_modules/.bin/tsc", "--version"]'
        " <unfinished ...>",
        '12 execve("/usr/bin/node", ["node", "/p/.bin/oxlint", "--version"], 0x2) = -1 ENOENT (x)',
        "11 <... execve resumed>, 0x3 /* 3 vars */) = 0",
        '11 execve("/usr/bin/node", ["node", "/p/node_modules/.bin/tsc", "--version"], 0x4) = 0',
    ]

    assert trace_commands(lines) == ["tsc --version"]

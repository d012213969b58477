"""The real-world tier's comparison counts with multiplicity (pure, runs in the suite)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest
from diagnostics import (
    PYRIGHT_NO_RULE,
    RUFF_NO_CODE,
    Key,
    Parsed,
    compare,
    files_checked,
    judge_new_from_rev,
    normalize_engine_keys,
    parse_astro,
    parse_biome,
    parse_eslint,
    parse_mypy,
    parse_oxlint,
    parse_pyright,
    parse_ruff,
    parse_sarif,
    parse_sarif_states,
    parse_tsc,
)
from run import (
    EngineRow,
    Repo,
    RepoResult,
    code_in,
    compile_signalint,
    files_holding,
    from_json,
    merged,
    native_binary,
    render,
    render_edge,
    settings_home,
    to_json,
    trace_commands,
    write_config,
)


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


def test_biome_1_byte_spans_become_utf16_columns(tmp_path: Path) -> None:
    """Biome 1.x's shape: `{"file": ...}` paths, UTF-8 byte spans (the
    emoji is four bytes, two UTF-16 units), a whole-file diagnostic's null
    span keyed at 1:1."""
    (tmp_path / "a.ts").write_text('const s = "\U0001f600"; debugger;\n', encoding="utf-8")
    stdout = json.dumps(
        {
            "diagnostics": [
                {
                    "category": "lint/suspicious/noDebugger",
                    "description": "This is an unexpected use of the debugger statement.",
                    "message": [{"elements": [], "content": "This is ..."}],
                    "location": {"path": {"file": "a.ts"}, "span": [18, 27]},
                },
                {"category": "format", "location": {"path": {"file": "a.ts"}, "span": None}},
            ]
        }
    )
    keys = parse_biome(stdout, tmp_path).keys

    assert keys == Counter(
        {Key("a.ts", 1, 17, "lint/suspicious/noDebugger"): 1, Key("a.ts", 1, 1, "format"): 1}
    )


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


def test_ruff_code_point_columns_become_utf16_columns_and_a_codeless_error_gets_a_rule(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text('s = "\U0001f600"; import os\n')
    stdout = json.dumps(
        [
            {
                "code": "E702",
                "filename": str(tmp_path / "a.py"),
                "location": {"column": 9, "row": 1},
                "message": "Multiple statements on one line (semicolon)",
            },
            {
                "code": None,
                "filename": str(tmp_path / "a.py"),
                "location": {"column": 9, "row": 1},
                "message": "SyntaxError: x",
            },
            {
                "code": "F401",
                "filename": "/elsewhere/b.py",
                "location": {"column": 8, "row": 1},
                "message": "unused",
            },
        ]
    )
    parsed = parse_ruff(stdout, tmp_path)

    assert parsed.keys == Counter(
        {Key("a.py", 1, 10, "E702"): 1, Key("a.py", 1, 10, RUFF_NO_CODE): 1}
    )
    assert parsed.outside == 1


def test_mypy_json_lines_count_errors_and_standalone_notes_with_one_based_columns(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x: int = ''\nreveal_type(x)\n\n")

    def line(**fields: object) -> str:
        return json.dumps({"hint": None, "severity": "error", **fields})

    stdout = "\n".join(
        [
            line(file="src/a.py", line=1, column=9, code="assignment", message="m"),
            line(file="src/a.py", line=1, column=9, code="assignment", message="m"),
            line(file="src/a.py", line=2, column=12, code="misc", severity="note", message="r"),
            line(file="src/a.py", line=3, column=-1, code=None, message="no column"),
            line(file="../other/b.py", line=1, column=0, code="import", message="outside"),
            "",
        ]
    )
    parsed = parse_mypy(stdout, tmp_path)

    assert parsed.keys == Counter(
        {
            Key("src/a.py", 1, 10, "assignment"): 2,
            Key("src/a.py", 2, 13, "misc"): 1,
            Key("src/a.py", 3, 1, "error"): 1,
        }
    )
    assert parsed.outside == 1


def test_mypy_columns_on_non_ascii_lines_are_left_out_on_both_sides(tmp_path: Path) -> None:
    # mypy 1.x counts UTF-8 bytes here (19), Signalint may convert to UTF-16 (18).
    (tmp_path / "a.py").write_text('a = "\u00e9"; b: int = ""\n')
    native = parse_mypy(
        json.dumps({"file": "a.py", "line": 1, "column": 18, "code": "assignment"}), tmp_path
    )
    ours = Parsed()
    ours.add(Key("a.py", 1, 18, "assignment"), "m")

    normal = normalize_engine_keys("mypy", ours, tmp_path)

    assert native.keys == Counter({Key("a.py", 1, 0, "assignment"): 1})
    assert compare(native.keys, normal.keys).missing_count == 0
    assert normalize_engine_keys("ruff", ours, tmp_path).keys == ours.keys


def test_pyright_zero_based_ranges_become_one_based_keys_of_every_severity(
    tmp_path: Path,
) -> None:
    def diag(line: int, character: int, severity: str, rule: str | None) -> dict[str, object]:
        entry: dict[str, object] = {
            "file": str(tmp_path / "pkg" / "m.py"),
            "severity": severity,
            "message": "m",
            "range": {
                "start": {"line": line, "character": character},
                "end": {"line": line, "character": character + 1},
            },
        }
        if rule:
            entry["rule"] = rule
        return entry

    outside = {**diag(0, 0, "error", "reportMissingImports"), "file": "/usr/lib/x.pyi"}
    stdout = json.dumps(
        {
            "version": "1.1.408",
            "generalDiagnostics": [
                diag(0, 7, "error", "reportUnusedImport"),
                diag(4, 12, "information", None),
                diag(6, 3, "warning", "reportMissingTypeArgument"),
                outside,
            ],
            "summary": {"filesAnalyzed": 1},
        }
    )
    parsed = parse_pyright(stdout, tmp_path)

    assert parsed.keys == Counter(
        {
            Key("pkg/m.py", 1, 8, "reportUnusedImport"): 1,
            Key("pkg/m.py", 5, 13, PYRIGHT_NO_RULE): 1,
            Key("pkg/m.py", 7, 4, "reportMissingTypeArgument"): 1,
        }
    )
    assert parsed.outside == 1


def test_a_python_engine_resolves_from_the_projects_venv_before_node_modules_and_managed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNALINT_ENGINES_DIR", str(tmp_path / "managed"))
    clone = tmp_path / "clone"
    managed = tmp_path / "managed" / "python" / "bin" / "mypy"
    node = clone / "node_modules" / ".bin" / "pyright"
    venv = clone / ".venv" / "bin" / "pyright"
    for path in (managed, node, venv):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")

    assert native_binary(clone, clone, "pyright") == venv
    venv.unlink()
    assert native_binary(clone, clone, "pyright") == node
    assert native_binary(clone, clone, "mypy") == managed
    assert native_binary(clone, clone, "ruff") is None


def test_an_install_is_one_command_or_a_list_of_commands() -> None:
    base = {"name": "r", "url": "u", "commit": "c", "engines": ["ruff"]}
    one = Repo.load({**base, "install": ["npm", "ci"]})
    several = Repo.load({**base, "install": [["pip", "install", "-e", "."], ["pip", "check"]]})

    assert one.install == [["npm", "ci"]]
    assert several.install == [["pip", "install", "-e", "."], ["pip", "check"]]
    assert (
        several.is_python and not Repo.load({**base, "engines": ["tsc"], "install": []}).is_python
    )


def test_merged_results_keep_the_repositories_this_run_did_not_cover(tmp_path: Path) -> None:
    base = {"url": "u", "commit": "c", "install": ["x"]}
    repos = {n: Repo.load({**base, "name": n, "engines": ["ruff"]}) for n in ("a", "b", "c")}
    key = Key("m.py", 2, 1, "F401")
    row = EngineRow("ruff", native_binary=".venv/bin/ruff", native_version="ruff 0.15.9")
    row.comparison = compare(Counter({key: 3}), Counter({key: 1}))
    earlier = [
        RepoResult(repos["a"], rows=[row], run_at="2026-12-01 02:52", signalint="abc"),
        RepoResult(repos["b"], run_at="2026-12-01 02:52", signalint="abc"),
    ]
    stored = from_json(json.loads(json.dumps(to_json(earlier))), repos, tmp_path, "")
    fresh = [RepoResult(repos["b"], run_at="now"), RepoResult(repos["c"], run_at="now")]

    result = merged(fresh, stored, ["a", "b", "c"])

    assert [(r.repo.name, r.run_at) for r in result] == [
        ("a", "2026-12-01 02:52"),
        ("b", "now"),
        ("c", "now"),
    ]
    kept = result[0].rows[0]
    assert kept.native_version == "ruff 0.15.9"
    assert kept.comparison is not None and kept.comparison.missing == Counter({key: 2})


def test_results_of_the_first_format_load_with_their_keys_and_stored_binaries(
    tmp_path: Path,
) -> None:
    repo = Repo.load(
        {"name": "hono", "url": "u", "commit": "c", "install": ["x"], "engines": ["tsc"]}
    )
    identity = {"binary": str(tmp_path / "hono" / "node_modules/.bin/tsc"), "version": "6.0.3"}
    (tmp_path / "hono.native-tsc.json").write_text(json.dumps({"identity": identity}))
    old = [
        {
            "repo": "hono",
            "rows": [
                {
                    "engine": "tsc",
                    "native": 2,
                    "signalint": 1,
                    "missing": ["src/a b.ts:3:5 TS2322 x1"],
                    "extra": [],
                }
            ],
        }
    ]
    (loaded,) = from_json(old, {"hono": repo}, tmp_path, "2026-12-01 02:52")

    assert loaded.run_at == "2026-12-01 02:52"
    row = loaded.rows[0]
    assert (row.native_binary, row.native_version) == ("node_modules/.bin/tsc", "6.0.3")
    assert row.comparison is not None
    assert row.comparison.missing == Counter({Key("src/a b.ts", 3, 5, "TS2322"): 1})


def _sarif_result(uri: str, line: int, rule: str, state: str | None) -> dict[str, object]:
    result: dict[str, object] = {
        "ruleId": rule,
        "message": {"text": f"{rule} here"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": line, "startColumn": 1},
                }
            }
        ],
    }
    if state is not None:
        result["baselineState"] = state
    return result


def _sarif(results: dict[str, list[dict[str, object]]]) -> str:
    runs = [
        {"tool": {"driver": {"name": name}}, "results": items} for name, items in results.items()
    ]
    return json.dumps({"runs": runs})


def test_new_from_rev_is_exact_when_the_planted_lines_are_new_and_the_rest_unchanged(
    tmp_path: Path,
) -> None:
    plain = _sarif(
        {
            "tsc": [
                _sarif_result("src/a.ts", 3, "TS2322", None),
                _sarif_result("src/a.ts", 3, "TS2322", None),
                _sarif_result("src/a.ts", 41, "TS2322", None),
            ],
            "eslint": [_sarif_result("src/b.ts", 1, "semi", None)],
        }
    )
    rev = _sarif(
        {
            "tsc": [
                _sarif_result("src/a.ts", 3, "TS2322", "unchanged"),
                _sarif_result("src/a.ts", 3, "TS2322", "unchanged"),
                _sarif_result("src/a.ts", 41, "TS2322", "new"),
            ],
            "eslint": [_sarif_result("src/b.ts", 1, "semi", "unchanged")],
        }
    )
    everything = parse_sarif_states(plain, tmp_path).total()

    verdict = judge_new_from_rev(everything, {"src/a.ts": 40}, parse_sarif_states(rev, tmp_path))

    assert verdict.exact
    assert verdict.expected_new == Counter({Key("src/a.ts", 41, 1, "tsc:TS2322"): 1})
    assert sum(verdict.unchanged.values()) == 3


def test_new_from_rev_that_reports_old_issues_as_new_is_not_exact_with_multiplicity(
    tmp_path: Path,
) -> None:
    # What an engine that failed at REV makes of it: every issue new.
    old = Key("src/a.ts", 3, 1, "tsc:TS2322")
    plain = Counter({old: 2, Key("src/a.ts", 41, 1, "tsc:TS2322"): 1})
    rev = _sarif(
        {
            "tsc": [
                _sarif_result("src/a.ts", 3, "TS2322", "new"),
                _sarif_result("src/a.ts", 3, "TS2322", "unchanged"),
                _sarif_result("src/a.ts", 41, "TS2322", "new"),
                _sarif_result("src/a.ts", 50, "TS2322", None),
            ]
        }
    )

    verdict = judge_new_from_rev(plain, {"src/a.ts": 40}, parse_sarif_states(rev, tmp_path))

    assert not verdict.exact
    assert verdict.wrongly_new == Counter({old: 1})
    assert verdict.expected_new == Counter({Key("src/a.ts", 41, 1, "tsc:TS2322"): 1})
    assert verdict.unchanged_difference == (Counter({old: 1}), Counter())
    assert verdict.other == Counter({Key("src/a.ts", 50, 1, "tsc:TS2322"): 1})


def test_issues_of_a_file_that_rev_does_not_have_are_expected_new(tmp_path: Path) -> None:
    config = Key("signalint.config.json", 1, 1, "eslint:no-unused-expressions")
    plain = Counter({config: 1, Key("src/a.ts", 3, 1, "tsc:TS2322"): 1})
    rev = _sarif(
        {
            "eslint": [_sarif_result("signalint.config.json", 1, "no-unused-expressions", "new")],
            "tsc": [_sarif_result("src/a.ts", 3, "TS2322", "unchanged")],
        }
    )
    found = parse_sarif_states(rev, tmp_path)

    assert judge_new_from_rev(plain, {}, found, ["signalint.config.json"]).exact
    assert not judge_new_from_rev(plain, {}, found).exact


def test_the_new_from_rev_step_survives_the_results_file_and_is_rendered(tmp_path: Path) -> None:
    repo = Repo.load(
        {"name": "zustand", "url": "u", "commit": "c", "install": ["x"], "engines": ["tsc"]}
    )
    step = {
        "plants": 1,
        "plain": 2,
        "expected_new": 1,
        "expected_unchanged": 1,
        "new": 2,
        "unchanged": 0,
        "other": 0,
        "exact": False,
        "not_ok_at_rev": ["eslint"],
        "baseline": {"new": 2, "unchanged": 0, "enginesNotOkAtRev": ["eslint"]},
        "fallback": {},
        "wrongly_new": ["src/a.ts:3:1 tsc:TS2322 old"],
        "seconds": 4.2,
    }
    result = RepoResult(repo, new_from_rev=step, run_at="now", signalint="abc")
    (loaded,) = from_json(
        json.loads(json.dumps(to_json([result]))), {"zustand": repo}, tmp_path, ""
    )

    text = render([loaded], "now", "abc", 60.0)

    assert loaded.new_from_rev == step
    assert "| zustand | 1 | 2 | 1 / 1 | 2 / 0 | **NO** | eslint | none | 4.2 |" in text
    assert "new although present at REV: `src/a.ts:3:1 tsc:TS2322 old`" in text


def test_the_natives_started_together_survive_the_results_file_beside_the_cold_check(
    tmp_path: Path,
) -> None:
    repo = Repo.load(
        {"name": "trio", "url": "u", "commit": "c", "install": ["x"], "engines": ["mypy"]}
    )
    row = EngineRow("mypy", native_s=11.4)
    result = RepoResult(repo, rows=[row], cold_s=15.5, together_s=14.1, run_at="now")
    (loaded,) = from_json(json.loads(json.dumps(to_json([result]))), {"trio": repo}, tmp_path, "")

    text = render([loaded], "now", "abc", 1.0)

    assert loaded.together_s == 14.1
    assert "| trio | mypy | 11.4 | 14.1 | 15.5 | 1.36 | 1.10 |" in text
    unmeasured = render([RepoResult(repo, rows=[row], cold_s=15.5)], "now", "abc", 1.0)
    assert "| trio | mypy | 11.4 | - | 15.5 | 1.36 | - |" in unmeasured


def test_an_engine_that_fell_back_to_changed_lines_is_named_with_its_reason() -> None:
    repo = Repo.load(
        {"name": "apollo", "url": "u", "commit": "c", "install": ["x"], "engines": ["eslint"]}
    )
    step = {
        "plants": 1,
        "plain": 3,
        "expected_new": 1,
        "expected_unchanged": 2,
        "new": 1,
        "unchanged": 2,
        "other": 0,
        "exact": True,
        "not_ok_at_rev": ["eslint"],
        "baseline": {"fallback": [{"engine": "eslint", "reason": "config | failed", "rule": "x"}]},
        "fallback": {"fallback": [{"engine": "eslint", "reason": "config | failed", "rule": "x"}]},
        "seconds": 1.0,
    }

    text = render([RepoResult(repo, new_from_rev=step, run_at="now")], "now", "abc", 1.0)

    assert (
        "| apollo | 1 | 3 | 1 / 2 | 1 / 2 | yes | eslint | eslint: config \\| failed | 1.0 |"
        in text
    )


def test_a_step_measured_by_a_later_run_than_its_repository_says_so() -> None:
    repo = Repo.load({"name": "hono", "url": "u", "commit": "c", "install": ["x"], "engines": []})
    step: dict[str, object] = {"plants": 1, "plain": 0, "expected_new": 0, "new": 0}
    step |= {"expected_unchanged": 0, "unchanged": 0, "exact": True}
    step |= {"run_at": "22:50", "signalint": "def"}
    earlier = RepoResult(repo, new_from_rev=step, run_at="21:00", signalint="abc")

    text = render([earlier], "22:50", "def", 1.0)

    assert "rows: hono (run of 22:50 UTC, Signalint def)." in text


def test_an_engine_run_that_fell_back_is_named_from_the_sarif_log(tmp_path: Path) -> None:
    log = json.loads(_sarif({"tsc": [], "eslint": [_sarif_result("a.js", 2, "semi", "new")]}))
    log["runs"][1]["properties"] = {
        "signalintBaselineFallback": {"rule": "changed lines", "reason": "config failed"}
    }

    found = parse_sarif_states(json.dumps(log), tmp_path)

    assert found.fallback == {"eslint": {"rule": "changed lines", "reason": "config failed"}}
    assert found.states == {"new": Counter({Key("a.js", 2, 1, "eslint:semi"): 1})}


def test_the_runner_writes_its_engine_selection_where_init_put_the_settings(
    tmp_path: Path,
) -> None:
    repo = Repo.load({"name": "z", "url": "u", "commit": "c", "install": ["x"], "engines": ["tsc"]})
    (tmp_path / ".signalint.json").write_text('{"engines": {"tsc": true, "eslint": true}}')

    write_config(tmp_path, {"engines": {}}, repo, ["tsc"], {}, ["tsc", "eslint"])

    assert settings_home(tmp_path) == tmp_path / ".signalint.json"
    assert not (tmp_path / "signalint.config.json").exists()
    written = json.loads((tmp_path / ".signalint.json").read_text())
    assert written["engines"] == {"tsc": True, "eslint": False}


def test_settings_in_a_package_json_key_stay_there(tmp_path: Path) -> None:
    repo = Repo.load({"name": "z", "url": "u", "commit": "c", "install": ["x"], "engines": ["tsc"]})
    package = tmp_path / "package.json"
    package.write_text('{"name": "z", "signalint": {"engines": {"tsc": true}}}')

    write_config(tmp_path, {}, repo, ["tsc"], {"tsc": 5000}, ["tsc"])

    data = json.loads(package.read_text())
    assert data["name"] == "z"
    assert data["signalint"] == {"engines": {"tsc": True}, "timeoutsMs": {"tsc": 5000}}
    assert settings_home(tmp_path) == package


def test_files_checked_is_read_where_the_output_counts_them() -> None:
    assert files_checked("eslint", json.dumps([{"filePath": "/a.ts"}, {"filePath": "/b.ts"}])) == 2
    assert files_checked("pyright", json.dumps({"summary": {"filesAnalyzed": 7}})) == 7
    assert files_checked("mypy", "a.py:1: error: x") is None
    assert files_checked("ruff", "[]") is None


def test_the_state_dir_scan_names_links_sources_and_configs(tmp_path: Path) -> None:
    state = tmp_path / ".signalint"
    (state / "cache").mkdir(parents=True)
    (state / "cache" / "blob.bin").write_bytes(b"x")
    assert code_in(state) == []
    (state / "trees").mkdir()
    (state / "trees" / "a.py").write_text("x = 1\n")
    (state / "tsconfig.signalint.json").write_text("{}")
    (state / "nm").symlink_to(tmp_path, target_is_directory=True)
    assert code_in(state) == ["nm (link)", "trees/a.py", "tsconfig.signalint.json"]


def test_a_token_is_found_in_files_and_link_targets_without_following_links(
    tmp_path: Path,
) -> None:
    secret = tmp_path / "outside" / "tok123.ts"
    secret.parent.mkdir()
    secret.write_text("tok123")
    state = tmp_path / "state"
    state.mkdir()
    (state / "follow").symlink_to(secret.parent, target_is_directory=True)
    assert files_holding([state], b"tok123") == []  # the link is not followed
    (state / "named").symlink_to(secret)
    (state / "copy.json").write_text('{"quoted": "tok123"}')
    assert sorted(files_holding([state, tmp_path / "missing"], b"tok123")) == [
        f"{state / 'copy.json'}",
        f"{state / 'named'} (a link)",
    ]


def test_the_issue_37_block_says_when_nothing_ran_and_renders_a_broken_dependent() -> None:
    repo = Repo.load(
        {"name": "r", "url": "u", "commit": "c" * 40, "install": ["true"], "engines": ["tsc"]}
    )
    assert render_edge([RepoResult(repo)]).startswith("No repository")
    result = RepoResult(repo, run_at="2026-12-06 22:00", signalint="abc")
    result.edge = {
        "break": {
            "edits": [
                {
                    "file": "src/a.ts",
                    "old": "number",
                    "new": "string",
                    "answer": {"status": "issues_found", "dependents": {"broken": 2}},
                    "native": {"new_elsewhere": 2, "files": ["src/b.ts"]},
                    "named": ["src/b.ts"],
                    "ok": True,
                }
            ]
        }
    }
    text = render_edge([result])
    assert "| r | `src/a.ts`: `number` -> `string` | issues_found |" in text
    assert text.count("| yes |") == 1


def test_astro_check_colored_text_becomes_keys_with_multiplicity(tmp_path: Path) -> None:
    def colored(file: str, line: int, col: int, category: str, head: str, message: str) -> str:
        # As astro check prints it: colored whatever the terminal.
        return (
            f"\x1b[96m{file}\x1b[0m:\x1b[93m{line}\x1b[0m:\x1b[93m{col}\x1b[0m - "
            f"\x1b[91m{category}\x1b[0m\x1b[90m {head}: \x1b[0m{message}\n\n"
            f"\x1b[7m{line}\x1b[0m   code\n\n"
        )

    stdout = (
        "02:09:48 [check] Getting diagnostics for Astro files in /p...\n"
        + colored("src/A.astro", 3, 9, "error", "ts(2345)", "Argument of type 'string'")
        + colored("src/A.astro", 3, 9, "error", "ts(2345)", "Argument of type 'string'")
        + colored("src/u.ts", 74, 13, "warning", "ts(7043)", "Variable '_image' implicitly")
        + colored("src/B.astro", 1, 1, "error", "astro(4000)", "Astro's own")
        + colored("../outside.ts", 1, 1, "error", "ts(2322)", "elsewhere")
        + "Result (99 files): \n- 4 errors\n- 0 warnings\n- 1 hint\n"
    )

    parsed = parse_astro(stdout, tmp_path)

    assert parsed.keys == Counter(
        {
            Key("src/A.astro", 3, 9, "TS2345"): 2,
            Key("src/u.ts", 74, 13, "TS7043"): 1,
            Key("src/B.astro", 1, 1, "astro(4000)"): 1,
        }
    )
    assert parsed.outside == 1
    assert parsed.files == 99
    assert parsed.messages[Key("src/u.ts", 74, 13, "TS7043")] == "Variable '_image' implicitly"
    with pytest.raises(ValueError, match="Result"):
        parse_astro(stdout.split("Result")[0], tmp_path)


def test_signalint_is_measured_with_its_bytecode_written_as_pip_would(tmp_path: Path) -> None:
    # A package imported through a console script, in an environment that
    # forbids writing bytecode on import (as the tier's machines do).
    package = tmp_path / "site" / "signalint"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "check.py").write_text("VALUE = 1\n")
    exe = tmp_path / "bin" / "signalint"
    exe.parent.mkdir()
    exe.write_text(f"#!{sys.executable}\nimport signalint\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "PYTHONDONTWRITEBYTECODE": "1"}

    assert compile_signalint(exe, env) == package

    for source in ("__init__.py", "check.py"):
        assert Path(importlib.util.cache_from_source(str(package / source))).is_file()
    # Not a Python script: nothing to compile.
    binary = tmp_path / "bin" / "native"
    binary.write_bytes(b"\x7fELF\x02")
    assert compile_signalint(binary, env) is None

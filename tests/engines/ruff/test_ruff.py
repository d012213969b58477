from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from signalint.engines.base import EngineOutputError, SelectsFiles
from signalint.engines.ruff.adapter import ENGINE, search_roots
from signalint.model import Issue
from signalint.process import ProcessResult
from tests.engines.recordings import context, fixture, recorded, recorded_argv


def issues() -> list[Issue]:
    ctx = context("ruff")
    return ENGINE.parse(recorded("ruff", ctx.root), ctx)


def find(rule: str, line: int, file: str = "src/app/a.py") -> Issue:
    return next(i for i in issues() if (i.rule, i.line, i.file) == (rule, line, file))


def test_ruff_command_asks_for_json_and_never_fixes_or_writes_a_cache() -> None:
    argv = ENGINE.command(context("ruff"), ["src/app/a.py"], None).argv
    assert argv[1:3] == ("check", "--output-format")
    assert argv[argv.index("--output-format") + 1] == "json"
    assert "--no-fix" in argv and "--fix" not in argv
    assert "--no-cache" in argv
    assert argv[argv.index("--") + 1 :] == ("src/app/a.py",)
    assert recorded_argv("ruff")[1:5] == ["check", "--output-format", "json", "--no-fix"]


def test_ruff_selection_walks_the_candidates_directories_with_forced_excludes() -> None:
    assert isinstance(ENGINE, SelectsFiles)
    argv = ENGINE.selection(context("ruff"), ["src/app/a.py", "src/app/sub/c.py"]).argv
    assert argv[1:3] == ("check", "--show-files")
    assert "--force-exclude" in argv and "--no-cache" in argv
    assert argv[argv.index("--") + 1 :] == ("src/app",)


def test_search_roots_keep_only_the_outermost_directories() -> None:
    assert search_roots(["a/b/c.py", "a/d.py", "e/f.py"]) == ["a", "e"]
    assert search_roots(["a/b/c.py", "ab/x.py"]) == ["a/b", "ab"]
    assert search_roots(["top.py", "a/b.py"]) == ["."]


def test_ruff_selection_leaves_out_excluded_and_non_python_files() -> None:
    ctx = context("ruff")
    chosen = ENGINE.selected(recorded("ruff.selection", ctx.root), ctx)
    assert "generated/gen.py" not in chosen  # extend-exclude
    assert "notes.txt" not in chosen  # not in Ruff's include
    assert {"src/app/a.py", "src/app/sub/c.py", "notebook.ipynb"} <= chosen
    candidates = ["notes.txt", "generated/gen.py", "src/app/a.py", "src/app/sub/ruff.toml"]
    assert [f for f in candidates if ENGINE.relevant(f) and f in chosen] == ["src/app/a.py"]


def test_ruff_rule_docs_url_and_safe_fix_map_into_the_issue() -> None:
    unused_import = find("F401", 1)
    assert unused_import.message == "`os` imported but unused"
    assert unused_import.docs_url == "https://docs.astral.sh/ruff/rules/unused-import"
    assert unused_import.fixable is True
    assert unused_import.help == "Remove unused import: `os`"
    assert unused_import.severity == "error"
    assert (unused_import.col, unused_import.end_line, unused_import.end_col) == (8, 1, 10)


def test_ruff_unsafe_and_missing_fixes_are_not_fixable() -> None:
    unused_variable = find("F841", 7)
    assert unused_variable.fixable is False
    assert unused_variable.help is not None and "unsafe fix" in unused_variable.help
    deprecated = find("UP035", 3)
    assert (deprecated.fixable, deprecated.help) == (False, None)


def test_ruff_code_point_columns_become_utf16_columns() -> None:
    # Line 7 holds "😀" (one code point, two UTF-16 units) before the `;`:
    # Ruff says column 21, the same place is UTF-16 column 22.
    semicolon = find("E702", 7)
    assert (semicolon.col, semicolon.end_col) == (22, 23)
    ascii_line = find("E702", 8)
    assert ascii_line.col == 18


def test_ruff_syntax_errors_are_invalid_syntax_issues_without_docs() -> None:
    syntax = [i for i in issues() if i.file == "src/app/bad.py"]
    assert [i.rule for i in syntax] == ["invalid-syntax", "invalid-syntax"]
    assert all(i.docs_url is None and i.severity == "error" for i in syntax)
    assert (syntax[0].line, syntax[0].col) == (1, 12)


def test_ruff_notebook_diagnostics_name_their_cell() -> None:
    cell = next(i for i in issues() if i.file == "notebook.ipynb")
    assert cell.message == "cell 2: `os` imported but unused"
    assert (cell.line, cell.col) == (1, 8)


def test_ruff_nested_config_decides_for_its_directory() -> None:
    nested = Counter(i.rule for i in issues() if i.file == "src/app/sub/c.py")
    assert nested == Counter({"F401": 1})  # its ruff.toml selects only F401


def test_ruff_recording_counts_every_diagnostic_once() -> None:
    found = Counter((i.file, i.rule) for i in issues())
    assert sum(found.values()) == 14
    assert found[("src/app/a.py", "F841")] == 2
    assert not any(i.file in ("notes.txt", "generated/gen.py") for i in issues())


def test_ruff_broken_config_is_an_output_error_naming_the_cause() -> None:
    ctx = context("ruff-badconfig")
    with pytest.raises(EngineOutputError) as caught:
        ENGINE.parse(recorded("ruff-badconfig", ctx.root), ctx)
    message = caught.value.message
    assert message.startswith("ruff failed: Failed to load configuration")
    assert "unknown field `not-a-setting`" in message
    with pytest.raises(EngineOutputError):
        ENGINE.selected(recorded("ruff-badconfig.selection", ctx.root), ctx)


def test_ruff_garbage_output_is_an_output_error() -> None:
    ctx = context("ruff")
    garbage = ProcessResult(("ruff",), 1, "not json", "", 0.1)
    with pytest.raises(EngineOutputError):
        ENGINE.parse(garbage, ctx)
    listed = ProcessResult(("ruff",), 1, '["oops"]', "", 0.1)
    with pytest.raises(EngineOutputError, match="not an object"):
        ENGINE.parse(listed, ctx)


def test_ruff_detects_tool_ruff_tables_and_ruff_toml_files(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert ENGINE.detect(tmp_path) is None
    assert ENGINE.default_enabled(tmp_path) is False
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.ruff]\n')
    assert ENGINE.detect(tmp_path) == "pyproject.toml"
    (tmp_path / ".ruff.toml").write_text("")
    assert ENGINE.detect(tmp_path) == ".ruff.toml"
    assert ENGINE.default_enabled(tmp_path) is True


def test_ruff_config_files_follow_nested_configs_and_extend_chains() -> None:
    root = fixture("ruff")
    assert ENGINE.config_files(root, "src/app/sub/c.py") == [
        "src/app/sub/ruff.toml",
        "pyproject.toml",
    ]
    assert ENGINE.config_files(root, "src/app/a.py") == ["pyproject.toml"]


def test_ruff_extend_chain_reaches_configs_the_nearest_one_extends(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "base.toml").write_text('extend = "../shared.toml"\n')
    (tmp_path / "shared.toml").write_text('extend = "configs/base.toml"\n')  # a cycle
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".ruff.toml").write_text('extend = "../configs/base.toml"\n')
    assert ENGINE.config_files(tmp_path, "pkg/m.py") == [
        "pkg/.ruff.toml",
        "configs/base.toml",
        "shared.toml",
    ]


def test_ruff_is_relevant_to_python_sources_notebooks_and_pyproject() -> None:
    assert ENGINE.relevant("a/b.py") and ENGINE.relevant("a/b.pyi")
    assert ENGINE.relevant("nb.ipynb") and ENGINE.relevant("sub/pyproject.toml")
    assert not ENGINE.relevant("README.md")
    assert not ENGINE.relevant("node_modules/x/y.py")

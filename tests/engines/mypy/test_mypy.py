from __future__ import annotations

from pathlib import Path

import pytest

from signalint.engines.base import EngineContext, EngineOutputError, WholeProgram
from signalint.engines.mypy.adapter import ENGINE, find_config, utf16_column
from signalint.model import Issue
from signalint.process import ProcessResult
from tests.engines.recordings import STATE, context, recorded, recorded_argv


def issues() -> list[Issue]:
    ctx = context("mypy")
    return ENGINE.parse(recorded("mypy", ctx.root), ctx)


def find(rule: str, line: int, file: str = "app/core.py") -> Issue:
    return next(i for i in issues() if (i.rule, i.line, i.file) == (rule, line, file))


def ctx_at(root: Path) -> EngineContext:
    return EngineContext(
        root=root, executable=Path("/engines/bin/mypy"), timeout_s=30.0, state_dir=STATE
    )


def fake_venv(root: Path) -> Path:
    """A virtual environment's layout: what mypy and the stamp look at on disk."""
    venv = root / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "python").write_text("")
    (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    return venv


def test_mypy_command_asks_for_json_and_keeps_its_cache_in_the_state_dir() -> None:
    argv = ENGINE.command(context("mypy"), ["ignored.py"], None).argv
    assert argv[1:3] == ("-O", "json")
    assert argv[argv.index("--cache-dir") + 1] == str(STATE / "mypy")
    assert {"--verbose", "--no-install-types", "--no-error-summary"} <= set(argv)
    assert argv[-1] == "."  # no `files` in the config: the project root
    assert "ignored.py" not in argv
    assert recorded_argv("mypy")[1:3] == ["-O", "json"]


def test_mypy_with_configured_files_gets_no_target_of_ours(tmp_path: Path) -> None:
    (tmp_path / "mypy.ini").write_text("[mypy]\nfiles = src, tests\n")
    assert ENGINE.command(ctx_at(tmp_path), [], None).argv[-1] == "--verbose"
    (tmp_path / "mypy.ini").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.mypy]\npackages = ["app"]\n')
    assert ENGINE.command(ctx_at(tmp_path), [], None).argv[-1] == "--verbose"


def test_mypy_uses_the_projects_interpreter_when_it_has_a_venv(tmp_path: Path) -> None:
    assert "--python-executable" not in ENGINE.command(ctx_at(tmp_path), [], None).argv
    venv = fake_venv(tmp_path)
    argv = ENGINE.command(ctx_at(tmp_path), [], None).argv
    assert argv[argv.index("--python-executable") + 1] == str(venv / "bin" / "python")


def test_mypy_error_fields_map_into_the_issue() -> None:
    operator = find("operator", 2, "app/util.py")
    assert operator.message == 'Unsupported operand types for + ("int" and "str")'
    assert (operator.col, operator.end_line, operator.end_col) == (16, 2, 19)
    assert operator.severity == "error"
    assert operator.docs_url == "https://mypy.rtfd.io/en/stable/_refs.html#code-operator"


def test_mypy_attached_notes_become_the_help() -> None:
    protocol = find("arg-type", 26)
    assert protocol.help is not None
    assert protocol.help.startswith('Following member(s) of "Robot" have conflicts:')
    assert "def greet(self, name: int) -> str" in protocol.help
    missing = find("import-not-found", 3)
    assert missing.help is not None and "running_mypy.html#missing-imports" in missing.help


def test_mypy_standalone_note_is_a_warning() -> None:
    revealed = find("misc", 27)
    assert revealed.severity == "warning"
    assert revealed.message.startswith("Revealed type is")


def test_mypy_unknown_column_is_column_one() -> None:
    unused = find("unused-ignore", 28)
    assert (unused.col, unused.end_col) == (1, None)


def test_mypy_native_parser_columns_become_utf16_columns() -> None:
    # `    text = "héllo😀"; size: int = "big"`: "big" starts at 0-based code
    # point 33, UTF-16 unit 34; mypy 2.4's native parser says 29 (33 minus
    # the extra UTF-8 bytes of "é" and "😀").
    assignment = find("assignment", 22)
    assert (assignment.col, assignment.end_col) == (35, 40)


def test_utf16_column_inverts_both_parsers_column_schemes() -> None:
    line = '    t = "€"; z = "x"'  # "x" at code point 17, UTF-8 byte 19
    assert utf16_column(line, 15, native=True) == 18
    assert utf16_column(line, 19, native=False) == 18
    emoji = '    w = "😀😀"; v: int = "x"'  # "x" at code point 23, UTF-16 unit 25
    assert utf16_column(emoji, 17, native=True) == 26
    assert utf16_column(emoji, 20, native=True, end=True) == 29
    assert utf16_column("plain", 3, native=True) == 4
    assert utf16_column("café", 3, native=True, end=True) == 5  # an end after "é"
    assert utf16_column("é", -1, native=True) == 1


def test_mypy_reports_nothing_for_the_excluded_directory() -> None:
    assert {i.file for i in issues()} == {"app/core.py", "app/util.py"}
    assert len(issues()) == 7


def test_mypy_fatal_error_is_an_output_error_naming_it() -> None:
    ctx = context("mypy-badconfig")
    with pytest.raises(EngineOutputError) as caught:
        ENGINE.parse(recorded("mypy-badconfig", ctx.root), ctx)
    assert (
        caught.value.message == "does_not_exist: error: Cannot read file: No such file or directory"
    )


def test_mypy_blocking_error_without_code_is_kept() -> None:
    line = (
        '{"file": "a.py", "line": -1, "column": -1, "end_line": -1, "end_column": 0, '
        '"message": "Duplicate module named \\"m\\"", "hint": null, "code": null, '
        '"severity": "error"}'
    )
    found = ENGINE.parse(ProcessResult(("mypy",), 2, line + "\n", "", 0.1), context("mypy"))
    assert [(i.file, i.line, i.col, i.rule, i.docs_url) for i in found] == [
        ("a.py", 1, 1, "error", None)
    ]


def test_mypy_clean_run_has_no_issues_and_garbage_is_an_output_error() -> None:
    ctx = context("mypy")
    assert ENGINE.parse(ProcessResult(("mypy",), 0, "", "LOG:  Build finished\n", 0.1), ctx) == []
    with pytest.raises(EngineOutputError):
        ENGINE.parse(ProcessResult(("mypy",), 1, "{not json\n", "", 0.1), ctx)


def test_mypy_program_lists_every_module_of_the_build_cold_or_warm() -> None:
    assert isinstance(ENGINE, WholeProgram)
    ctx = context("mypy")
    cold = ENGINE.program([recorded("mypy", ctx.root)], ctx, None, frozenset())
    warm = ENGINE.program([recorded("mypy-warm", ctx.root)], ctx, None, frozenset())
    assert set(cold.inputs) == set(warm.inputs)
    root = str(ctx.root)
    own = {f"{root}/app/__init__.py", f"{root}/app/core.py", f"{root}/app/util.py"}
    assert own <= set(cold.inputs)
    assert any(p.endswith("typeshed/stdlib/builtins.pyi") for p in cold.inputs)
    assert f"{root}/build/gen.py" not in cold.inputs
    assert cold.checked is not None and set(cold.checked) == own
    assert (cold.gap, cold.retry) == (None, False)


def test_mypy_checked_files_leave_out_the_projects_installed_packages(tmp_path: Path) -> None:
    log = (
        "LOG:  Found source:           BuildSource(path='./m.py', module='m', "
        "has_text=False, base_dir='x', followed=False)\n"
        "LOG:  Parsing ./m.py (m)\n"
        "LOG:  Parsing ./.venv/lib/python3.11/site-packages/dep/__init__.py (dep)\n"
        "LOG:  Metadata fresh for lib: file ./lib.py\n"
    )
    result = ProcessResult(("mypy",), 0, "", log, 0.1)
    program = ENGINE.program([result], ctx_at(tmp_path), None, frozenset())
    assert program.checked == (f"{tmp_path}/m.py", f"{tmp_path}/lib.py")
    assert f"{tmp_path}/.venv/lib/python3.11/site-packages/dep/__init__.py" in program.inputs


def test_mypy_program_key_changes_when_a_package_is_installed(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    venv = fake_venv(tmp_path)
    before = ENGINE.program_key(ctx_at(tmp_path))
    assert before is not None
    assert set(before.configs) >= {"mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"}
    site = venv / "lib" / "python3.11" / "site-packages"
    (site / "requests-2.32.0.dist-info").mkdir()
    after = ENGINE.program_key(ctx_at(tmp_path))
    assert after is not None and after.extra != before.extra
    (site / "editable.pth").write_text("/somewhere/src\n")
    again = ENGINE.program_key(ctx_at(tmp_path))
    assert again is not None and again.extra != after.extra


def test_mypy_program_key_names_path_plugins(tmp_path: Path) -> None:
    (tmp_path / "mypy.ini").write_text("[mypy]\nplugins = tools/plugin.py, some.module\n")
    key = ENGINE.program_key(ctx_at(tmp_path))
    assert key is not None and "tools/plugin.py" in key.configs


def test_mypy_detects_each_config_mypy_reads(tmp_path: Path) -> None:
    assert ENGINE.detect(tmp_path) is None
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = x\n")
    assert ENGINE.detect(tmp_path) is None
    (tmp_path / "setup.cfg").write_text("[mypy]\nstrict = True\n")
    assert ENGINE.detect(tmp_path) == "setup.cfg"
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\n")
    assert ENGINE.detect(tmp_path) == "pyproject.toml"
    (tmp_path / ".mypy.ini").write_text("[mypy]\n")
    assert ENGINE.detect(tmp_path) == ".mypy.ini"
    assert ENGINE.default_enabled(tmp_path) is True


def test_mypy_config_is_looked_for_up_to_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    project = tmp_path / "packages" / "one"
    project.mkdir(parents=True)
    assert find_config(project) == "../../mypy.ini"
    assert ENGINE.config_files(project, "m.py") == ["../../mypy.ini"]
    (project / ".git").mkdir()
    assert find_config(project) is None

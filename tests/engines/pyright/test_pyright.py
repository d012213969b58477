from __future__ import annotations

from pathlib import Path

import pytest

from signalint.engines.base import EngineContext, EngineOutputError, WholeProgram
from signalint.engines.pyright.adapter import ENGINE, checked_files, config_chain, glob_regex
from signalint.model import Issue
from signalint.process import ProcessResult
from tests.engines.recordings import STATE, context, fixture, recorded, recorded_argv


def issues() -> list[Issue]:
    ctx = context("pyright")
    return ENGINE.parse(recorded("pyright", ctx.root), ctx)


def find(rule: str, line: int, file: str = "src/app/core.py") -> Issue:
    return next(i for i in issues() if (i.rule, i.line, i.file) == (rule, line, file))


def ctx_at(root: Path, python: Path | None = None) -> EngineContext:
    return EngineContext(
        root=root,
        executable=Path("/engines/bin/pyright"),
        timeout_s=30.0,
        state_dir=STATE,
        python=python,
    )


def test_pyright_command_asks_for_json_and_names_the_projects_interpreter(
    tmp_path: Path,
) -> None:
    argv = ENGINE.command(ctx_at(tmp_path), ["ignored.py"], None).argv
    assert argv[1] == "--outputjson"
    assert "ignored.py" not in argv
    python = tmp_path / ".venv" / "bin" / "python"
    argv = ENGINE.command(ctx_at(tmp_path, python), [], None).argv
    assert argv[argv.index("--pythonpath") + 1] == str(python)
    assert recorded_argv("pyright") == ["pyright", "--outputjson"]


def test_pyright_leaves_the_interpreter_to_a_config_that_names_a_venv(tmp_path: Path) -> None:
    (tmp_path / "pyrightconfig.json").write_text('{"venvPath": ".", "venv": "env"}')
    argv = ENGINE.command(ctx_at(tmp_path, tmp_path / ".venv/bin/python"), [], None).argv
    assert "--pythonpath" not in argv


def test_pyright_zero_based_utf16_ranges_become_one_based_columns() -> None:
    # `    text = "héllo😀"; size: int = "big"`: "big" at UTF-16 unit 34.
    assignment = find("reportAssignmentType", 20)
    assert (assignment.col, assignment.end_line, assignment.end_col) == (35, 20, 40)
    assert assignment.severity == "error"
    assert assignment.docs_url == (
        "https://github.com/microsoft/pyright/blob/main/docs/configuration.md#reportAssignmentType"
    )


def test_pyright_warning_and_information_are_warnings() -> None:
    unused = find("reportUnusedVariable", 21)
    assert (unused.severity, unused.col) == ("warning", 5)
    ignore = find("reportUnnecessaryTypeIgnoreComment", 27)
    assert ignore.severity == "warning"
    revealed = find("information", 26)
    assert revealed.message.startswith('Type of "welcome" is')
    assert (revealed.severity, revealed.docs_url) == ("warning", None)


def test_pyright_keeps_the_whole_elaborated_message() -> None:
    argument = find("reportArgumentType", 25)
    assert argument.message.startswith('Argument of type "Robot" cannot be assigned')
    assert '"Robot" is incompatible with protocol "Greeter"' in argument.message


def test_pyright_syntax_errors_take_their_severity_as_rule() -> None:
    broken = [i for i in issues() if i.file == "src/app/broken.py"]
    assert len(broken) == 7
    assert {i.rule for i in broken} == {"error"}
    assert all(i.docs_url is None for i in broken)


def test_pyright_reports_only_its_included_files() -> None:
    assert {i.file for i in issues()} == {"src/app/core.py", "src/app/broken.py"}
    assert len(issues()) == 16


def test_pyright_broken_config_output_still_parses_for_the_runner_to_refuse() -> None:
    # Exit code 3 is outside the command's accepted codes: the runner turns
    # it into an engine error naming pyright's first stderr line.
    ctx = context("pyright-badconfig")
    result = recorded("pyright-badconfig", ctx.root)
    assert result.exit_code not in ENGINE.command(ctx, [], None).ok_exit_codes
    assert result.stderr.startswith('Config file "')
    ENGINE.parse(result, ctx)


def test_pyright_garbage_is_an_output_error() -> None:
    ctx = context("pyright")
    with pytest.raises(EngineOutputError, match="crashed"):
        ENGINE.parse(ProcessResult(("pyright",), 2, "", "pyright crashed\n", 0.1), ctx)
    with pytest.raises(EngineOutputError, match="not an object"):
        ENGINE.parse(ProcessResult(("pyright",), 1, '{"generalDiagnostics": [1]}', "", 0.1), ctx)


def test_pyright_checked_files_follow_include_and_exclude() -> None:
    assert checked_files(fixture("pyright")) == [
        "src/app/__init__.py",
        "src/app/broken.py",
        "src/app/core.py",
    ]


def test_pyright_auto_excludes_hidden_dirs_caches_and_virtual_environments(
    tmp_path: Path,
) -> None:
    for rel in ("a.py", "b.pyi", ".hidden/h.py", "env/lib/x.py", "pkg/__pycache__/c.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "env" / "pyvenv.cfg").write_text("")
    assert checked_files(tmp_path) == ["a.py", "b.pyi"]
    (tmp_path / "pyproject.toml").write_text('[tool.pyright]\ninclude = ["**/*.pyi"]\n')
    assert checked_files(tmp_path) == ["b.pyi"]


def test_glob_regex_matches_paths_and_the_directories_above_them() -> None:
    assert glob_regex("src/**/*.py").fullmatch("src/a/b/c.py")
    assert glob_regex("src/**/*.py").fullmatch("src/c.py")
    assert not glob_regex("src/*.py").fullmatch("src/a/c.py")
    assert glob_regex("build/**").fullmatch("build")
    assert glob_regex("te?t").fullmatch("test")


def test_pyright_program_is_every_project_python_file_outside_environments(
    tmp_path: Path,
) -> None:
    assert isinstance(ENGINE, WholeProgram)
    for rel in ("src/a.py", "scripts/b.py", "typings/c.pyi", ".venv/lib/d.py", "README.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("")
    (tmp_path / "pyrightconfig.json").write_text('{"include": ["src"]}')
    result = ProcessResult(("pyright",), 0, "{}", "", 0.1)
    program = ENGINE.program([result], ctx_at(tmp_path), None, frozenset())
    root = str(tmp_path)
    assert set(program.inputs) == {
        f"{root}/src/a.py",
        f"{root}/scripts/b.py",
        f"{root}/typings/c.pyi",
    }
    assert program.checked == (f"{root}/src/a.py",)


def test_pyright_program_includes_extra_paths_outside_the_project(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "lib").mkdir(parents=True)
    (shared / "lib" / "util.py").write_text("")
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyrightconfig.json").write_text('{"extraPaths": ["../shared"]}')
    result = ProcessResult(("pyright",), 0, "{}", "", 0.1)
    program = ENGINE.program([result], ctx_at(root), None, frozenset())
    assert str(shared / "lib" / "util.py") in program.inputs


def test_pyright_program_key_follows_extends_and_the_environment(tmp_path: Path) -> None:
    (tmp_path / "base.json").write_text('{"strict": ["src"]}')
    (tmp_path / "pyrightconfig.json").write_text('{"extends": "./base.json"}')
    assert config_chain(tmp_path) == ["pyrightconfig.json", "base.json"]
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    key = ENGINE.program_key(ctx_at(tmp_path, python))
    assert key is not None
    assert key.configs == ("pyrightconfig.json", "pyproject.toml", "base.json")
    (site / "attrs-24.1.0.dist-info").mkdir()
    again = ENGINE.program_key(ctx_at(tmp_path, python))
    assert again is not None and again.extra != key.extra


def test_pyright_detects_its_config_files(tmp_path: Path) -> None:
    assert ENGINE.detect(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert ENGINE.detect(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text("[tool.pyright]\n")
    assert ENGINE.detect(tmp_path) == "pyproject.toml"
    (tmp_path / "pyrightconfig.json").write_text("{}")
    assert ENGINE.detect(tmp_path) == "pyrightconfig.json"
    assert ENGINE.default_enabled(tmp_path) is True


def test_pyright_config_above_the_root_checks_the_roots_files(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyrightconfig.json").write_text('{"exclude": ["packages/one/skip"]}')
    project = tmp_path / "packages" / "one"
    for rel in ("m.py", "skip/s.py"):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("")
    assert config_chain(project) == ["../../pyrightconfig.json"]
    assert checked_files(project) == ["m.py"]

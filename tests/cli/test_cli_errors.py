"""Problems become one line and an exit code, never a traceback (one exception base).

Every command runs through `main` on a project whose configuration is
malformed, once as `[tool.signalint]` in pyproject.toml and once as
signalint.config.json. Each either refuses naming the file and the line and
column (exit 2), or reports the problem as its own contract says (doctor:
exit 1; init keeps an existing file), or does not read the configuration
at all (stats, engines list).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signalint.cli import stats as stats_module
from signalint.cli.main import main
from signalint.errors import SignalintError
from signalint.project.paths import PathRefused
from signalint.project.roots import RootError
from signalint.settings.config import ConfigError

MALFORMED = {
    # (file, content, how its position is written in the message)
    "pyproject": ("pyproject.toml", "[tool.signalint\nmcpPayload = 1\n", "line 1, column 16"),
    "json": ("signalint.config.json", '{"engines": {,}}\n', "signalint.config.json:1:14:"),
}

# command -> exit code on a malformed configuration (by file kind when they differ)
REFUSING = [["check"], ["check", "src"], ["show", "abcd1234"], ["watch"], ["cache", "info"],
            ["cache", "clear"]]  # fmt: skip


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "p", "private": true}\n')
    (root / "src" / "a.ts").write_text("export const a = 1;\n")
    monkeypatch.chdir(root)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    return root


def break_config(root: Path, kind: str) -> tuple[str, str]:
    name, content, position = MALFORMED[kind]
    (root / name).write_text(content)
    return name, position


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("kind", sorted(MALFORMED))
@pytest.mark.parametrize("argv", REFUSING, ids=" ".join)
def test_commands_on_a_malformed_config_exit_2_naming_file_line_and_column(
    project: Path, capsys: pytest.CaptureFixture[str], kind: str, argv: list[str]
) -> None:
    name, position = break_config(project, kind)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"signalint: {project / name}") and position in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_doctor_reports_a_malformed_config_and_fails_without_a_traceback(
    project: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    name, position = break_config(project, kind)
    code, out, err = run(capsys, "doctor")
    assert code == 1  # doctor's contract: a configuration that does not load is a failure
    assert f"config error:  {project / name}" in out and position in out
    assert "configuration does not load" in err and "Traceback" not in out + err


def test_init_refuses_a_malformed_pyproject_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, position = break_config(project, "pyproject")
    code, out, err = run(capsys, "init")
    assert code == 2 and out == ""
    assert err.startswith(f"signalint: {project / name}") and position in err
    assert not (project / "signalint.config.json").exists()
    assert not (project / ".gitignore").exists()


def test_init_keeps_a_malformed_config_file_and_names_its_position(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, position = break_config(project, "json")
    before = (project / name).read_text()
    code, out, err = run(capsys, "init")
    assert code == 0  # init never overwrites a configuration: it keeps it and says why it fails
    assert "Kept the existing configuration" in out
    assert f"{project / name}:1:14: malformed JSON" in err and position in err
    assert (project / name).read_text() == before and "Traceback" not in err


@pytest.mark.parametrize("kind", sorted(MALFORMED))
@pytest.mark.parametrize("argv", [["stats"], ["engines", "list", "--json"]], ids=" ".join)
def test_commands_that_read_no_config_still_work_beside_a_malformed_one(
    project: Path, capsys: pytest.CaptureFixture[str], kind: str, argv: list[str]
) -> None:
    break_config(project, kind)
    code, out, err = run(capsys, *argv)
    assert code == 0 and out and "Traceback" not in err


def test_refusals_share_one_base_carrying_the_exit_code(tmp_path: Path) -> None:
    refusals = [
        ConfigError(tmp_path / "signalint.config.json", "1:2", "malformed JSON"),
        RootError("SIGNALINT_PROJECT_ROOT", "/nope", "no such directory"),
        PathRefused("../x", "it escapes the project root"),
    ]
    for refusal in refusals:
        assert isinstance(refusal, SignalintError) and refusal.exit_code == 2


def test_a_bad_root_variable_is_one_line_and_exit_2_for_stats(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNALINT_PROJECT_ROOT", str(project / "missing"))
    code, out, err = run(capsys, "stats")
    assert code == 2 and out == ""
    assert err.strip() == (
        f"signalint: SIGNALINT_PROJECT_ROOT={str(project / 'missing')!r} cannot be the "
        "project root: no such directory"
    )


def test_an_unexpected_error_is_one_line_naming_it_not_a_traceback(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(state_dir: Path) -> dict[str, object]:
        raise RuntimeError("the session log grew teeth")

    monkeypatch.delenv("SIGNALINT_DEBUG", raising=False)
    monkeypatch.setattr(stats_module, "collect_stats", explode)
    code, out, err = run(capsys, "stats")
    assert code == 1 and out == ""
    assert err.startswith("signalint: internal error: RuntimeError: the session log grew teeth")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1

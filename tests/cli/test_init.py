"""`signalint init` through click's runner on throwaway projects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from signalint.cli import init as init_module
from signalint.cli.init import init
from signalint.cli.main import main
from signalint.engines.registry import ENGINES
from signalint.settings.config import load_config

PYTHON_ENGINES = {n for n, e in ENGINES.items() if e.spec.language == "python"}
# The component checkers: enabled only by a framework's own configuration.
COMPONENT_ENGINES = {n for n, e in ENGINES.items() if "tsc" in e.spec.replaces}


def run_init(root: Path, *args: str, **env: str) -> Result:
    # No engine resolves (none on PATH, an empty managed directory): the quick
    # tier never starts the project's linters to ask where the settings go.
    # tests/settings/test_init_home.py does, with the real engines.
    quiet = {"SIGNALINT_ENGINES_DIR": str(root / "no-managed-engines")}
    return CliRunner().invoke(
        init, list(args), env={"SIGNALINT_PROJECT_ROOT": str(root), **quiet, **env}
    )


def touch(root: Path, *names: str, text: str = "{}") -> None:
    for name in names:
        (root / name).write_text(text)


def written(root: Path) -> dict[str, Any]:
    data = json.loads((root / "signalint.config.json").read_text())
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(
    ("files", "package", "chosen"),
    [
        (["tsconfig.json"], {"devDependencies": {"vue": "3", "vue-tsc": "3"}}, "vue-tsc"),
        (["tsconfig.json"], {"dependencies": {"vue": "3"}}, "vue-tsc"),
        (["tsconfig.json", "svelte.config.js"], {}, "svelte-check"),
        (["tsconfig.json", "astro.config.mjs"], {}, "astro"),
    ],
)
def test_a_component_checker_replaces_tsc(
    tmp_path: Path, files: list[str], package: dict[str, object], chosen: str
) -> None:
    """A Vue, Svelte or Astro project gets its framework's checker and tsc
    off: it checks tsc's program and the components (docs/engines.md)."""
    touch(tmp_path, *files)
    (tmp_path / "package.json").write_text(json.dumps(package))
    result = run_init(tmp_path)
    assert result.exit_code == 0, result.output
    config = written(tmp_path)["engines"]
    assert config["tsc"] is False
    assert {n for n in COMPONENT_ENGINES if config[n]} == {chosen}


@pytest.mark.parametrize(
    ("files", "engines"),
    [
        ([], {"oxlint": True, "tsc": False, "biome": False, "eslint": False}),
        (["tsconfig.json"], {"oxlint": True, "tsc": True, "biome": False, "eslint": False}),
        (["biome.json"], {"oxlint": False, "tsc": False, "biome": True, "eslint": False}),
        (
            ["biome.jsonc", ".oxlintrc"],
            {"oxlint": True, "tsc": False, "biome": True, "eslint": False},
        ),
        (
            ["biome.json", ".oxlintrc.json", "tsconfig.json", "eslint.config.ts"],
            {"oxlint": True, "tsc": True, "biome": True, "eslint": True},
        ),
        # D21: Oxlint's defaults are not added beside the linter the project chose.
        (["eslint.config.js"], {"oxlint": False, "tsc": False, "biome": False, "eslint": True}),
        (
            ["eslint.config.mjs", "tsconfig.json", "oxlint.config.ts"],
            {"oxlint": True, "tsc": True, "biome": False, "eslint": True},
        ),
        # Legacy eslintrc is not a flat config; the v9 flat config is what we run.
        ([".eslintrc.json"], {"oxlint": True, "tsc": False, "biome": False, "eslint": False}),
    ],
)
def test_detection_matrix(tmp_path: Path, files: list[str], engines: dict[str, bool]) -> None:
    touch(tmp_path, "package.json", *files)
    result = run_init(tmp_path)
    assert result.exit_code == 0, result.output
    config = written(tmp_path)
    # A JavaScript project: every Python engine is written, switched off.
    others = PYTHON_ENGINES | COMPONENT_ENGINES
    assert {n: on for n, on in config["engines"].items() if n not in others} == engines
    assert not any(config["engines"][n] for n in others)
    assert config["ignore"] == ["node_modules/**", "dist/**", ".signalint/**"]
    assert config["timeoutsMs"] == {n: e.spec.timeout_ms for n, e in ENGINES.items()}
    assert {n: config["timeoutsMs"][n] for n in engines} == {
        "oxlint": 60000,
        "tsc": 180000,
        "biome": 60000,
        "eslint": 180000,
    }
    assert config["mcpPayload"] == "both"
    # What init writes is always a valid configuration.
    assert load_config(tmp_path, {}).enabled_engines == tuple(n for n, on in engines.items() if on)


def test_prettier_is_reported_but_not_configured(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "x", "prettier": {"semi": false}}')
    result = run_init(tmp_path)
    assert "Prettier" in result.stdout and 'package.json ("prettier" key)' in result.stdout
    touch(tmp_path, ".prettierrc.yaml", text="semi: false\n")
    assert ".prettierrc.yaml" in run_init(tmp_path).stdout
    assert "prettier" not in json.dumps(written(tmp_path)).lower()


def test_existing_config_is_never_overwritten(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", "tsconfig.json")
    original = '{"engines": {"tsc": false}}\n'
    (tmp_path / "signalint.config.json").write_text(original)
    result = run_init(tmp_path)
    assert result.exit_code == 0
    assert "not changed" in result.stdout
    assert (tmp_path / "signalint.config.json").read_text() == original
    assert (tmp_path / ".gitignore").read_text() == ".signalint/\n"  # gitignore step still runs


def test_pyproject_config_is_not_shadowed_by_a_new_json_file(tmp_path: Path) -> None:
    touch(tmp_path, "package.json")
    (tmp_path / "pyproject.toml").write_text('[tool.signalint]\nmcpPayload = "text"\n')
    result = run_init(tmp_path)
    assert result.exit_code == 0 and "pyproject.toml" in result.stdout
    assert not (tmp_path / "signalint.config.json").exists()


def test_invalid_existing_config_is_reported_and_kept(tmp_path: Path) -> None:
    touch(tmp_path, "package.json")
    (tmp_path / "signalint.config.json").write_text('{"engines": {"tsc": "yes"}}')
    result = run_init(tmp_path)
    assert result.exit_code == 0
    assert "engines.tsc" in result.stderr


def test_gitignore_is_created_then_appended_once(tmp_path: Path) -> None:
    touch(tmp_path, "package.json")
    run_init(tmp_path)
    assert (tmp_path / ".gitignore").read_text() == ".signalint/\n"
    run_init(tmp_path)
    assert (tmp_path / ".gitignore").read_text() == ".signalint/\n"


def test_gitignore_without_trailing_newline_keeps_its_lines(tmp_path: Path) -> None:
    touch(tmp_path, "package.json")
    (tmp_path / ".gitignore").write_bytes(b"node_modules\r\ndist")
    result = run_init(tmp_path)
    assert "Added .signalint/" in result.stdout
    assert (tmp_path / ".gitignore").read_bytes() == b"node_modules\r\ndist\r\n.signalint/\r\n"


@pytest.mark.parametrize("line", [".signalint", ".signalint/", "/.signalint/  "])
def test_gitignore_with_an_existing_entry_is_untouched(tmp_path: Path, line: str) -> None:
    touch(tmp_path, "package.json")
    (tmp_path / ".gitignore").write_text(f"dist\n{line}\n")
    run_init(tmp_path)
    assert (tmp_path / ".gitignore").read_text() == f"dist\n{line}\n"


def test_unresolved_enabled_engines_are_warned_with_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fault injection: every engine is missing, whatever this machine has installed.
    class Missing:
        path = None
        source = "missing"

    monkeypatch.setattr(init_module, "resolve", lambda engine, root: Missing())
    touch(tmp_path, "package.json", "tsconfig.json")
    result = run_init(tmp_path)
    assert result.exit_code == 0
    assert "signalint engines install oxlint" in result.stderr
    assert "signalint engines install tsc" in result.stderr
    assert "biome" not in result.stderr  # disabled engines are not resolved


def test_bad_root_override_exits_2_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refusals become exit codes in the entry point, so this goes through main.
    monkeypatch.setenv("SIGNALINT_PROJECT_ROOT", str(tmp_path / "missing"))
    assert main(["init"]) == 2
    assert "SIGNALINT_PROJECT_ROOT" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


def test_directory_without_markers_gets_a_warning(tmp_path: Path) -> None:
    result = run_init(tmp_path)
    assert result.exit_code == 0
    assert "is this the project root?" in result.stderr


@pytest.mark.parametrize(
    ("files", "named"),
    [(["eslint.config.js"], "eslint (eslint.config.js)"), (["biome.json"], "biome (biome.json)")],
)
def test_oxlint_left_off_beside_a_configured_linter_says_how_to_turn_it_on(
    tmp_path: Path, files: list[str], named: str
) -> None:
    touch(tmp_path, "package.json", *files)
    result = run_init(tmp_path)
    assert result.exit_code == 0, result.output
    assert written(tmp_path)["engines"]["oxlint"] is False
    assert f"oxlint is off: the project lints with {named}" in result.stdout
    assert '"oxlint": true under "engines" in signalint.config.json' in result.stdout


def test_oxlint_on_by_default_prints_no_opt_in_hint(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", "tsconfig.json")
    result = run_init(tmp_path)
    assert written(tmp_path)["engines"]["oxlint"] is True
    assert "Oxlint is off" not in result.stdout


def test_python_project_gets_ruff_as_its_fallback_linter_and_no_javascript_engine(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    result = run_init(tmp_path)
    assert result.exit_code == 0, result.output
    enabled = [n for n, on in written(tmp_path)["engines"].items() if on]
    assert enabled == ["ruff"]


def test_python_and_javascript_project_runs_both_sets(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", "tsconfig.json")
    (tmp_path / "ruff.toml").write_text("line-length = 100\n")
    run_init(tmp_path)
    enabled = {n for n, on in written(tmp_path)["engines"].items() if on}
    assert {"oxlint", "tsc", "ruff"} <= enabled

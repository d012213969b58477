"""Where `init` puts the settings: never where the project's own linters object (D21).

The real-tier tests run the project's linters the way the project does
(`eslint .`, `biome check .`) before and after `init` and require the same
problems; the quick ones pin the layout of the text `init` writes.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from signalint.cli.init import init
from signalint.settings.config import load_config
from signalint.settings.init_home import package_text, render
from tests.conftest import require_engine

SETTINGS = {"engines": {"eslint": True}, "ignore": ["node_modules/**", "dist/**"]}

# zustand's shape: a block for the repository's `*.config.*` files, which
# ESLint's flat config then lints as JavaScript, JSON files included.
ZUSTAND_LIKE = """export default [
  { ignores: ['dist/'] },
  { rules: { eqeqeq: 'error' } },
  { files: ['*.config.*'], languageOptions: { parserOptions: {} } },
];
"""


def run_init(root: Path, *args: str) -> Result:
    return CliRunner().invoke(init, list(args), env={"SIGNALINT_PROJECT_ROOT": str(root)})


def eslint_problems(root: Path) -> Counter[tuple[str, str, str]]:
    """`eslint .` as the project runs it: (file, rule, message) of every problem."""
    done = subprocess.run(
        [str(require_engine("eslint")), "--format", "json", "."],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return Counter(
        (Path(entry["filePath"]).name, m.get("ruleId") or "parse", m["message"])
        for entry in json.loads(done.stdout)
        for m in entry["messages"]
    )


def js_project(root: Path, eslint_config: str, package: str | None = None) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text(
        package or '{\n  "name": "fixture",\n  "type": "module"\n}\n'
    )
    (root / "eslint.config.mjs").write_text(eslint_config)
    (root / "src" / "a.js").write_text("export const same = (a, b) => a == b;\n")
    return root


@pytest.mark.real
def test_init_adds_no_eslint_problem_to_a_project_linting_its_config_files(
    tmp_path: Path,
) -> None:
    root = js_project(tmp_path / "p", ZUSTAND_LIKE)
    before = eslint_problems(root)
    assert before == Counter({("a.js", "eqeqeq", "Expected '===' and instead saw '=='."): 1})
    result = run_init(root)
    assert result.exit_code == 0, result.output
    assert eslint_problems(root) == before
    assert not (root / "signalint.config.json").exists()
    assert "Not written to signalint.config.json: the project's linters would report it" in (
        result.stdout
    )
    assert "Wrote the settings to .signalint.json" in result.stdout
    config = load_config(root, {})
    assert config.source == root / ".signalint.json" and config.engines["eslint"].enabled


@pytest.mark.real
def test_the_default_home_is_the_one_that_project_would_lint(tmp_path: Path) -> None:
    # What the detection guards against, shown with the real ESLint: the
    # documented file, forced, is parsed as JavaScript by this project.
    root = js_project(tmp_path / "p", ZUSTAND_LIKE)
    result = run_init(root, "--config-file", "signalint.config.json")
    assert result.exit_code == 0, result.output
    assert "the project's linters report signalint.config.json: ESLint parse" in result.stderr
    after = eslint_problems(root)
    assert ("signalint.config.json", "parse", "Parsing error: Unexpected token :") in after


@pytest.mark.real
def test_package_json_takes_the_settings_when_both_files_would_be_linted(
    tmp_path: Path,
) -> None:
    both = ZUSTAND_LIKE.replace("['*.config.*']", "['*.config.*', '**/.*.json']")
    package = '{\r\n    "name": "fixture",\r\n    "type": "module",\r\n    "private": true\r\n}\r\n'
    root = js_project(tmp_path / "p", both, package)
    before = eslint_problems(root)
    result = run_init(root)
    assert result.exit_code == 0, result.output
    assert eslint_problems(root) == before
    assert not (root / "signalint.config.json").exists()
    assert not (root / ".signalint.json").exists()
    assert 'Wrote the settings to the "signalint" key of package.json' in result.stdout
    text = (root / "package.json").read_bytes().decode()
    # The user's bytes are kept; the key is appended in the file's own style.
    assert text.startswith(package[: -len("\r\n}\r\n")] + ',\r\n    "signalint": {\r\n')
    assert text.endswith("\r\n}\r\n") and "\n" not in text.replace("\r\n", "")
    assert list(json.loads(text)) == ["name", "type", "private", "signalint"]
    assert load_config(root, {}).source == root / "package.json"
    again = run_init(root)
    assert 'Kept the existing configuration in the "signalint" key of package.json' in (
        again.stdout
    )
    assert (root / "package.json").read_bytes().decode() == text


@pytest.mark.real
def test_a_project_that_does_not_lint_json_gets_the_documented_file(tmp_path: Path) -> None:
    root = js_project(tmp_path / "p", "export default [{ rules: { eqeqeq: 'error' } }];\n")
    before = eslint_problems(root)
    result = run_init(root)
    assert result.exit_code == 0, result.output
    assert "Wrote the settings to signalint.config.json" in result.stdout
    assert "Not written" not in result.stdout
    assert eslint_problems(root) == before


def biome_problems(root: Path) -> list[str]:
    done = subprocess.run(
        [str(require_engine("biome")), "check", "--reporter=json", "--colors=off", "."],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stdout)
    return sorted(
        f"{d['location']['path']} {d['category']}"
        for d in report["diagnostics"]
        if isinstance(d.get("location"), dict) and d["location"].get("path")
    )


@pytest.mark.real
def test_init_writes_the_file_as_the_projects_biome_formats_it(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "package.json").write_text('{\n\t"name": "fixture"\n}\n')
    (root / "biome.json").write_text('{\n\t"formatter": {"indentStyle": "tab"}\n}\n')
    (root / "src" / "a.js").write_text("export const a = 1;\n")
    before = biome_problems(root)
    result = run_init(root)
    assert result.exit_code == 0, result.output
    assert "Wrote the settings to signalint.config.json" in result.stdout
    assert biome_problems(root) == before
    assert (root / "signalint.config.json").read_text().startswith('{\n\t"engines": {\n\t\t')


def test_render_lays_json_out_as_prettier_does() -> None:
    text = render({"engines": {"tsc": True}, "ignore": ["a/**", "b/**"], "empty": {}})
    assert text == (
        '{\n  "engines": {\n    "tsc": true\n  },\n  "ignore": ["a/**", "b/**"],\n  "empty": {}\n}'
    )
    long = render({"ignore": [f"generated/part-{i}/**" for i in range(6)]})
    assert long.startswith('{\n  "ignore": [\n    "generated/part-0/**",\n')


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            '{\n\t"name": "x",\n\t"scripts": {\n\t\t"a": "b"\n\t}\n}\n',
            '{\n\t"name": "x",\n\t"scripts": {\n\t\t"a": "b"\n\t},\n\t"signalint": {\n'
            '\t\t"engines": {\n\t\t\t"eslint": true\n\t\t},\n'
            '\t\t"ignore": ["node_modules/**", "dist/**"]\n\t}\n}\n',
        ),
        (
            '\ufeff{"name":"x"}',
            '\ufeff{"name":"x", "signalint": {"engines": {"eslint": true}, '
            '"ignore": ["node_modules/**", "dist/**"]}}',
        ),
        ("{\n}\n", '{\n  "signalint": {\n    "engines": {\n'),
    ],
)
def test_package_json_keeps_its_bytes_and_gains_the_key_last(old: str, new: str) -> None:
    text = package_text(old, SETTINGS)
    assert text is not None and text.startswith(new)
    assert json.loads(text.lstrip("\ufeff"))["signalint"] == SETTINGS


@pytest.mark.parametrize("old", ['{"signalint": {}}', "[]", "{broken", '{"a": 1} // x'])
def test_package_json_that_cannot_take_the_key_is_left_alone(old: str) -> None:
    assert package_text(old, SETTINGS) is None


def test_a_forced_home_that_cannot_be_written_fails_naming_it(tmp_path: Path) -> None:
    (tmp_path / "tsconfig.json").write_text("{}")
    result = CliRunner().invoke(
        init,
        ["--config-file", "package.json"],
        env={
            "SIGNALINT_PROJECT_ROOT": str(tmp_path),
            "SIGNALINT_ENGINES_DIR": str(tmp_path / "none"),
        },
    )
    assert result.exit_code == 1
    assert 'package.json cannot take a "signalint" key: it is missing' in result.stderr
    assert not (tmp_path / "package.json").exists()

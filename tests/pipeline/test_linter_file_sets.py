"""ESLint and Biome check the files their own configuration covers (defect 2).

Real tier. tests/fixtures/eslint-plugins lints HTML through eslint-plugin-html
and JSON through @eslint/json, as real projects do; tests/fixtures/biome-files
has HTML, CSS, GraphQL, JSON, Markdown, a `files.includes` exclusion and files
Biome does not handle. Native counts come from the engine run the project's
own way (`eslint .`, `biome lint .`) and are compared with multiplicity.

The ESLint plugins are installed (pinned, from the npm registry) once into
`~/.cache/signalint/test-plugins` (or `SIGNALINT_TEST_PLUGINS`); without npm
or the network the ESLint tests skip locally and fail under CI (CI=true).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signalint import process
from signalint.model import EngineOutcome, Scope
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from tests.conftest import require_engine

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PLUGINS = ("@eslint/json@2.1.1", "eslint-plugin-html@8.2.1")
DEFAULT_PLUGINS_DIR = Path.home() / ".cache" / "signalint" / "test-plugins"


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def eslint_plugins() -> Path:
    """node_modules holding the pinned ESLint plugins the fixture's config imports."""
    prefix = Path(os.environ.get("SIGNALINT_TEST_PLUGINS", str(DEFAULT_PLUGINS_DIR)))
    modules = prefix / "node_modules"

    def installed() -> bool:
        for spec in PLUGINS:
            name, _, version = spec.rpartition("@")
            try:
                manifest = json.loads((modules / name / "package.json").read_text())
            except (OSError, ValueError):
                return False
            if manifest.get("version") != version:
                return False
        return True

    if not installed():
        npm = shutil.which("npm")
        if npm is None:
            _unavailable("npm is not available to install the ESLint test plugins")
        prefix.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [str(npm), "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
             "--save-exact", "--silent", *PLUGINS],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not installed():
            _unavailable(f"cannot install {' '.join(PLUGINS)}: {done.stderr.strip()[:300]}")
    return modules


def copy_fixture(name: str, target: Path, modules: Path | None = None) -> Path:
    root = target / name
    shutil.copytree(FIXTURES / name, root)
    if modules is not None:
        (root / "node_modules").symlink_to(modules, target_is_directory=True)
    return root


def native_json(argv: list[str], root: Path) -> Any:
    out = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False).stdout
    return json.loads(out)


def check(root: Path, *, use_cache: bool = True, scope: Scope | None = None) -> CheckRun:
    return asyncio.run(
        run_check(RunRequest(root, load_config(root), scope or Scope(), use_cache=use_cache))
    )


@pytest.fixture
def engine_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, ...]]]:
    """The argv of every engine process a check starts (recorded, then run)."""
    started: list[tuple[str, ...]] = []
    real_run = process.run

    async def recording(command: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(tuple(command.argv))
        return await real_run(command, *args, **kwargs)

    monkeypatch.setattr(process, "run", recording)
    yield started


def outcome(run: CheckRun, engine: str) -> EngineOutcome:
    found = run.result.outcomes[engine]
    assert found.status == "ok", found.message
    return found


def counts(run: CheckRun, engine: str) -> Counter[tuple[str, str]]:
    return Counter((i.file, i.rule) for i in run.result.issues if i.engine == engine)


@pytest.mark.real
def test_eslint_lints_every_file_its_flat_config_covers_html_and_json_included(
    tmp_path: Path, eslint_plugins: Path, engine_runs: list[tuple[str, ...]]
) -> None:
    eslint = str(require_engine("eslint"))
    root = copy_fixture("eslint-plugins", tmp_path, eslint_plugins)
    results = native_json([eslint, "--format", "json", "."], root)
    native = Counter(
        (str(Path(r["filePath"]).relative_to(root)), m["ruleId"])
        for r in results
        for m in r["messages"]
    )
    assert native[("src/page.html", "no-debugger")] == 2
    assert native[("src/settings.json", "json/no-duplicate-keys")] == 1
    linted = {str(Path(r["filePath"]).relative_to(root)) for r in results}

    for use_cache in (False, True):
        run = check(root, use_cache=use_cache)
        assert counts(run, "eslint") == native
        assert outcome(run, "eslint").files_checked == len(linted)
    passed = {arg for argv in engine_runs for arg in argv[argv.index("--") + 1 :]}
    assert "img/logo.png" not in passed  # binaries are never handed to a linter

    # Warm and unchanged: no engine process, same answer; files ESLint does
    # not lint (README.md, notes.txt, ignored/) are remembered as such.
    engine_runs.clear()
    warm = check(root)
    assert engine_runs == []
    assert counts(warm, "eslint") == native
    assert outcome(warm, "eslint").files_checked == len(linted)

    # An edit to a file ESLint does not lint does not start it: whether ESLint
    # lints a path depends on the path and the config, not on the content.
    (root / "docs" / "README.md").write_text("# Notes, edited\n")
    assert outcome(check(root), "eslint").files_checked == len(linted)
    assert engine_runs == []

    # One edited HTML file: only that file is handed to ESLint.
    (root / "src" / "page.html").write_text("<html lang=en><script>debugger;</script></html>\n")
    edited = check(root)
    [argv] = engine_runs
    assert argv[argv.index("--") + 1 :] == ("src/page.html",)
    assert counts(edited, "eslint")[("src/page.html", "no-debugger")] == 1
    assert outcome(edited, "eslint").files_checked == len(linted)


@pytest.mark.real
def test_eslint_scope_with_only_unlinted_files_checks_nothing(
    tmp_path: Path, eslint_plugins: Path
) -> None:
    require_engine("eslint")
    root = copy_fixture("eslint-plugins", tmp_path, eslint_plugins)
    for use_cache in (False, True, True):
        run = check(root, use_cache=use_cache, scope=Scope(("docs",)))
        assert outcome(run, "eslint").files_checked == 0
        assert not [i for i in run.result.issues if i.engine == "eslint"]


@pytest.mark.real
def test_biome_checks_what_its_config_covers_in_every_language_it_handles(
    tmp_path: Path, engine_runs: list[tuple[str, ...]]
) -> None:
    biome = str(require_engine("biome"))
    root = copy_fixture("biome-files", tmp_path)
    out = subprocess.run(
        [biome, "lint", "--reporter=json", "--max-diagnostics=none", "."],
        cwd=root, capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    report = json.loads(out)
    native = Counter((d["location"]["path"], d["category"]) for d in report["diagnostics"])
    assert native[("src/page.html", "lint/suspicious/noDebugger")] == 1
    assert native[("src/schema.graphql", "lint/correctness/useGraphqlNamedOperations")] == 1
    processed = report["summary"]["unchanged"] + report["summary"]["changed"]

    for use_cache in (False, True):
        run = check(root, use_cache=use_cache)
        assert counts(run, "biome") == native
        assert outcome(run, "biome").files_checked == processed
    assert not any("generated/out.js" in i.file for i in run.result.issues)

    engine_runs.clear()
    warm = check(root)
    assert engine_runs == []
    assert counts(warm, "biome") == native
    assert outcome(warm, "biome").files_checked == processed

    # Edits: a file Biome does not check starts nothing; a file it is known
    # to check is linted at once, without another selection run.
    (root / "notes.txt").write_text("edited\n")
    (root / "generated" / "out.js").write_text("debugger; // edited\n")
    assert outcome(check(root), "biome").files_checked == processed
    assert engine_runs == []
    (root / "src" / "clean.js").write_text("export const ok = 2;\n")
    assert counts(check(root), "biome") == native
    [argv] = engine_runs
    assert "--files-max-size=1" not in argv and argv[argv.index("--") + 1 :] == ("src/clean.js",)

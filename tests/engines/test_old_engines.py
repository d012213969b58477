"""Engine majors older than the managed ones, run for real (item 6 of issue 37).

Biome 1.9.4, ESLint 8.57.1 and mypy 1.17.1 (pinned, installed once into
`~/.cache/signalint/test-old-engines` or `SIGNALINT_TEST_OLD_ENGINES`, as
scripts/setup does; mypy in a virtual environment `mypy1` there) are each
the project's own engine in a small fixture (tests/fixtures/engines/biome1,
eslint8-rc, eslint for ESLint 8 with a flat config, mypy). Every check is
compared with the same engine run alone, natively, over the project,
diagnostics counted with multiplicity by file, line, column and rule;
Biome's columns against its own report's `path:line:column` headers (code
points), which it computes itself, not from the byte offsets its JSON
gives. Then the gaps: a version outside the majors an adapter reads (a
fake executable saying it is Biome 3.0.0) and an engine that was given the
project's files and checked none are coverage
gaps naming why, never `ok`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from signalint.cache.context import Context
from signalint.cli.init import init
from signalint.engines.base import EngineContext, version_major
from signalint.engines.eslint import adapter as eslint_adapter
from signalint.engines.eslint.warm import EslintDriver
from signalint.engines.registry import ENGINES
from signalint.engines.resolve import resolve
from signalint.features.engine_fixes import suggest
from signalint.model import Issue, Scope
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.settings.config import load_config
from signalint.warm.pool import WarmPool
from tests.engines.eslint.test_eslint_warm import pinned_modules
from tests.helpers import OLD_ENGINES, pinned_pip_engine, write_executable

pytestmark = pytest.mark.real

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "engines"
OLD_PACKAGES = ("@biomejs/biome@1.9.4", "eslint@8.57.1")
# A Biome report's diagnostic header: "./src/a.js:1:35 lint/suspicious/noDebugger ..."
_HEADER = re.compile(r"^(?:\./)?(?P<file>[^\s:]+)(?::(?P<line>\d+):(?P<col>\d+))? (?P<rule>\S+) ")


@pytest.fixture(scope="session")
def old_modules() -> Path:
    """node_modules holding Biome 1.9.4 and ESLint 8.57.1 (pinned)."""
    prefix = Path(os.environ.get("SIGNALINT_TEST_OLD_ENGINES", str(OLD_ENGINES)))
    return pinned_modules(prefix, OLD_PACKAGES)


def project(tmp_path: Path, fixture: str, modules: Path | None, engine: str) -> Path:
    """A copy of `fixture` with `modules` as its own node_modules (hard
    links: a symlink out of the root is not the project's own engine) and
    only `engine` enabled."""
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    if modules is not None:
        shutil.copytree(modules, root / "node_modules", symlinks=True, copy_function=os.link)
    engines = {name: name == engine for name in ENGINES}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    return root.resolve()


def check(root: Path, *, cache: bool, context: Context | None = None) -> CheckRun:
    config = load_config(root)
    if cache:
        request = RunRequest(root, config, Scope(), state=root.parent / f"state-{root.name}")
    else:
        request = RunRequest(root, config, Scope(), use_cache=False)
    return asyncio.run(run_check(request, context))


def codepoint_col(root: Path, issue: Issue) -> int:
    """The issue's UTF-16 column as a code-point column, as Biome's headers count."""
    line = (root / issue.file).read_text(encoding="utf-8").split("\n")[issue.line - 1]
    units = line.encode("utf-16-le")[: 2 * (issue.col - 1)]
    return len(units.decode("utf-16-le")) + 1


def biome_native(root: Path, *args: str) -> Counter[tuple[str, int, int, str]]:
    """Biome run alone on the project: its report headers, with multiplicity."""
    exe = root / "node_modules" / ".bin" / "biome"
    done = subprocess.run(
        [str(exe), *args, "--max-diagnostics=none", "--colors=off", "."],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    found: Counter[tuple[str, int, int, str]] = Counter()
    for line in (done.stdout + done.stderr).splitlines():
        header = _HEADER.match(line)
        if header and "━━" in line and not header["rule"].startswith("━"):
            where = (int(header["line"] or 1), int(header["col"] or 1))
            found[(header["file"], *where, header["rule"])] += 1
    assert found, f"no native diagnostics parsed from: {done.stdout[-500:]} {done.stderr[-500:]}"
    return found


def biome_issues(root: Path, run: CheckRun) -> Counter[tuple[str, int, int, str]]:
    found: Counter[tuple[str, int, int, str]] = Counter()
    for issue in run.result.issues:
        assert issue.engine == "biome"
        col = codepoint_col(root, issue) if issue.end_line is not None else 1
        found[(issue.file, issue.line, col, issue.rule)] += 1
    return found


def test_biome_1_is_read_as_its_native_report(tmp_path: Path, old_modules: Path) -> None:
    """Biome 1.x writes path objects and UTF-8 byte spans: every native
    diagnostic is reported once, at the line and column Biome names, in a
    cold check, a check filling the cache and one answered from it."""
    root = project(tmp_path, "biome1", old_modules, "biome")
    assert version_major(json.loads((root / "node_modules/@biomejs/biome/package.json")
                                    .read_text())["version"]) == 1  # fmt: skip
    native = biome_native(root, "lint")
    assert ("src/sub/wide.js", 2, 28, "lint/suspicious/noDebugger") in native
    for cache in (False, True, True):
        run = check(root, cache=cache)
        outcome = run.result.outcomes["biome"]
        assert outcome.status == "ok", outcome.message or outcome.coverage_gap
        assert outcome.coverage_gap is None
        # a.js, b.ts, parse.js, wide.js, data.json, package.json, biome.json,
        # signalint.config.json; not the ignored directory nor README.md.
        assert outcome.files_checked == 8
        assert biome_issues(root, run) == native
        assert all(i.file != "ignored/skip.js" for i in run.result.issues)
    wide = next(i for i in run.result.issues if i.file == "src/sub/wide.js")
    # "🎉🎉" is two UTF-16 units per emoji: column 28 in code points is 30.
    assert (wide.line, wide.col, wide.end_col) == (2, 30, 39)
    assert wide.message == "This is an unexpected use of the debugger statement."
    assert wide.docs_url == "https://biomejs.dev/linter/rules/no-debugger"
    assert wide.help and "Remove debugger statement" in wide.help
    use_const = next(i for i in run.result.issues if i.rule == "lint/style/useConst")
    assert use_const.fixable and "Safe fix" in (use_const.help or "")


def test_biome_1_with_the_formatter(tmp_path: Path, old_modules: Path) -> None:
    """`biome check` under 1.x: import sorting off with 1.x's own flag, and
    every native diagnostic of `biome check` reported (Biome prints some
    parse errors twice there; one problem is one issue, so as a set)."""
    root = project(tmp_path, "biome1", old_modules, "biome")
    config = json.loads((root / "signalint.config.json").read_text())
    config["engines"]["biome"] = {"includeFormatter": True}
    (root / "signalint.config.json").write_text(json.dumps(config))
    native = biome_native(root, "check", "--organize-imports-enabled=false")
    run = check(root, cache=False)
    outcome = run.result.outcomes["biome"]
    assert outcome.status == "ok", outcome.message
    found = biome_issues(root, run)
    assert set(found) == set(native)
    assert any(rule == "format" for _, _, _, rule in found)


def eslint_native(root: Path) -> Counter[tuple[str, int, int, str]]:
    """ESLint run alone on the project as projects run it: `eslint .`."""
    exe = root / "node_modules" / ".bin" / "eslint"
    done = subprocess.run(
        [str(exe), "--format", "json", "."],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    found: Counter[tuple[str, int, int, str]] = Counter()
    for result in json.loads(done.stdout):
        file = Path(result["filePath"]).relative_to(root).as_posix()
        for message in result["messages"]:
            rule = message.get("ruleId") or ("parse" if message.get("fatal") else "eslint")
            found[(file, message["line"], message["column"], rule)] += 1
    return found


def eslint_issues(run: CheckRun) -> Counter[tuple[str, int, int, str]]:
    return Counter((i.file, i.line, i.col, i.rule) for i in run.result.issues)


@pytest.mark.parametrize("fixture", ["eslint8-rc", "eslint"])
def test_eslint_8_is_read_as_its_native_run(
    tmp_path: Path, old_modules: Path, fixture: str
) -> None:
    """ESLint 8 with an eslintrc config (.eslintrc.json with overrides,
    .eslintignore, ignorePatterns) and with a flat one: no
    `--no-warn-ignored` (8 refuses it under eslintrc), ignored files not
    counted as linted, and under eslintrc only what `eslint .` lints (a
    README or a .ts file no pattern names is not given to it)."""
    root = project(tmp_path, fixture, old_modules, "eslint")
    native = eslint_native(root)
    for cache in (False, True, True):
        run = check(root, cache=cache)
        outcome = run.result.outcomes["eslint"]
        assert outcome.status == "ok", outcome.message or outcome.coverage_gap
        assert eslint_issues(run) == native
    if fixture == "eslint8-rc":
        # src/a.js, bad.js, tool.mjs (an overrides pattern), lib/util.js.
        assert outcome.files_checked == 4
        assert ("src/tool.mjs", 2, 1, "no-console") in native
        assert not any(f.startswith(("dist/", "README", "src/types")) for f, *_ in native)


def test_init_enables_eslint_8_with_eslintrc(tmp_path: Path, old_modules: Path) -> None:
    """D21: the project's own linter is ESLint 8 with .eslintrc.json, so
    `init` enables ESLint (and no Oxlint in its place); with the managed
    ESLint 10 alone an eslintrc file is not a configuration it can read."""
    root = project(tmp_path, "eslint8-rc", old_modules, "eslint")
    assert eslint_adapter.ENGINE.detect(root) == ".eslintrc.json"
    (root / "signalint.config.json").unlink()
    done = CliRunner().invoke(init, [], env={"SIGNALINT_PROJECT_ROOT": str(root)})
    written = json.loads((root / "signalint.config.json").read_text())
    assert written["engines"]["eslint"] is True, done.output
    assert written["engines"]["oxlint"] is False
    # It asked ESLint 8 whether it lints the settings file, without an
    # option 8 refuses (`eslint .` under eslintrc does not lint a .json).
    assert "could not ask eslint" not in done.output, done.output
    shutil.rmtree(root / "node_modules")
    assert eslint_adapter.ENGINE.detect(root) is None


def test_warm_eslint_declines_8_and_the_cold_path_answers(
    tmp_path: Path, old_modules: Path
) -> None:
    """The warm ESLint worker does not serve ESLint 8 (engines/eslint/warm.py):
    its driver has no key for it, and a check with a warm pool is answered
    cold, equal to a check without one (D23)."""
    root = project(tmp_path, "eslint8-rc", old_modules, "eslint")
    executable = resolve(ENGINES["eslint"], root).path
    assert executable is not None and executable.is_relative_to(root)
    ctx = EngineContext(
        root=root, executable=executable, timeout_s=120, state_dir=tmp_path / "s", version="8.57.1"
    )
    command = eslint_adapter.ENGINE.command(ctx, ["src/a.js"], None)
    assert "--no-warn-ignored" not in command.argv
    assert EslintDriver().key(ctx, command) is None

    async def warm_check() -> CheckRun:
        pool = WarmPool(4 << 30, tmp_path / "warm")
        try:
            request = RunRequest(root, load_config(root), Scope(), state=tmp_path / "warm-state")
            return await run_check(request, Context(warm=pool))
        finally:
            await pool.close()

    warm = asyncio.run(warm_check())
    cold = check(root, cache=False)
    assert warm.result.outcomes["eslint"].served != "warm"
    assert eslint_issues(warm) == eslint_issues(cold) == eslint_native(root)


@pytest.mark.parametrize(
    ("fixture", "engine", "file", "before", "after"),
    [
        ("eslint8-rc", "eslint", "lib/util.js", "let kept = 2;", "const kept = 2;"),
        ("biome1", "biome", "src/b.ts", "let count = 2;", "const count = 2;"),
    ],
)
def test_safe_fixes_of_the_old_majors(
    tmp_path: Path, old_modules: Path, fixture: str, engine: str, file: str, before: str,
    after: str,
) -> None:  # fmt: skip
    """The fix command follows the major as the check's does (ESLint 8 has
    no `--no-warn-ignored`): the engine's safe fix comes back as a patch."""
    root = project(tmp_path, fixture, old_modules, engine)
    run = check(root, cache=False)
    issues = [i for i in run.result.issues if i.file == file and i.fixable]
    assert issues, run.result.issues
    suggestion = asyncio.run(suggest(root, load_config(root), issues))
    assert suggestion.engines[engine]["status"] == "ok", suggestion.engines
    (patch,) = [p for p in suggestion.patches if p.file == file]
    assert before in patch.original and after in patch.patched


MYPY_1 = "1.17.1"


@pytest.fixture(scope="session")
def mypy1_venv() -> Path:
    """A virtual environment holding mypy 1.17.1 (pinned), made when missing."""
    return pinned_pip_engine("mypy1", "mypy", MYPY_1, f"mypy {MYPY_1} ")


@pytest.mark.parametrize("cache", [False, True])
def test_mypy_1_is_read_as_its_native_run(
    tmp_path: Path, mypy1_venv: Path, monkeypatch: pytest.MonkeyPatch, cache: bool
) -> None:
    """mypy 1.x (the project's own, its active virtual environment) through
    a check, against `mypy -O json .` run alone, with multiplicity."""
    root = project(tmp_path, "mypy", None, "mypy")
    monkeypatch.setenv("VIRTUAL_ENV", str(mypy1_venv))
    executable = resolve(ENGINES["mypy"], root).path
    assert executable is not None and executable.is_relative_to(mypy1_venv)
    done = subprocess.run(
        [str(executable), "-O", "json", "--cache-dir", str(tmp_path / "native-cache"), "."],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    native = Counter((r["file"], r["code"] or r["severity"], max(r["line"], 1)) for r in rows)
    assert native, done.stdout + done.stderr
    outcome = check(root, cache=cache).result.outcomes["mypy"]
    assert outcome.status == "ok", outcome.message or outcome.coverage_gap
    assert Counter((i.file, i.rule, i.line) for i in outcome.issues) == native
    assert outcome.files_checked == 3


FAKE_BIOME = r"""
if [ "$1" = "--version" ]; then echo "Version: @VERSION@"; exit 0; fi
files=(); rest=0; selection=0
for arg in "$@"; do
  if [ $rest = 1 ]; then files+=("$arg")
  elif [ "$arg" = "--" ]; then rest=1
  elif [ "$arg" = "--files-max-size=1" ]; then selection=1; fi
done
printf '{"summary":{},"diagnostics":['
sep=""
if [ $selection = 1 ] && [ "@SELECTS@" = yes ]; then
  for f in "${files[@]}"; do
    case "$f" in *.js|*.ts)
      printf '%s{"category":"lint","severity":"error","message":"too big",' "$sep"
      printf '"location":{"path":"%s"}}' "$f"
      sep=",";;
    esac
  done
fi
printf '],"command":"lint"}\n'
"""


def fake_biome(tmp_path: Path, version: str, selects: bool) -> Path:
    """The biome1 fixture with a fake `biome` of `version` as its own (fault
    injection): it answers in 2.x's shape, finding nothing; its selection
    run names the JS/TS files given, or none when not `selects`."""
    root = project(tmp_path, "biome1", None, "biome")
    body = FAKE_BIOME.replace("@VERSION@", version).replace("@SELECTS@", "yes" if selects else "no")
    write_executable(root / "node_modules" / ".bin" / "biome", body)
    return root


@pytest.mark.parametrize("cache", [False, True])
def test_a_version_outside_the_majors_read_is_a_gap(tmp_path: Path, cache: bool) -> None:
    root = fake_biome(tmp_path, "3.0.0", selects=True)
    run = check(root, cache=cache)
    outcome = run.result.outcomes["biome"]
    assert outcome.status == "error"
    assert outcome.coverage_gap is not None
    assert "Biome 3.0.0" in outcome.coverage_gap and "1.x, 2.x" in outcome.coverage_gap
    # It ran (the gap is the version, not the run): the five JS/TS files it named.
    assert outcome.files_checked == 5
    assert run.result.issues == ()


@pytest.mark.parametrize("cache", [False, True])
def test_given_files_and_none_checked_is_a_gap(tmp_path: Path, cache: bool) -> None:
    """A Biome the adapter reads (2.6.8) that says it checks none of the
    project's files in a whole-project check: never `ok` with 0 files."""
    root = fake_biome(tmp_path, "2.6.8", selects=False)
    for _ in range(2 if cache else 1):  # the second one from the cache's marks
        run = check(root, cache=cache)
        outcome = run.result.outcomes["biome"]
        assert outcome.status == "error", outcome
        assert outcome.files_checked == 0
        assert outcome.coverage_gap is not None
        assert "reported none checked" in outcome.coverage_gap
    # A check of some paths may legitimately check none (its config ignores them).
    request = RunRequest(root, load_config(root), Scope(targets=("src/a.js",)), use_cache=False)
    scoped = asyncio.run(run_check(request)).result.outcomes["biome"]
    assert scoped.status == "ok" and scoped.coverage_gap is None


def test_the_majors_each_adapter_reads() -> None:
    expected = {
        "biome": (1, 2), "eslint": (8, 9, 10), "tsc": (5, 6, 7), "oxlint": (1,),
        "ruff": (0,), "mypy": (1, 2), "pyright": (1,),
        "vue-tsc": (2, 3), "svelte-check": (4,), "astro": (5,),
        "basedpyright": (1,), "ty": (0,), "pyrefly": (1,),
    }  # fmt: skip
    assert {name: e.spec.majors for name, e in ENGINES.items()} == expected
    spec = ENGINES["tsc"].spec
    assert spec.reads("5.7.3") and spec.reads("7.0.2") and not spec.reads("4.9.5")
    assert spec.reads("unknown")  # a version that cannot be told is not held against it
    gap = spec.unread_version("4.9.5")
    assert gap is not None and "TypeScript 4.9.5" in gap and "5.x, 6.x, 7.x" in gap
    assert version_major("v8.57.1") == 8 and version_major("0.17.6") == 0
    assert version_major("unknown") is None

"""ESLint kept warm (`engines/eslint/warm.py`) answers exactly as a cold `eslint` run.

Real tier: the pinned ESLint, and for typed linting typescript-eslint with
its TypeScript (pinned, installed once into `~/.cache/signalint/test-typed`
or `SIGNALINT_TEST_TYPED`, as scripts/setup does). Every step compares the
warm answer, through a real `WarmPool`, with a cold run of the same command
on the same content: the adapter's issues (as a multiset), the linted files,
the exit code and stdout byte for byte. Typed linting is held to cold under
edits the worker is not told about: an imported type changed, a file added
or deleted, an export renamed, the ESLint config edited, for both
typescript-eslint modes (`projectService` and `project: true`).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from signalint import process
from signalint.cache.context import Context
from signalint.engines.base import EngineContext
from signalint.engines.eslint import adapter
from signalint.engines.eslint.warm import MAX_REFRESH, EslintDriver, refreshed
from signalint.engines.resolve import resolve
from signalint.model import Issue, Scope
from signalint.pipeline.check_run import CheckRun, run_check
from signalint.pipeline.request import RunRequest
from signalint.process import ProcessResult
from signalint.settings.config import load_config
from signalint.warm.driver import WorkerFailed
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine
from tests.pipeline.test_linter_file_sets import eslint_plugins  # noqa: F401 (a fixture)

pytestmark = pytest.mark.real

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TYPED_PACKAGES = ("typescript-eslint@8.73.0", "typescript@5.9.3", "eslint@10.15.0")
DEFAULT_TYPED_DIR = Path.home() / ".cache" / "signalint" / "test-typed"
ESLINT9_PACKAGES = ("eslint@9.39.3",)
DEFAULT_ESLINT9_DIR = Path.home() / ".cache" / "signalint" / "test-eslint9"
# The last ESLint without the CLI's option translation as a module of its own.
EARLY_ESLINT9_PACKAGES = ("eslint@9.33.0",)
DEFAULT_EARLY_ESLINT9_DIR = Path.home() / ".cache" / "signalint" / "test-eslint9-early"
MEMORY = 4 * 1024 * 1024 * 1024


def test_eslint_9_with_a_flat_config_is_served_warm(tmp_path: Path, eslint9_modules: Path) -> None:
    """ESLint 9 parses `--no-warn-ignored` only among its flat-config options;
    the worker once parsed them as for an eslintrc config and answered every
    ask with "Invalid option '--warn-ignored'" (found on hono)."""
    root = copy_fixture("engines/eslint", tmp_path)
    # The project's own ESLint (a symlinked node_modules resolves outside the
    # root, so the managed ESLint 10 would run): hard links, no copy.
    shutil.copytree(eslint9_modules, root / "node_modules", symlinks=True, copy_function=os.link)
    harness = Harness(root, tmp_path / "warm")
    assert "9.39.3" in (root / "node_modules" / "eslint" / "package.json").read_text()
    assert harness.ctx.executable.is_relative_to(root)

    async def scenario() -> None:
        first = await harness.same(["src/a.js", "src/bad.js"])
        assert first.exit_code == 1 and "Invalid option" not in first.stdout + first.stderr
        edit(root / "src/a.js", "debugger;", "")
        await harness.same(["src/a.js", "src/bad.js"])
        await harness.pool.close()

    asyncio.run(scenario())


def test_eslint_9_before_9_34_is_served_warm_with_its_cli_s_own_translation(
    tmp_path: Path, early_eslint9_modules: Path
) -> None:
    """ESLint 9.33 keeps the CLI's option translation private to lib/cli.js:
    the worker evaluates that file once more to reach it, and answers as
    the cold CLI does, before and after an edit (apollo-client's ESLint
    9.31 was once asked of a worker that could not load it: two failed
    starts per check before the cold path answered; then it was declined)."""
    root = copy_fixture("engines/eslint", tmp_path)
    shutil.copytree(
        early_eslint9_modules, root / "node_modules", symlinks=True, copy_function=os.link
    )
    harness = Harness(root, tmp_path / "warm")
    package = root / "node_modules" / "eslint"
    assert '"version": "9.33.0"' in (package / "package.json").read_text()
    assert not (package / "lib" / "shared" / "translate-cli-options.js").exists()

    async def scenario() -> None:
        first = await harness.same(["src/a.js", "src/bad.js"])
        assert first.exit_code == 1 and "Invalid option" not in first.stdout + first.stderr
        edit(root / "src/a.js", "debugger;", "")
        await harness.same(["src/a.js", "src/bad.js"])
        assert harness.pool.counts.fallbacks == 0
        await harness.pool.close()

    asyncio.run(scenario())


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def pinned_modules(prefix: Path, packages: tuple[str, ...]) -> Path:
    """`prefix`'s node_modules holding `packages` (pinned), installed when missing."""
    modules = prefix / "node_modules"

    def installed() -> bool:
        for spec in packages:
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
            _unavailable(f"npm is not available to install {' '.join(packages)} for the tests")
        prefix.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [str(npm), "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
             "--save-exact", "--silent", *packages],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not installed():
            _unavailable(f"cannot install {' '.join(packages)}: {done.stderr.strip()[:300]}")
    return modules


@pytest.fixture(scope="session")
def typed_modules() -> Path:
    """node_modules holding typescript-eslint and its TypeScript (pinned)."""
    prefix = Path(os.environ.get("SIGNALINT_TEST_TYPED", str(DEFAULT_TYPED_DIR)))
    return pinned_modules(prefix, TYPED_PACKAGES)


@pytest.fixture(scope="session")
def early_eslint9_modules() -> Path:
    """node_modules holding ESLint 9.33 (pinned): its CLI's option translation
    is private to lib/cli.js."""
    prefix = Path(os.environ.get("SIGNALINT_TEST_ESLINT9_EARLY", str(DEFAULT_EARLY_ESLINT9_DIR)))
    return pinned_modules(prefix, EARLY_ESLINT9_PACKAGES)


@pytest.fixture(scope="session")
def eslint9_modules() -> Path:
    """node_modules holding ESLint 9 (pinned): its CLI options depend on the
    config kind, 10's do not."""
    prefix = Path(os.environ.get("SIGNALINT_TEST_ESLINT9", str(DEFAULT_ESLINT9_DIR)))
    return pinned_modules(prefix, ESLINT9_PACKAGES)


def copy_fixture(name: str, target: Path, modules: Path | None = None) -> Path:
    root = target / name
    shutil.copytree(FIXTURES / name, root)
    if modules is not None:
        (root / "node_modules").symlink_to(modules, target_is_directory=True)
    return root.resolve()


class Harness:
    """One project, its warm pool, and cold runs of the same commands."""

    def __init__(self, root: Path, log_dir: Path, driver: EslintDriver | None = None) -> None:
        executable = resolve(adapter.ENGINE, root).path
        assert executable is not None
        self.root = root
        self.ctx = EngineContext(
            root=root, executable=executable, timeout_s=180, state_dir=log_dir / "state"
        )
        drivers = {"eslint": driver} if driver is not None else None
        self.pool = WarmPool(MEMORY, log_dir, drivers)

    def command(self, files: Sequence[str]) -> process.Command:
        return adapter.ENGINE.command(self.ctx, files, None)

    async def warm(self, files: Sequence[str]) -> tuple[ProcessResult | None, str]:
        answer = await self.pool.answer("eslint", self.ctx, self.command(files))
        assert answer is not None, "the ESLint lint command is not served warm"
        return answer.result, answer.served

    async def cold(self, files: Sequence[str]) -> ProcessResult:
        return await process.run(self.command(files))

    def read(self, result: ProcessResult) -> tuple[Counter[Issue], set[str]]:
        return Counter(adapter.ENGINE.parse(result, self.ctx)), adapter.ENGINE.linted(
            result, self.ctx
        )

    async def same(self, files: Sequence[str]) -> ProcessResult:
        """Ask warm, then cold; both must say the same (module docstring)."""
        warm, how = await self.warm(files)
        cold = await self.cold(files)
        assert how == "warm"
        assert warm is not None
        assert warm.exit_code == cold.exit_code, (warm.stderr, cold.stderr)
        if cold.exit_code == 2:
            assert adapter._failure_message(warm) == adapter._failure_message(cold)
            return warm
        assert self.read(warm) == self.read(cold)
        assert warm.stdout == cold.stdout
        return warm


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new))


# --- untyped: byte-equal answers, plugins, config errors -------------------


def test_warm_answers_byte_for_byte_as_cold(tmp_path: Path) -> None:
    require_engine("eslint")
    root = copy_fixture("engines/eslint", tmp_path)
    harness = Harness(root, tmp_path / "warm")
    files = ["src/a.js", "src/bad.js", "src/directive.js", "ignored/skip.js", "gone.js"]

    async def scenario() -> None:
        first = await harness.same(files)
        assert first.exit_code == 1 and '"rulesMeta"' in first.stdout
        assert "ignored/skip.js" not in harness.read(first)[1]
        # A lint error removed, a parse error fixed, then errors added, between asks.
        edit(root / "src/a.js", "debugger;", "")
        await harness.same(files)
        (root / "src/bad.js").write_text("export const x = 1;\n")
        await harness.same(files)
        (root / "src/bad.js").write_text("debugger;\nvar late = 1;\n")
        await harness.same(["src/bad.js"])
        (root / "src/new.js").write_text("var added = 1;\n")
        await harness.same([*files, "src/new.js"])
        (root / "src/new.js").unlink()
        await harness.same([*files, "src/new.js"])
        assert harness.pool.counts.started == 1
        await harness.pool.close()

    asyncio.run(scenario())


def test_warm_lints_what_the_flat_config_covers_with_plugins(
    tmp_path: Path,
    eslint_plugins: Path,  # noqa: F811 (the fixture imported above)
) -> None:
    require_engine("eslint")
    root = copy_fixture("eslint-plugins", tmp_path, eslint_plugins)
    files = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and "node_modules" not in p.parts
    )
    harness = Harness(root, tmp_path / "warm")

    async def scenario() -> None:
        answer = await harness.same(files)
        assert any(f.endswith(".html") for f in harness.read(answer)[1])
        await harness.pool.close()

    asyncio.run(scenario())


def test_config_error_reaches_the_user_as_cold_then_the_fix_is_seen(tmp_path: Path) -> None:
    require_engine("eslint")
    root = copy_fixture("engines/eslint-badconfig", tmp_path)
    harness = Harness(root, tmp_path / "warm")

    async def scenario() -> None:
        broken = await harness.same(["a.js"])
        assert broken.exit_code == 2 and "eslint-plugin-does-not-exist" in broken.stderr
        # The same broken config again: a fresh worker, the same answer.
        await harness.same(["a.js"])
        (root / "eslint.config.mjs").write_text(
            'export default [{ rules: { "no-var": "error" } }];\n'
        )
        fixed = await harness.same(["a.js"])
        assert fixed.exit_code in (0, 1)
        await harness.pool.close()

    asyncio.run(scenario())

    def outcome(context: Context | None) -> tuple[tuple[str, str | None], str | None]:
        (root / "eslint.config.mjs").write_text(
            (FIXTURES / "engines/eslint-badconfig/eslint.config.mjs").read_text()
        )
        found = asyncio.run(check(root, context)).result.outcomes["eslint"]
        return (found.status, found.message), found.served

    pool = WarmPool(MEMORY, tmp_path / "warm2")
    warm, served = outcome(Context(warm=pool))
    asyncio.run(pool.close())
    cold, _ = outcome(None)
    # ESLint's answer came from its worker (Oxlint's worker answers beside it).
    assert warm == cold and served == "warm"
    assert warm[0] == "error" and "eslint-plugin-does-not-exist" in str(warm[1])


# --- typed linting ----------------------------------------------------------

TYPED_FILES = ("src/types.ts", "src/use.ts", "src/plain.ts", "src/extra.ts")


def typed_project(tmp_path: Path, modules: Path, mode: str) -> Path:
    root = copy_fixture("eslint-typed", tmp_path, modules)
    if mode == "project":
        edit(root / "eslint.config.mjs", "projectService: true", "project: true")
    return root


def apply(root: Path, step: str) -> None:
    """One edit of the typed fixture, made behind the worker's back."""
    types, config = root / "src/types.ts", root / "eslint.config.mjs"
    plain, extra = root / "src/plain.ts", root / "src/extra.ts"
    if step == "type":  # the imported type: a typed rule flips in use.ts
        text = types.read_text()
        if "= number;" in text:
            text = text.replace("= number;", "= Promise<number>;")
            text = text.replace("1 as Value", "Promise.resolve(1)")
        else:
            text = text.replace("= Promise<number>;", "= number;")
            text = text.replace("Promise.resolve(1)", "1 as Value")
        types.write_text(text)
    elif step == "rename":  # a renamed export: its importers lose their types
        text = types.read_text()
        text = (
            text.replace("get()", "fetchValue()")
            if "get()" in text
            else text.replace("fetchValue()", "get()")
        )
        types.write_text(text)
    elif step == "lint":  # an untyped lint error added or removed
        text = plain.read_text()
        plain.write_text(
            text.replace("debugger;\n", "") if "debugger" in text else text + "debugger;\n"
        )
    elif step == "add":
        extra.write_text(
            'import { get } from "./types";\n\nget();\nexport const x = await get();\n'
        )
    elif step == "delete":
        extra.unlink(missing_ok=True)
    elif step == "config":
        text = config.read_text()
        if '"no-debugger": "error"' in text:
            config.write_text(text.replace('"no-debugger": "error"', '"no-debugger": "warn"'))
        else:
            config.write_text(text.replace('"no-debugger": "warn"', '"no-debugger": "error"'))
    else:
        raise AssertionError(step)


@pytest.mark.parametrize("mode", ["service", "project"])
def test_typed_rules_follow_edits_to_files_outside_the_batch(
    tmp_path: Path, typed_modules: Path, mode: str
) -> None:
    require_engine("eslint")
    root = typed_project(tmp_path, typed_modules, mode)
    harness = Harness(root, tmp_path / "warm")
    floating = "@typescript-eslint/no-floating-promises"

    async def scenario() -> None:
        first = await harness.same(list(TYPED_FILES[:3]))
        assert "@typescript-eslint/await-thenable" in first.stdout
        apply(root, "type")  # use.ts is not edited, only what it imports
        after = await harness.same(["src/use.ts"])
        assert floating in after.stdout and "await-thenable" not in after.stdout
        await harness.same(["src/use.ts"])  # unchanged: the program is reused
        apply(root, "add")
        await harness.same(["src/extra.ts", "src/use.ts"])
        apply(root, "rename")
        await harness.same(["src/use.ts"])
        apply(root, "delete")
        await harness.same(list(TYPED_FILES))
        apply(root, "config")
        apply(root, "lint")
        await harness.same(list(TYPED_FILES[:3]))
        # An edit to a file the project service holds is refreshed in the
        # same worker (type, rename); a file added or deleted and the config
        # edit restart it (engines/eslint/warm.py).
        assert harness.pool.counts.restarts == 3
        await harness.pool.close()

    asyncio.run(scenario())


def in_typed_mode(
    tmp_path: Path,
    modules: Path,
    scenario: Callable[[Path, Harness], Awaitable[None]],
    mode: str = "service",
) -> None:
    """Run `scenario` on the typed fixture in `mode` (`typed_project`) with
    a warm pool of its own, closed after."""
    require_engine("eslint")
    root = typed_project(tmp_path, modules, mode)
    harness = Harness(root, tmp_path / "warm")

    async def run() -> None:
        try:
            await scenario(root, harness)
        finally:
            await harness.pool.close()

    asyncio.run(run())


@pytest.mark.parametrize(
    ("mode", "ci"), [("service", ""), ("service", "true"), ("project", "true")]
)
def test_typed_linting_keeps_its_programs_across_edits(
    tmp_path: Path, typed_modules: Path, mode: str, ci: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Edits to files typed linting holds, asked about alone, in a batch, or
    # not at all: the one worker answers each as a cold run does, also
    # where CI=true would make typescript-eslint assume a single run.
    monkeypatch.setenv("CI", ci)
    floating = "@typescript-eslint/no-floating-promises"

    async def scenario(root: Path, harness: Harness) -> None:
        await harness.same(list(TYPED_FILES[:3]))
        apply(root, "type")  # use.ts breaks: types.ts is refreshed first
        assert floating in (await harness.same(["src/use.ts"])).stdout
        apply(root, "type")
        apply(root, "lint")  # two files changed, one of them asked about
        assert floating not in (await harness.same(["src/plain.ts", "src/use.ts"])).stdout
        apply(root, "rename")
        await harness.same(["src/types.ts"])  # the changed file alone: no refresh lint
        await harness.same(["src/use.ts"])
        apply(root, "rename")
        await harness.same(list(TYPED_FILES[:3]))
        assert harness.pool.counts.started == 1 and harness.pool.counts.restarts == 0

    in_typed_mode(tmp_path, typed_modules, scenario, mode)


def test_the_default_project_count_is_of_one_ask_as_in_a_cold_run(
    tmp_path: Path, typed_modules: Path
) -> None:
    """typescript-eslint counts the files its project service opens in the
    default project (`allowDefaultProject`) and fails each one past
    `maximumDefaultProjectFileMatchCount` (8). A cold run counts its own
    files; the worker counts each ask's alone too, so a file asked about
    after a whole lint of ten such files is linted, as cold lints it."""

    async def scenario(root: Path, harness: Harness) -> None:
        edit(
            root / "eslint.config.mjs",
            "projectService: true",
            'projectService: { allowDefaultProject: ["scripts/*.ts"] }',
        )
        scripts = [f"scripts/s{n}.ts" for n in range(10)]
        for rel in scripts:
            (root / rel).parent.mkdir(exist_ok=True)
            (root / rel).write_text("export const value: number = 1;\n")
        # Which two files fail depends on the order ESLint's reads finish,
        # in a cold run too; how many fail does not.
        whole, _ = await harness.warm(scripts)
        assert whole is not None
        assert whole.stdout.count("Too many files (>8)") == 2
        alone = await harness.same([scripts[0]])
        assert "Too many files" not in alone.stdout
        assert harness.pool.counts.restarts == 0

    in_typed_mode(tmp_path, typed_modules, scenario)


def test_a_change_the_project_service_would_not_see_restarts_the_worker(
    tmp_path: Path, typed_modules: Path
) -> None:
    # tsconfig.json is no file ESLint lints: refreshing cannot reach the
    # service's view of it, so a fresh worker answers.
    async def scenario(root: Path, harness: Harness) -> None:
        await harness.same(list(TYPED_FILES[:3]))
        edit(root / "tsconfig.json", '"strict": true', '"strict": false')
        await harness.same(list(TYPED_FILES[:3]))
        assert harness.pool.counts.restarts == 1

    in_typed_mode(tmp_path, typed_modules, scenario)


_steps = st.lists(
    st.tuples(
        st.sampled_from(["type", "rename", "lint", "add", "delete", "config"]),
        st.sets(st.sampled_from(TYPED_FILES), min_size=1),
    ),
    min_size=2,
    max_size=4,
)


@pytest.mark.parametrize("mode", ["service", "project"])
def test_typed_warm_equals_cold_after_random_edits(
    tmp_path: Path, typed_modules: Path, mode: str
) -> None:
    require_engine("eslint")
    examples = iter(range(1000))

    @settings(
        max_examples=3,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(steps=_steps)
    def sequence(steps: list[tuple[str, set[str]]]) -> None:
        place = tmp_path / f"example{next(examples)}"
        place.mkdir()
        root = typed_project(place, typed_modules, mode)
        harness = Harness(root, place / "warm")

        async def scenario() -> None:
            try:
                await harness.same(list(TYPED_FILES))
                for step, batch in steps:
                    apply(root, step)
                    await harness.same(sorted(batch))
            finally:
                await harness.pool.close()

        asyncio.run(scenario())

    sequence()


# --- through a check ----------------------------------------------------------


_fresh_states = iter(range(1_000_000))


async def check(root: Path, context: Context | None, scope: Scope | None = None) -> CheckRun:
    """A check that runs ESLint: cold without `context`; else with its warm
    pool and an empty result cache of its own (a check keeps its pool only
    when it may use the cache, and a cached result would not run ESLint)."""
    if context is None:
        request = RunRequest(root, load_config(root), scope or Scope(), use_cache=False)
    else:
        state = root.parent / f"state{next(_fresh_states)}"
        request = RunRequest(root, load_config(root), scope or Scope(), state=state)
    return await run_check(request, context)


def eslint_issues(run: CheckRun) -> Counter[tuple[Any, ...]]:
    return Counter(
        (i.file, i.line, i.col, i.rule, i.severity, i.message)
        for i in run.result.issues
        if i.engine == "eslint"
    )


UNTYPED_CONFIG = """import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["eslint.config.mjs"] },
  { files: ["**/*.ts"], extends: [tseslint.configs.base], rules: { "no-debugger": "error" } },
);
"""


def test_typescript_eslint_without_type_information_keeps_its_worker(
    tmp_path: Path, typed_modules: Path
) -> None:
    """typescript-eslint's parser alone reads no other file: an edit elsewhere
    must not cost a fresh worker (only typed linting does, engines/eslint/warm.py)."""
    require_engine("eslint")
    root = typed_project(tmp_path, typed_modules, "service")
    (root / "eslint.config.mjs").write_text(UNTYPED_CONFIG)
    harness = Harness(root, tmp_path / "warm")

    async def scenario() -> None:
        try:
            await harness.same(list(TYPED_FILES[:3]))
            apply(root, "type")
            apply(root, "lint")
            await harness.same(["src/plain.ts", "src/use.ts"])
            assert harness.pool.counts.started == 1 and harness.pool.counts.restarts == 0
        finally:
            await harness.pool.close()

    asyncio.run(scenario())


def test_run_check_served_warm_equals_cold(tmp_path: Path, typed_modules: Path) -> None:
    require_engine("eslint")
    root = typed_project(tmp_path, typed_modules, "service")
    pool = WarmPool(MEMORY, tmp_path / "warm")
    context = Context(warm=pool)

    async def scenario() -> None:
        # One event loop throughout, as in a server: the pool's workers live in it.
        try:
            for step in ("start", "type"):
                if step != "start":
                    apply(root, step)
                for scope in (Scope(), Scope(("src/use.ts",))):
                    warm = await check(root, context, scope)
                    cold = await check(root, None, scope)
                    assert warm.result.outcomes["eslint"].served == "warm"
                    assert cold.result.outcomes["eslint"].served == "cold"
                    assert eslint_issues(warm) == eslint_issues(cold)
                    files = warm.result.outcomes["eslint"].files_checked
                    assert files == cold.result.outcomes["eslint"].files_checked
            # The worker refreshed the edited type file (engines/eslint/warm.py): no restart.
            assert pool.counts.started == 1 and pool.counts.restarts == 0
        finally:
            await pool.close()

    asyncio.run(scenario())


# --- fault injection ----------------------------------------------------------


def test_a_worker_killed_mid_session_is_restarted(tmp_path: Path) -> None:
    require_engine("eslint")
    root = copy_fixture("engines/eslint", tmp_path)
    harness = Harness(root, tmp_path / "warm")
    files = ["src/a.js", "src/bad.js"]

    async def scenario() -> None:
        await harness.same(files)
        (pid,) = [w.pid for w in harness.pool.workers()]
        os.killpg(pid, signal.SIGKILL)
        edit(root / "src/a.js", "debugger;", "")
        await harness.same(files)
        assert harness.pool.counts.restarts == 1
        assert [w.pid for w in harness.pool.workers()] != [pid]
        # Killed while answering: the pool restarts it and asks again.
        ask = asyncio.ensure_future(harness.warm(files))
        await asyncio.sleep(0.05)
        (pid,) = [w.pid for w in harness.pool.workers()]
        os.killpg(pid, signal.SIGKILL)
        result, served = await ask
        assert served == "warm" and result is not None
        assert harness.read(result) == harness.read(await harness.cold(files))
        await harness.pool.close()

    asyncio.run(scenario())


GARBAGE = """
process.stdout.write(JSON.stringify({ ready: true, version: "garbage" }) + "\\n");
require("node:readline").createInterface({ input: process.stdin }).on("line", () => {
  process.stdout.write("this is not an answer\\n");
});
"""


@pytest.fixture
def garbage_worker(tmp_path: Path) -> Iterator[Path]:
    script = tmp_path / "garbage_worker.cjs"
    script.write_text(GARBAGE)
    yield script


def test_garbage_falls_back_to_cold_and_still_equal(tmp_path: Path, garbage_worker: Path) -> None:
    require_engine("eslint")
    root = copy_fixture("engines/eslint", tmp_path)
    harness = Harness(root, tmp_path / "warm", EslintDriver(worker=garbage_worker))

    async def scenario() -> None:
        result, served = await harness.warm(["src/bad.js"])
        assert (result, served) == (None, "fallback")
        assert harness.pool.counts.restarts == 1 and harness.pool.counts.fallbacks == 1
        await harness.pool.close()

    asyncio.run(scenario())
    pool = WarmPool(MEMORY, tmp_path / "warm2", {"eslint": EslintDriver(worker=garbage_worker)})
    warm = asyncio.run(check(root, Context(warm=pool)))
    asyncio.run(pool.close())
    cold = asyncio.run(check(root, None))
    assert warm.result.outcomes["eslint"].served == "fallback"
    assert eslint_issues(warm) == eslint_issues(cold) and eslint_issues(cold)


def test_fix_commands_and_suppressions_stay_cold(tmp_path: Path) -> None:
    require_engine("eslint")
    root = copy_fixture("engines/eslint", tmp_path)
    harness = Harness(root, tmp_path / "warm")
    driver = EslintDriver()
    assert driver.key(harness.ctx, adapter.ENGINE.fix(harness.ctx, ["src/a.js"])) is None
    assert driver.key(harness.ctx, harness.command(["src/a.js"])) is not None
    (root / "eslint-suppressions.json").write_text("{}\n")
    assert driver.key(harness.ctx, harness.command(["src/a.js"])) is None


def test_the_worker_exits_when_its_stdin_closes(tmp_path: Path) -> None:
    """What a killed parent leaves it: EOF on stdin, idle or just after an answer."""
    require_engine("eslint")
    root = copy_fixture("engines/eslint", tmp_path)
    harness = Harness(root, tmp_path / "warm")
    driver = EslintDriver()
    command = harness.command(["src/a.js"])

    async def scenario() -> None:
        for asked in (False, True):
            session = await driver.open(harness.ctx, command, tmp_path / "worker.log")
            if asked:
                assert (await session.ask(command)).exit_code == 1
            session.child.stdin.close()
            for _ in range(200):
                if not session.child.alive:
                    break
                await asyncio.sleep(0.05)
            assert session.child.exit_code == 0

    asyncio.run(scenario())


def test_the_refresh_is_the_changed_files_and_refuses_what_it_cannot_bring_up_to_date() -> None:
    before = {"/p/a.ts": "1:x", "/p/b.ts": "1:y"}
    assert refreshed(before, dict(before)) == []
    assert refreshed(before, {"/p/a.ts": "2:x", "/p/b.ts": "1:y"}) == ["/p/a.ts"]
    with pytest.raises(WorkerFailed, match="added"):
        refreshed(before, {**before, "/p/c.ts": "1:z"})
    with pytest.raises(WorkerFailed, match="deleted"):
        refreshed(before, {"/p/a.ts": "1:x"})
    many = {f"/p/{n}.ts": "1:x" for n in range(MAX_REFRESH + 1)}
    with pytest.raises(WorkerFailed, match="changed"):
        refreshed(many, {p: "2:x" for p in many})

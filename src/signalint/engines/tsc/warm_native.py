"""TypeScript 7 (the native compiler) kept warm through its own API.

Which path, and why. The `typescript` 7 package ships two ways to keep the
compiler's state between checks: `--watch`, and an API to the native
compiler (`typescript/unstable/sync`, `dist/api/sync/api.js`) that runs the
compiler in a child process (`tsc --api`) holding *snapshots* of opened
projects. We use the API:

- **Freshness we can vouch for (D2).** Watch mode decides itself when and
  what to recompile (file system events), and its output does not say which
  edits a compilation saw, so an answer cannot be tied to the content on
  disk at the time of the ask. The API is told exactly what changed
  (`updateSnapshot` with `fileChanges`) and answers only afterwards.
- **Equal to cold (D23).** A snapshot's `Program` is built from the same
  parsed config; the worker asks it for the diagnostics `tsc` collects
  without emitting, in tsc's order of phases (config and syntax errors;
  only without syntax errors the options, global and semantic ones;
  declaration diagnostics when declarations would be emitted), sorts and
  deduplicates them as tsc does and prints them as `tsc --pretty false`
  does (UTF-16 line and column, message chains on lines indented two spaces
  a level, related information not printed), followed by the program's
  files (`--listFiles`, in the program's order). Exit code: 1 when anything
  was reported, else 0 (tsc 7 exits 1 for diagnostics with emit skipped,
  which `--noEmit` always is), 2 when the config found no inputs (TS18003);
  config errors it cannot recover from exit 2, but the API then opens no
  project and the cold path answers. Verified
  against cold runs on fixtures with syntax, semantic, chained, JS
  (`checkJs`), declaration (`isolatedDeclarations`), option (TS5023),
  missing type library (TS2688), no-input (TS18003) and config syntax
  errors; the differential tests hold it (tests/engines/tsc/test_tsc_native_warm.py).
- **Fast on an edit.** An updated snapshot reuses every unchanged file's
  parse and re-checks the program in the compiler process; no Node start,
  no config parse, no program construction. (A cold run of 7 has no build
  info: engines/tsc/adapter.py says why.)
- **A check of some files** (`ask_only`, `driver.Scopes`) asks the program
  for the semantic and declaration diagnostics of those files alone (the
  API takes a file for each); the rest of the answer is the whole one's.

What is served: only the plain-project command (`tsc -p CONFIG --noEmit
--pretty false --listFiles`) of a
TypeScript 7 or later install. Build mode (`tsc -b` over references,
engines/tsc/build.py) runs cold: its output (`--verbose` project lines,
per-project input lists, up-to-date projects) comes from the build
orchestrator, which the API does not expose. TypeScript 6 and older are
kept warm by their JavaScript compiler API (engines/tsc/warm.py).

Freshness by content: on every ask the worker hashes every file the last
program read (default libraries of the compiler aside: they change only
with its version) and every file the config matches now (the config is
re-parsed, so a new file matched by `include` is seen), lists the files
under the project directory a module could resolve to (node_modules, .git
and the state directory aside: a new one may be what an import outside
`include` was looking for), and hands the changed, created and deleted
ones to `updateSnapshot`. A file's hash is reused while its stat (size,
mtime, ctime, inode) is the one it had when hashed, if it had not been
written for 2 s then (the rule of our own file digests: a write that close
might not move a timestamp; any later write moves ctime); an edit that
keeps size and mtime is seen by ctime (tested). A created file then also invalidates every file
of the snapshot: 7.0.2 does not always re-resolve an import that failed
before when its module appears (seen when another snapshot came in
between), and invalidating alone does not add a new file the config
matches, so both are asked for. A changed `package.json` in or above a program
file's directory (module format, package resolution) or a changed listing
of a `node_modules` directory from the config's directory upward (a
package installed or removed) invalidates every file of the snapshot. The
config chain's content and the TypeScript version are the worker's state
(`WorkerKey.state`): a change restarts it. Not seen: a new file outside the
project directory and outside `node_modules` that an unresolved import
would now find (the compiler does not say where it looked).

The worker protocol (one JSON line each way, `tsc_native_worker.mjs`) is
written here because no library speaks "answer this tsc command" for us.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from pathlib import Path

from signalint import process
from signalint.engines.base import EngineConfigError, EngineContext
from signalint.engines.tsc.adapter import compiler, select_config
from signalint.engines.tsc.build import typescript_package
from signalint.engines.tsc.program import config_chain
from signalint.process import Child, Command, ProcessResult
from signalint.warm.driver import WorkerFailed, WorkerKey, exchange

WORKER = Path(__file__).with_name("tsc_native_worker.mjs")
START_TIMEOUT_S = 30.0
_FLAGS = ("--noEmit", "--pretty", "false", "--listFiles")


def _major(version: str) -> int | None:
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() else None


def served_config(command: Command) -> str | None:
    """The config of a plain-project command as engines/tsc/adapter.py builds it;
    None for any other command (build mode, probes)."""
    argv = command.argv
    if len(argv) != 7 or argv[1] != "-p" or tuple(argv[3:7]) != _FLAGS:
        return None
    return argv[2]


class NativeTscDriver:
    """Keeps TypeScript 7's API process warm, one per project and config
    (module docstring)."""

    engine = "tsc"

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        config = served_config(command)
        if config is None or command.argv[0] != compiler(ctx.executable):
            return None
        found = typescript_package(ctx.executable)
        if found is None:
            return None
        package, version = found
        major = _major(version)
        if major is None or major < 7 or not (package / "dist/api/sync/api.js").is_file():
            return None
        try:
            if select_config(ctx.root, ctx.target) != config:
                return None
        except EngineConfigError:
            return None
        chain = config_chain(ctx.root, config)
        if chain is None:
            return None  # a config we cannot read: freshness unprovable
        state = hashlib.sha256()
        # The state directory too: the worker leaves it out of what it lists.
        said = f"{package}\x1f{version}\x1f{ctx.state_dir}\x1f{sorted(command.env.items())}"
        state.update(said.encode())
        for rel in chain:
            try:
                content = (ctx.root / rel).read_bytes()
            except OSError:
                return None
            state.update(f"\x1e{rel}\x1f".encode() + content)
        slot = f"tsc-native\x1f{ctx.root}\x1f{config}"
        return WorkerKey(slot, state.hexdigest())

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> NativeTscSession:
        found = typescript_package(ctx.executable)
        if found is None:
            raise WorkerFailed("the TypeScript package of the executable is gone")
        package, version = found
        # `node` from PATH, as the `tsc` bin's `#!/usr/bin/env node` finds it.
        argv = ("node", str(WORKER), str(package), str(ctx.state_dir))
        started = await process.start(
            Command(argv, ctx.root, ctx.timeout_s, env=dict(command.env)), stderr_to=log
        )
        if not isinstance(started, Child):
            raise WorkerFailed(f"could not start node: {started.start_error or 'missing'}")
        greeting = exchange(started, None, "the TypeScript 7 worker")
        try:
            ready: dict[str, object] = await asyncio.wait_for(greeting, timeout=START_TIMEOUT_S)
        except (TimeoutError, WorkerFailed) as exc:
            ready = {"error": str(exc) or "no greeting in time"}
        if ready.get("ready") != version:
            await started.stop()
            raise WorkerFailed(f"the worker did not start: {str(ready)[:200]}")
        return NativeTscSession(started, f"typescript {version} (native API)")


class NativeTscSession:
    """One worker: asks it the cold command, reads the answer."""

    def __init__(self, child: Child, label: str) -> None:
        self.child = child
        self.label = label

    async def ask(self, command: Command) -> ProcessResult:
        return (await self._ask(command, None))[0]

    async def ask_only(
        self, command: Command, only: frozenset[str]
    ) -> tuple[ProcessResult, frozenset[str] | None]:
        """`ask` with the semantic and declaration diagnostics of `only`'s
        files alone (`driver.Scopes`)."""
        return await self._ask(command, only)

    async def _ask(
        self, command: Command, only: frozenset[str] | None
    ) -> tuple[ProcessResult, frozenset[str] | None]:
        config = served_config(command)
        if config is None:
            raise WorkerFailed("not a command this worker answers")
        began = time.monotonic()
        request: dict[str, object] = {"config": config}
        if only is not None:
            request["only"] = sorted(only)
        answer = await exchange(self.child, request, "the TypeScript 7 worker")
        if "error" in answer:
            raise WorkerFailed(f"the worker failed: {str(answer['error'])[:400]}")
        stdout, exit_code, scoped = answer.get("stdout"), answer.get("exit"), answer.get("scoped")
        if not isinstance(stdout, str) or exit_code not in (0, 1, 2):
            raise WorkerFailed(f"unreadable answer: {str(answer)[:120]}")
        if (scoped is None) != (only is None) or not (
            scoped is None or (isinstance(scoped, list) and all(isinstance(f, str) for f in scoped))
        ):
            raise WorkerFailed(f"unreadable answer: scoped {str(scoped)[:120]}")
        result = ProcessResult(command.argv, exit_code, stdout, "", time.monotonic() - began)
        return result, None if scoped is None else frozenset(scoped)

    async def close(self) -> None:
        await self.child.stop()

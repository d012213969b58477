"""TypeScript kept warm: a Node worker on the project's own compiler API.

The worker (`tsc_worker.cjs`, beside this module) loads `lib/typescript.js`
of the package the check's `tsc` comes from (`ctx.executable`, resolved as
for a cold run) and answers the adapter's two commands (`engines.tsc`): a
plain project (`tsc -p ... --incremental`) and build mode (`tsc -b` over the
wrapper configs of `engines.tsc_build`) with the stdout and exit code that
`tsc` would have produced, through the compiler's own command-line steps
(the same diagnostic reporter, `--listFiles` and `--verbose` writers). It
keeps each project's builder program and parsed files between asks, so an
edit re-checks only the files it affects.

Freshness (D2): on every ask the worker looks again at the config (in
`-p` mode its parse is kept while the config files and the directory
listings it read answer the same) and at every file its programs read,
reusing a parsed file only when its text is unchanged; module resolutions
are kept only while everything they asked of the file system answers the
same. Build mode builds every project of the graph from those programs,
so nothing is taken as up to date from modification times. The config
chain's content (the selected config, its `extends` bases and referenced
configs) is the worker's `WorkerKey.state`, with build mode's wrapper
configs: a config edit starts a fresh worker.

Served: TypeScript 5 and 6 (the JavaScript compiler). TypeScript 7 (the
native port, the managed default) has no JavaScript API: its commands run
cold. The worker's line protocol is our own (no maintained library exists
for it); see the worker's header.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

from signalint import process
from signalint.engines.base import EngineConfigError, EngineContext
from signalint.engines.tsc.adapter import build_plan, select_config
from signalint.engines.tsc.build import typescript_package
from signalint.engines.tsc.program import config_chain
from signalint.engines.tsc.warm_native import NativeTscDriver
from signalint.process import Child, Command, ProcessResult
from signalint.warm.driver import (
    Either,
    WorkerFailed,
    WorkerKey,
    exchange,
    greeted,
    warm_result,
)

WORKER = Path(__file__).with_name("tsc_worker.cjs")
# The TypeScript majors whose compiler API the worker drives.
SERVED_MAJORS = frozenset({5, 6})
_READY_S = 60.0  # loading typescript.js on a busy machine


def _mode(command: Command) -> str | None:
    """ "-p" or "-b" for the adapter's main commands; None for anything else."""
    argv = command.argv
    if len(argv) < 3 or argv[1] not in ("-p", "-b"):
        return None
    pairs = list(itertools.pairwise(argv))
    if ("--pretty", "false") not in pairs or "--listFiles" not in argv:
        return None
    if argv[1] == "-p" and "--incremental" not in argv:
        return None
    return argv[1]


class TscDriver:
    """The warm pool's driver for tsc (module docstring)."""

    engine = "tsc"

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        mode = _mode(command)
        if mode is None or command.argv[0] != str(ctx.executable):
            return None
        package = typescript_package(ctx.executable)
        if package is None:
            return None
        directory, version = package
        major = version.split(".", 1)[0]
        if not major.isdigit() or int(major) not in SERVED_MAJORS:
            return None
        library = directory / "lib" / "typescript.js"
        node = shutil.which("node")
        if node is None or not library.is_file():
            return None
        try:
            config = select_config(ctx.root, ctx.target)
        except EngineConfigError:
            return None
        chain = config_chain(ctx.root, config)
        if chain is None:
            return None  # an unreadable config: nothing proves freshness
        state = hashlib.sha256()
        for part in (str(library), version, os.path.realpath(node), str(WORKER)):
            state.update(part.encode() + b"\0")
        for rel in chain:
            state.update(rel.encode() + b"\0")
            try:
                state.update((ctx.root / rel).read_bytes())
            except OSError:
                return None
            state.update(b"\0")
        # The links out of the root the wrappers exclude (`project.outside`).
        state.update(repr(ctx.outside).encode() + b"\0")
        if mode == "-b":
            # The wrappers build mode wrote for this command (`tsc_build`).
            plan = build_plan(ctx, config)
            for wrapper, text in sorted(plan.contents.items()) if plan else ():
                state.update(wrapper.encode() + b"\0" + text.encode() + b"\0")
        # The program: the config `-p` names, or the root wrapper of `-b`.
        slot = "\x1f".join(("tsc", str(ctx.root), mode, command.argv[2]))
        return WorkerKey(slot=slot, state=state.hexdigest())

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> TscSession:
        package = typescript_package(ctx.executable)
        if package is None:
            raise WorkerFailed("no typescript package")
        library = package[0] / "lib" / "typescript.js"
        argv = ("node", process.node_stack_flag(), str(WORKER), str(library))
        started = await process.start(
            Command(argv=argv, cwd=command.cwd, timeout_s=command.timeout_s), stderr_to=log
        )
        if isinstance(started, ProcessResult):
            raise WorkerFailed(started.start_error or "node could not be started")
        await greeted(
            started, exchange(started, None, "the tsc worker"), "the tsc worker", _READY_S
        )
        return TscSession(started, f"typescript {package[1]}")


class TscSession:
    """One worker process and its line protocol."""

    def __init__(self, child: Child, label: str) -> None:
        self.child = child
        self.label = label
        self._last: tuple[int, str] = (0, "")  # the worker's last answer: its id, its stdout

    async def ask(self, command: Command) -> ProcessResult:
        return (await self._ask(command, None))[0]

    async def ask_only(
        self, command: Command, only: frozenset[str]
    ) -> tuple[ProcessResult, frozenset[str] | None]:
        return await self._ask(command, only)

    async def _ask(
        self, command: Command, only: frozenset[str] | None
    ) -> tuple[ProcessResult, frozenset[str] | None]:
        started = time.monotonic()
        have = self._last[0]
        request: dict[str, object] = {
            "args": list(command.argv[1:]),
            "cwd": str(command.cwd),
            "have": have,
        }
        if only is not None:
            request["only"] = sorted(only)
        data = await exchange(self.child, request, "the tsc worker")
        answered, stdout, code = data.get("id"), _stdout(data, self._last), data.get("exit")
        if (
            stdout is None
            or not _count(answered)
            or not isinstance(code, int)
            or isinstance(code, bool)
        ):
            said = data.get("error")
            raise WorkerFailed(f"the tsc worker failed: {said}" if said else "garbage answer")
        assert isinstance(answered, int)
        self._last = (answered, stdout)
        scoped = data.get("scoped")
        if scoped is not None and not (
            isinstance(scoped, list) and all(isinstance(f, str) for f in scoped)
        ):
            raise WorkerFailed("garbage answer: scoped")
        covered = None if scoped is None else frozenset(scoped)
        return warm_result(command, code, stdout, started), covered

    async def close(self) -> None:
        await self.child.stop()


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _stdout(data: Mapping[str, object], last: tuple[int, str]) -> str | None:
    """An answer's stdout: given whole, or as the change from the last answer
    (the worker's header); None when it is neither. An unchanged answer is
    the very same string, which the adapter has read already (`_read`)."""
    whole = data.get("stdout")
    if "base" not in data:
        return whole if isinstance(whole, str) else None
    base, before = last
    head, tail, middle = data.get("head"), data.get("tail"), data.get("middle")
    if data["base"] != base or not isinstance(middle, str) or not (_count(head) and _count(tail)):
        return None
    assert isinstance(head, int) and isinstance(tail, int)
    if head + tail > len(before):
        return None
    if not middle and head + tail == len(before):
        return before
    return before[:head] + middle + before[len(before) - tail :]


# TypeScript 5 and 6 through the compiler API (this module), 7 through its
# native API (`tsc_native`): the spec's `warm_driver` names this module.
DRIVER = Either(TscDriver(), NativeTscDriver())

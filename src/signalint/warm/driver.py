"""What a warm driver is: the contract between the pool and one engine's driver.

`warm.pool` asks a `Driver` (one module in each warm engine's package, named
by its spec's `warm_driver`, `warm.registry`) for the `WorkerKey` of a command and to `open` a
`Session`; a session answers the cold command's `ProcessResult`, or raises
`WorkerFailed`. `exchange`, `greeted` and `warm_result` are the line
protocol Signalint's own workers share. The pool's guarantees around every
driver are in `warm.pool`'s docstring.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from signalint.engines.base import EngineContext
from signalint.process import Child, Command, ProcessResult


class WorkerFailed(Exception):
    """A worker crashed, closed its pipe, or answered what the driver cannot
    read, or cannot vouch that its answer is current."""


@dataclass(frozen=True, slots=True)
class WorkerKey:
    """Which worker answers a command (`slot`) and what it must have been
    started with to be reused (`state`)."""

    slot: str
    state: str


class Session(Protocol):
    """One running worker as its driver talks to it."""

    child: Child
    # The engine's version or the worker's protocol, for `daemon status`.
    label: str

    async def ask(self, command: Command) -> ProcessResult:
        """The cold command's result, answered by the worker; raises
        `WorkerFailed` when it cannot."""
        ...

    async def close(self) -> None:
        """Ask the worker to exit, then stop its group."""
        ...


@runtime_checkable
class Scopes(Protocol):
    """A session that can answer for some files only (`WarmPool.answer`'s
    `only`)."""

    async def ask_only(
        self, command: Command, only: frozenset[str]
    ) -> tuple[ProcessResult, frozenset[str] | None]:
        """`ask`, with the answer limited to the diagnostics of `only`'s
        files (absolute paths) and those of no file, as they would be in
        the whole answer; the files it covers (those of `only` in the
        program), or None when it answered whole."""
        ...


@runtime_checkable
class Interrupts(Protocol):
    """A session whose worker can be told to drop the ask it is answering
    (a language server's `$/cancelRequest`): the pool calls `interrupt`
    when the check that asked was cancelled, then reads what the worker
    still sends for it. An answer failing after that is no fault."""

    def interrupt(self) -> None: ...


class Driver(Protocol):
    """How one engine is kept warm (a module per engine in `warm/`)."""

    engine: str

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        """The worker for `command`, or None when it is not served warm."""
        ...

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> Session:
        """Start a worker for `command`'s slot (its stderr appended to
        `log`); raises `WorkerFailed` when it cannot."""
        ...


class _Starts(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None: ...


S = TypeVar("S", bound=_Starts)


class Refusals:
    """The worker states a driver no longer serves warm: a worker whose
    start failed with the driver's refusal (the server would answer what
    the cold run does not) is not started again for the same state; a
    change of the state (`WorkerKey.state`) serves it warm again."""

    def __init__(self, refusal: type[Exception]) -> None:
        self._refusal = refusal
        # Slot -> the state refused.
        self._states: dict[str, str] = {}

    def admit(self, key: WorkerKey | None) -> WorkerKey | None:
        """`key`, or None when its state was refused."""
        if key is None or self._states.get(key.slot) == key.state:
            return None
        return key

    async def started(self, session: S, key: WorkerKey | None) -> S:
        """`session` once `start` returned; closed when it raised, and
        `key`'s state refused when it raised the refusal."""
        try:
            await session.start()
        except BaseException as exc:
            await session.close()
            if isinstance(exc, self._refusal) and key is not None:
                self._states[key.slot] = key.state
            raise
        return session


def option_value(command: Command, option: str) -> str | None:
    """The value after `option` in the cold command's argv, if any."""
    argv = list(command.argv)
    if option in argv:
        index = argv.index(option)
        if index + 1 < len(argv):
            return argv[index + 1]
    return None


async def greeted(
    child: Child, greeting: Awaitable[Mapping[str, object]], who: str, timeout_s: float
) -> None:
    """Wait for a new worker's greeting (`{"ready": true, ...}`); stop the
    worker and raise `WorkerFailed` when it does not come in time or says
    anything else (`who` names the worker in the message)."""
    try:
        ready = await asyncio.wait_for(greeting, timeout=timeout_s)
    except (TimeoutError, WorkerFailed) as exc:
        await child.stop(grace_s=0)
        raise WorkerFailed(f"{who} did not start: {exc}") from exc
    if ready.get("ready") is not True:
        await child.stop(grace_s=0)
        raise WorkerFailed(f"{who} did not say it was ready")


def warm_result(command: Command, exit_code: int, stdout: str, started: float) -> ProcessResult:
    """A worker's answer as the `ProcessResult` of the cold `command` (its
    stdout and exit code; `started` is when the ask began, `time.monotonic`)."""
    return ProcessResult(
        argv=command.argv,
        exit_code=exit_code,
        stdout=stdout,
        stderr="",
        duration_s=time.monotonic() - started,
    )


async def exchange(child: Child, request: Mapping[str, object] | None, who: str) -> dict[str, Any]:
    """Write `request` to a worker as one JSON line (None: write nothing, as
    for a worker's greeting) and read one JSON object back, the line
    protocol of Signalint's own workers; `WorkerFailed` on a closed pipe, a
    line past the stream limit, or anything but an object (`who` names the
    worker in the message)."""
    try:
        if request is not None:
            child.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            await child.stdin.drain()
        line = await child.stdout.readline()
    except (OSError, ValueError, RuntimeError, asyncio.LimitOverrunError) as exc:
        raise WorkerFailed(f"{who}'s pipe failed: {exc}") from exc
    if not line:
        raise WorkerFailed(f"{who} closed its output")
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise WorkerFailed(f"{who} answered what is not a JSON object: {line[:120]!r}")
    return answer


class Either:
    """Drivers of one engine for different versions of it: a command goes to
    the first whose `key` takes it (each declines the versions it does not
    serve)."""

    def __init__(self, *choices: Driver) -> None:
        self.engine = choices[0].engine
        self._choices = choices

    def _taken(self, ctx: EngineContext, command: Command) -> tuple[Driver, WorkerKey] | None:
        for index, driver in enumerate(self._choices):
            key = driver.key(ctx, command)
            if key is not None:
                return driver, WorkerKey(f"{index}:{key.slot}", key.state)
        return None

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        taken = self._taken(ctx, command)
        return None if taken is None else taken[1]

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> Session:
        taken = self._taken(ctx, command)
        if taken is None:
            raise WorkerFailed("no driver serves this command any longer")
        return await taken[0].open(ctx, command, log)

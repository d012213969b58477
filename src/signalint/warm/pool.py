"""The warm pool: long-lived engine workers, one per engine and program.

A process that checks more than once (the MCP server, the daemon) keeps a
`WarmPool` in its `Context`. The runner offers it each engine command it
is about to start cold (`answer`); the pool hands the command to the
engine's `Driver` (`warm.driver`; one module in each warm engine's package,
named by its spec, `warm.registry`), which keeps a worker for it and answers with the
`ProcessResult` the cold command would have produced: same stdout, same
exit code, so the adapter parses a warm answer exactly as a cold one
(D23). `None` means the pool did not answer and the cold path runs. A
session that can (`Scopes`) answers a check of some files for those files
alone when asked (`answer`'s `only`), and says which files it covered.

What the pool guarantees around every driver:

- **Identity.** A driver names each command's worker by a `WorkerKey`:
  `slot` (which worker: engine, project, program) and `state` (everything
  whose change needs a fresh worker: the executable, the config chain's
  content, the environment the engine sees). A slot whose state changed
  is stopped and started again (a config change restarts the worker).
- **Failure.** A worker that crashes or answers garbage (`WorkerFailed`)
  is restarted once and asked again; if that fails too, or the worker
  hangs past the command's timeout (it is killed), the cold path answers
  and the outcome says so (`served="fallback"`). Never a stale answer: a
  driver that cannot tell its worker is current raises `WorkerFailed`.
  Every failure's reason (the driver's message and the worker's stderr
  tail) is logged once and kept per engine with the fallbacks it caused
  (`warm.failures`, `WarmPool.failures`).
- **Memory.** After a worker's first answer, and after any answer at most
  once a second (`BOUND_EVERY_S`: the reading scans /proc), the workers'
  resident memory (each worker's whole process group) is summed; past
  `memory_bytes` the least recently used workers are stopped, and the one
  that just answered too if it alone is over.
- **No process left behind.** Workers run in their own process groups
  through the one subprocess door (`process.start`), and exit when their
  stdin closes, which is what a killed parent leaves them; `close` stops
  them all, `end` all at once with a short grace (a leaving server),
  `kill_all` does so synchronously (exit and signal handlers).

The pool belongs to one event loop (the workers' pipes do): asked from
another loop it stops its workers and starts afresh.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from signalint import process
from signalint.engines.base import EngineContext
from signalint.process import Command, ProcessResult
from signalint.settings.config import Config, DaemonSettings, state_dir
from signalint.warm import failures as failing
from signalint.warm.driver import (
    Driver,
    Interrupts,
    Scopes,
    Session,
    WorkerFailed,
    WorkerKey,
)

Served = Literal["warm", "fallback"]
# `SIGNALINT_DAEMON=0`: no warm workers and no daemon; every engine runs cold.
DISABLE_ENV = "SIGNALINT_DAEMON"
BOUND_EVERY_S = 1.0
# Node's flag that gives a worker `global.gc`, with which our Node workers
# collect their garbage once idle after an answer (idle_gc.cjs beside this
# module; docs/architecture.md, "Memory").
NODE_IDLE_GC = "--expose-gc"


@dataclass(slots=True)
class WarmCounts:
    """What the pool did since it was made: answers given warm, workers
    started, restarts (a worker replaced after a crash, hang, memory stop
    or config change) and fallbacks (the cold path answered instead)."""

    warm: int = 0
    started: int = 0
    restarts: int = 0
    fallbacks: int = 0

    def as_json(self) -> dict[str, int]:
        return {
            "warmAnswers": self.warm,
            "workersStarted": self.started,
            "restarts": self.restarts,
            "fallbacks": self.fallbacks,
        }


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """One live worker, as `daemon status` lists it."""

    engine: str
    slot: str
    label: str
    pid: int
    rss_bytes: int
    uptime_s: float
    restarts: int
    answers: int


@dataclass(slots=True)
class _Slot:
    engine: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    session: Session | None = None
    state: str = ""
    restarts: int = 0
    answers: int = 0
    used: float = 0.0
    # Why the next start is a restart (the worker before it was lost).
    lost: bool = False
    # Whether the worker has not answered since it started.
    fresh: bool = True


@dataclass(frozen=True, slots=True)
class WarmAnswer:
    """What the pool did with one command: `result` is the warm answer, or
    None when the cold path must run (`served` is then "fallback")."""

    result: ProcessResult | None
    served: Served
    # The files a scoped answer covers (`Scopes`); None: a whole answer.
    scoped: frozenset[str] | None = None
    # A live answer's: takes it back from the counts when nobody uses it
    # (an early ask whose check was answered by a fresh record).
    unread: Callable[[], None] | None = None


async def _ask(
    session: Session, command: Command, only: frozenset[str] | None
) -> tuple[ProcessResult, frozenset[str] | None]:
    if only is not None and isinstance(session, Scopes):
        return await session.ask_only(command, only)
    return await session.ask(command), None


def _hung(command: Command) -> str:
    """The reason of a worker that did not answer `command` in time."""
    return f"did not answer within {command.timeout_s:g} s (stopped)"


class WarmPool:
    """A process's warm workers (module docstring)."""

    def __init__(
        self,
        memory_bytes: int,
        log_dir: Path,
        drivers: Mapping[str, Driver] | None = None,
    ) -> None:
        self.memory_bytes = memory_bytes
        self.log_dir = log_dir
        self._drivers = drivers
        self._slots: dict[str, _Slot] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self.counts = WarmCounts()
        # Why workers failed, per engine, and the fallbacks it caused.
        self.failures = failing.Failures()
        self._measured = -BOUND_EVERY_S  # when the workers' memory was last read

    def drivers(self) -> Mapping[str, Driver]:
        if self._drivers is None:
            from signalint.warm.registry import drivers

            self._drivers = drivers()
        return self._drivers

    def serves(self, engine: str) -> bool:
        return engine in self.drivers()

    async def answer(
        self,
        engine: str,
        ctx: EngineContext,
        command: Command,
        *,
        live: bool = False,
        only: frozenset[str] | None = None,
    ) -> WarmAnswer | None:
        """A warm answer to `command`, a fallback, or None when `engine`'s
        command is not served warm at all (module docstring).

        `live`: only from a worker that runs already, current for the
        command; None without starting, restarting or stopping one, or when
        it fails to answer (the caller then asks as usual). `only`: the
        answer may cover just these files (absolute paths) where the
        worker can (`Scopes`; `WarmAnswer.scoped` says whether it did)."""
        driver = self.drivers().get(engine)
        if driver is None:
            return None
        key = driver.key(ctx, command)
        if key is None:
            return None
        await self._own_loop()
        slot = self._slots.get(key.slot)
        if live:
            return await self._live_answer(slot, key, ctx, command, only)
        if slot is None:
            slot = self._slots[key.slot] = _Slot(engine)
        async with slot.lock:
            slot.used = time.monotonic()
            if slot.session is not None and slot.state != key.state:
                await self._stop(slot, lost=True)
            log = self.log_dir / f"{driver.engine}.log"
            for _ in range(2):
                mark = failing.log_mark(log)
                if slot.session is None or not slot.session.child.alive:
                    if slot.session is not None:
                        await self._stop(slot, lost=True)
                    try:
                        await self._open(slot, driver, ctx, command, key)
                    except WorkerFailed as exc:
                        slot.lost = True
                        self._failed(engine, ctx, str(exc), (log, mark))
                        continue
                assert slot.session is not None
                try:
                    result, scoped = await self._ask_through(slot, command, only)
                except TimeoutError:
                    # A hang: asking again would wait as long; cold answers now.
                    await self._stop(slot, lost=True)
                    self._failed(engine, ctx, _hung(command), (log, mark))
                    break
                except WorkerFailed as exc:
                    await self._stop(slot, lost=True)
                    self._failed(engine, ctx, str(exc), (log, mark))
                    continue
                slot.answers += 1
                self.counts.warm += 1
                await self._bound_memory(slot)
                return WarmAnswer(result, "warm", scoped)
        self.counts.fallbacks += 1
        self.failures.fell_back(engine)
        return WarmAnswer(None, "fallback")

    def _failed(
        self, engine: str, ctx: EngineContext, message: str, stderr: tuple[Path, int]
    ) -> None:
        """A worker of `engine` failed: its reason (`message` and what the
        worker wrote to its log `stderr[0]` after offset `stderr[1]`) said
        and kept (`warm.failures`)."""
        said = failing.stderr_since(*stderr)
        self.failures.failed(engine, ctx.root, failing.reason(message, said))

    async def _live_answer(
        self,
        slot: _Slot | None,
        key: WorkerKey,
        ctx: EngineContext,
        command: Command,
        only: frozenset[str] | None,
    ) -> WarmAnswer | None:
        def current(slot: _Slot) -> bool:
            session = slot.session
            return session is not None and session.child.alive and slot.state == key.state

        if slot is None or not current(slot):
            return None
        async with slot.lock:
            if not current(slot):
                return None
            slot.used = time.monotonic()
            assert slot.session is not None
            log = self.log_dir / f"{slot.engine}.log"
            mark = failing.log_mark(log)
            try:
                result, scoped = await self._ask_through(slot, command, only)
            except (TimeoutError, WorkerFailed) as exc:
                await self._stop(slot, lost=True)  # the usual ask restarts it
                said = str(exc) or _hung(command)
                self._failed(slot.engine, ctx, said, (log, mark))
                return None
            slot.answers += 1
            self.counts.warm += 1
            await self._bound_memory(slot)

            def unread() -> None:
                slot.answers -= 1
                self.counts.warm -= 1

            return WarmAnswer(result, "warm", scoped, unread)

    async def _ask_through(
        self, slot: _Slot, command: Command, only: frozenset[str] | None
    ) -> tuple[ProcessResult, frozenset[str] | None]:
        """Ask `slot`'s worker under the command's timeout (the slot's lock
        held). A caller cancelled meanwhile (a newer keystroke) still lets
        the worker's answer be read, and dropped, before the lock is let
        go: a worker on a line protocol would otherwise hand this answer
        to the next ask. A session that can (`Interrupts`) is told to
        stop first; cancelled again while waiting, the worker is stopped."""
        session = slot.session
        assert session is not None
        asking = asyncio.ensure_future(
            asyncio.wait_for(_ask(session, command, only), timeout=command.timeout_s)
        )
        try:
            return await asyncio.shield(asking)
        except asyncio.CancelledError:
            if isinstance(session, Interrupts):
                session.interrupt()
            try:
                await asyncio.wait([asking])
            except asyncio.CancelledError:
                asking.cancel()
                session.child.kill()
                slot.session = None
                slot.lost = True
                raise
            problem = None if asking.cancelled() else asking.exception()
            if isinstance(problem, TimeoutError) or (
                problem is not None and not isinstance(session, Interrupts)
            ):
                await self._stop(slot, lost=True)
            raise

    async def _open(
        self, slot: _Slot, driver: Driver, ctx: EngineContext, command: Command, key: WorkerKey
    ) -> None:
        log = self.log_dir / f"{driver.engine}.log"
        slot.session = await driver.open(ctx, command, log)
        slot.state = key.state
        slot.fresh = True
        self.counts.started += 1
        if slot.lost:
            slot.restarts += 1
            self.counts.restarts += 1
            slot.lost = False

    async def _stop(self, slot: _Slot, *, lost: bool) -> None:
        session, slot.session = slot.session, None
        slot.lost = slot.lost or lost
        if session is not None:
            try:
                await asyncio.wait_for(session.close(), timeout=5)
            except Exception:
                session.child.kill()

    async def _bound_memory(self, current: _Slot) -> None:
        # Reading every process's memory costs a scan of /proc (several ms):
        # once a second, and after a worker's first answer.
        now = time.monotonic()
        if not current.fresh and now - self._measured < BOUND_EVERY_S:
            return
        current.fresh = False
        self._measured = now
        live = [s for s in self._slots.values() if s.session is not None]
        sizes = process.groups_rss({s.session.child.pid for s in live if s.session})
        total = sum(sizes.values())
        # Least recently used first; the worker that just answered last.
        for slot in sorted(live, key=lambda s: (s is current, s.used)):
            if total <= self.memory_bytes:
                return
            assert slot.session is not None
            total -= sizes.get(slot.session.child.pid, 0)
            await self._stop(slot, lost=True)

    async def _own_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is loop:
            return
        if self._loop is not None:
            # The workers' pipes belong to the old loop: they cannot be reused.
            self.kill_all()
            self._slots.clear()
        self._loop = loop

    def workers(self) -> list[WorkerInfo]:
        """The live workers, for `daemon status`."""
        live = [(name, s) for name, s in self._slots.items() if s.session is not None]
        sizes = process.groups_rss({s.session.child.pid for _, s in live if s.session})
        now = time.monotonic()
        out: list[WorkerInfo] = []
        for name, slot in live:
            session = slot.session
            assert session is not None
            child = session.child
            out.append(
                WorkerInfo(
                    engine=slot.engine,
                    slot=name,
                    label=session.label,
                    pid=child.pid,
                    rss_bytes=sizes.get(child.pid, 0),
                    uptime_s=now - child.started,
                    restarts=slot.restarts,
                    answers=slot.answers,
                )
            )
        return out

    async def close(self) -> None:
        """Stop every worker (waits for them)."""
        for slot in list(self._slots.values()):
            await self._stop(slot, lost=False)
        self._slots.clear()

    async def end(self, grace_s: float) -> None:
        """Stop every worker at once, without the goodbyes `close` says (a
        language server's shutdown request): each one's stdin is closed, all
        get `grace_s` together to exit, then each group is killed. For a
        process that is leaving (`server.leaving`)."""
        children = [s.session.child for s in self._slots.values() if s.session is not None]
        for slot in self._slots.values():
            slot.session = None
        self._slots.clear()
        await asyncio.gather(*(c.stop(grace_s) for c in children), return_exceptions=True)

    def kill_all(self) -> None:
        """Kill every worker's group now, without waiting (safe from another
        thread or a signal handler: it only sends signals)."""
        for slot in list(self._slots.values()):
            if slot.session is not None:
                slot.session.child.kill()
                slot.session = None


def open_pool(root: Path, config: Config | None) -> WarmPool | None:
    """The pool of a process that checks `root` more than once, unless
    `SIGNALINT_DAEMON=0` says to run every engine cold; its workers log to
    the state directory's `warm/` and together hold at most
    `daemon.memoryMb` (`config`; the default when it could not be read)."""
    if os.environ.get(DISABLE_ENV, "").strip() == "0":
        return None
    settings = config.daemon if config is not None else DaemonSettings()
    pool = WarmPool(settings.memory_mb * 1024 * 1024, state_dir(root) / "warm")
    # A server or daemon that exits any way but through `close` (an
    # unhandled exception, `sys.exit` in a handler) still ends its workers.
    atexit.register(pool.kill_all)
    return pool

"""The daemon: one process per project root that keeps the warm engines for
the CLI (`signalint daemon start` runs it as `python -m
signalint.daemon.server ROOT`).

It holds one `Context(warm=open_pool(root, config))` for its life and one
asyncio loop, to which the workers' pipes belong. It listens on the
project's Unix socket (`daemon.place`: mode 0600, and a connection whose
peer is another user, by SO_PEERCRED, is closed unanswered) and answers
`hello`, `status`, `stop` and `run` (`daemon.wire`).

A `check` request carries a `CheckRequest` (`daemon.values`); the daemon
answers it with `service.compute` on its loop and its one `Context`, so
every client of the project (the MCP server, `watch`, the hooks, the CLI,
the language server) is answered by the same warm workers: one pool per
project root. Requests are dispatched by name to `cmd_<op>` methods, as
mypy's dmypy server does. Checks run one at a time; the engines' progress
goes back as `{"progress": [engine, stage]}` frames before the answer. A
client whose code stamp is not the daemon's is answered `stale`. Each
request names its client (`{"client": {"kind", "pid"}}`): `status` lists
the clients attached (seen, and their process still alive).

It stops after `daemon.idleMinutes` without a `check` request (status and
hellos do not count), on `stop`, and on SIGTERM/SIGINT/SIGHUP, cancelling
a check in progress (its client falls back as when a daemon dies) and
stopping every worker first, and says so in one line of its log; a daemon
that is killed leaves workers whose stdin reaches end of file, and they
exit by themselves. A warm worker that fails is one line of its log too
(the pool's logger, `warm.failures`, written there), and `status` gives
each engine's last failure and the cold fallbacks it caused. One daemon per project: it holds
an exclusive lock on `daemon.lock` in the state directory for its life.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import logging
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import AsyncIterator, Coroutine, Sequence
from pathlib import Path
from typing import IO, Any

from signalint.cache.context import Context
from signalint.daemon import wire
from signalint.daemon.connection import Refused, check_socket
from signalint.daemon.place import Place, place, stamp
from signalint.engines.runner import Progress
from signalint.pipeline.request import ProgressScope
from signalint.settings.config import Config, ConfigError, DaemonSettings, load_config
from signalint.warm.pool import WarmPool, open_pool

# The daemon's argument when a front end starts it (`daemon.launch`).
ON_DEMAND = "--on-demand"
# A daemon started on demand with no client attached stops after this long.
ON_DEMAND_GRACE_S = 2.0
# How long the workers get to exit when the last client left.
QUICK_END_S = 0.1
# Quiet after a check's answer was written before the daemon tidies its memory.
TIDY_DELAY_S = 0.05
# How long a connection that is not a check may take to finish once the
# daemon stops (a `stop` request's own answer).
LET_FINISH_S = 1.0
# Clients remembered before those whose process has ended are forgotten
# (each hook and CLI run is a new process).
MAX_CLIENTS = 256
# Exit codes of the daemon process (read by `daemon start` from its log).
ALREADY_RUNNING = 3
CANNOT_LISTEN = 4


class Daemon:
    """One project's daemon (module docstring)."""

    def __init__(
        self,
        root: Path,
        where: Place,
        config: Config | None,
        log: IO[str],
        on_demand: bool = False,
    ) -> None:
        self.root = root
        self.where = where
        self.settings = config.daemon if config is not None else DaemonSettings()
        self.stamp = stamp()
        self.log = log
        self.pool: WarmPool | None = open_pool(root, config)
        self.shared = Context(warm=self.pool)
        self.started = time.monotonic()
        self.last_run = self.started
        self.requests = 0
        self.busy = False
        self.stopping = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        self._serial = asyncio.Lock()
        # (kind, pid) of each client seen -> when it was last seen.
        self.clients: dict[tuple[str, int], float] = {}
        # Started by a front end (`daemon.launch`), not by `daemon start`:
        # it stops once no client is attached (`idle_watch`, `cmd_detach`).
        self.on_demand = on_demand
        self.quick_end = False
        self._tidy: asyncio.TimerHandle | None = None
        # The connections being answered, and the checks among them
        # (cancelled when the daemon stops; the others are let finish).
        self.connections: set[asyncio.Task[None]] = set()
        self.checks: set[asyncio.Task[None]] = set()
        # The signal that stopped it, by name (None: it stopped otherwise).
        self.signalled: str | None = None

    def hold_tidy(self) -> None:
        """A check starts: no tidying while it runs."""
        if self._tidy is not None:
            self._tidy.cancel()
            self._tidy = None

    def tidy_later(self) -> None:
        """A check's answer is written: after `TIDY_DELAY_S` of quiet, collect
        the check's garbage and give free memory back to the system
        (`runtime.tidy`), never on an answer's path; a check arriving
        sooner cancels it."""
        from signalint.pipeline.runtime import tidy

        self.hold_tidy()
        if not self.busy:
            self._tidy = self.loop.call_later(TIDY_DELAY_S, tidy)

    def say(self, text: str) -> None:
        stamp_ = time.strftime("%Y-%m-%d %H:%M:%S")
        self.log.write(f"{stamp_} [{os.getpid()}] {text}\n")
        self.log.flush()

    @property
    def idle_s(self) -> float:
        return self.settings.idle_minutes * 60

    def status(self) -> dict[str, Any]:
        now = time.monotonic()
        workers = [] if self.pool is None else self.pool.workers()
        return {
            "running": True,
            "pid": os.getpid(),
            "root": str(self.root),
            "socket": str(self.where.socket),
            "socketNote": self.where.note,
            "uptimeS": round(now - self.started, 3),
            "idleS": round(0.0 if self.busy else now - self.last_run, 3),
            "idleStopS": self.idle_s,
            "requests": self.requests,
            "warm": self.pool is not None,
            "workers": [
                {
                    "engine": w.engine,
                    "slot": w.slot,
                    "version": w.label,
                    "pid": w.pid,
                    "rssBytes": w.rss_bytes,
                    "uptimeS": round(w.uptime_s, 3),
                    "restarts": w.restarts,
                    "answers": w.answers,
                }
                for w in workers
            ],
            "counts": None if self.pool is None else self.pool.counts.as_json(),
            # Per engine: failures, the cold fallbacks they caused, the last reason.
            "failures": {} if self.pool is None else self.pool.failures.as_json(),
            "clients": self.attached(),
            "stamp": self.stamp,
        }

    def attached(self) -> list[dict[str, Any]]:
        """The clients seen whose process still runs (the others forgotten)."""
        for key in [key for key in self.clients if not _alive(key[1])]:
            del self.clients[key]
        now = time.monotonic()
        return [
            {"kind": kind, "pid": pid, "seenS": round(now - seen, 3)}
            for (kind, pid), seen in sorted(self.clients.items())
        ]

    def seen(self, message: dict[str, Any], peer: int) -> None:
        client = message.get("client")
        if not isinstance(client, dict):
            return  # `daemon status`, `start`, `stop`: not a front end's request
        kind, pid = client.get("kind"), client.get("pid")
        if not isinstance(kind, str) or not kind or len(kind) > 40:
            kind = "unknown"
        if not isinstance(pid, int) or pid <= 0:
            pid = peer
        self.clients[(kind, pid)] = time.monotonic()
        if len(self.clients) > MAX_CLIENTS:
            self.attached()  # forgets the clients whose process has ended

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answer one connection. Cancelled (the daemon stops), it ends
        quietly: the stream's callback in Python 3.11 would log a cancelled
        connection task as an error with its traceback."""
        this = asyncio.current_task()
        if this is not None:
            self.connections.add(this)
        try:
            await self._handle(reader, writer)
        except asyncio.CancelledError:
            return
        finally:
            if this is not None:
                self.connections.discard(this)
                self.checks.discard(this)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            sock = writer.get_extra_info("socket")
            creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            pid, uid, _gid = struct.unpack("3i", creds)
            if uid != os.getuid():
                self.say(f"refused a connection from user {uid} (pid {pid})")
                return
            message = await wire.read(reader)
            this = asyncio.current_task()
            if message.get("op") == "check" and this is not None:
                self.checks.add(this)
            self.seen(message, pid)
            answer = await self.unless_gone(reader, self.answer(message, writer))
            if answer is not None:
                await wire.write(writer, answer)
            if message.get("op") == "check":
                self.tidy_later()
        except (OSError, wire.WireError) as exc:
            self.say(f"a connection failed: {exc}")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def unless_gone(
        self, reader: asyncio.StreamReader, work: Coroutine[Any, Any, dict[str, Any]]
    ) -> dict[str, Any] | None:
        """`work`'s answer, or None when the client hung up first: a client
        sends nothing after its request, so the end of its stream is its
        leaving (a cancelled check, a watch stopped with Ctrl-C), and the
        work is cancelled, which kills its engines' process groups."""
        task = asyncio.ensure_future(work)
        hangup = asyncio.ensure_future(reader.read(1))
        try:
            await asyncio.wait({task, hangup}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the daemon stops: so does the work
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            raise
        finally:
            hangup.cancel()
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        self.say("the client left before its answer: cancelled")
        return None

    async def answer(
        self, message: dict[str, Any], writer: asyncio.StreamWriter | None = None
    ) -> dict[str, Any]:
        """The answer to `message`, from the `cmd_<op>` method its op names."""
        op = message.get("op")
        command = getattr(self, f"cmd_{op}", None) if isinstance(op, str) else None
        if command is None:
            return {"error": f"unknown request {op!r}"}
        answer: dict[str, Any] = await command(message, writer)
        return answer

    async def cmd_hello(self, message: dict[str, Any], writer: Any) -> dict[str, Any]:
        return {"pid": os.getpid(), "root": str(self.root), "stamp": self.stamp}

    async def cmd_status(self, message: dict[str, Any], writer: Any) -> dict[str, Any]:
        return self.status()

    async def cmd_stop(self, message: dict[str, Any], writer: Any) -> dict[str, Any]:
        self.say("asked to stop")
        self.stopping.set()
        return {"stopping": True, "pid": os.getpid()}

    async def cmd_keep(self, message: dict[str, Any], writer: Any) -> dict[str, Any]:
        """`daemon start` found this daemon running: started on demand, it
        now stays as a started one does (until `daemon stop` or idle), not
        only while a front end is attached. `kept` is false when it is
        already stopping (the caller waits for it to end and starts one)."""
        if self.stopping.is_set():
            return {"kept": False, "pid": os.getpid()}
        if self.on_demand:
            self.say("asked to stay (daemon start): no longer stops with its last client")
            self.on_demand = False
        return {"kept": True, "pid": os.getpid()}

    async def cmd_detach(self, message: dict[str, Any], writer: Any) -> dict[str, Any]:
        """A client that leaves (the MCP server, `watch`); a daemon started
        on demand stops when it was the last one, its workers ended at once."""
        client = message.get("client")
        if isinstance(client, dict):
            self.clients.pop((str(client.get("kind")), int(client.get("pid") or 0)), None)
        if self.on_demand and not self.attached() and not self.busy:
            self.say("the last client left: stopping")
            self.quick_end = True
            self.stopping.set()
            return {"stopping": True, "pid": os.getpid()}
        return {"stopping": False, "pid": os.getpid()}

    async def cmd_check(
        self, message: dict[str, Any], writer: asyncio.StreamWriter | None
    ) -> dict[str, Any]:
        """One check (`service.compute`) of the request value the message
        carries, on this daemon's loop and `Context`; its progress goes to
        `writer` as frames before the answer."""
        from signalint import answers
        from signalint.daemon import values
        from signalint.service import check_service as service

        if message.get("stamp") != self.stamp:
            self.say("a client runs other code than this daemon (reinstalled?)")
            return {"stale": True}
        try:
            request = values.unpack_request(message.get("request"))
        except values.BadValue as exc:
            return {"error": f"request: {exc}"}
        if request.root != self.root:
            return {"error": f"request: the root {request.root} is not this daemon's {self.root}"}
        async with self._serial:
            if self.stopping.is_set():
                raise wire.WireError("stopping")
            self.busy = True
            self.hold_tidy()
            started = time.monotonic()
            try:
                progress = _progress_frames(writer) if writer is not None else None
                if progress is not None:
                    request = dataclasses.replace(request, progress=progress)
                try:
                    # What the check read, for a client keeping its answer (`answers`).
                    with answers.recording() as recorded:
                        checked = await service.compute(request, self.shared)
                except Exception as exc:  # the client raises it as in-process
                    self.say(f"check failed: {exc!r}")
                    return {"raised": values.pack_error(exc)}
            finally:
                self.busy = False
                self.requests += 1
                self.last_run = time.monotonic()
        elapsed = (time.monotonic() - started) * 1000
        client = message.get("client")
        self.say(f"checked {len(request.paths) or 'the project'} for {client} in {elapsed:.0f} ms")
        read = {
            "read": sorted(recorded.read),
            "seen": recorded.seen,
            "keepable": recorded.keepable,
        }
        return {"checked": values.pack_answer(checked), "recorded": read}

    async def idle_watch(self) -> None:
        while not self.stopping.is_set():
            # Started on demand, and every client left (or died) without saying so.
            quiet_s = time.monotonic() - self.last_run
            alone = self.on_demand and not self.busy and not self.attached()
            if alone and quiet_s > ON_DEMAND_GRACE_S:
                self.say("no client is attached: stopping")
                self.stopping.set()
                break
            left = self.idle_s - (time.monotonic() - self.last_run)
            if self.busy or left > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stopping.wait(), max(0.05, min(left, 1.0)))
                continue
            self.say(f"idle for {self.settings.idle_minutes:g} minutes: stopping")
            self.stopping.set()

    async def cancel_connections(self) -> bool:
        """Cancel the checks being answered, let the other connections (a
        `stop`'s answer, a `status`) finish within `LET_FINISH_S`, cancel
        what is left, and wait for all of them to end; whether a check was
        in progress."""
        checking = self.busy
        for task in self.checks:
            task.cancel()
        pending = [task for task in self.connections if not task.done()]
        if pending:
            _, left = await asyncio.wait(pending, timeout=LET_FINISH_S)
            for task in left:
                task.cancel()
            await asyncio.gather(*left, return_exceptions=True)
        return checking

    def stopped(self, cancelled: bool) -> None:
        """The daemon's last line: that it stopped, and why when a signal did."""
        why = [f"on {self.signalled}"] if self.signalled else []
        if cancelled:
            why.append("the check in progress cancelled")
        self.say("stopped" + (f" ({'; '.join(why)})" if why else ""))

    async def close(self) -> None:
        if self.pool is not None and self.quick_end:
            await self.pool.end(QUICK_END_S)
            return
        if self.pool is not None:
            await self.pool.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _progress_frames(writer: asyncio.StreamWriter) -> ProgressScope:
    """A `ProgressScope` that writes each (engine, stage) to `writer` as a
    frame (`daemon.wire`) ahead of the answer."""

    @contextlib.asynccontextmanager
    async def frames(engines: Sequence[str]) -> AsyncIterator[Progress]:
        def report(engine: str, stage: str) -> None:
            if not writer.is_closing():
                writer.write(wire.encode({"progress": [engine, stage]}))

        yield report

    return frames


def _lock(where: Place) -> IO[str] | None:
    """The daemon's lock on the project, or None when another daemon holds it."""
    where.state.mkdir(parents=True, exist_ok=True)
    handle = open(where.lock, "a+")  # noqa: SIM115 - held for the process's life
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _listen(where: Place) -> socket.socket:
    """The bound, listening socket, mode 0600 (a stale file from a daemon
    that died is removed: we hold the lock, so nobody serves it)."""
    path = where.socket
    with contextlib.suppress(FileNotFoundError):
        try:
            check_socket(path)
        except Refused:
            if not path.is_socket() and path.exists():
                raise
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(os.fspath(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(16)
    sock.setblocking(False)
    return sock


async def serve(root: Path, log: IO[str], on_demand: bool = False) -> int:
    from signalint.pipeline import runtime

    where = place(root, os.environ)
    held = _lock(where)
    if held is None:
        log.write(f"signalint daemon: a daemon already runs for {root}\n")
        return ALREADY_RUNNING
    try:
        config: Config | None = load_config(root)
    except ConfigError as exc:
        log.write(f"signalint daemon: {exc}; using the default daemon settings\n")
        config = None
    daemon = Daemon(root, where, config, log, on_demand)
    # Load the check code now, so the first check does not pay for it
    # (`start` returns once this is done and the socket answers).
    import signalint.daemon.values
    import signalint.service.check_service  # noqa: F401

    try:
        listening = _listen(where)
    except (OSError, Refused) as exc:
        daemon.say(f"cannot listen on {where.socket}: {exc}")
        return CANNOT_LISTEN
    identity = os.stat(where.socket).st_ino
    runtime.long_lived()
    loop = asyncio.get_running_loop()

    def signalled(signum: int) -> None:
        daemon.signalled = signal.Signals(signum).name
        daemon.stopping.set()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, signalled, signum)
    _log_warm_failures(daemon)
    server = await asyncio.start_unix_server(daemon.handle, sock=listening)
    daemon.say(f"serving {root} on {where.socket}" + (f" ({where.note})" if where.note else ""))
    watcher = asyncio.ensure_future(daemon.idle_watch())
    try:
        await daemon.stopping.wait()
    finally:
        server.close()
        with contextlib.suppress(OSError):
            if os.stat(where.socket).st_ino == identity:
                os.unlink(where.socket)
        watcher.cancel()
        cancelled = await daemon.cancel_connections()
        await daemon.close()
        daemon.stopped(cancelled)
    return 0


class _ToLog(logging.Handler):
    """Writes a record's message as a line of the daemon's log."""

    def __init__(self, daemon: Daemon) -> None:
        super().__init__(logging.INFO)
        self.daemon = daemon

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.daemon.say(record.getMessage())
        except Exception:
            self.handleError(record)


def _log_warm_failures(daemon: Daemon) -> None:
    """The warm pool's failures (`warm.failures`' logger) as lines of the
    daemon's log, in its format, and not a second time through the root
    logger's last-resort handler (the daemon's stderr is its log too)."""
    logger = logging.getLogger("signalint.warm")
    logger.addHandler(_ToLog(daemon))
    logger.propagate = False


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    on_demand = args[:1] == [ON_DEMAND]
    if on_demand:
        args = args[1:]
    if len(args) != 1:
        sys.stderr.write(f"usage: python -m signalint.daemon.server [{ON_DEMAND}] ROOT\n")
        return 2
    root = Path(os.path.realpath(args[0]))
    log = sys.stderr
    code = asyncio.run(serve(root, log, on_demand))
    log.flush()
    # A worker's reader thread must not hold the exit.
    os._exit(code)


if __name__ == "__main__":
    main()

"""The daemon: one process per project root that keeps the warm engines for
the CLI (`signalint daemon start` runs it as `python -m
signalint.daemon.server ROOT`).

It holds one `Context(warm=open_pool(root, config))` for its life and one
asyncio loop, to which the workers' pipes belong. It listens on the
project's Unix socket (`daemon.place`: mode 0600, and a connection whose
peer is another user, by SO_PEERCRED, is closed unanswered) and answers
`hello`, `status`, `stop` and `run` (`daemon.wire`).

A `run` request is a forwarded CLI invocation (`daemon.client`). Requests
run one at a time, in a worker thread: the request's environment and
working directory are applied for its duration, stdin/stdout/stderr are
the request's, and the command code is `cli.main.main` itself, as
in-process; its coroutines run on the daemon's loop with the daemon's
`Context` (`signalint.runtime`). A client whose code stamp is not the
daemon's is answered `stale` and runs in-process.

It stops after `daemon.idleMinutes` without a `run` request (status and
hellos do not count), on `stop`, and on SIGTERM/SIGINT, stopping every
worker first; a daemon that is killed leaves workers whose stdin reaches
end of file, and they exit by themselves. One daemon per project: it holds
an exclusive lock on `daemon.lock` in the state directory for its life.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import io
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import IO, Any, TypeVar

from signalint.config import Config, ConfigError, DaemonSettings, load_config
from signalint.context import Context
from signalint.daemon import wire
from signalint.daemon.client import Refused, check_socket
from signalint.daemon.place import Place, place, stamp
from signalint.warm.pool import WarmPool, open_pool

T = TypeVar("T")

# Exit codes of the daemon process (read by `daemon start` from its log).
ALREADY_RUNNING = 3
CANNOT_LISTEN = 4


class _Output(io.StringIO):
    """A captured stream that is a terminal when the client's was."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


class Daemon:
    """One project's daemon (module docstring)."""

    def __init__(self, root: Path, where: Place, config: Config | None, log: IO[str]) -> None:
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
        self._thread = concurrent.futures.ThreadPoolExecutor(1, "signalint-request")
        self._inflight: set[concurrent.futures.Future[Any]] = set()

    # `signalint.runtime.Runtime`, used from the request thread.
    def context(self) -> Context:
        return self.shared

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(work, self.loop)
        self._inflight.add(future)
        try:
            return future.result()
        finally:
            self._inflight.discard(future)

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
            "stamp": self.stamp,
        }

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            sock = writer.get_extra_info("socket")
            creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            pid, uid, _gid = struct.unpack("3i", creds)
            if uid != os.getuid():
                self.say(f"refused a connection from user {uid} (pid {pid})")
                return
            message = await wire.read(reader)
            await wire.write(writer, await self.answer(message))
        except (OSError, wire.WireError) as exc:
            self.say(f"a connection failed: {exc}")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        if op == "hello":
            return {"pid": os.getpid(), "root": str(self.root), "stamp": self.stamp}
        if op == "status":
            return self.status()
        if op == "stop":
            self.say("asked to stop")
            self.stopping.set()
            return {"stopping": True, "pid": os.getpid()}
        if op == "run":
            if message.get("stamp") != self.stamp:
                self.say("a client runs other code than this daemon (reinstalled?)")
                return {"stale": True}
            async with self._serial:
                if self.stopping.is_set():
                    raise wire.WireError("stopping")
                self.busy = True
                try:
                    return await self.loop.run_in_executor(self._thread, self.execute, message)
                finally:
                    self.busy = False
                    self.requests += 1
                    self.last_run = time.monotonic()
        return {"error": f"unknown request {op!r}"}

    def execute(self, message: dict[str, Any]) -> dict[str, Any]:
        """Run one forwarded invocation as `signalint` would in-process (in
        the request thread; module docstring)."""
        from signalint import answers
        from signalint.cli.main import main

        argv = [str(a) for a in message.get("argv", [])]
        env = {str(k): str(v) for k, v in dict(message.get("env", {})).items()}
        data = str(message.get("stdin", "")).encode("latin-1")
        encoding = str(message.get("stdinEncoding") or "utf-8")
        out, err = _Output(bool(message.get("stdoutTty"))), _Output(False)
        saved_env, saved_cwd = dict(os.environ), os.getcwd()
        saved = sys.stdin, sys.stdout, sys.stderr
        started = time.monotonic()
        kept: int | None = None
        try:
            os.chdir(str(message.get("cwd", self.root)))
            os.environ.clear()
            os.environ.update(env)
            sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding=encoding)
            sys.stdout, sys.stderr = out, err
            kept = answers.replay_invocation(argv, env)
            code = main(argv) if kept is None else kept
        except SystemExit as exc:  # as the interpreter would exit with it
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        except OSError as exc:  # the working directory vanished
            err.write(f"signalint: {exc}\n")
            code = 2
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
            os.environ.clear()
            os.environ.update(saved_env)
            with contextlib.suppress(OSError):
                os.chdir(saved_cwd)
        elapsed = (time.monotonic() - started) * 1000
        how = " (its kept answer)" if kept is not None else ""
        self.say(f"ran {' '.join(argv[:2])} -> {code} in {elapsed:.0f} ms{how}")
        return {"stdout": out.getvalue(), "stderr": err.getvalue(), "code": code}

    async def idle_watch(self) -> None:
        while not self.stopping.is_set():
            left = self.idle_s - (time.monotonic() - self.last_run)
            if self.busy or left > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stopping.wait(), max(0.05, min(left, 30.0)))
                continue
            self.say(f"idle for {self.settings.idle_minutes:g} minutes: stopping")
            self.stopping.set()

    async def close(self) -> None:
        for future in list(self._inflight):
            future.cancel()
        if self.pool is not None:
            await self.pool.close()


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


async def serve(root: Path, log: IO[str]) -> int:
    from signalint import runtime

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
    daemon = Daemon(root, where, config, log)
    # Load the command code now, so the first forwarded check does not pay
    # for it (`start` returns once this is done and the socket answers).
    import signalint.cli.check
    import signalint.cli.group
    import signalint.cli.hooks
    import signalint.hosts.hook_run
    import signalint.service  # noqa: F401

    try:
        listening = _listen(where)
    except (OSError, Refused) as exc:
        daemon.say(f"cannot listen on {where.socket}: {exc}")
        return CANNOT_LISTEN
    identity = os.stat(where.socket).st_ino
    runtime.install(daemon)
    runtime.long_lived()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, daemon.stopping.set)
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
        await daemon.close()
        daemon.say("stopped")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m signalint.daemon.server ROOT\n")
        return 2
    root = Path(os.path.realpath(args[0]))
    log = sys.stderr
    code = asyncio.run(serve(root, log))
    log.flush()
    # A request thread still blocked on the loop must not hold the exit.
    os._exit(code)


if __name__ == "__main__":
    main()

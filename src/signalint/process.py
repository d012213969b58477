"""The only place that starts a subprocess (docs/architecture.md, "Layers").

Every child gets argv (never a shell), stdin from /dev/null, its own session
(so its whole process group can be killed), a deadline and an output byte
limit. A missing executable is a result, not an exception. On timeout, on
output overflow and on cancellation the whole group is killed and reaped.

A process stopped by a signal ends its children without its event loop
(`stop_children`, called by the CLI's SIGTERM/SIGHUP handler,
`cli.stop_signals`): it kills the group of every `run` in flight
(`_RUNNING`) and of every direct child that `/proc` shows (a child whose
start is still under way in an asyncio coroutine is not in `_RUNNING`
yet), except the detached daemon; from then on this process starts no
child, and a `run` whose child started while it stopped kills that child's
group itself. So no engine outlives a stopped process, whatever its
threads and coroutines were doing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_OUTPUT_LIMIT = 64 * 1024 * 1024
# V8's default JavaScript stack, and what `node_stack_flag` gives at most.
_NODE_STACK_KIB = 984
_NODE_STACK_MAX_KIB = 65536


def node_stack_flag() -> str:
    """`--stack-size=N` (KiB) for a Node process we start: most of the main
    thread's stack limit (RLIMIT_STACK, which a child inherits) instead of
    V8's default of under 1 MiB, leaving 1 MiB for native frames (a larger
    value than the thread's stack would crash Node instead of throwing).
    TypeScript's incremental builder recurses once per importer along an
    import chain and overflows the default on long chains (docs/engines.md)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_STACK)
    if soft == resource.RLIM_INFINITY:
        kib = _NODE_STACK_MAX_KIB
    else:
        kib = min(max(soft // 1024 - 1024, _NODE_STACK_KIB), _NODE_STACK_MAX_KIB)
    return f"--stack-size={kib}"


@dataclass(frozen=True, slots=True)
class Command:
    """One process to run: argv (no shell), working directory, deadline.

    `ok_exit_codes` are the exit codes after which the output is parsed; any
    other code is an engine error unless the adapter's parse says otherwise.
    `env` is added to the inherited environment. `stdin` is written to the
    process's standard input (then closed); None gives it no input at all.
    """

    argv: tuple[str, ...]
    cwd: Path
    timeout_s: float
    ok_exit_codes: frozenset[int] = frozenset({0, 1})
    env: Mapping[str, str] = field(default_factory=dict)
    stdin: bytes | None = None


@dataclass(frozen=True, slots=True)
class ProcessResult:
    argv: tuple[str, ...]
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    output_limited: bool = False
    missing: bool = False
    start_error: str | None = None

    @property
    def finished(self) -> bool:
        """The process ran to completion on its own."""
        return self.exit_code is not None and not (
            self.timed_out or self.output_limited or self.missing or self.start_error
        )


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


# The process groups of the `run`s in flight in this process (their
# leaders' pids), for a process that must end them without its event loop.
_RUNNING: set[int] = set()

# The children started by `detach` (the daemon), which `stop_children`
# leaves running; and, once `stop_children` ran, a mark: start nothing more.
_DETACHED: set[int] = set()
_STOPPED: list[bool] = []

# What a `run` or `start` after `stop_children` answers.
STOPPED_REASON = "not started: this process is stopping"


def kill_running() -> None:
    """Kill the group of every `run` in flight now, without waiting (any
    thread; a server's last resort when its loop is busy, `server.leaving`)."""
    for pid in list(_RUNNING):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def _proc_stats() -> Iterator[tuple[int, list[bytes]]]:
    """Each live process's pid and the fields of its `/proc/<pid>/stat`
    after the command name (which may hold spaces and parentheses): state,
    ppid, pgrp, ...; rss, in pages, is the 22nd of them. Nothing where
    `/proc` cannot be read; a process gone meanwhile is passed over."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            yield int(name), stat[stat.rindex(b")") + 2 :].split()
        except (OSError, ValueError):
            continue


def _direct_children() -> list[int]:
    """The pids whose parent is this process, read from `/proc` (Linux;
    elsewhere none: the groups of `_RUNNING` are then all it kills)."""
    me = os.getpid()
    return [pid for pid, fields in _proc_stats() if int(fields[1]) == me]


def stop_children() -> None:
    """End every child this process started, now, without its event loop
    (any thread, a signal handler), and start no other: the groups of the
    `run`s in flight, then every direct child `/proc` lists (its group
    when it is in another than ours, else itself), except those `detach`
    started. Callable again (the CLI's watchdog does, before it exits, and
    the CLI when it leaves after a signal: what it adopted meanwhile)."""
    if not _STOPPED:
        _STOPPED.append(True)
    kill_running()
    ours = os.getpgrp()
    for pid in _direct_children():
        if pid in _DETACHED:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            group = os.getpgid(pid)
            if group != ours:  # an engine's group (an orphan adopted: its dead leader's)
                os.killpg(group, signal.SIGKILL)
            else:  # forked, not yet in its own session: nothing under it yet
                os.kill(pid, signal.SIGKILL)


class _Overflow(Exception):
    pass


async def _read_limited(stream: asyncio.StreamReader, sink: bytearray, budget: list[int]) -> None:
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return
        budget[0] -= len(chunk)
        if budget[0] < 0:
            raise _Overflow
        sink.extend(chunk)


async def _feed(stream: asyncio.StreamWriter | None, data: bytes | None) -> None:
    """Write `data` to the child's stdin and close it (beside the readers: no deadlock)."""
    if stream is None or data is None:
        return
    # A child that exits without reading all its input is not our failure.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.write(data)
        await stream.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.close()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


async def _start(command: Command) -> asyncio.subprocess.Process | ProcessResult:
    """The child `command` starts, in a session of its own; or the result of
    a start that failed (a missing executable is a result, not an error)."""
    if _STOPPED:
        return ProcessResult(command.argv, None, "", "", 0.0, start_error=STOPPED_REASON)
    env = {**os.environ, **command.env} if command.env else None
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *command.argv,
            cwd=str(command.cwd),
            env=env,
            stdin=asyncio.subprocess.DEVNULL if command.stdin is None else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    )
    try:
        # Shielded: a cancellation that lands while the child is starting
        # must still find the child, or its process group would survive
        # (asyncio's own clean-up kills only the direct child).
        return await asyncio.shield(spawn)
    except FileNotFoundError:
        return ProcessResult(command.argv, None, "", "", 0.0, missing=True)
    except OSError as exc:
        return ProcessResult(command.argv, None, "", "", 0.0, start_error=exc.strerror or str(exc))
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            started_proc = await spawn
            _kill_group(started_proc)
            await asyncio.wait_for(started_proc.communicate(), timeout=10)
        raise


async def run(command: Command, *, output_limit: int | None = None) -> ProcessResult:
    """Run `command` to completion, timeout, overflow or cancellation.

    Cancellation (asyncio.CancelledError) kills the process group, waits for
    the child, and re-raises.
    """
    started = time.monotonic()
    proc = await _start(command)
    if isinstance(proc, ProcessResult):
        return proc
    _RUNNING.add(proc.pid)
    if _STOPPED:  # `stop_children` ran while it started, and may have missed it
        _kill_group(proc)
    out, err = bytearray(), bytearray()
    budget = [output_limit or DEFAULT_OUTPUT_LIMIT]
    assert proc.stdout is not None and proc.stderr is not None
    readers = asyncio.gather(
        _read_limited(proc.stdout, out, budget),
        _read_limited(proc.stderr, err, budget),
        _feed(proc.stdin, command.stdin),
    )
    timed_out = overflow = False
    try:
        await asyncio.wait_for(readers, timeout=command.timeout_s)
        await asyncio.wait_for(proc.wait(), timeout=max(0.1, command.timeout_s))
    except TimeoutError:
        timed_out = True
    except _Overflow:
        overflow = True
    except BaseException:
        _kill_group(proc)
        readers.cancel()
        with contextlib.suppress(BaseException):
            await readers  # retrieve the cancellation, or asyncio reports it later
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(
                asyncio.gather(_drain(proc.stdout), _drain(proc.stderr), proc.wait()), timeout=10
            )
        raise
    finally:
        # Kill the group even after a normal exit: a grandchild that dropped
        # its pipes must not outlive the check.
        _kill_group(proc)
        _RUNNING.discard(proc.pid)
        if timed_out or overflow:
            readers.cancel()
            with contextlib.suppress(BaseException):
                await readers
            # asyncio reports the exit only once both pipes reach EOF, and a
            # pipe we stopped reading stays paused: drain what the killed
            # group left behind.
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(
                    asyncio.gather(_drain(proc.stdout), _drain(proc.stderr)), timeout=10
                )
            await proc.wait()
    return ProcessResult(
        argv=command.argv,
        exit_code=None if (timed_out or overflow) else proc.returncode,
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        duration_s=time.monotonic() - started,
        timed_out=timed_out,
        output_limited=overflow,
    )


def run_blocking(command: Command, *, output_limit: int | None = None) -> ProcessResult:
    """`run` for synchronous callers (version lookups, `engines install`)."""
    return asyncio.run(run(command, output_limit=output_limit))


class Child:
    """A long-lived child (a warm engine worker) started through `start`.

    It has pipes on stdin and stdout (stderr goes to a file or is dropped)
    and its own session, so `stop` ends its whole process group. Every
    worker Signalint runs exits when its stdin reaches end of file, which
    is what a killed parent leaves it; `stop` closes stdin first, then
    kills the group after `grace_s`.
    """

    def __init__(self, proc: asyncio.subprocess.Process, argv: tuple[str, ...]) -> None:
        self._proc = proc
        self.argv = argv
        self.pid = proc.pid
        self.started = time.monotonic()
        assert proc.stdin is not None and proc.stdout is not None
        self.stdin: asyncio.StreamWriter = proc.stdin
        self.stdout: asyncio.StreamReader = proc.stdout

    @property
    def alive(self) -> bool:
        return self._proc.returncode is None

    @property
    def exit_code(self) -> int | None:
        return self._proc.returncode

    def rss_bytes(self) -> int:
        """Resident memory of every live process of the child's group."""
        return groups_rss({self.pid})[self.pid]

    async def stop(self, grace_s: float = 2.0) -> None:
        """End the child and everything it started; waits for the child."""
        with contextlib.suppress(Exception):
            self.stdin.close()
        if self._proc.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._proc.wait(), timeout=grace_s)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._proc.wait(), timeout=10)

    def kill(self) -> None:
        """End the group now, without waiting (interpreter exit, signal
        handlers, a pool whose event loop is gone)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        transport = getattr(self._proc, "_transport", None)
        loop = getattr(transport, "_loop", None)
        if transport is not None and loop is not None and loop.is_closed():
            # The pipes' loop is gone: closing the transport would schedule
            # on it and fail. Close the pipes' descriptors ourselves and mark
            # it closed so its finalizer does not try (asyncio's own flag).
            for stream in (self.stdin.transport, self.stdout._transport):  # type: ignore[attr-defined]
                pipe = stream.get_extra_info("pipe") if stream is not None else None
                if pipe is not None:
                    with contextlib.suppress(Exception):
                        pipe.close()
            with contextlib.suppress(Exception):
                transport._closed = True


async def start(
    command: Command, *, stderr_to: Path | None = None, stream_limit: int = 1 << 26
) -> Child | ProcessResult:
    """Start a long-lived child for `command` (argv, cwd, env added to ours).

    Returns the `Child`, or a `ProcessResult` saying why it could not start
    (missing executable, start error), like `run`. `stderr_to` receives the
    child's stderr (appended), else it is discarded. `stream_limit` bounds
    one line read from its stdout.
    """
    if _STOPPED:
        return ProcessResult(command.argv, None, "", "", 0.0, start_error=STOPPED_REASON)
    env = {**os.environ, **command.env} if command.env else None
    log = None
    try:
        if stderr_to is not None:
            stderr_to.parent.mkdir(parents=True, exist_ok=True)
            log = stderr_to.open("ab")
        proc = await asyncio.create_subprocess_exec(
            *command.argv,
            cwd=str(command.cwd),
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log if log is not None else asyncio.subprocess.DEVNULL,
            start_new_session=True,
            limit=stream_limit,
        )
    except FileNotFoundError:
        return ProcessResult(command.argv, None, "", "", 0.0, missing=True)
    except OSError as exc:
        return ProcessResult(command.argv, None, "", "", 0.0, start_error=exc.strerror or str(exc))
    finally:
        if log is not None:
            log.close()
    child = Child(proc, command.argv)
    if _STOPPED:  # `stop_children` ran while it started, and may have missed it
        child.kill()
    return child


def groups_rss(pgids: set[int]) -> dict[int, int]:
    """Resident bytes of the live processes of each group in `pgids`
    (Linux `/proc`, read once; a group that cannot be read counts 0)."""
    totals = dict.fromkeys(pgids, 0)
    if not pgids:
        return totals
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    for _pid, fields in _proc_stats():
        with contextlib.suppress(ValueError, IndexError):
            group = int(fields[2])
            if group in totals:
                totals[group] += int(fields[21]) * page
    return totals


def detach(argv: tuple[str, ...], *, cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    """Start a process meant to outlive us (the daemon): argv, no input, its
    own session (a terminal's hang-up or Ctrl-C does not reach it, nor
    `stop_children` once started), stdout and stderr appended to `log`.
    Not waited for; the caller may `poll` it. Raises `OSError` when it
    cannot start."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        started = subprocess.Popen(
            argv,
            cwd=str(cwd),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )
    _DETACHED.add(started.pid)  # not ended by `stop_children`
    return started

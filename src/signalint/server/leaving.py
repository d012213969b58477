"""How the server leaves once its standard input ends.

A host ends a session by closing the server's stdin, waits a little (the
MCP Python SDK's client: 2 s) and then sends SIGTERM; a server still
writing then is killed mid-write. So the server leaves within `BUDGET_S`
of the end of its input, and in this order:

1. The SDK answers each request still being handled with its "Connection
   closed" error (the handler is cancelled) and writes out every answer
   queued for the wire.
2. The warm workers are stopped all at once (`WarmPool.end`): stdin
   closed, `STOP_GRACE_S` to exit, then each process group is killed.
3. Writes behind the answers (the local cache's, retained snapshots,
   removal of shadow copies, the remote cache's) are waited for until the
   budget is spent; what is still running is left (below).
4. The process ends with `os._exit`, after flushing its own streams: the
   interpreter's teardown (freeing every object, joining every idle pool
   thread) is tens of milliseconds that no one waits for.

The end of input is when the client has closed its end and the server
has read every byte it sent (a watcher thread, `watch`: the event loop
may be too busy to read on, importing the SDK or running a step of a
check), or when a read returns the end of a file. A request read but not
answered by the deadline gets no answer: the client said it was done
(the SDK itself answers a request in flight at the end of input with
"Connection closed"); one sent with the input closed right behind it
is answered only if the server gets to it within the budget.

Every line on the wire is written whole (`write_line`, under one lock):
when the budget ends during a write, that line is given `LINE_GRACE_S`
more (a client that stopped reading cannot hold the process beyond it).
A watchdog thread started at the end of input does the same if the event
loop is blocked at the deadline (an import, a long step of a check): it
waits for the line being written, kills the workers' groups and those of
the engine runs in flight (`on_kill`) and ends the process. SIGTERM and
SIGHUP take that path at once.

What a write left at the deadline costs: a local cache write is an SQLite
transaction, rolled back whole, so the next check runs those engines
again; a snapshot not yet on disk leaves that `checkId` unknown to later
processes (they say it is unknown or expired); a shadow copy not yet
removed stays in the temporary directory; a remote-cache batch not yet
sent is missing for other machines until a check here writes it again (a
value cut short does not open with its seal: a miss, never a wrong
answer, D24). The local store holds everything the answers said.

Only the standard library is imported here: `entry` loads this module
before the handshake.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import threading
import time
from collections.abc import Callable
from typing import Final, NoReturn

# From the end of input to the process's end (the bound hosts are promised is 0.3 s;
# the rest is the kernel reaping the process).
BUDGET_S: Final = 0.2
# What the warm workers get to exit on their own, within the budget.
STOP_GRACE_S: Final = 0.1
# What a line being written to stdout at the deadline gets to finish.
LINE_GRACE_S: Final = 1.0
# How often a client's hangup is looked at again while what it sent is still being read.
HANGUP_POLL_S: Final = 0.02


class Leaving:
    """The server's exit, timed from the end of its input (module docstring)."""

    def __init__(self, budget_s: float = BUDGET_S, end: Callable[[int], object] = os._exit) -> None:
        """`end` ends the process with a code (it must not return)."""
        self.budget_s = budget_s
        self._end = end
        self.ended_at: float | None = None
        self._writing = threading.Lock()
        self._state = threading.Lock()
        self._kills: list[Callable[[], None]] = []

    # The end of input.

    def reading(self, read: Callable[[int], bytes]) -> Callable[[int], bytes]:
        """`read` (of the wire), noting the end of input when it returns b""."""

        def noted(size: int) -> bytes:
            data = read(size)
            if not data:
                self.ended()
            return data

        return noted

    def watch(self, fd: int) -> None:
        """Note the end of input when the client closes its end of `fd` and
        every byte it sent has been read (a watcher thread: the event loop
        may be too busy to read to the end). A descriptor that never hangs
        up (a file) ends when `reading` reads its end."""
        threading.Thread(
            target=self._hangup, args=(fd,), name="signalint-hangup", daemon=True
        ).start()

    def _hangup(self, fd: int) -> None:
        poller = select.poll()
        # POLLHUP (a pipe's writer closed) is reported unasked; POLLRDHUP is
        # a socket's peer shutting down its writing side.
        poller.register(fd, getattr(select, "POLLRDHUP", 0x2000))
        while self.ended_at is None:
            try:
                events = poller.poll()
            except OSError:
                return
            if not any(flags & ~select.POLLIN for _, flags in events):
                continue
            try:
                unread = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]
            except OSError:
                unread = 0
            if unread == 0:
                self.ended()
                return
            time.sleep(HANGUP_POLL_S)  # the server is still reading what was sent

    def ended(self) -> None:
        """The input ended: start the deadline and its watchdog (once)."""
        with self._state:
            if self.ended_at is not None:
                return
            self.ended_at = time.monotonic()
        threading.Thread(target=self._watch, name="signalint-leaving", daemon=True).start()

    def left(self) -> float:
        """Seconds until the deadline (the whole budget before the input ended)."""
        if self.ended_at is None:
            return self.budget_s
        return max(0.0, self.ended_at + self.budget_s - time.monotonic())

    # The wire.

    def write_line(self, fd: int, data: bytes) -> None:
        """Write `data` (whole lines) to `fd` in full before the process may end."""
        with self._writing:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]

    # Ending.

    def on_kill(self, kill: Callable[[], None]) -> None:
        """Call `kill` (synchronous, from any thread) when the process ends
        without winding down: the watchdog, or a signal."""
        self._kills.append(kill)

    def leave(self, code: int = 0) -> NoReturn:
        """End the process now, its own streams flushed; the wire is left
        only between lines."""
        self._writing.acquire(timeout=LINE_GRACE_S)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        self._end(code)
        raise SystemExit(code)  # not reached: `end` ends the process

    def last_resort(self, code: int, why: str) -> NoReturn:
        """End without winding down: kill the workers' groups, say why, leave."""
        for kill in self._kills:
            with contextlib.suppress(Exception):
                kill()
        with contextlib.suppress(Exception):
            sys.stderr.write(f"signalint-mcp: {why}\n")
        self.leave(code)

    def on_signals(self) -> None:
        """SIGTERM and SIGHUP end the process at once, the line being
        written finished first and the workers' groups killed (call from
        the main thread)."""

        def handle(number: int, frame: object) -> None:
            name = signal.Signals(number).name
            self.last_resort(128 + number, f"{name}: workers stopped, exiting")

        for number in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, handle)

    def _watch(self) -> None:
        while (wait := self.left()) > 0:
            time.sleep(wait)
        self.last_resort(
            0,
            f"input ended {self.budget_s:g} s ago and the server was still busy: "
            "workers stopped, writes still running left (docs/architecture.md)",
        )


__all__ = ["BUDGET_S", "LINE_GRACE_S", "STOP_GRACE_S", "Leaving"]

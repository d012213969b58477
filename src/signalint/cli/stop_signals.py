"""SIGTERM and SIGHUP stop a `signalint` command as Ctrl-C does, its engines with it.

The console script (`cli.main.entry`) calls `install` before any command
but `lsp` runs (the language server, the MCP server and the daemon have
their own shutdown), once a kept answer did not answer it (a replay starts
no engine, and its path stays as cheap as it was). On either signal the
handler, in the main thread:

1. ends every child at once through the process door
   (`process.stop_children`: the process group of each engine run in
   flight and of each direct child, none started after it), before
   anything unwinds, and from then on adopts what its children leave
   orphaned, which it ends again when the command leaves
   (`_become_reaper`);
2. starts a watchdog thread that, `GRACE_S` later, ends them again and
   leaves with `os._exit` if the command is still unwinding;
3. raises `Stopped`, a `KeyboardInterrupt`, so the command unwinds as on
   Ctrl-C: asyncio cancels its tasks, each `process.run` reaps its killed
   child, writes already under way finish, `finally` blocks run. When an
   asyncio loop runs in the main thread, the loop raises it, between two
   callbacks (`call_soon_threadsafe`): raised inside a task's step, it
   would be that task's result, raised again by each task awaiting it,
   and asyncio's clean-up would stop half way ("Task was destroyed but it
   is pending!"). `main` (where click has wrapped it in `Abort`) and
   `entry` turn it into the exit status 128 + the signal's number (143,
   129), saying `signalint: stopped by SIGTERM` on stderr (`exit_code`);
   a command that ended before it was raised exits so too (`stopped`).

A second signal while it unwinds ends the process at once. Once the
command has returned its exit code, `uninstall` gives both signals their
default action back (no child runs then; a signal during the
interpreter's exit ends it as killed by that signal).

Why the children are killed first, not by the unwinding alone (Ctrl-C's
path): the exception lands wherever the main thread is, possibly inside
asyncio while a child is starting and before `process.run` holds its pid;
asyncio's clean-up then kills that child alone, not its group, and a
grandchild it had started lives on. Killing from the handler does not
depend on where the exception lands or on what other threads (asyncio's
child watcher, a worker thread's own loop) are doing, and nothing can
start after it. The watchdog bounds the exit: the unwinding cannot hang
on a pipe or a thread. Engines get SIGKILL, as on a timeout or Ctrl-C:
nothing Signalint keeps depends on an engine finishing its work; what a
cut write leaves is what a killed process leaves (an SQLite transaction
rolled back, a fix transaction undone by the next command, D9).

Imports nothing heavy: the console script's fast paths stay cheap; the
process door is looked up only when it was loaded (no engine ran without).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType

TYPE_CHECKING = False  # `typing` costs the console script milliseconds
if TYPE_CHECKING:
    from typing import Any

# How long a stopped command may take to unwind before the watchdog ends it.
GRACE_S = 5.0

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """The command was stopped by `signum` (SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class _Stop:
    """This process's stop: the signal that came first, and whether its
    line was said (by `exit_code` or by the watchdog, once)."""

    signum: int | None = None
    said = False


def install() -> None:
    """Handle SIGTERM and SIGHUP as the module docstring says (main thread)."""
    for signum in SIGNALS:
        signal.signal(signum, _on_signal)


def uninstall() -> None:
    """Give SIGTERM and SIGHUP their default action back."""
    for signum in SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


def exit_code(exc: BaseException) -> int | None:
    """The exit status for `exc` when a signal stopped the command (`exc` is
    `Stopped` or was raised from it, as click's `Abort`), after saying so on
    stderr; None otherwise."""
    seen: BaseException | None = exc
    while seen is not None and not isinstance(seen, Stopped):
        seen = seen.__cause__ or seen.__context__
    if seen is None:
        return None
    _end_children()  # what was orphaned while the command unwound
    _say(seen.signum)
    return seen.exit_code


def stopped() -> int | None:
    """The exit status of this process when a signal stopped it, after
    saying so on stderr (once); None when none came."""
    if _Stop.signum is None:
        return None
    _end_children()  # what was orphaned while the command unwound
    _say(_Stop.signum)
    return 128 + _Stop.signum


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _become_reaper()
    _end_children()
    if _Stop.signum is not None:  # a second signal: leave now
        _say(_Stop.signum)
        os._exit(128 + _Stop.signum)
    _Stop.signum = signum
    import threading

    threading.Thread(target=_watchdog, args=(signum,), name="signalint-stop", daemon=True).start()
    loop = _running_loop()
    if loop is None:
        raise Stopped(signum)
    # Raised by the loop between two callbacks, never inside a task's step
    # (a task would keep it as its result and each awaiter raise it again,
    # out of asyncio's own clean-up); written to the loop's wake-up pipe,
    # so a loop waiting in `select` runs it at once. A loop that ends
    # first leaves it to `entry` (`stopped`).
    try:
        loop.call_soon_threadsafe(_raise, signum)
    except RuntimeError:  # closed meanwhile: nothing of asyncio's runs now
        raise Stopped(signum) from None


def _raise(signum: int) -> None:
    raise Stopped(signum)


def _running_loop() -> Any:
    """The asyncio event loop running in this (the main) thread, if any
    (asyncio's events module may be loaded part way: read without raising)."""
    running = getattr(sys.modules.get("asyncio.events"), "_get_running_loop", None)
    return running() if running is not None else None


def _watchdog(signum: int) -> None:
    import time

    time.sleep(GRACE_S)
    _end_children()
    _say(signum)
    os._exit(128 + signum)


def _become_reaper() -> None:
    """From the stop on, this process adopts what its children leave
    orphaned (Linux's child subreaper), so `_end_children` finds it. An
    engine can start while the signal is handled, past the process door's
    last look: then asyncio's clean-up, cancelling that start, kills the
    engine's process alone, and what it had started lives on; adopted, it
    is ended with the rest when the command leaves (`exit_code`,
    `stopped`). Set only once stopping: a command that runs on (`watch`)
    would otherwise gather every orphan its engines leave as a zombie."""
    with contextlib.suppress(Exception):  # elsewhere than Linux: the door's kills alone
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


_PR_SET_CHILD_SUBREAPER = 36


def _end_children() -> None:
    """`process.stop_children` when the process door was loaded: without
    it no child was started (and a signal may come while it is being
    imported, before it has that function, which comes after all it uses).
    A failure here must not keep the command from stopping: passed over."""
    stop = getattr(sys.modules.get("signalint.process"), "stop_children", None)
    if stop is not None:
        with contextlib.suppress(Exception):  # the stop goes on; the watchdog tries again
            stop()


def _say(signum: int) -> None:
    if _Stop.said:
        return
    _Stop.said = True
    line = f"signalint: stopped by {signal.Signals(signum).name}; its engines were stopped\n"
    with contextlib.suppress(OSError):  # no stderr left (a hang-up's closed terminal)
        os.write(2, line.encode())

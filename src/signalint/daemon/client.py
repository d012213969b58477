"""The client API every front end checks through (the connection itself:
`daemon.connection`).

`check(request, services, kind=...)` is how the MCP server, `watch`, the
hooks, the CLI (`check`, `pre-commit`) and the language server ask for a check: it goes to the
project's daemon when one serves it (its one warm pool, `daemon.server`),
started on demand for the front ends that keep engines warm (`start=True`:
the MCP server, `watch`, the language server), used when running for the
others (the CLI, the hooks). The request value travels, the answer value
comes back (`daemon.values`), and this process keeps it (snapshot store,
session history: `service.keep`). A daemon that dies or runs other code is
restarted once; if that fails the check runs in this process, cold, and
the answer says so (`Checked.daemon_note`, the payload's `message`, the
`daemonFallbacks` of `stats`). `SIGNALINT_DAEMON=0` or `use_daemon=False`
(`--no-daemon`) checks in this process, as before.

Refused, said once on stderr: a socket that is not ours or not of mode
0600, a daemon served by another user (SO_PEERCRED).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from signalint.daemon import wire
from signalint.daemon.connection import (
    DISABLE_ENV,
    NO_DAEMON,
    QUICK_S,
    Refused,
    ask,
    check_socket,
    connect,
    disabled,
    peer_uid,
)
from signalint.daemon.place import Place, PlaceError, place, stamp

TYPE_CHECKING = False  # `typing` costs milliseconds where no check runs
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CLIENT_KINDS",
    "DISABLE_ENV",
    "NO_DAEMON",
    "QUICK_S",
    "Refused",
    "ask",
    "check",
    "check_socket",
    "connect",
    "disabled",
    "leave",
]

# --- the client API: a check through the project's daemon ------------------

# What a front end names itself as to the daemon (`daemon status`).
CLIENT_KINDS = ("mcp", "lsp", "watch", "hook", "cli", "other")


class _Gone(Exception):
    """The daemon did not answer the check (died, stale, unreadable)."""


async def _exchange(where: Place, message: dict[str, Any], report: Any) -> dict[str, Any]:
    """Send `message` to the daemon at `where` and read its answer, passing
    each progress frame to `report` (raises `_Gone`, `Refused`)."""
    import asyncio

    try:
        check_socket(where.socket)
        reader, writer = await asyncio.open_unix_connection(os.fspath(where.socket))
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        raise _Gone(f"no daemon answers on {where.socket} ({exc.strerror})") from None
    except OSError as exc:
        raise _Gone(f"cannot reach the daemon: {exc}") from None
    try:
        sock = writer.get_extra_info("socket")
        if sock is None or peer_uid(sock) != os.getuid():
            raise Refused(f"the daemon on {where.socket} runs as another user")
        await wire.write(writer, message)
        while True:
            frame = await wire.read(reader)
            step = frame.get("progress")
            if not isinstance(step, list):
                return frame
            if report is not None and len(step) == 2:
                report(str(step[0]), str(step[1]))
    except (OSError, wire.WireError) as exc:
        raise _Gone(f"the daemon did not answer ({exc})") from None
    finally:
        writer.close()
        import contextlib

        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def _ensure(root: Path, where: Place, start: bool) -> bool:
    """Whether a daemon of our code answers for `root` (one started when
    `start` and none does: raises `_Gone` when it cannot start); a daemon
    of other code is asked to stop."""
    import asyncio

    from signalint.daemon.launch import LaunchError, hello, launch

    running = await asyncio.to_thread(hello, where)
    if running is not None and running.get("stamp") != stamp():
        _say("the daemon runs other code (Signalint was reinstalled): stopping it")
        await asyncio.to_thread(_stop_quietly, where)
        running = None
    if running is not None:
        return True
    if not start:
        return False
    try:
        await asyncio.to_thread(launch, root, where)
    except LaunchError as exc:
        raise _Gone(f"cannot start it: {exc}") from None
    return True


def _recorded(value: object) -> None:
    """What the daemon's check read, counted as read by this command (whose
    answer `answers` may keep); anything unreadable makes it unkept."""
    from signalint import answers

    if not answers.is_recording():
        return
    read = value.get("read") if isinstance(value, dict) else None
    seen = value.get("seen") if isinstance(value, dict) else None
    if not isinstance(read, list) or not isinstance(seen, dict) or not isinstance(value, dict):
        answers.unkept()
        return
    answers.merge(
        [str(p) for p in read],
        {str(k): v if isinstance(v, list) else None for k, v in seen.items()},
        value.get("keepable") is True,
    )


def _stop_quietly(where: Place) -> None:
    import contextlib
    import time

    with contextlib.suppress(OSError, Refused, wire.WireError):
        pid = ask(where, {"op": "stop"}).get("pid")
        deadline = time.monotonic() + 10
        while isinstance(pid, int) and time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)


async def check(
    request: Any,
    services: Any = None,
    *,
    kind: str = "other",
    start: bool = False,
    use_daemon: bool = True,
) -> Any:
    """`service.check(request, services)`, answered by the project's daemon
    (module docstring): a `service.Checked`, kept in `services` here.

    `kind` names this front end to the daemon (`CLIENT_KINDS`); `start`
    starts a daemon when none runs; `use_daemon=False` (`--no-daemon`) or
    `SIGNALINT_DAEMON=0` checks in this process. Raises what
    `service.check` raises (`PathRefused` with the index of a refused path,
    `GitError`, `WorkspaceError`, ...)."""
    import dataclasses

    from signalint.service import check_service as service

    services = services if services is not None else service.Services()
    if not use_daemon or disabled(os.environ):
        return await service.check(request, services)
    try:
        where = place(request.root, os.environ)
    except PlaceError as exc:
        _say(f"not using the daemon: {exc}")
        return await service.check(request, services)
    note: str | None = None
    try:
        checked = await _through(request, where, kind=kind, start=start)
    except Refused as exc:
        _say(f"not using the daemon: {exc}")
        checked = None
    except _Gone as exc:
        note = f"the project's daemon failed ({exc}); this check ran in-process, cold"
        _say(note)
        checked = None
    if checked is None:
        if note is None:
            return await service.check(request, services)
        # The asking process's own memory, without warm workers: cold.
        context = services.context
        if context is not None and context.warm is not None:
            context = None
        computed = await service.compute(request, context)
        checked = dataclasses.replace(computed, daemon_note=note)
    return service.keep(checked, request, services)


async def _through(request: Any, where: Place, *, kind: str, start: bool) -> Any:
    """The daemon's answer to `request`, or None when no daemon is to be
    used (none runs and `start` is off); a daemon that fails is started
    again once (raises `_Gone` when that fails too, `Refused`)."""
    from signalint.daemon import values

    if not await _ensure(request.root, where, start):
        return None
    # Located here: a refused path raises here, as in-process.
    portable = values.portable(request)
    message = {
        "op": "check",
        "stamp": stamp(),
        "client": {"kind": kind if kind in CLIENT_KINDS else "other", "pid": os.getpid()},
        "request": values.pack_request(portable),
    }
    for attempt in (1, 2):
        try:
            async with request.progress(request.config.enabled_engines) as report:
                answer = await _exchange(where, message, report)
            if answer.get("stale"):
                raise _Gone("it runs other code (Signalint was reinstalled)")
            if "raised" in answer:
                raise values.unpack_error(answer["raised"])
            if "checked" not in answer:
                raise _Gone(f"its answer is not a check: {str(answer.get('error'))[:200]}")
            try:
                checked = values.unpack_answer(answer["checked"])
            except values.BadValue as exc:
                raise _Gone(str(exc)) from None
            _recorded(answer.get("recorded"))
            return checked
        except _Gone as exc:
            if attempt == 2:
                raise
            _say(f"the daemon did not answer ({exc}): starting it again")
            await _ensure(request.root, where, True)
    raise AssertionError("unreachable")


def _say(text: str) -> None:
    sys.stderr.write(f"signalint: {text}\n")
    sys.stderr.flush()


def leave(root: Path, kind: str, budget_s: float) -> None:
    """This front end leaves `root`'s daemon (the MCP server's exit, the end
    of a `watch`): a daemon started on demand whose last client this was
    stops, and this waits up to `budget_s` for it to be gone, its workers
    ended, so a front end that leaves leaves nothing behind. Silent: a
    daemon that is not there, or not ours, is left alone."""
    import time

    if disabled(os.environ):
        return
    try:
        where = place(root, os.environ)
        client = {"kind": kind if kind in CLIENT_KINDS else "other", "pid": os.getpid()}
        answer = ask(where, {"op": "detach", "client": client}, timeout_s=max(budget_s, 0.05))
    except (OSError, PlaceError, Refused, wire.WireError):
        return
    pid = answer.get("pid")
    if answer.get("stopping") is not True or not isinstance(pid, int):
        return
    deadline = time.monotonic() + budget_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        try:  # our child when we started it: reap it
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = 0
        if done == pid:
            return
        time.sleep(0.01)

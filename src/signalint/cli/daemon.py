"""`signalint daemon start|status|stop`: the project's daemon (`signalint.daemon`).

`start` starts it in the background and returns once it answers (or says
why it could not start; exit 1); when one runs already it says so (exit 0),
and one a front end started on demand then stays as a started one does.
`status` lists the daemon and its warm workers (exit 1 when none runs);
`stop` ends it and every worker (exit 0 also when none ran).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any, ClassVar

import click

from signalint.daemon import wire
from signalint.daemon.client import Refused, ask, disabled
from signalint.daemon.place import Place, PlaceError, place, stamp
from signalint.errors import SignalintError
from signalint.project.roots import discover_root
from signalint.wording import count

START_TIMEOUT_S = 30.0


class DaemonError(SignalintError):
    """The daemon cannot be started or reached (the reason is the message)."""

    exit_code: ClassVar[int] = 1


def _where() -> tuple[Path, Place]:
    root = discover_root()
    try:
        return root, place(root, os.environ)
    except PlaceError as exc:
        raise DaemonError(str(exc)) from None


def _hello(where: Place) -> dict[str, Any] | None:
    """The running daemon's answer to hello, or None when none answers."""
    try:
        return ask(where, {"op": "hello"})
    except Refused as exc:
        raise DaemonError(f"not using the daemon: {exc}") from None
    except (OSError, wire.WireError):
        return None


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MiB"


@click.group("daemon")
def daemon() -> None:
    """Keep the engines warm for every front end of this project.

    One daemon per project root, reached over a Unix socket in the state
    directory (mode 0600, only your user). It owns the project's one warm
    pool: while it runs, `signalint check`, `signalint hooks run`, `watch`
    and the MCP server send it their checks and print what they print
    in-process (the MCP server and `watch` start one when none runs);
    without it the CLI and the hooks run in-process. `--no-daemon` on those
    commands, or SIGNALINT_DAEMON=0, bypasses it. It stops after
    `daemon.idleMinutes` (default 30) without a check (one a front end
    started: once no front end is attached), and its workers hold at most
    `daemon.memoryMb` together.
    """


@daemon.command("start")
def start() -> int:
    """Start the project's daemon; return once it answers."""
    from signalint.daemon.launch import LaunchError, launch

    if disabled(os.environ):
        raise DaemonError("SIGNALINT_DAEMON=0 disables the daemon: unset it to start one")
    root, where = _where()
    running = _hello(where)
    if running is not None and running.get("stamp") != stamp():
        click.echo(f"stopping the daemon for {root}: it runs other code (Signalint reinstalled)")
        _stop(where, running)
        running = None
    if running is not None and _keep(where, running):
        click.echo(
            f"a daemon already runs for {root} (pid {running.get('pid')}); it stays until "
            "`signalint daemon stop` or daemon.idleMinutes without a check"
        )
        return 0
    from signalint.cli.state_access import require

    require(where.state, "the daemon keeps its socket and log there")
    try:
        answer = launch(root, where, START_TIMEOUT_S, on_demand=False)
    except LaunchError as exc:
        raise DaemonError(str(exc)) from None
    if answer.get("raced"):  # another start won the race
        click.echo(f"a daemon already runs for {root} (pid {answer.get('pid')})")
        return 0
    note = f"; {where.note}" if where.note else ""
    click.echo(f"daemon started for {root} (pid {answer.get('pid')}{note})")
    return 0


def _keep(where: Place, running: dict[str, Any]) -> bool:
    """Ask the running daemon to stay (one a front end started on demand
    would stop with its last client); False once it is gone or stopping."""
    try:
        kept = ask(where, {"op": "keep"}).get("kept") is True
    except (OSError, Refused, wire.WireError):
        kept = False
    if not kept:
        _stop(where, running)  # waits until it has ended
    return kept


def _stop(where: Place, running: dict[str, Any]) -> None:
    with contextlib.suppress(OSError, Refused, wire.WireError):
        ask(where, {"op": "stop"})
    pid = running.get("pid")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        # By its pid, or (a daemon that did not say it) until nobody answers.
        if _gone(pid) if isinstance(pid, int) else _hello(where) is None:
            return
        time.sleep(0.05)


@daemon.command("stop")
def stop() -> int:
    """Stop the project's daemon and every warm worker it runs."""
    root, where = _where()
    running = _hello(where)
    if running is None:
        click.echo(f"no daemon runs for {root}")
        return 0
    _stop(where, running)
    click.echo(f"stopped the daemon for {root} (pid {running.get('pid')})")
    return 0


def _render(data: dict[str, Any]) -> str:
    lines = [
        f"daemon:   pid {data['pid']}, up {_duration(data['uptimeS'])}, "
        f"idle {_duration(data['idleS'])} (stops after {_duration(data['idleStopS'])} idle), "
        f"{count(data['requests'], 'request')}",
        f"root:     {data['root']}",
        f"socket:   {data['socket']}",
    ]
    if data.get("socketNote"):
        lines.append(f"          ({data['socketNote']})")
    if data.get("stale"):
        lines.append("code:     other than this signalint's (reinstalled): `daemon stop` it")
    counts = data.get("counts")
    if counts is None:
        lines.append("warm:     off (SIGNALINT_DAEMON=0 when it started)")
    else:
        lines.append(
            f"warm:     {count(counts['warmAnswers'], 'warm answer')}, "
            f"{count(counts['workersStarted'], 'worker')} started, "
            f"{count(counts['restarts'], 'restart')}, {count(counts['fallbacks'], 'fallback')}"
        )
    lines += _failure_lines(data.get("failures") or {})
    clients = data.get("clients") or []
    attached = ", ".join(f"{c['kind']} (pid {c['pid']})" for c in clients)
    lines.append(f"clients:  {attached or 'none attached'}")
    workers = data["workers"]
    if not workers:
        lines.append("workers:  none running")
    for w in workers:
        lines.append(
            f"worker:   {w['engine']} {w['version']}  pid {w['pid']}  {_mib(w['rssBytes'])}  "
            f"up {_duration(w['uptimeS'])}  {count(w['restarts'], 'restart')}  "
            f"{count(w['answers'], 'answer')}"
        )
    return "\n".join(lines) + "\n"


def _failure_lines(failures: dict[str, Any]) -> list[str]:
    """Per engine whose worker failed: the cold fallbacks it caused, and
    the last reason (`warm.failures`)."""
    lines = []
    for engine, f in sorted(failures.items()):
        lines.append(
            f"failed:   {engine}: {count(f['fallbacks'], 'cold fallback')} "
            f"({count(f['failures'], 'failure')}), last {_duration(f['lastFailedS'])} ago: "
            f"{f['lastReason']}"
        )
    return lines


@daemon.command("status")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text for people; json: the daemon, each worker and each engine's failures as one object.",
)
def status(output_format: str) -> int:
    """Show the daemon (pid, uptime, idle time, root), each warm worker
    (engine, version, memory, uptime, restarts, answers) and each engine
    whose worker failed (cold fallbacks, the last reason); exit 1 if none runs."""
    root, where = _where()
    try:
        data = ask(where, {"op": "status"})
    except Refused as exc:
        raise DaemonError(f"not using the daemon: {exc}") from None
    except (OSError, wire.WireError):
        data = None
    if data is None:
        if output_format == "json":
            click.echo(json.dumps({"running": False, "root": str(root)}))
        else:
            click.echo(f"no daemon runs for {root}")
        return 1
    data["stale"] = data.get("stamp") != stamp()
    if output_format == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(_render(data), nl=False)
    return 0

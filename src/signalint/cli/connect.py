"""The MCP client step of `signalint init`: ask, print or write one client entry.

Decisions live in `signalint.hosts.connect` (what would change); this module
only talks to the person: lists candidates, asks on a terminal, prints
snippets without one, writes with `--yes`, and says how to verify (the
server's words: `server.words.verify_connection`). Returns the exit code: 1 when a client file could
not be written (a malformed one is refused with its line and column).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from signalint.hosts import settings_file
from signalint.hosts.clients import CLIENTS, Client, Scope, launcher
from signalint.hosts.connect import Plan, candidates, plan, snippet
from signalint.server.words import verify_connection


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _scope_for(client: Client, scope: str | None) -> Scope:
    if scope is None:
        return client.scopes()[0]
    if scope not in client.scopes():
        have = " or ".join(client.scopes())
        raise click.UsageError(f"{client.label} has no {scope} target; use --scope {have}")
    return "project" if scope == "project" else "user"


def print_snippet(root: Path, name: str, scope: str | None) -> None:
    client = CLIENTS[name]
    chosen = _scope_for(client, scope)
    path = client.target(chosen, root, Path.home())
    click.echo(f"# {client.label} ({chosen}): {path}", err=True)
    click.echo(snippet(client, chosen, root, launcher()), nl=False)


def _describe(p: Plan) -> str:
    return f"{p.client.label} ({p.scope}) {p.path}"


def _verify_hint(p: Plan, root: Path) -> None:
    if p.scope == "project":
        where = f"it is {root}"
    else:
        where = "it is the project the host opened (a user entry pins no root)"
    click.echo(f"Restart or reconnect {p.client.label}'s MCP servers, {verify_connection(where)}")


def _apply(p: Plan, root: Path, *, ask: bool) -> int:
    if p.action == "unchanged":
        click.echo(f"{_describe(p)} already has this signalint entry; nothing changed.")
        _record_handshake(root)
        return 0
    if p.action == "kept":
        click.echo(
            f"{_describe(p)} has its own signalint entry; it was kept. "
            "Run again with --force to replace it; the difference:"
        )
        click.echo(p.entry_diff(), nl=False)
        return 0
    if p.action == "replace":
        click.echo(f"Replacing the signalint entry of {_describe(p)}:")
        click.echo(p.entry_diff(), nl=False)
    if ask and not click.confirm(f"Write the signalint entry to {p.path}?", default=True):
        click.echo("Not written.")
        return 0
    try:
        backup = settings_file.write(p.change)
    except OSError as exc:
        click.echo(f"error: cannot write {p.path}: {exc.strerror}", err=True)
        return 1
    saved = f" (previous file kept as {backup.name})" if backup else ""
    click.echo(f"Wrote the signalint entry to {p.path}{saved}.")
    _record_handshake(root)
    _verify_hint(p, root)
    return 0


def _record_handshake(root: Path) -> None:
    """Have the server record its handshake answers now (`server.prerecord`),
    so the client's first start is answered without loading the SDK."""
    from signalint.server.prerecord import prerecord

    failure = prerecord(root)
    if failure is None:
        click.echo("Recorded the server's handshake: its first start answers at once.")
    else:
        click.echo(
            f"Could not record the server's handshake now ({failure}); the client's first "
            "start records it (that start takes about a second longer)."
        )


def connect_client(
    root: Path, name: str | None, scope: str | None, *, yes: bool, force: bool
) -> int:
    """The client step; see the module docstring."""
    home = Path.home()
    launch = launcher()
    if name is not None:
        client = CLIENTS[name]
        chosen = _scope_for(client, scope)
        p = plan(client, chosen, root, home, launch, force=force)
        if yes or _interactive():
            return _apply(p, root, ask=not yes)
        click.echo(f"No terminal to ask on, so nothing was written to {p.path}; the entry:")
        click.echo(snippet(client, chosen, root, launch), nl=False)
        click.echo(f"Write it with: signalint init --client {name} --scope {chosen} --yes")
        return 0
    found = candidates(root, home)
    if scope is not None:
        found = [(c, s) for c, s in found if s == scope]
    if not found:
        click.echo(
            "No MCP client detected. Connect one with `signalint init --client NAME "
            f"[--scope project|user]` ({', '.join(sorted(CLIENTS))})."
        )
        return 0
    if _interactive() and not yes:
        click.echo("MCP clients found (project targets first):")
        for number, (client, s) in enumerate(found, 1):
            click.echo(f"  {number}. {client.label} ({s}): {client.target(s, root, home)}")
        choice = click.prompt(
            "Connect which one? (number, 0 to skip)",
            type=click.IntRange(0, len(found)),
            default=1,
        )
        if choice == 0:
            click.echo("No client entry written.")
            return 0
        client, s = found[choice - 1]
        return _apply(plan(client, s, root, home, launch, force=force), root, ask=True)
    click.echo("MCP client entries for the detected clients (no terminal: nothing written):")
    for client, s in found:
        click.echo(f"# {client.label} ({s}): {client.target(s, root, home)}")
        click.echo(snippet(client, s, root, launch), nl=False)
    click.echo("Write one with: signalint init --client NAME --scope project|user --yes")
    return 0


__all__ = ["connect_client", "print_snippet"]

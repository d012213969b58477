"""Connect a host: detect candidate clients, plan the entry, say what would change.

`candidates` lists the registry targets whose markers exist, project targets
before user targets. `plan` computes what `init` would do to one target:

- `create`: the file does not exist yet;
- `add`: the file exists without a `signalint` entry;
- `unchanged`: our entry is already exactly there (nothing is written: a
  second run is byte-identical);
- `kept`: a different `signalint` entry exists (the user's own command, env
  or arguments) and is kept, since `force` was not given;
- `replace`: that entry is replaced (`force`); the caller shows the diff.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from signalint.hosts import settings_file
from signalint.hosts.clients import CLIENTS, SERVER_NAME, Client, Scope, entry
from signalint.hosts.settings_file import Change

Action = Literal["create", "add", "unchanged", "kept", "replace"]


@dataclass(frozen=True, slots=True)
class Plan:
    client: Client
    scope: Scope
    path: Path
    action: Action
    change: Change
    wanted: Any
    existing: Any

    @property
    def keys(self) -> tuple[str, ...]:
        return (*self.client.container, SERVER_NAME)

    def entry_diff(self) -> str:
        """The existing entry against ours, as JSON lines (for --force)."""
        import difflib

        old = json.dumps(self.existing, indent=2, sort_keys=True).splitlines(keepends=True)
        new = json.dumps(self.wanted, indent=2, sort_keys=True).splitlines(keepends=True)
        return "".join(
            difflib.unified_diff(old, new, fromfile="existing entry", tofile="new entry")
        )


def candidates(root: Path, home: Path) -> list[tuple[Client, Scope]]:
    """Detected (client, scope) pairs: every project candidate, then user ones."""
    found: list[tuple[Client, Scope]] = []
    for client in CLIENTS.values():
        if client.project and any((root / m).exists() for m in client.project_markers):
            found.append((client, "project"))
    for client in CLIENTS.values():
        if client.user and any((home / m).exists() for m in client.user_markers):
            found.append((client, "user"))
    return found


def plan(
    client: Client,
    scope: Scope,
    root: Path,
    home: Path,
    launch: tuple[str, list[str]],
    *,
    force: bool = False,
) -> Plan:
    """What writing our entry into `client`'s `scope` target would do.

    Raises `SettingsError` for a malformed file and `ValueError` for a scope
    the client has no target in.
    """
    path = client.target(scope, root, home)
    if path is None:
        have = " or ".join(client.scopes())
        raise ValueError(f"{client.label} has no {scope} target; use --scope {have}")
    wanted = entry(client, scope, root, launch)
    keys = (*client.container, SERVER_NAME)
    text = settings_file.read_text(path)
    existing = settings_file.get(settings_file.load(path, client.fmt, text), keys)
    if text is None:
        action: Action = "create"
    elif existing is None:
        action = "add"
    elif existing == wanted:
        action = "unchanged"
    else:
        action = "replace" if force else "kept"
    if action in ("unchanged", "kept"):
        change = Change(path, text, text or "")
    else:
        change = settings_file.plan_member(path, client.fmt, keys, wanted)
    return Plan(client, scope, path, action, change, wanted, existing)


def snippet(client: Client, scope: Scope, root: Path, launch: tuple[str, list[str]]) -> str:
    """The entry as a standalone file of the client's format (what `--print` shows)."""
    wanted = entry(client, scope, root, launch)
    return settings_file.pretty(wanted, client.fmt, (*client.container, SERVER_NAME))


__all__ = ["Action", "Plan", "candidates", "plan", "snippet"]

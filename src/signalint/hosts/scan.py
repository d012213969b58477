"""Scan the MCP client files of the registry for entries that would mislead a host.

For every client target (project and user) and every legacy path the
registry knows, a `signalint` entry is read the way its host reads it and
judged:

- problem: its executable no longer exists (absolute path gone, or a bare
  name not on PATH);
- problem: it pins a project root (`cwd` or `SIGNALINT_PROJECT_ROOT`) that
  does not exist, or a project file pins another root than the project it
  belongs to (a copied or moved repository);
- problem: a user file pins a root (every workspace would check that one
  repository);
- note: an entry in a path the registry labels legacy (Antigravity's
  `~/.gemini/antigravity/mcp_config.json`): a label, not proof the host
  stopped reading it;
- note: a file that does not parse (the host will not read it either).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from signalint.hosts import settings_file
from signalint.hosts.clients import CLIENTS, SERVER_NAME, Client, launch_of
from signalint.project.roots import ROOT_VARIABLE


@dataclass(frozen=True, slots=True)
class Finding:
    path: Path
    problem: bool
    message: str


def _targets(root: Path, home: Path) -> list[tuple[Client, str, Path]]:
    found: list[tuple[Client, str, Path]] = []
    for client in CLIENTS.values():
        for scope in client.scopes():
            path = client.target(scope, root, home)
            if path is not None:
                found.append((client, scope, path))
        for legacy in client.legacy_user:
            found.append((client, "legacy", home / legacy))
    return found


def scan(root: Path, home: Path) -> tuple[list[Finding], list[Path]]:
    """(findings, files holding a signalint entry) over the registry's targets."""
    findings: list[Finding] = []
    entries: list[Path] = []
    seen: set[Path] = set()
    for client, scope, path in _targets(root, home):
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        try:
            data = settings_file.load(path, client.fmt)
        except settings_file.SettingsError as exc:
            findings.append(Finding(path, False, f"{client.label}: cannot read it: {exc.reason}"))
            continue
        item = settings_file.get(data, (*client.container, SERVER_NAME))
        if item is None:
            continue
        entries.append(path)
        findings += _judge(client, scope, path, item, root)
    return findings, entries


def _judge(client: Client, scope: str, path: Path, item: object, root: Path) -> list[Finding]:
    out: list[Finding] = []
    launch = launch_of(client, item)
    if launch is None:
        return [Finding(path, True, f"{client.label}: the signalint entry names no command")]
    command = launch.argv[0]
    if os.path.isabs(command):
        if not os.access(command, os.X_OK):
            out.append(
                Finding(path, True, f"{client.label}: the entry's executable {command} is gone")
            )
    elif shutil.which(command) is None:
        out.append(Finding(path, True, f"{client.label}: {command!r} is not on PATH"))
    pinned = launch.cwd or launch.env.get(ROOT_VARIABLE)
    if scope == "legacy":
        out.append(
            Finding(
                path,
                False,
                f"{client.label}: a signalint entry in a path Signalint labels legacy; confirm "
                "which file your installed version reads before moving or removing it",
            )
        )
    if pinned is None:
        return out
    if not os.path.isdir(pinned):
        out.append(
            Finding(path, True, f"{client.label}: the entry pins {pinned}, which does not exist")
        )
    elif scope != "project":
        out.append(
            Finding(
                path,
                True,
                f"{client.label}: this user-wide entry pins one project ({pinned}); every "
                "workspace would check it. Remove its cwd/SIGNALINT_PROJECT_ROOT",
            )
        )
    elif os.path.realpath(pinned) != str(root):
        out.append(
            Finding(
                path,
                True,
                f"{client.label}: the entry pins {pinned}, not this project ({root}); "
                f"rerun `signalint init --client {client.name} --force`",
            )
        )
    return out


__all__ = ["Finding", "scan"]

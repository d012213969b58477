"""The MCP client registry: where each agent host reads its servers, and our entry.

Eight hosts: the reference's seven (Claude Code, Cursor, Codex CLI,
Antigravity, VS Code, Windsurf, Zed) plus Gemini CLI. Each has a project
target (relative to the project root) and/or a user target (relative to the
home directory), a file format, the shape of one server entry, and marker
files that make it a candidate in `init` (a hint, not proof the host is
installed).

The entry launches the installed `signalint-mcp` by absolute path (or
through `uvx`/`pipx run` when this process runs from their throwaway
environments), so a host finds it without an activated virtual environment.
A project entry pins the project root the way its host honours it (`cwd`
where the host's config has one, else `SIGNALINT_PROJECT_ROOT` in `env`); a
user entry never pins one repository.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from signalint.project.roots import ROOT_VARIABLE

Scope = Literal["project", "user"]
SCOPES: tuple[Scope, ...] = ("project", "user")
SERVER_NAME = "signalint"


@dataclass(frozen=True, slots=True)
class Client:
    """One host. `container` is the key path holding the servers table in its file."""

    name: str
    label: str
    project: str | None
    user: str | None
    fmt: Literal["json", "toml"]
    container: tuple[str, ...]
    shape: Literal["mcpServers", "vscode", "zed", "codex"]
    pins_root: Literal["cwd", "env"]
    project_markers: tuple[str, ...] = ()
    user_markers: tuple[str, ...] = ()
    legacy_user: tuple[str, ...] = ()

    def target(self, scope: Scope, root: Path, home: Path) -> Path | None:
        rel = self.project if scope == "project" else self.user
        if rel is None:
            return None
        return (root if scope == "project" else home) / rel

    def scopes(self) -> tuple[Scope, ...]:
        return tuple(s for s in SCOPES if (self.project if s == "project" else self.user))


CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        Client(
            "claude",
            "Claude Code",
            ".mcp.json",
            ".claude.json",
            "json",
            ("mcpServers",),
            "mcpServers",
            "env",
            (".mcp.json", ".claude", "CLAUDE.md"),
            (".claude.json", ".claude"),
        ),
        Client(
            "cursor",
            "Cursor",
            ".cursor/mcp.json",
            ".cursor/mcp.json",
            "json",
            ("mcpServers",),
            "mcpServers",
            "env",
            (".cursor", ".cursorrules"),
            (".cursor",),
        ),
        Client(
            "codex",
            "Codex CLI",
            ".codex/config.toml",
            ".codex/config.toml",
            "toml",
            ("mcp_servers",),
            "codex",
            "cwd",
            (".codex", "AGENTS.md"),
            (".codex",),
        ),
        Client(
            "antigravity",
            "Antigravity",
            ".agents/mcp_config.json",
            ".gemini/config/mcp_config.json",
            "json",
            ("mcpServers",),
            "mcpServers",
            "env",
            (".agents",),
            (".gemini/config", ".gemini/antigravity"),
            (".gemini/antigravity/mcp_config.json",),
        ),
        Client(
            "vscode",
            "VS Code",
            ".vscode/mcp.json",
            None,
            "json",
            ("servers",),
            "vscode",
            "env",
            (".vscode",),
        ),
        Client(
            "windsurf",
            "Windsurf",
            None,
            ".codeium/windsurf/mcp_config.json",
            "json",
            ("mcpServers",),
            "mcpServers",
            "env",
            (),
            (".codeium/windsurf",),
        ),
        Client(
            "zed",
            "Zed",
            None,
            ".config/zed/settings.json",
            "json",
            ("context_servers",),
            "zed",
            "env",
            (".zed",),
            (".config/zed",),
        ),
        Client(
            "gemini",
            "Gemini CLI",
            ".gemini/settings.json",
            ".gemini/settings.json",
            "json",
            ("mcpServers",),
            "mcpServers",
            "cwd",
            (".gemini", "GEMINI.md"),
            (".gemini/settings.json",),
        ),
    )
}


def launcher(executable: str | None = None) -> tuple[str, list[str]]:
    """The command and arguments that start the installed `signalint-mcp`.

    An ephemeral `uvx` or `pipx run` environment (under uv's archive or
    pipx's cache) disappears, so such an install is launched the same way
    again; anything else by the absolute path of the console script next to
    this interpreter (or on PATH).
    """
    prefix = sys.prefix.replace(os.sep, "/")
    if "/uv/archive-" in prefix or "/.cache/uv/" in prefix:
        return "uvx", ["--from", "signalint", "signalint-mcp"]
    if "/pipx/.cache/" in prefix or "/.cache/pipx/" in prefix:
        return "pipx", ["run", "--spec", "signalint", "signalint-mcp"]
    if executable is None:
        beside = Path(sys.executable).parent / "signalint-mcp"
        found = str(beside) if beside.exists() else shutil.which("signalint-mcp")
        executable = found or "signalint-mcp"
    return os.path.abspath(executable) if os.sep in executable else executable, []


def entry(client: Client, scope: Scope, root: Path, launch: tuple[str, list[str]]) -> Any:
    """Our server entry for `client` in `scope` (TOML entries are plain dicts too)."""
    command, args = launch
    pin: dict[str, Any] = {}
    if scope == "project":
        if client.pins_root == "cwd":
            pin = {"cwd": str(root)}
        else:
            pin = {"env": {ROOT_VARIABLE: str(root)}}
    if client.shape == "vscode":
        return {"type": "stdio", "command": command, "args": list(args), **pin}
    if client.shape == "codex":
        return {"command": command, "args": list(args), "startup_timeout_sec": 20, **pin}
    return {"command": command, "args": list(args), **pin}


@dataclass(frozen=True, slots=True)
class Launch:
    """What a host starts for an entry: the command line, extra env and cwd."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None


def launch_of(client: Client, item: Any) -> Launch | None:
    """Read an entry the way its host does; None when it names no command."""
    if not isinstance(item, dict):
        return None
    command = item.get("command")
    args = item.get("args", [])
    if isinstance(command, dict):  # Zed's older nested shape {"command": {"path", "args"}}
        args = command.get("args", [])
        command = command.get("path")
    if not isinstance(command, str) or not isinstance(args, list):
        return None
    env = item.get("env") or {}
    cwd = item.get("cwd")
    return Launch(
        [command, *(str(a) for a in args)],
        {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {},
        cwd if isinstance(cwd, str) else None,
    )


__all__ = [
    "CLIENTS",
    "SCOPES",
    "SERVER_NAME",
    "Client",
    "Launch",
    "Scope",
    "entry",
    "launch_of",
    "launcher",
]

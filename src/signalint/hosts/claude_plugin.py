"""Claude Code's plugin: the MCP server, the language server and the hooks in one directory.

Claude Code starts the servers a plugin declares (`mcpServers`,
`lspServers`) and runs its `hooks`; a plugin is installed from a
marketplace, and a marketplace may be a local directory. `write` makes
one, by default in the project's state directory (`.signalint/`, which git
ignores):

    <dir>/.claude-plugin/marketplace.json     the marketplace "signalint-local"
    <dir>/signalint/.claude-plugin/plugin.json the plugin "signalint"
    <dir>/signalint/README.md

The plugin pins the project root (`SIGNALINT_PROJECT_ROOT`) for both
servers, launches them by absolute path (`clients.launcher`,
`editors.lsp_command`), and carries the same two hooks `signalint hooks
install --runtime claude` writes (`hook_config.entries`). Installed with

    claude plugin marketplace add <dir>
    claude plugin install signalint@signalint-local

Writing again with the same inputs writes the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from signalint import __version__
from signalint.files import write_atomic
from signalint.hosts import hook_config
from signalint.hosts.clients import launcher
from signalint.hosts.editors import LANGUAGES, SERVER, lsp_command
from signalint.project.roots import ROOT_VARIABLE

MARKETPLACE: Final = "signalint-local"
PLUGIN: Final = "signalint"


def default_dir(root: Path) -> Path:
    from signalint.settings.config import state_dir

    return state_dir(root) / "claude-marketplace"


def plugin_manifest(root: Path, signalint: str | None = None) -> dict[str, Any]:
    """The plugin's `plugin.json`."""
    command, args = launcher()
    lsp = lsp_command(signalint)
    pin = {ROOT_VARIABLE: str(root)}
    hooks_command = hook_config.signalint_command("claude", [], signalint)
    events = hook_config.entries(hook_config.TARGETS["claude"], hooks_command)
    return {
        "name": PLUGIN,
        "version": __version__,
        "description": (
            "Signalint: the project's own linters and type checkers, warm, merged and "
            "ranked, as MCP tools, language-server diagnostics and post-edit hooks."
        ),
        "author": {"name": "Signalint"},
        "mcpServers": {SERVER: {"command": command, "args": list(args), "env": pin}},
        "lspServers": {
            SERVER: {
                "command": lsp[0],
                "args": lsp[1:],
                "env": pin,
                "extensionToLanguage": dict(LANGUAGES),
            }
        },
        "hooks": {event: [group] for event, group in events.items()},
    }


def marketplace_manifest() -> dict[str, Any]:
    return {
        "name": MARKETPLACE,
        "owner": {"name": "Signalint"},
        "description": "Signalint's plugin for this machine, written by `signalint init`.",
        "plugins": [
            {
                "name": PLUGIN,
                "source": f"./{PLUGIN}",
                "description": "Signalint's MCP server, language server and hooks.",
            }
        ],
    }


_README: Final = """# Signalint for Claude Code

Written by `signalint init --editor claude` for the project at {root}.
It declares Signalint's MCP server, its language server (diagnostics after
each edit) and its post-edit and stop hooks. Install it with:

    claude plugin marketplace add {where}
    claude plugin install {plugin}@{marketplace}
"""


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2) + "\n"


def write(root: Path, where: Path | None = None, signalint: str | None = None) -> Path:
    """Write the marketplace with the plugin for `root`; the marketplace directory."""
    where = where if where is not None else default_dir(root)
    plugin = where / PLUGIN
    (where / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    (plugin / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    files = {
        where / ".claude-plugin" / "marketplace.json": _dump(marketplace_manifest()),
        plugin / ".claude-plugin" / "plugin.json": _dump(plugin_manifest(root, signalint)),
        plugin / "README.md": _README.format(
            root=root, where=where, plugin=PLUGIN, marketplace=MARKETPLACE
        ),
    }
    for path, text in files.items():
        if not path.exists() or path.read_text() != text:
            write_atomic(path, text.encode("utf-8"), mode=0o644)  # read by the host
    return where


__all__ = ["MARKETPLACE", "PLUGIN", "default_dir", "marketplace_manifest", "plugin_manifest",
           "write"]  # fmt: skip

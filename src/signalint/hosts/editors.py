"""Editors' settings for `signalint lsp`: what each one needs, in its own format.

Each editor that can start a language server from its settings gets the
same command, our CLI by absolute path with `lsp` (so it is found without
an activated virtual environment), for the languages Signalint checks:

- Neovim: a `vim.lsp.config` block (Neovim 0.11+) with `vim.lsp.enable`,
  for `init.lua` or the project's `.nvim.lua`;
- Helix: `.helix/languages.toml`, a `[language-server.signalint]` table
  and the languages that use it beside their own server;
- Zed: `.zed/settings.json`, `lsp.signalint.binary` and the languages'
  `language_servers` (Zed starts a server an extension declares; see
  README "Editors");
- VS Code: no built-in generic client; the documented route is a generic
  LSP client extension, here vscode-lspconfig, whose
  `vscode-lspconfig.serverConfigurations` goes in `.vscode/settings.json`.

Claude Code's plugin (MCP server, language server and hooks in one
directory) is `hosts.claude_plugin`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from shutil import which
from typing import Final

from signalint.files import write_atomic

SERVER: Final = "signalint"
# File extension -> LSP language id, for the languages Signalint's engines check.
LANGUAGES: Final = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
    ".py": "python",
    ".pyi": "python",
}
ROOT_MARKERS: Final = (
    "signalint.config.json", ".signalint.json", "package.json", "pyproject.toml", ".git"
)  # fmt: skip


def lsp_command(executable: str | None = None) -> list[str]:
    """The command that starts the language server: `signalint lsp` by absolute path."""
    if executable is None:
        beside = Path(sys.executable).parent / "signalint"
        executable = str(beside) if beside.exists() else (which("signalint") or "signalint")
    return [executable, "lsp"]


@dataclass(frozen=True, slots=True)
class Editor:
    name: str
    label: str
    file: str  # where the snippet goes, relative to the project root
    fmt: str


EDITORS: Final = {
    e.name: e
    for e in (
        Editor("neovim", "Neovim", ".nvim.lua (or init.lua)", "lua"),
        Editor("helix", "Helix", ".helix/languages.toml", "toml"),
        Editor("zed", "Zed", ".zed/settings.json", "json"),
        Editor("vscode", "VS Code", ".vscode/settings.json", "json"),
    )
}


def _lua_list(values: list[str]) -> str:
    return "{ " + ", ".join(json.dumps(v) for v in values) + " }"


def neovim(command: list[str]) -> str:
    filetypes = sorted(set(LANGUAGES.values()))
    return (
        '-- Signalint\'s language server (Neovim 0.11+; see README "Editors" for 0.8-0.10)\n'
        f"vim.lsp.config({json.dumps(SERVER)}, {{\n"
        f"  cmd = {_lua_list(command)},\n"
        f"  filetypes = {_lua_list(filetypes)},\n"
        f"  root_markers = {_lua_list(list(ROOT_MARKERS))},\n"
        "})\n"
        f"vim.lsp.enable({json.dumps(SERVER)})\n"
    )


# Helix's language names and the server each uses by default, kept beside ours.
_HELIX: Final = (
    ("typescript", "typescript-language-server"),
    ("tsx", "typescript-language-server"),
    ("javascript", "typescript-language-server"),
    ("jsx", "typescript-language-server"),
    ("python", "ruff"),
)


def helix(command: list[str]) -> str:
    lines = [
        f"[language-server.{SERVER}]",
        f"command = {json.dumps(command[0])}",
        f"args = {json.dumps(command[1:])}",
    ]
    for language, own in _HELIX:
        lines += ["", "[[language]]", f"name = {json.dumps(language)}",
                  f"language-servers = [{json.dumps(own)}, {json.dumps(SERVER)}]"]  # fmt: skip
    return "\n".join(lines) + "\n"


_ZED: Final = ("TypeScript", "TSX", "JavaScript", "Python")


def zed(command: list[str]) -> str:
    settings = {
        "lsp": {SERVER: {"binary": {"path": command[0], "arguments": command[1:]}}},
        "languages": {name: {"language_servers": [SERVER, "..."]} for name in _ZED},
    }
    return json.dumps(settings, indent=2) + "\n"


def vscode(command: list[str]) -> str:
    selector = [{"language": lang} for lang in sorted(set(LANGUAGES.values()))]
    settings = {
        "vscode-lspconfig.serverConfigurations": [
            {"name": SERVER, "document_selector": selector, "command": command}
        ]
    }
    return json.dumps(settings, indent=2) + "\n"


_RENDER: Final = {"neovim": neovim, "helix": helix, "zed": zed, "vscode": vscode}


def snippet(name: str, executable: str | None = None) -> str:
    """The settings editor `name` needs to start `signalint lsp`."""
    return _RENDER[name](lsp_command(executable))


def write_new(root: Path, name: str, executable: str | None = None) -> Path | None:
    """Write the snippet to the editor's project file when that file does not
    exist yet (it is never merged into an existing one); the path written, or None."""
    editor = EDITORS[name]
    if editor.fmt == "lua":
        return None  # Neovim reads .nvim.lua only with 'exrc' set: printed, not written
    path = root / editor.file
    if path.exists():
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, snippet(name, executable).encode("utf-8"), mode=0o644)  # the editor's
    return path


__all__ = ["EDITORS", "LANGUAGES", "SERVER", "lsp_command", "snippet", "write_new"]

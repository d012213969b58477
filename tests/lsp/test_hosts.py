"""`signalint init --editor`: what each editor or host needs for `signalint lsp`.

Claude Code's own CLI (pinned by scripts/setup, run with a throwaway HOME)
validates the generated plugin and marketplace, installs the plugin from the
local marketplace and lists it. The other editors' files are read back in
their formats and hold the server's command.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from signalint.hosts import claude_plugin, editors

CLAUDE = (
    Path(
        os.environ.get("SIGNALINT_TEST_HOSTS", str(Path.home() / ".cache" / "signalint" / "hosts"))
    )
    / "node_modules"
    / ".bin"
    / "claude"
)
SIGNALINT = "/opt/signalint/bin/signalint"


def test_plugin_declares_both_servers_and_the_hooks(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    where = claude_plugin.write(root, tmp_path / "market", signalint=SIGNALINT)
    manifest = json.loads((where / "signalint" / ".claude-plugin" / "plugin.json").read_text())
    lsp = manifest["lspServers"]["signalint"]
    assert [lsp["command"], *lsp["args"]] == [SIGNALINT, "lsp"]
    assert lsp["env"] == {"SIGNALINT_PROJECT_ROOT": str(root)}
    assert lsp["extensionToLanguage"][".ts"] == "typescript"
    assert manifest["mcpServers"]["signalint"]["env"] == {"SIGNALINT_PROJECT_ROOT": str(root)}
    hooks = manifest["hooks"]
    assert set(hooks) == {"PostToolUse", "Stop"}
    assert "hooks run --runtime claude" in hooks["PostToolUse"][0]["hooks"][0]["command"]
    market = json.loads((where / ".claude-plugin" / "marketplace.json").read_text())
    assert market["plugins"][0]["source"] == "./signalint"
    before = {p: p.read_bytes() for p in where.rglob("*") if p.is_file()}
    claude_plugin.write(root, tmp_path / "market", signalint=SIGNALINT)
    assert {p: p.read_bytes() for p in where.rglob("*") if p.is_file()} == before


def test_editor_files_read_back(tmp_path: Path) -> None:
    helix = tomllib.loads(editors.snippet("helix", SIGNALINT))
    server = helix["language-server"]["signalint"]
    assert [server["command"], *server["args"]] == [SIGNALINT, "lsp"]
    assert all("signalint" in lang["language-servers"] for lang in helix["language"])
    zed = json.loads(editors.snippet("zed", SIGNALINT))
    assert zed["lsp"]["signalint"]["binary"] == {"path": SIGNALINT, "arguments": ["lsp"]}
    vscode = json.loads(editors.snippet("vscode", SIGNALINT))
    entry = vscode["vscode-lspconfig.serverConfigurations"][0]
    assert entry["command"] == [SIGNALINT, "lsp"]
    lua = editors.snippet("neovim", SIGNALINT)
    assert f'cmd = {{ "{SIGNALINT}", "lsp" }}' in lua and 'vim.lsp.enable("signalint")' in lua
    written = editors.write_new(tmp_path, "helix", SIGNALINT)
    assert written == tmp_path / ".helix" / "languages.toml"
    assert editors.write_new(tmp_path, "helix", SIGNALINT) is None  # never over a file


@pytest.mark.real
def test_claude_code_validates_installs_and_lists_the_plugin(tmp_path: Path) -> None:
    if not CLAUDE.exists():
        message = f"{CLAUDE} is not installed: run scripts/setup"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    root = tmp_path / "project"
    root.mkdir()
    where = claude_plugin.write(root, tmp_path / "market")
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "DISABLE_AUTOUPDATER": "1"}

    def claude(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(CLAUDE), "plugin", *args], cwd=root, env=env, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip

    for path in (where / "signalint", where):
        checked = claude("validate", str(path))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "Validation passed" in checked.stdout + checked.stderr
    added = claude("marketplace", "add", str(where))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = claude("install", f"{claude_plugin.PLUGIN}@{claude_plugin.MARKETPLACE}")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = claude("list", "--json")
    assert listed.returncode == 0, listed.stderr
    ids = [p.get("id") or p.get("name") for p in json.loads(listed.stdout)]
    assert "signalint@signalint-local" in ids, listed.stdout

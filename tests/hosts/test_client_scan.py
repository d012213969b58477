"""Doctor's scan of MCP client files: stale roots, gone executables, legacy paths."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from signalint.hosts.scan import scan


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def entry(**fields: object) -> dict[str, object]:
    return {"mcpServers": {"signalint": {"command": sys.executable, "args": [], **fields}}}


def test_a_healthy_project_entry_raises_nothing(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    home.mkdir()
    mcp = write(root / ".mcp.json", entry(env={"SIGNALINT_PROJECT_ROOT": str(root)}))
    findings, entries = scan(root, home)
    assert (findings, entries) == ([], [mcp])


def test_stale_roots_gone_executables_and_pinned_user_entries_are_problems(
    tmp_path: Path,
) -> None:
    root, home, other = tmp_path / "p", tmp_path / "h", tmp_path / "other"
    for d in (root, home, other):
        d.mkdir()
    write(root / ".cursor" / "mcp.json", entry(env={"SIGNALINT_PROJECT_ROOT": str(other)}))
    write(root / ".gemini" / "settings.json", entry(cwd=str(tmp_path / "deleted")))
    write(home / ".claude.json", entry(cwd=str(other)))
    write(
        home / ".codeium" / "windsurf" / "mcp_config.json",
        {"mcpServers": {"signalint": {"command": "/gone/signalint-mcp"}}},
    )
    findings, _ = scan(root, home)
    problems = sorted(f.message for f in findings if f.problem)
    assert len(problems) == 4
    assert any("Cursor: the entry pins" in m and "not this project" in m for m in problems)
    assert any("Gemini CLI" in m and "does not exist" in m for m in problems)
    assert any("Claude Code: this user-wide entry pins one project" in m for m in problems)
    assert any("/gone/signalint-mcp is gone" in m for m in problems)


def test_legacy_antigravity_entries_and_unreadable_files_are_notes(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    write(home / ".gemini" / "antigravity" / "mcp_config.json", entry())
    (root / ".vscode").mkdir()
    (root / ".vscode" / "mcp.json").write_text('{"servers": {')
    findings, _ = scan(root, home)
    assert [f.problem for f in findings] == [False, False]
    text = " ".join(f.message for f in findings)
    assert "labels legacy" in text and "line 1 column 14" in text

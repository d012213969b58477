"""A secret outside the root appears in no MCP answer and no state file (issue 37).

The project of tests/pipeline/test_outside_root_e2e.py (every engine, the secret
linked in four ways) checked through the real `signalint-mcp`: the whole
project, a directory, an edit's check, every issue listed; then nothing
under the state directory (cache, snapshots, session log) holds the text.
The control, the same text as a project file, is listed by the same calls.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from signalint.settings.config import state_dir
from tests.conftest import require_engine
from tests.pipeline.test_outside_root_e2e import (
    ENGINES,
    JS_SECRET,
    PY_SECRET,
    SECRET,
    link_secrets,
    make_project,
)

from .conftest import Client, connect

pytestmark = [pytest.mark.real, pytest.mark.anyio]


async def _answers(client: Client) -> list[str]:
    """Every answer of the calls, as sent (content blocks and structured content)."""
    said: list[str] = []

    async def call(name: str, arguments: dict[str, Any] | None = None) -> Any:
        result = await client.call(name, arguments)
        assert not result.error, result.text
        blocks = [getattr(b, "text", "") for b in result.raw.content]
        said.append(json.dumps([blocks, result.raw.structured_content]))
        return result.data

    whole = await call("check_project")
    await call("list_issues", {"checkId": whole["checkId"], "limit": 100})
    part = await call("check_files", {"files": ["src"]})
    await call("list_issues", {"checkId": part["checkId"], "limit": 100})
    await call("after_edit_check", {"files": ["src/main.ts"]})
    return said


def _in_state(root: Path) -> list[Path]:
    files = [p for p in state_dir(root).rglob("*") if p.is_file() and not p.is_symlink()]
    assert any(p.name.startswith("session") for p in files), "no session log was kept"
    return [p for p in files if SECRET.encode() in p.read_bytes()]


async def test_a_secret_outside_the_root_is_in_no_mcp_answer(tmp_path: Path) -> None:
    for name in ENGINES:
        require_engine(name)
    root, outside = make_project(tmp_path)
    link_secrets(root, outside)
    async with connect(root) as client:
        said = await _answers(client)
    assert [i for i, text in enumerate(said) if SECRET in text] == []
    assert _in_state(root) == []


async def test_control_the_same_text_inside_the_root_is_listed(tmp_path: Path) -> None:
    require_engine("tsc")
    root, _ = make_project(tmp_path)
    (root / "src" / "config.ts").write_text(JS_SECRET)
    (root / "src" / "config.py").write_text(PY_SECRET)
    async with connect(root) as client:
        said = await _answers(client)
    # The lists of issues (the second and fourth answers) quote it.
    assert SECRET in said[1] and SECRET in said[3]
    assert _in_state(root)

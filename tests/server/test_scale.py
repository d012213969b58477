"""Scale: an explicit array of 10,000 paths is accepted and checked in full."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import require_engine
from .conftest import connect

pytestmark = [pytest.mark.real, pytest.mark.anyio]


async def test_check_files_accepts_ten_thousand_paths(tmp_path: Path) -> None:
    require_engine("oxlint")
    root = tmp_path / "many"
    files = []
    for index in range(10_000):
        rel = f"src/d{index % 100}/f{index}.js"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "debugger;\n" if index % 1000 == 0 else "export const x = 1;\n"
        path.write_text(body)
        files.append(rel)
    (root / "package.json").write_text('{"name": "many", "private": true}\n')
    (root / ".oxlintrc.json").write_text('{"rules": {"no-debugger": "error"}}\n')
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False}})
    )
    async with connect(root) as client:
        result = await client.call("check_files", {"files": files})
        refused = await client.call("check_files", {"files": [*files, "src/d0/f0.js"]})
    assert not result.error
    assert result.data["totalIssues"] == 10
    assert result.data["engines"]["oxlint"]["status"] == "ok"
    assert refused.error and "files" in refused.text

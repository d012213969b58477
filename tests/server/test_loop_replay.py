"""Loop and churn state survive a server restart exactly (D15).

The same edit sequence runs twice: once in a single long-lived server, once
with a fresh server process for every step. Warnings appear at the same
step and `get_loop_status` ends identical, so the restarted server replayed
precisely what the live one knew.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ..conftest import require_engine
from .conftest import Client, connect, write_project

pytestmark = pytest.mark.anyio

BROKEN = "export const n: number = 'text';\n"
FIXED = "export const n: number = 1;\n"
# a.ts alternates broken/fixed (its TS2322 reappears twice: a loop), while
# b.ts keeps its error through every file check (churn from the third on).
SEQUENCE = [BROKEN, FIXED, BROKEN, FIXED, BROKEN]


async def step(client: Client, root: Path, content: str) -> dict[str, Any]:
    (root / "src" / "a.ts").write_text(content)
    first = await client.call("check_files", {"files": ["src/a.ts"]})
    second = await client.call("check_files", {"files": ["src/b.ts"]})
    return {
        "loop": first.data.get("loopWarning"),
        "churn": second.data.get("fileRuleChurnWarning"),
    }


async def test_loop_state_replays_after_every_restart(tmp_path: Path) -> None:
    require_engine("tsc")
    live_root = write_project(tmp_path / "live")
    restarted_root = tmp_path / "restarted"
    shutil.copytree(live_root, restarted_root)

    live: list[dict[str, Any]] = []
    async with connect(live_root) as client:
        for content in SEQUENCE:
            live.append(await step(client, live_root, content))
        live_status = (await client.call("get_loop_status")).data

    restarted: list[dict[str, Any]] = []
    for content in SEQUENCE:
        async with connect(restarted_root) as client:
            restarted.append(await step(client, restarted_root, content))
    async with connect(restarted_root) as client:
        restarted_status = (await client.call("get_loop_status")).data

    assert restarted == live
    assert [s["churn"] is not None for s in live] == [False, False, True, True, True]
    assert [s["loop"] is not None for s in live] == [False, False, False, False, True]
    assert live[-1]["loop"]["rule"] == "TS2322" and live[-1]["loop"]["occurrences"] == 2
    assert live[2]["churn"] == {
        "file": "src/b.ts",
        "rule": "TS2339",
        "checkCount": 3,
        "hint": live[2]["churn"]["hint"],
    }
    assert restarted_status == live_status
    assert live_status["looping"] is True and live_status["fileChurning"] is True
    assert live_status["checksObserved"] == 2 * len(SEQUENCE)

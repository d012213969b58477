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

pytestmark = [pytest.mark.real, pytest.mark.anyio]

BROKEN = "export const n: number = 'text';\n"
FIXED = "export const n: number = 1;\n"
# a.ts alternates broken/fixed: its TS2322 comes back twice (a loop, and its
# third appearance in a.ts is churn), then the fix holds. b.ts keeps its
# TS2339 untouched through every check: never churn.
SEQUENCE = [BROKEN, FIXED, BROKEN, FIXED, BROKEN, FIXED]


def warnings_of(data: dict[str, Any]) -> dict[str, Any]:
    return {k: data[k] for k in ("loopWarning", "fileRuleChurnWarning") if k in data}


async def step(client: Client, root: Path, content: str) -> dict[str, Any]:
    (root / "src" / "a.ts").write_text(content)
    first = await client.call("check_files", {"files": ["src/a.ts"]})
    second = await client.call("check_files", {"files": ["src/b.ts"]})
    return {"a": warnings_of(first.data), "b": warnings_of(second.data)}


async def test_loop_state_replays_after_every_restart(tmp_path: Path) -> None:
    require_engine("tsc")
    live_root = write_project(tmp_path / "live")
    restarted_root = tmp_path / "restarted"
    shutil.copytree(live_root, restarted_root)

    live: list[dict[str, Any]] = []
    async with connect(live_root) as client:
        for content in SEQUENCE[:-1]:
            live.append(await step(client, live_root, content))
        looping_status = (await client.call("get_loop_status")).data
        live.append(await step(client, live_root, SEQUENCE[-1]))
        live_status = (await client.call("get_loop_status")).data

    restarted: list[dict[str, Any]] = []
    for content in SEQUENCE:
        async with connect(restarted_root) as client:
            restarted.append(await step(client, restarted_root, content))
    async with connect(restarted_root) as client:
        restarted_status = (await client.call("get_loop_status")).data

    assert restarted == live
    # the untouched error in b.ts never warns
    assert [s["b"] for s in live] == [{}] * len(SEQUENCE)
    assert [sorted(s["a"]) for s in live] == [
        [],
        [],
        [],
        [],
        ["fileRuleChurnWarning", "loopWarning"],
        [],
    ]
    warned = live[4]["a"]
    assert warned["loopWarning"]["signature"].startswith("TS2322:")
    assert warned["loopWarning"]["occurrences"] == 2
    assert {k: v for k, v in warned["fileRuleChurnWarning"].items() if k != "hint"} == {
        "file": "src/a.ts",
        "rule": "TS2322",
        "checkCount": 3,
    }
    assert looping_status["looping"] is True and looping_status["fileChurning"] is True
    # fixed, and the fix held: nothing loops, in the live process or after a restart
    assert live_status["looping"] is False and live_status["fileChurning"] is False
    assert restarted_status == live_status
    assert live_status["checksObserved"] == 2 * len(SEQUENCE)


async def test_two_servers_open_on_one_project_share_one_history(tmp_path: Path) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "shared")
    async with connect(root) as first, connect(root) as second:
        seen: list[dict[str, Any]] = []
        for index, content in enumerate(SEQUENCE[:5]):
            (root / "src" / "a.ts").write_text(content)
            client = first if index % 2 else second
            result = await client.call("check_files", {"files": ["src/a.ts"]})
            seen.append(warnings_of(result.data))
        first_status = (await first.call("get_loop_status")).data
        second_status = (await second.call("get_loop_status")).data
    # the fifth check, by the second server, knows the comebacks the first one saw
    assert sorted(seen[4]) == ["fileRuleChurnWarning", "loopWarning"]
    assert first_status == second_status
    assert first_status["looping"] is True and first_status["checksObserved"] == 5

"""The result cache end to end: reuse, invalidation, recovery and sharing.

Several CLI processes and an MCP server check one project with one state
directory at the same time: no "database is locked", identical results.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from ..conftest import require_engine
from ..helpers import write_executable
from .conftest import connect

pytestmark = [pytest.mark.real, pytest.mark.anyio]

SIGNALINT = Path(sys.executable).parent / "signalint"


def cli_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}


async def cli_check(root: Path, *args: str) -> tuple[int, dict[str, object], str]:
    proc = await asyncio.create_subprocess_exec(
        str(SIGNALINT),
        "check",
        *args,
        cwd=root,
        env=cli_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, json.loads(out), err.decode()


async def test_cli_processes_and_a_server_share_one_cache(demo_project: Path) -> None:
    async with connect(demo_project) as client:
        cli_runs = asyncio.gather(*(cli_check(demo_project) for _ in range(4)))
        server_run = client.call("check_project", {})
        cli_results, server_result = await asyncio.gather(cli_runs, server_run)
        again = await client.call("check_project", {})
    fingerprints = {payload["fingerprint"] for _, payload, _ in cli_results}
    fingerprints |= {server_result.data["fingerprint"], again.data["fingerprint"]}
    assert len(fingerprints) == 1
    for code, payload, err in cli_results:
        assert code == 1 and payload["status"] == "issues_found"
        assert "locked" not in err
    assert (demo_project / ".signalint" / "cache.sqlite").exists()


async def test_a_corrupt_cache_is_moved_aside_and_rebuilt(demo_project: Path) -> None:
    _, first, _ = await cli_check(demo_project)
    database = demo_project / ".signalint" / "cache.sqlite"
    database.write_bytes(b"this is not a database" * 100)
    code, second, err = await cli_check(demo_project)
    assert code == 1 and second["fingerprint"] == first["fingerprint"]
    assert "cache.sqlite" in err
    assert list(database.parent.glob("cache.sqlite.corrupt-*"))
    _, third, err = await cli_check(demo_project)
    assert third["fingerprint"] == first["fingerprint"] and "corrupt" not in err


async def test_only_changed_files_reach_the_engine(tmp_path: Path) -> None:
    real = require_engine("oxlint")
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "p", "private": true}\n')
    (root / ".oxlintrc.json").write_text('{"rules": {"no-debugger": "error"}}\n')
    for name in ("a", "b", "c"):
        (root / "src" / f"{name}.js").write_text(f"export function {name}() {{ debugger; }}\n")
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": True, "tsc": False, "biome": False, "eslint": False}})
    )
    log = tmp_path / "invocations"
    # A project-local wrapper that records each invocation, then runs the real engine.
    write_executable(
        root / "node_modules" / ".bin" / "oxlint", f'echo "$@" >> "{log}"\nexec "{real}" "$@"\n'
    )

    def runs() -> list[str]:
        lines = log.read_text().splitlines() if log.exists() else []
        return [line for line in lines if "--format" in line]

    _, first, _ = await cli_check(root)
    assert first["totalIssues"] == 3 and len(runs()) == 1
    _, second, _ = await cli_check(root)
    assert second["fingerprint"] == first["fingerprint"] and len(runs()) == 1
    (root / "src" / "b.js").write_text("export function b() { return 1; }\n")
    _, third, _ = await cli_check(root)
    assert third["totalIssues"] == 2 and len(runs()) == 2
    assert runs()[-1].endswith("-- src/b.js")
    _, fresh, _ = await cli_check(root, "--no-cache")
    assert fresh["fingerprint"] == third["fingerprint"] and len(runs()) == 3


async def test_cache_clear_empties_the_cache(demo_project: Path) -> None:
    await cli_check(demo_project)

    async def cache_cmd(*args: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            str(SIGNALINT),
            "cache",
            *args,
            cwd=demo_project,
            env=cli_env(),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await proc.communicate()
        assert proc.returncode == 0
        return out.decode()

    assert " 0 result" not in await cache_cmd("info")
    assert "removed" in await cache_cmd("clear")
    assert " 0 results" in await cache_cmd("info")

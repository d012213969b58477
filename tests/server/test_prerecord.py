"""`signalint init` connecting a client records the server's handshake
(`server.prerecord`): the host's first start of `signalint-mcp` is then
answered from the record, for every protocol version the SDK negotiates,
as the SDK answered it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from signalint.engines.resolve import managed_dir
from signalint.server.prerecord import handshake_versions

from .conftest import connect, server_env, write_project

pytestmark = [pytest.mark.real, pytest.mark.anyio]

SIGNALINT = Path(sys.executable).parent / "signalint"


def init(root: Path, home: Path, cache: Path) -> str:
    done = subprocess.run(
        [str(SIGNALINT), "init", "--client", "claude", "--yes"],
        cwd=root, env=server_env(HOME=str(home), XDG_CACHE_HOME=str(cache)),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


async def test_the_hosts_first_start_is_answered_from_what_init_recorded(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p")
    home, cache = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    said = init(root, home, cache)
    assert "Recorded the server's handshake" in said, said
    (record,) = (cache / "signalint" / "mcp").glob("*.json")
    kept = json.loads(record.read_text())
    assert sorted(kept["initialize"]) == sorted(handshake_versions())
    assert [t["name"] for t in kept["tools"]["tools"]]
    log = tmp_path / "host.log"
    async with connect(
        root, stderr=log, HOME=str(home), XDG_CACHE_HOME=str(cache),
        SIGNALINT_ENGINES_DIR=str(managed_dir()),
    ) as host:  # fmt: skip
        assert sorted(host.tools) == sorted(t["name"] for t in kept["tools"]["tools"])
        assert (await host.call("check_project", {})).data["totalIssues"] == 2
    assert "recorded at an earlier start" in log.read_text()
    # Recorded already: a second init starts no server and changes nothing.
    before = record.stat().st_mtime_ns
    assert "Recorded the server's handshake" in init(root, home, cache)
    assert record.stat().st_mtime_ns == before

"""`warm.lsp.LspClient` against a scripted server (tests/warm/fake_lsp.py):
raw requests go out and come back as plain JSON, ignored notifications
never reach a handler, and every other message still does."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from signalint import process
from signalint.process import Command, ProcessResult
from signalint.warm.driver import WorkerFailed
from signalint.warm.lsp_client import LspClient

SERVER = Path(__file__).with_name("fake_lsp.py")
NOISY = "server/progress"


async def _client(tmp_path: Path) -> LspClient:
    started = await process.start(
        Command(argv=(sys.executable, str(SERVER), NOISY), cwd=tmp_path, timeout_s=30),
        stderr_to=tmp_path / "server.log",
    )
    assert not isinstance(started, ProcessResult), started
    return LspClient(started, raw=frozenset({"echo", "fail"}), ignore=frozenset({NOISY}))


def test_raw_requests_are_plain_json_and_ignored_notifications_reach_no_handler(
    tmp_path: Path,
) -> None:
    async def scenario() -> tuple[list[Any], list[Any], list[Any]]:
        client = await _client(tmp_path)
        heard: list[Any] = []
        kept: list[Any] = []
        client.on(NOISY, heard.append)
        client.on("note/kept", kept.append)
        client.attach()
        try:
            answers = await asyncio.wait_for(
                asyncio.gather(*(client.request("echo", {"n": n, "uri": "a"}) for n in range(5))),
                timeout=30,
            )
            with pytest.raises(WorkerFailed, match="fail failed"):
                await asyncio.wait_for(client.request("fail", {}), timeout=30)
            await asyncio.sleep(0.1)  # the notification sent before the error's answer
        finally:
            await client.close()
            await client.child.stop()
        return list(answers), heard, kept

    answers, heard, kept = asyncio.run(scenario())
    assert answers == [{"echo": {"n": n, "uri": "a"}} for n in range(5)]
    assert heard == []
    assert len(kept) == 6


def test_a_request_that_cannot_be_written_fails_instead_of_waiting(tmp_path: Path) -> None:
    async def scenario() -> None:
        client = await _client(tmp_path)
        client.attach()
        try:
            with pytest.raises(WorkerFailed, match="could not be written"):
                await asyncio.wait_for(client.request("echo", {"x": object()}), timeout=30)
        finally:
            await client.close()
            await client.child.stop()

    asyncio.run(scenario())

"""The server tidies its memory only when idle after a tool call's answer (`server.idle`)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from signalint.pipeline import runtime
from signalint.server.idle import Idle

DELAY = 0.02


@pytest.fixture
def full_collections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The interpreter's full collections while the test runs (gc.callbacks)."""
    monkeypatch.setattr(runtime, "_long_lived", [True])  # as in the server
    seen: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


def test_tidies_after_an_answer_once_no_call_is_in_flight(full_collections: list[int]) -> None:
    async def scenario() -> None:
        idle = Idle(DELAY)
        idle.begin()
        idle.begin()
        idle.end()
        idle.written()  # one call still runs: its progress, or the other's answer
        await asyncio.sleep(DELAY * 5)
        assert full_collections == []
        idle.end()
        idle.written()
        await asyncio.sleep(DELAY * 5)
        assert len(full_collections) == 1
        idle.written()  # nothing answered since: no second tidy
        await asyncio.sleep(DELAY * 5)
        assert len(full_collections) == 1

    asyncio.run(scenario())


def test_a_call_arriving_sooner_cancels_the_tidy(full_collections: list[int]) -> None:
    async def scenario() -> None:
        idle = Idle(DELAY)
        idle.begin()
        idle.end()
        idle.written()
        idle.begin()  # the next call, within the quiet time
        await asyncio.sleep(DELAY * 5)
        assert full_collections == []
        idle.end()
        idle.written()
        await asyncio.sleep(DELAY * 5)
        assert len(full_collections) == 1

    asyncio.run(scenario())


def test_nothing_is_tidied_outside_a_long_lived_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "_long_lived", [])
    seen: list[str] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(phase)

    gc.callbacks.append(note)
    try:
        runtime.tidy()
    finally:
        gc.callbacks.remove(note)
    assert seen == []

"""The engines kept warm, by name: one line per driver module.

Imported only when a pool first serves a command, so a process that never
keeps engines warm never loads a driver.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from signalint.engines.base import EngineContext
from signalint.process import Command
from signalint.warm.pool import Driver, Session, WorkerFailed, WorkerKey


def drivers() -> Mapping[str, Driver]:
    """Every warm driver, by engine name."""
    from signalint.warm import eslint, mypy, oxlint, pyright, tsc
    from signalint.warm.tsc_native import NativeTscDriver

    # TypeScript 5 and 6 through the compiler API, 7 through its native API.
    typescript = Either(tsc.DRIVER, NativeTscDriver())
    every: tuple[Driver, ...] = (
        eslint.DRIVER,
        mypy.DRIVER,
        oxlint.DRIVER,
        pyright.DRIVER,
        typescript,
    )
    return {driver.engine: driver for driver in every}


class Either:
    """Drivers of one engine for different versions of it: a command goes to
    the first whose `key` takes it (each declines the versions it does not
    serve)."""

    def __init__(self, *choices: Driver) -> None:
        self.engine = choices[0].engine
        self._choices = choices

    def _taken(self, ctx: EngineContext, command: Command) -> tuple[Driver, WorkerKey] | None:
        for index, driver in enumerate(self._choices):
            key = driver.key(ctx, command)
            if key is not None:
                return driver, WorkerKey(f"{index}:{key.slot}", key.state)
        return None

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        taken = self._taken(ctx, command)
        return None if taken is None else taken[1]

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> Session:
        taken = self._taken(ctx, command)
        if taken is None:
            raise WorkerFailed("no driver serves this command any longer")
        return await taken[0].open(ctx, command, log)

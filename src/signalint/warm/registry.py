"""The engines kept warm, by name: one line per driver module.

Imported only when a pool first serves a command, so a process that never
keeps engines warm never loads a driver; and each driver's module is
imported only when a command of its engine is first offered, so a server
checking a TypeScript project never loads Pyright's language client
(pygls and lsprotocol: about 17 MiB of a server's resident memory,
docs/benchmarks.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from signalint.engines.base import EngineContext
from signalint.process import Command
from signalint.warm.driver import Driver, Session, WorkerFailed, WorkerKey


def _typescript() -> Driver:
    # TypeScript 5 and 6 through the compiler API, 7 through its native API.
    from signalint.warm import tsc
    from signalint.warm.tsc_native import NativeTscDriver

    return Either(tsc.DRIVER, NativeTscDriver())


def _module(name: str) -> Callable[[], Driver]:
    def load() -> Driver:
        driver: Driver = importlib.import_module(f"signalint.warm.{name}").DRIVER
        return driver

    return load


# Engine name -> how to make its driver.
LOADERS: dict[str, Callable[[], Driver]] = {
    "basedpyright": _module("basedpyright"),
    "eslint": _module("eslint"),
    "mypy": _module("mypy"),
    "oxlint": _module("oxlint"),
    "pyright": _module("pyright"),
    "tsc": _typescript,
    "ty": _module("ty"),
}


class Drivers(Mapping[str, Driver]):
    """Every warm driver by engine name, each loaded at its first lookup."""

    def __init__(self, loaders: Mapping[str, Callable[[], Driver]]) -> None:
        self._loaders = loaders
        self._loaded: dict[str, Driver] = {}

    def __getitem__(self, engine: str) -> Driver:
        found = self._loaded.get(engine)
        if found is None:
            found = self._loaded[engine] = self._loaders[engine]()
        return found

    def __contains__(self, engine: object) -> bool:
        return engine in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


def drivers() -> Mapping[str, Driver]:
    """Every warm driver, by engine name (each module imported when first asked for)."""
    return Drivers(LOADERS)


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
